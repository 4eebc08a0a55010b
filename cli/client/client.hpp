// coffer::client::Client — authenticated JSON calls to a located daemon.
#pragma once

#include "client/http.hpp"
#include "client/vault.hpp"
#include "core/error.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::client {

struct ApiReply {
    enum class Outcome {
        ok,          // 2xx with a JSON body (or none)
        api_error,   // the daemon answered with an error (envelope in `body`, parsed in `error`)
        unreachable, // no exchange happened (connection refused, timeout …)
    };
    Outcome outcome = Outcome::unreachable;
    int status = 0;              // HTTP status, 0 when unreachable
    core::Error error;           // when not ok
    std::string trace;           // X-Coffer-Trace of the response
    // The body exactly as the daemon sent it, so `--json` can print it without re-serialising
    // (or parsing: a 2xx body is only validated). A copy drops it: copies are made to reshape the
    // body, and must not print the old text.
    std::string raw;

    bool ok() const noexcept { return outcome == Outcome::ok; }
    // The body parsed (null if empty or not JSON), on first use: `--json` output never needs it.
    const boost::json::value& body() const;
    void set_body(boost::json::value v);  // replaces the body (and drops `raw`)

    ApiReply() = default;
    ApiReply(ApiReply&&) noexcept = default;
    ApiReply& operator=(ApiReply&&) noexcept = default;
    ApiReply(const ApiReply& other)
        : outcome(other.outcome), status(other.status), error(other.error), trace(other.trace),
          body_(other.body()), parsed_(true) {}
    ApiReply& operator=(const ApiReply& other) {
        if (this != &other) *this = ApiReply(other);
        return *this;
    }

private:
    mutable boost::json::value body_;
    mutable bool parsed_ = false;
};

struct ClientOptions {
    std::string actor = "cli"; // X-Coffer-Actor
    HttpTimeouts timeouts{};
};

class Client {
public:
    Client(std::filesystem::path vault, DaemonInfo info, ClientOptions options = {});

    // One call: `target` is a path such as api_path({"resources"}) (with query if any); `body`
    // is sent as JSON. On 401 daemon.json is read again (the token may have been rotated) and
    // the call is retried once.
    ApiReply call(std::string_view method, std::string target,
                  const std::optional<boost::json::value>& body = std::nullopt);

    // The raw exchange (no JSON interpretation), with the same auth and 401 retry.
    core::Result<HttpResponse> send(std::string_view method, std::string target,
                                    std::optional<std::string> body = std::nullopt,
                                    Headers extra_headers = {});

    const DaemonInfo& info() const noexcept { return info_; }
    const std::filesystem::path& vault() const noexcept { return vault_; }

private:
    core::Result<HttpResponse> send_once(std::string_view method, const std::string& target,
                                         const std::optional<std::string>& body,
                                         const Headers& extra_headers);

    std::filesystem::path vault_;
    DaemonInfo info_;
    ClientOptions options_;
};

}  // namespace coffer::client
