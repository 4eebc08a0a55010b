#include "client/client.hpp"

#include "client/codes.hpp"
#include "client/errors.hpp"

#include <coffer/raw_json.hpp>

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace coffer::client {
namespace json = boost::json;

Client::Client(std::filesystem::path vault, DaemonInfo info, ClientOptions options)
    : vault_(std::move(vault)), info_(std::move(info)), options_(std::move(options)) {}

core::Result<HttpResponse> Client::send_once(std::string_view method, const std::string& target,
                                             const std::optional<std::string>& body,
                                             const Headers& extra_headers) {
    HttpRequest req;
    req.method = std::string(method);
    req.port = info_.port;
    req.target = target;
    req.headers = {{"X-Coffer-Token", info_.token},
                   {"X-Coffer-Actor", options_.actor},
                   {"Accept", "application/json"}};
    if (body) req.headers.emplace_back("Content-Type", "application/json");
    for (const auto& h : extra_headers) req.headers.push_back(h);
    req.body = body;
    return http_send(req, options_.timeouts);
}

core::Result<HttpResponse> Client::send(std::string_view method, std::string target,
                                        std::optional<std::string> body, Headers extra_headers) {
    auto res = send_once(method, target, body, extra_headers);
    if (res && res->status == 401) {
        if (auto fresh = read_daemon_info(vault_); fresh) {
            info_ = std::move(fresh).value();
            res = send_once(method, target, body, extra_headers);
        }
    }
    return res;
}

ApiReply Client::call(std::string_view method, std::string target,
                      const std::optional<json::value>& body) {
    std::optional<std::string> text;
    if (body) text = json::serialize(*body);
    auto res = send(method, std::move(target), std::move(text));

    ApiReply reply;
    if (!res) {
        reply.outcome = ApiReply::Outcome::unreachable;
        reply.error = std::move(res).error();
        return reply;
    }
    reply.status = res->status;
    reply.trace = res->header("X-Coffer-Trace").value_or("");
    reply.raw = std::move(res->body);
    if (res->status >= 200 && res->status < 300) {
        // Validated without building a document: `--json` prints the text as it came.
        if (!reply.raw.empty() && !raw_json::valid(reply.raw)) {
            reply.outcome = ApiReply::Outcome::api_error;
            reply.error = core::Error::make(code::bad_response,
                                            "the daemon answered HTTP " + std::to_string(res->status) +
                                                " with a body that is not JSON");
            return reply;
        }
        reply.outcome = ApiReply::Outcome::ok;
        return reply;
    }
    reply.outcome = ApiReply::Outcome::api_error;
    reply.error = error_from_json(res->status, reply.body());
    return reply;
}

const json::value& ApiReply::body() const {
    if (!parsed_) {
        parsed_ = true;
        if (!raw.empty()) {
            // One arena for the whole document: a list of a thousand resources is tens of
            // thousands of small nodes, and the CLI lives for one call.
            boost::system::error_code ec;
            body_ = json::parse(raw, ec, json::make_shared_resource<json::monotonic_resource>());
            if (ec) body_ = nullptr;
        }
    }
    return body_;
}

void ApiReply::set_body(json::value v) {
    body_ = std::move(v);
    parsed_ = true;
    raw.clear();
}

}  // namespace coffer::client
