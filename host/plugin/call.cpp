#include "plugin/call.hpp"

#include "core/log.hpp"

#include <boost/json.hpp>

#include <exception>

namespace coffer::plugin {

namespace json = boost::json;
using core::Error;

namespace {
std::string_view code_for(coffer_status st, bool has_errors) {
    switch (st) {
        case COFFER_E_INVALID: return has_errors ? core::code::validation_failed : core::code::bad_request;
        case COFFER_E_NOT_FOUND: return core::code::not_found;
        case COFFER_E_CONFLICT: return core::code::conflict;
        case COFFER_E_DENIED: return core::code::forbidden;
        case COFFER_E_UNSUPPORTED: return core::code::unsupported;
        case COFFER_E_UNAVAILABLE: return core::code::unavailable;
        default: return core::code::plugin_error;
    }
}

Error contained(Plugin& p, std::string_view hook, const std::string& what) {
    std::string msg = "plugin '" + p.name + "' threw an exception from " + std::string(hook) + ": " + what;
    p.error = msg;
    core::log::error("plugin hook threw", {{"plugin", p.name}, {"hook", hook}, {"what", what}});
    return Error::make(core::code::plugin_error, msg);
}
}  // namespace

core::Result<json::value> call(Plugin& p, std::string_view hook, const std::function<coffer_status(coffer_reply*)>& fn) {
    std::lock_guard<std::recursive_mutex> g(p.mu);
    if (p.status != Status::loaded)
        return Error::make(core::code::unavailable, "plugin '" + p.name + "' is not loaded: " + p.error);
    coffer_reply reply;
    coffer_status st;
    try {
        st = fn(&reply);
    } catch (const std::exception& e) {
        return contained(p, hook, e.what());
    } catch (...) {
        return contained(p, hook, "unknown exception");
    }
    if (st == COFFER_OK && !reply.has_error) {
        if (!reply.has_json || reply.json.empty()) return json::value(nullptr);
        boost::system::error_code ec;
        auto v = json::parse(reply.json, ec);
        if (ec)
            return Error::make(core::code::plugin_error,
                               "plugin '" + p.name + "' returned malformed JSON from " + std::string(hook));
        return v;
    }
    if (st == COFFER_OK) st = reply.status == COFFER_OK ? COFFER_E_INTERNAL : reply.status;
    json::value details = nullptr;
    if (!reply.details.empty()) {
        boost::system::error_code ec;
        details = json::parse(reply.details, ec);
        if (ec) details = json::object{{"raw", reply.details}};
    }
    bool has_errors = details.is_object() && details.as_object().contains("errors");
    std::string message = reply.message.empty() ? "plugin '" + p.name + "' failed in " + std::string(hook)
                                                : reply.message;
    return Error::make(code_for(st, has_errors), message, details);
}

}  // namespace coffer::plugin
