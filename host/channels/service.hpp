// The channel core (CH-1…CH-5, ADR 0035): everything about IM channels that is the same on every
// platform, chosen by the adapter's capabilities and never by its name. Inbound: the owner gate
// (nothing passes without a paired owner, commands included), pairing by code, duplicate drop,
// the durable inbox (written before the adapter may commit its platform offset), commands, and
// the hand-over to the turn orchestrator (whose FIFO queues what arrives during a turn). Outbound
// (relay.cpp): a conversation's events become typing, one throttled progress message edited in
// place, and the final answer chunked and rendered as new messages — only ever to the owner's chat.
//
// A channel whose config says `"deliver": "session"` hands its owner's messages to the MCP sessions
// that listen to it instead (claude/channel, ADR 0041; sessions.cpp): the gateway reaches the core
// through mcp::ChannelPort.
//
// Threading: like the orchestrator, all state lives on the service thread. Adapters report from
// their own threads (on_inbound), which only looks the handle up and posts.
#pragma once

#include "channels/chunker.hpp"
#include "channels/store.hpp"
#include "chat/orchestrator.hpp"
#include "core/result.hpp"
#include "events/bus.hpp"
#include "mcp/channel_port.hpp"
#include "plugin/channels.hpp"
#include "resource/service.hpp"

#include <coffer/handoff.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace coffer::channels {

// What an adapter declared (coffer_channel_adapter.capabilities), with the defaults filled in.
struct Capabilities {
    bool edit = false, typing = false, threads = false;
    std::chrono::milliseconds typing_ttl{5000};
    std::size_t max_text = 4000;
    Units units = Units::codepoints;
    std::string markdown = "plain", ingress = "polling";
    static Capabilities from(const boost::json::object& o);
    boost::json::object to_json() const;
};

struct Counters {
    std::int64_t received = 0, dropped = 0, duplicates = 0, forwarded = 0, commands = 0, sent = 0, send_failed = 0,
                 pairing_failed = 0, pairing_refused = 0;
    boost::json::object to_json() const;
};

class Service final : public mcp::ChannelPort {
public:
    struct Options {
        std::chrono::milliseconds edit_interval{1500};  // between two edits of the progress message
    };
    Service(store::Database& db, resource::Service& resources, chat::Orchestrator& orchestrator, events::Bus& bus,
            boost::asio::any_io_executor service, Handoff::Sender to_service, Options options);
    ~Service() override;

    // Service thread: listens to the lifecycle (starting every published adapter) and receives inbound.
    void start();
    void shutdown();

    // REST (service thread). `uid` and `name` identify a channel resource.
    core::Result<boost::json::object> pair(const std::string& uid, std::chrono::seconds lifetime);
    boost::json::object status(const std::string& uid);
    core::Result<void> unpair(const std::string& uid);
    core::Result<void> forget(const std::string& uid);  // the resource was deleted

    // Any thread (the ABI's channel_inbound).
    coffer_status on_inbound(std::uint64_t handle, boost::json::object envelope, plugin::ChannelAck ack);

    // Benchmarks and tests: messages handed over, not yet processed.
    std::size_t backlog() const { return backlog_.load(); }

    // mcp::ChannelPort (any thread; sessions.cpp).
    void listen(const std::string& channel, std::weak_ptr<mcp::ChannelListener> listener,
                std::function<void(std::string error)> done) override;
    void reply(const std::string& channel, const std::string& chat, const std::string& text,
               std::function<void(std::string error)> done) override;
    void ask(const std::string& channel, std::weak_ptr<mcp::ChannelListener> listener,
             mcp::PermissionRequest request) override;

private:
    struct Live {
        resource::ChannelAdapter adapter;
        Capabilities caps;
        std::uint64_t handle = 0;
        Counters counters;
        std::string last_error;
        bool to_sessions = false;  // config deliver = "session": to the listening MCP sessions
        bool told_waiting = false; // the owner was told no session listens (once until one does)
    };
    // A conversation whose events go to a chat.
    struct Binding {
        std::string channel_uid, chat;
        std::optional<std::string> thread;
        std::shared_ptr<events::Subscription> subscription;
        // The current turn.
        std::string turn_id, user_message_id;
        std::string progress_ref, progress_sent, progress_text, progress_status;
        std::chrono::steady_clock::time_point last_edit{};
        std::unique_ptr<boost::asio::steady_timer> typing_timer, edit_timer;
        int outbound_seq = 0;
    };

    void published(const resource::ChannelAdapter& a);
    void retiring(const resource::ChannelAdapter& a);
    void handle_inbound(const std::string& uid, boost::json::object envelope, const plugin::ChannelAck& ack);
    bool try_pairing(Live& l, const InboxRow& row, const std::string& sender_name);
    void handle_command(Live& l, const InboxRow& row, int command);
    void forward(Live& l, const InboxRow& row);
    core::Result<std::string> conversation_for(Live& l, const std::string& chat, bool fresh);

    // sessions.cpp
    Live* live_named(const std::string& name);
    void to_session(Live& l, const InboxRow& row);
    void flush_to_session(const std::string& name);
    std::size_t session_listeners(const std::string& name);
    bool answer_permission(Live& l, const InboxRow& row);

    // relay.cpp
    Binding& bind(const std::string& conversation, const std::string& uid, const std::string& chat,
                  const std::optional<std::string>& thread);
    void drain(const std::string& conversation);
    void on_event(const std::string& conversation, Binding& b, const boost::json::object& e);
    void progress(Binding& b, bool force);
    void finish(Binding& b, const boost::json::object& e);
    void typing_tick(const std::string& conversation);

    // outbound.cpp: the only way out, through the outbound gate (the owner's chat only).
    bool send(const std::string& uid, const std::string& chat, const std::optional<std::string>& thread,
              const std::string& ref, const std::string& markdown);
    bool edit(const std::string& uid, const std::string& chat, const std::string& ref, const std::string& markdown);
    void typing(const std::string& uid, const std::string& chat, const std::optional<std::string>& thread);
    bool gate_allows(const std::string& uid, const std::string& chat);
    boost::json::object text_request(const Live& l, const std::string& chat, const std::string& ref, const std::string& markdown);

    store::Database& db_;
    ChannelStore store_;
    resource::Service& resources_;
    chat::Orchestrator& orchestrator_;
    events::Bus& bus_;
    boost::asio::any_io_executor service_;
    Handoff::Sender to_service_;
    Options options_;
    std::map<std::string, Live> live_;          // by resource uid
    std::map<std::string, Binding> bindings_;   // by conversation id
    // Listening MCP sessions by channel name, oldest first (the newest gets the messages).
    std::map<std::string, std::vector<std::weak_ptr<mcp::ChannelListener>>> listeners_;
    // Permission requests asked of owners, by request id (claude/channel/permission).
    struct Asked {
        std::weak_ptr<mcp::ChannelListener> listener;
        std::string tool;
        std::int64_t expires_ms = 0;
    };
    std::map<std::string, Asked> asked_;
    std::uint64_t next_handle_ = 1;
    bool stopped_ = false;

    mutable std::mutex handles_mu_;             // shared with adapter threads
    std::map<std::uint64_t, std::string> handles_;
    std::atomic<std::size_t> backlog_{0};
};

}  // namespace coffer::channels
