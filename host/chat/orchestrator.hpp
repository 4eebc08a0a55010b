// The turn orchestrator (T-2…T-4, T-6): one turn at a time per conversation, a FIFO of pending
// messages (uncommitted until their turn starts), interrupt, and every conversation's events —
// numbered, kept in a ring for the current turn, and published on the event bus
// ("conversation/<id>"). REST and channels call the same functions: a turn does not know where
// its message came from except for the `source` it carries.
//
// Threading (ADR 0034): everything here runs on the daemon's service thread, where the store and
// the plugin calls are. Drivers report events from their own threads through the turn sink
// (on_driver_event), which only checks the handle, settles exactly-once for "turn.completed", and
// hands the event over with one Handoff post.
#pragma once

#include "chat/ring.hpp"
#include "chat/store.hpp"
#include "core/result.hpp"
#include "events/bus.hpp"
#include "resource/agents.hpp"

#include <coffer/abi.h>
#include <coffer/handoff.hpp>

#include <boost/json/object.hpp>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace coffer::chat {

struct Pending {
    std::string id, text, source, queued_at;
};

class Orchestrator {
public:
    Orchestrator(store::Database& db, resource::Agents& agents, events::Bus& bus, Handoff::Sender service);

    // At start-up: a turn a previous daemon left running is marked failed (never "running" forever).
    core::Result<std::int64_t> recover();
    // At shutdown (service thread): running turns are recorded as failed and later driver events
    // are refused; the plugins' own shutdown then kills the children.
    void shutdown();

    core::Result<boost::json::object> create(const boost::json::value& body);
    core::Result<boost::json::array> list();
    core::Result<boost::json::object> show(const std::string& id, int message_limit);
    core::Result<void> remove(const std::string& id);

    // Starts a turn, or queues the message behind the running one; returns at once.
    core::Result<boost::json::object> send(const std::string& id, const boost::json::value& body);
    core::Result<boost::json::object> interrupt(const std::string& id);
    core::Result<boost::json::object> queue(const std::string& id);
    core::Result<boost::json::object> resume_queue(const std::string& id);
    core::Result<boost::json::object> clear_queue(const std::string& id);
    core::Result<boost::json::object> remove_queued(const std::string& id, const std::string& item);

    // For a new subscriber, on the service thread: what it must be sent first (the state, then the
    // ring's events after `last_id`, or a resync), subscribed at the same moment so nothing is
    // missed or doubled.
    struct Attach {
        std::shared_ptr<events::Subscription> subscription;
        std::string preamble;  // SSE frames
    };
    core::Result<Attach> attach(const std::string& id, std::optional<std::uint64_t> last_id, events::Subscription::Wake wake);
    events::Bus& bus() { return bus_; }
    static std::string topic(const std::string& conversation_id) { return "conversation/" + conversation_id; }

    // The turn sink (any thread): see plugin/turns.hpp.
    coffer_status on_driver_event(std::uint64_t turn, boost::json::object event);

    // Diagnostics and benchmarks.
    std::size_t pending_total() const;  // service thread, like everything above
    std::size_t running_total() const;  // turns running now

private:
    struct Turn {
        std::string id, agent_uid, user_message_id;
        std::uint64_t handle = 0;
        std::optional<std::string> resume_key;  // the newest the agent reported in this turn
        std::string last_message;                // the latest message.completed text
        bool interrupt_requested = false;
    };
    struct State {
        std::deque<Pending> queue;
        bool paused = false;
        std::optional<Turn> turn;
        Ring ring;
        std::uint64_t seq = 0;
    };

    core::Result<Conversation> load(const std::string& id);
    State& state(const std::string& id) { return states_[id]; }
    void pump(const Conversation& c);
    void start_next(const Conversation& c, State& s);
    void fail_start(const Conversation& c, State& s, const std::string& turn_id, const std::string& user_message_id,
                    const std::string& error);
    void apply(const std::string& conversation, std::uint64_t handle, boost::json::object event);
    void complete(const std::string& conversation, State& s, boost::json::object& event);
    void publish(const std::string& conversation, State& s, boost::json::object event);
    void queue_changed(const std::string& conversation, State& s);
    boost::json::object queue_json(const State& s) const;
    boost::json::object state_json(const State& s) const;

    ConversationStore store_;
    resource::Agents& agents_;
    events::Bus& bus_;
    Handoff::Sender service_;
    std::map<std::string, State> states_;
    std::uint64_t next_handle_ = 1;

    // Live turn handles → conversation, shared with driver threads.
    mutable std::mutex live_mu_;
    std::map<std::uint64_t, std::string> live_;
    bool closed_ = false;
};

}  // namespace coffer::chat
