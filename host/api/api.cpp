// The REST surface /api/v1/* (see api.hpp): Host/Origin guard, token, JSON bodies, routing onto
// the service thread, the error envelope.
#include "api/api.hpp"

#include "api/guard.hpp"
#include "api/media_type.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "core/utf8.hpp"
#include "metrics/exposition.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <atomic>
#include <chrono>
#include <optional>

namespace coffer::api {

namespace json = boost::json;
using core::Error;

http::Response error_response(int status, const std::string& code, const std::string& message, const std::string& trace) {
    auto res = error_response(Error{code, message, nullptr}, trace);
    res.status = status;
    return res;
}

namespace {

// On a quiet surface an answer this slow (µs) is still logged.
constexpr std::int64_t kSlowAnswerUs = 1'000'000;

// Error messages and details echo what the client sent (a name from the path, a key): bytes that
// are not UTF-8 are written as the text \xNN, so the envelope stays valid JSON.
json::value valid_utf8(const json::value& v) {
    switch (v.kind()) {
    case json::kind::string: return json::value(core::utf8::escape_invalid(v.get_string()));
    case json::kind::array: {
        json::array out;
        for (const auto& e : v.get_array()) out.push_back(valid_utf8(e));
        return out;
    }
    case json::kind::object: {
        json::object out;
        for (const auto& kv : v.get_object()) out[core::utf8::escape_invalid(kv.key())] = valid_utf8(kv.value());
        return out;
    }
    default: return v;
    }
}

}  // namespace

http::Response error_response(const Error& e, const std::string& trace) {
    http::Response res;
    res.status = core::http_status(e.code);
    json::object err{{"code", core::utf8::escape_invalid(e.code)},
                     {"message", core::utf8::escape_invalid(e.message)},
                     {"details", e.details.is_null() ? json::value(json::object{}) : valid_utf8(e.details)}};
    res.body = json::serialize(json::object{{"error", std::move(err)}});
    res.headers.emplace_back("X-Coffer-Trace", trace);
    return res;
}

namespace {
// REST bodies are JSON: a body of another type is refused (415), not parsed on a guess. A request
// without a body needs no Content-Type. The MCP surfaces answer their own JSON-RPC shaped 415.
std::optional<http::Response> media_type_refusal(const http::Request& req, const std::string& trace) {
    if (req.body.empty() || req.path.rfind("/api/v1/", 0) != 0) return std::nullopt;
    auto* type = req.header("content-type");
    if (type && is_json_media_type(*type)) return std::nullopt;
    return error_response(415, "UNSUPPORTED_MEDIA_TYPE",
                          (type ? "unsupported Content-Type '" + type->substr(0, 100) + "'"
                                : std::string("a request body without Content-Type")) +
                              "; send the body as JSON with Content-Type: application/json",
                          trace);
}
}  // namespace

Api::Api(Context ctx, boost::asio::any_io_executor service) : ctx_(ctx), service_(std::move(service)) {}

const Mount* Api::mount_for(const std::string& path) const {
    for (auto& m : mounts_)
        for (auto& p : m.paths)
            if (path == p) return &m;
    return nullptr;
}

void Api::handle(http::Request&& req, http::Respond respond) {
    auto trace = core::trace_id();
    auto started = std::chrono::steady_clock::now();
    const Mount* mount = mount_for(req.path);
    bool quiet = mount && mount->quiet;
    auto finish = [this, trace, started, quiet, method = req.method, path = req.path, respond](http::Response res) {
        bool has_trace = false;
        for (auto& h : res.headers) has_trace |= h.first == "X-Coffer-Trace";
        if (!has_trace) res.headers.emplace_back("X-Coffer-Trace", trace);
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started).count();
        int status = res.status;
        if (status >= 100 && status < 600)
            answered_[static_cast<std::size_t>(status / 100 - 1)].fetch_add(1, std::memory_order_relaxed);
        respond(std::move(res));  // first: on the network thread this sends it; the log line can wait
        if (quiet && status < 400 && us < kSlowAnswerUs) return;
        core::log::info("http", {{"trace", trace}, {"method", method}, {"path", path}, {"status", status},
                                 {"duration_us", us}});
    };

    auto refuse = [&](int status, const std::string& code, const std::string& message) {
        return finish(mount && mount->refusal ? mount->refusal(status, code, message, trace)
                                              : error_response(status, code, message, trace));
    };
    if (auto refusal = check_origin(req)) return refuse(403, "FORBIDDEN", *refusal);
    if (!mount && req.path.rfind("/api/v1/", 0) != 0)
        return finish(error_response(404, "NOT_FOUND", "no such endpoint: " + req.path, trace));
    if (mount && mount->open) return mount->handler(std::move(req), finish);
    auto* token = req.header("x-coffer-token");
    if (!token || !core::constant_time_equal(*token, ctx_.daemon.token())) {
        // A browser session may stand in for the token on /api/v1 (never on /mcp or /metrics).
        SessionCheck session;
        if (!token && !mount && sessions_) session = sessions_(req);
        if (session.outcome == SessionCheck::Outcome::refused) return refuse(403, "FORBIDDEN", session.why);
        if (session.outcome != SessionCheck::Outcome::valid)
            return refuse(401, "UNAUTHORIZED",
                          token ? "invalid X-Coffer-Token (rotated? re-read daemon.json)"
                                : "missing X-Coffer-Token header (the token is in $COFFER_HOME/daemon.json)");
    }
    if (mount) {
        if (auto refusal = media_type_refusal(req, trace)) return finish(std::move(*refusal));
        return mount->handler(std::move(req), finish);
    }
    Params params;
    bool path_known = false;
    auto* fn = router_.match(req.method, req.path, params, path_known);
    if (!fn) {
        if (path_known) return finish(error_response(405, "BAD_REQUEST", req.method + " is not allowed on " + req.path, trace));
        return finish(error_response(404, "NOT_FOUND", "no such endpoint: " + req.method + " " + req.path, trace));
    }
    if (auto refusal = media_type_refusal(req, trace)) return finish(std::move(*refusal));
    boost::asio::post(service_, [fn, req = std::move(req), params = std::move(params), trace, finish]() {
        // Whatever happens (a throw after answering included), the request is answered once.
        auto answered = std::make_shared<std::atomic<bool>>(false);
        Done done = [answered, trace, finish](core::Result<Reply> out) {
            if (answered->exchange(true)) return;
            if (!out) return finish(error_response(out.error(), trace));
            http::Response res;
            res.status = out->status;
            if (out->on_stream) {
                res.content_type = out->content_type.empty() ? "text/event-stream" : out->content_type;
                res.on_stream = std::move(out->on_stream);
            } else {
                res.body = out->json_text.empty() ? json::serialize(out->body) : std::move(out->json_text);
            }
            for (auto& h : out->headers) res.headers.push_back(std::move(h));
            finish(std::move(res));
        };
        try {
            (*fn)(req, params, done);
        } catch (const std::exception& e) {
            core::log::error("handler threw", {{"trace", trace}, {"what", e.what()}});
            done(Error::make(core::code::internal, std::string("internal error: ") + e.what()));
        }
    });
}

void Api::write_metrics(metrics::Writer& w) const {
    w.family("coffer_http_responses_total", "counter", "HTTP answers of the daemon by status class (REST, MCP, console, metrics)");
    static constexpr const char* kClass[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};
    for (std::size_t i = 0; i < answered_.size(); ++i)
        w.sample("coffer_http_responses_total", {{"code", kClass[i]}}, answered_[i].load(std::memory_order_relaxed));
}

}  // namespace coffer::api
