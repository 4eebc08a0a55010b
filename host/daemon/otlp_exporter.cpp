// OTLP/HTTP JSON export of the gateway's spans (see otlp_exporter.hpp).
#include "daemon/otlp_exporter.hpp"

#include "core/log.hpp"

#include <boost/asio/buffers_iterator.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <boost/json.hpp>

namespace coffer::daemon {

namespace json = boost::json;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kBatch = 512;
constexpr std::size_t kMaxPending = 4096;
constexpr auto kInterval = std::chrono::seconds(1);
constexpr auto kRequestTimeout = std::chrono::seconds(5);

json::object attr(std::string_view key, std::string_view v) {
    return json::object{{"key", key}, {"value", json::object{{"stringValue", v}}}};
}
json::object attr(std::string_view key, std::int64_t v) {
    return json::object{{"key", key}, {"value", json::object{{"intValue", std::to_string(v)}}}};  // OTLP JSON: as a string
}

// One POST: resolve, connect, write, read the answer to its end; `done(status)` once (0: no answer).
struct Post : std::enable_shared_from_this<Post> {
    Post(asio::io_context& io, std::string request, std::function<void(int)> done)
        : resolver(io), socket(io), timer(io), request(std::move(request)), done(std::move(done)) {}
    tcp::resolver resolver;
    tcp::socket socket;
    asio::steady_timer timer;
    std::string request;
    asio::streambuf answer;
    std::function<void(int)> done;
    bool finished = false;

    void finish(int status) {
        if (finished) return;
        finished = true;
        timer.cancel();
        boost::system::error_code ignored;
        socket.close(ignored);
        resolver.cancel();
        done(status);
    }
    void start(const std::string& host, const std::string& port) {
        auto self = shared_from_this();
        timer.expires_after(kRequestTimeout);
        timer.async_wait([self](boost::system::error_code ec) { if (!ec) self->finish(0); });
        resolver.async_resolve(host, port, [self](boost::system::error_code ec, tcp::resolver::results_type r) {
            if (ec) return self->finish(0);
            asio::async_connect(self->socket, r, [self](boost::system::error_code ec, const tcp::endpoint&) {
                if (ec) return self->finish(0);
                asio::async_write(self->socket, asio::buffer(self->request), [self](boost::system::error_code ec, std::size_t) {
                    if (ec) return self->finish(0);
                    asio::async_read(self->socket, self->answer, [self](boost::system::error_code, std::size_t) {
                        // The status line: "HTTP/1.1 200 OK".
                        std::string head(asio::buffers_begin(self->answer.data()),
                                         asio::buffers_begin(self->answer.data()) +
                                             static_cast<std::ptrdiff_t>(std::min<std::size_t>(self->answer.size(), 16)));
                        int status = 0;
                        if (head.rfind("HTTP/1.", 0) == 0 && head.size() >= 12) status = std::atoi(head.c_str() + 9);
                        self->finish(status);
                    });
                });
            });
        });
    }
};

}  // namespace

core::Result<std::shared_ptr<OtlpExporter>> OtlpExporter::create(asio::io_context& net, const std::string& endpoint,
                                                                   std::string version) {
    auto bad = [&](const std::string& why) {
        return core::Error::make(core::code::bad_request, "COFFER_OTLP_ENDPOINT '" + endpoint + "' " + why +
                                                              " (expected http://host[:port][/path])");
    };
    if (endpoint.rfind("http://", 0) != 0) return bad("is not an http:// URL");
    auto rest = endpoint.substr(7);
    auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash), path = slash == std::string::npos ? "" : rest.substr(slash);
    if (authority.empty() || authority.find('@') != std::string::npos) return bad("has no plain host");
    std::string host = authority, port = "80";
    if (auto colon = authority.rfind(':'); colon != std::string::npos && authority.back() != ']') {
        host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
        if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) return bad("has a bad port");
    }
    if (!host.empty() && host.front() == '[') host = host.substr(1, host.size() - 2);
    while (!path.empty() && path.back() == '/') path.pop_back();
    if (path.size() < 10 || path.substr(path.size() - 10) != "/v1/traces") path += "/v1/traces";
    return std::make_shared<OtlpExporter>(net, host, port, path, std::move(version));
}

