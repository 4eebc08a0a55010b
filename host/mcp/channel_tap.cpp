// IM channels into a client's own agent session (ADR 0041): a session whose initialize named
// channels listens to them through the channel core (mcp/channel_port.hpp); their owner's
// messages become `notifications/claude/channel` on the session's stream, and the built-in tool
// `coffer__channel_reply` answers through the core's outbound gate.
#include "mcp/session.hpp"

#include "curation/invocations.hpp"

#include "core/log.hpp"
#include "mcp/bridge.hpp"
#include "mcp/builtin_search.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>

namespace coffer::mcp {

namespace json = boost::json;

namespace {

// Held by its session only (the core keeps a weak reference): a closed session's tap is gone,
// and the core keeps what arrives for the next listener.
class Tap final : public ChannelListener {
public:
    Tap(boost::asio::any_io_executor net, std::weak_ptr<Session> session)
        : net_(std::move(net)), session_(std::move(session)) {}
    bool deliver(const ChannelMessage& m) override {
        if (session_.expired()) return false;
        boost::asio::post(net_, [w = session_, m] {
            if (auto s = w.lock()) s->channel_message(m);
        });
        return true;
    }
    void permission(const std::string& request_id, const std::string& behavior) override {
        boost::asio::post(net_, [w = session_, request_id, behavior] {
            auto s = w.lock();
            if (!s || s->closed()) return;
            s->send(rpc::notification("notifications/claude/channel/permission",
                                      json::serialize(json::object{{"request_id", request_id}, {"behavior", behavior}})));
        });
    }

private:
    boost::asio::any_io_executor net_;
    std::weak_ptr<Session> session_;
};

}  // namespace

const std::vector<std::string>& Session::channels() const {
    static const std::vector<std::string> none;
    return env_.channels ? who_.channels : none;
}

void Session::listen_channels() {
    if (channels().empty() || channel_tap_) return;
    channel_tap_ = std::make_shared<Tap>(env_.net, weak_from_this());
    for (auto& name : who_.channels) {
        env_.channels->listen(name, channel_tap_, [net = env_.net, w = weak_from_this(), name](std::string error) {
            if (error.empty()) return;
            boost::asio::post(net, [w, name, error] {
                auto s = w.lock();
                if (!s || s->closed()) return;
                core::log::warn("mcp session cannot listen to a channel", {{"session", s->id()}, {"channel", name}, {"error", error}});
                s->send(rpc::notification("notifications/message",
                                          json::serialize(json::object{{"level", "warning"},
                                                                       {"logger", "coffer"},
                                                                       {"data", "channel " + name + ": " + error}})));
            });
        });
    }
    core::log::info("mcp session listens to channels", {{"session", id_}, {"channels", static_cast<std::int64_t>(who_.channels.size())}});
}

// Claude Code asks whether a tool may run: the question goes to the owner of every channel this
// session listens to; the first answer comes back as notifications/claude/channel/permission.
void Session::permission_request(const json::object& params) {
    if (channels().empty() || !channel_tap_) return;
    auto field = [&](const char* key, std::size_t max) {
        auto* v = params.if_contains(key);
        std::string s = v && v->is_string() ? std::string(v->as_string()) : std::string();
        return s.size() > max ? s.substr(0, max) + "…" : s;
    };
    PermissionRequest r{field("request_id", 16), field("tool_name", 200), field("description", 1000),
                        field("input_preview", 1500)};
    if (r.request_id.empty()) return;
    for (auto& name : who_.channels) env_.channels->ask(name, channel_tap_, r);
}

void Session::channel_message(const ChannelMessage& m) {
    if (closed_) {
        core::log::warn("a channel message reached a session that had just closed", {{"channel", m.channel}});
        return;
    }
    // Claude Code shows it as <channel source="…" k="v" …>content</channel>; meta keys are
    // identifiers (it drops others).
    json::object meta{{"channel", m.channel}, {"chat_id", m.chat}, {"message_id", m.message_id},
                      {"user", m.sender_name}, {"ts", m.received_at}};
    if (!m.thread.empty()) meta["thread_id"] = m.thread;
    send(rpc::notification("notifications/claude/channel",
                           json::serialize(json::object{{"content", m.text}, {"meta", std::move(meta)}})));
}

void Session::channel_reply(const std::shared_ptr<Exchange>& ex, const json::object& args) {
    // The tool's one text block, logged as a tool error or a success.
    auto respond = [](Session& s, const std::shared_ptr<Exchange>& ex, const std::string& text, bool error) {
        s.end_invocation(ex, error ? curation::outcome::tool_error : curation::outcome::ok, std::nullopt);
        s.answer(ex, rpc::result(ex->id, bridge::result(ex->version, "tools/call", builtin::text_result(text, error))));
    };
    auto tool_error = [&](const std::string& why) { respond(*this, ex, why, true); };
    auto text_of = [&](const char* key) {
        auto* v = args.if_contains(key);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    auto& listening = channels();
    if (listening.empty()) return tool_error("this session listens to no channel");
    auto channel = text_of("channel");
    if (channel.empty()) {
        if (listening.size() > 1) return tool_error("this session listens to several channels: name one in \"channel\"");
        channel = listening.front();
    } else if (std::find(listening.begin(), listening.end(), channel) == listening.end()) {
        return tool_error("this session does not listen to channel '" + channel + "'");
    }
    auto chat = text_of("chat_id");
    auto text = text_of("text");
    if (chat.empty()) return tool_error("chat_id is required: the chat_id of the <channel> message you answer");
    if (text.empty()) return tool_error("text is required");
    env_.channels->reply(channel, chat, text, [net = env_.net, w = weak_from_this(), ex, respond](std::string error) {
        boost::asio::post(net, [w, ex, error, respond] {
            auto s = w.lock();
            if (!s || s->closed() || ex->done) return;
            respond(*s, ex, error.empty() ? std::string("sent") : "not sent: " + error, !error.empty());
        });
    });
}

}  // namespace coffer::mcp
