// What every route table needs: who is calling (the X-Coffer-Actor header the CLI and shim send;
// absent or unknown is "api"), and a result answered as {key: value}.
#pragma once

#include "api/router.hpp"
#include "core/result.hpp"
#include "http/message.hpp"
#include "resource/model.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <utility>

namespace coffer::api {

inline resource::Actor request_actor(const http::Request& r) {
    auto* a = r.header("x-coffer-actor");
    return resource::actor_from(a ? *a : std::string());
}

inline std::string request_actor_name(const http::Request& r) { return resource::to_string(request_actor(r)); }

// A success as `status` with the body {key: value}; an error as it is.
template <typename T> core::Result<Reply> wrap(core::Result<T> r, const char* key, int status = 200) {
    if (!r) return std::move(r).error();
    return Reply{status, boost::json::object{{key, std::move(r).value()}}};
}

}  // namespace coffer::api
