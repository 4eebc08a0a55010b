// Live invocations over SSE (see invocation_stream.hpp).
#include "daemon/invocation_stream.hpp"

#include "chat/sse_stream.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <memory>

namespace coffer::daemon {

namespace json = boost::json;

namespace {
constexpr const char* kTopic = "mcp/invocations";
}

void add_invocation_stream(api::Api& api, curation::InvocationLog& log, events::Bus& bus,
                           boost::asio::any_io_executor network, std::chrono::milliseconds heartbeat) {
    auto seq = std::make_shared<std::atomic<std::uint64_t>>(0);
    log.observe([&bus, seq](const curation::Invocation& inv) {
        if (bus.subscribers(kTopic) == 0) return;  // nobody watches: not even the JSON is built
        json::object o{{"ts", inv.ts_ms},
                       {"session", inv.session},
                       {"agent", inv.agent},
                       {"server", inv.server},
                       {"type", curation::to_string(inv.type)},
                       {"target", inv.target},
                       {"duration_ms", inv.duration_ms},
                       {"outcome", inv.outcome},
                       {"error_code", inv.error_code ? json::value(*inv.error_code) : json::value(nullptr)}};
        auto msg = std::make_shared<events::Message>();
        msg->type = "invocation";
        msg->json = json::serialize(o);
        bus.publish(kTopic, std::move(msg), ++*seq);
    });
    auto drainer = std::make_shared<chat::Drainer>(network);
    api.add_route("GET", "/api/v1/mcp/invocations/events",
                  [&bus, drainer, heartbeat](const http::Request& r, const api::Params&) -> core::Result<api::Reply> {
                      auto stream = std::make_shared<chat::SseStream>(drainer, bus, heartbeat);
                      stream->set_subscription(bus.subscribe(kTopic, stream->waker()));
                      if (r.peer) r.peer->on_disconnect([stream] { stream->close(); });
                      api::Reply out;
                      out.content_type = "text/event-stream";
                      out.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
                      out.on_stream = [stream](std::shared_ptr<http::Stream> s) {
                          stream->start(std::move(s), "retry: 2000\n\n");
                      };
                      return out;
                  });
}

}  // namespace coffer::daemon