OtlpExporter::OtlpExporter(asio::io_context& net, std::string host, std::string port, std::string path, std::string version)
    : net_(net), host_(std::move(host)), port_(std::move(port)), path_(std::move(path)), version_(std::move(version)),
      timer_(net) {}

mcp::trace::SpanSink OtlpExporter::sink() {
    return [w = weak_from_this()](mcp::trace::Finished span) {
        if (auto self = w.lock()) self->add(std::move(span));
    };
}

void OtlpExporter::stop() {
    stopped_ = true;
    timer_.cancel();
}

void OtlpExporter::add(mcp::trace::Finished span) {
    if (stopped_) return;
    if (pending_.size() >= kMaxPending) {
        ++dropped_;
        return;
    }
    pending_.push_back(std::move(span));
    if (pending_.size() >= kBatch && !in_flight_) return flush();
    schedule();
}

void OtlpExporter::schedule() {
    if (scheduled_ || stopped_) return;
    scheduled_ = true;
    timer_.expires_after(kInterval);
    timer_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
        auto self = w.lock();
        if (!self || ec) return;
        self->scheduled_ = false;
        self->flush();
    });
}

std::string OtlpExporter::body(const std::vector<mcp::trace::Finished>& spans) const {
    json::array out;
    for (auto& f : spans) {
        json::array attrs{attr("rpc.system", "jsonrpc"), attr("mcp.method.name", std::string_view(f.name).substr(0, f.name.find(' '))),
                          attr("coffer.server", f.server), attr("coffer.target", f.target), attr("coffer.outcome", f.outcome)};
        if (f.error_code) attrs.push_back(attr("rpc.jsonrpc.error_code", *f.error_code));
        json::object s{{"traceId", f.span.trace_id},
                       {"spanId", f.span.span_id},
                       {"name", f.name},
                       {"kind", 2},  // SPAN_KIND_SERVER
                       {"startTimeUnixNano", std::to_string(f.start_unix_ns)},
                       {"endTimeUnixNano", std::to_string(f.end_unix_ns)},
                       {"attributes", std::move(attrs)},
                       {"status", json::object{{"code", f.outcome == "ok" ? 1 : 2}}}};  // OK / ERROR
        if (!f.span.parent_span_id.empty()) s["parentSpanId"] = f.span.parent_span_id;
        out.push_back(std::move(s));
    }
    json::object resource{{"attributes", json::array{attr("service.name", "coffer-daemon"), attr("service.version", version_)}}};
    json::object scope{{"scope", json::object{{"name", "coffer.mcp.gateway"}}}, {"spans", std::move(out)}};
    return json::serialize(json::object{
        {"resourceSpans", json::array{json::object{{"resource", std::move(resource)},
                                                   {"scopeSpans", json::array{std::move(scope)}}}}}});
}

void OtlpExporter::flush() {
    if (in_flight_ || pending_.empty() || stopped_) return;
    std::vector<mcp::trace::Finished> batch;
    if (pending_.size() > kBatch) {
        batch.assign(std::make_move_iterator(pending_.begin()), std::make_move_iterator(pending_.begin() + kBatch));
        pending_.erase(pending_.begin(), pending_.begin() + kBatch);
    } else {
        batch.swap(pending_);
    }
    auto payload = body(batch);
    std::string req = "POST " + path_ + " HTTP/1.1\r\nHost: " + host_ + ":" + port_ +
                      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(payload.size()) +
                      "\r\nConnection: close\r\n\r\n" + payload;
    in_flight_ = true;
    auto n = batch.size();
    auto post = std::make_shared<Post>(net_, std::move(req), [w = weak_from_this(), n](int status) {
        auto self = w.lock();
        if (!self) return;
        self->in_flight_ = false;
        if (status >= 200 && status < 300) self->exported_ += n;
        else {
            self->dropped_ += n;
            auto now = std::chrono::steady_clock::now();
            if (now - self->last_warning_ > std::chrono::minutes(1)) {
                self->last_warning_ = now;
                core::log::warn("otlp export failed; spans dropped",
                                {{"endpoint", self->host_ + ":" + self->port_ + self->path_}, {"status", status},
                                 {"dropped_total", static_cast<std::int64_t>(self->dropped_)}});
            }
        }
        if (!self->pending_.empty()) self->schedule();
    });
    post->start(host_, port_);
}

}  // namespace coffer::daemon
