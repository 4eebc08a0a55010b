// IM channels into a client's own agent session (SPEC CH-1, ADR 0041): what the gateway needs
// from the channel core to offer Claude Code's `claude/channel` capability. A session whose
// initialize names channels (params._meta["coffer/channels"], the shim's --channel) listens to
// them; the channel core hands it the owner's messages, and the session's reply tool goes back
// through the core's outbound gate (the owner's chat only). The core implements ChannelPort
// (channels::Service); the gateway implements ChannelListener per session. Header only: neither
// library links the other.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace coffer::mcp {

// One message of a channel's owner, as the listening session gets it.
struct ChannelMessage {
    std::string channel;     // the channel resource's name
    std::string chat;        // the platform's chat id (the reply tool's chat_id)
    std::string message_id;  // the platform's id of the message
    std::string sender_name;
    std::string text;
    std::string thread;      // empty when the platform has no thread
    std::string received_at; // ISO 8601, UTC
};

// Claude Code asks the channel's owner to allow a tool call (claude/channel/permission).
struct PermissionRequest {
    std::string request_id;  // 5 lowercase letters, no "l"
    std::string tool_name, description, input_preview;
};

class ChannelListener {
public:
    virtual ~ChannelListener() = default;
    // Any thread (the core calls it on its own). True when the session takes the message; false
    // when it is gone (the core then keeps the message for the next listener).
    virtual bool deliver(const ChannelMessage& m) = 0;
    // Any thread: the owner answered a permission request of this session ("allow" or "deny").
    virtual void permission(const std::string& request_id, const std::string& behavior) = 0;
};

class ChannelPort {
public:
    virtual ~ChannelPort() = default;
    // Any thread. `listener` (held weakly) listens to `channel` from now on: the newest listener
    // of a channel gets its messages, those kept while none listened first. `done` runs once, on
    // the core's thread, with "" or why the channel cannot be listened to.
    virtual void listen(const std::string& channel, std::weak_ptr<ChannelListener> listener,
                        std::function<void(std::string error)> done) = 0;
    // Any thread. Sends `text` (Markdown) to `chat` of `channel`, chunked and rendered for its
    // platform — only when the channel's gate accepts that chat. `done` runs once, on the core's
    // thread, with "" or why nothing was sent.
    virtual void reply(const std::string& channel, const std::string& chat, const std::string& text,
                       std::function<void(std::string error)> done) = 0;
    // Any thread. Asks the owner of `channel` (in their chat) to allow or deny; their answer
    // ("yes <id>" / "no <id>") reaches `listener` once. Unanswered requests lapse after an hour.
    virtual void ask(const std::string& channel, std::weak_ptr<ChannelListener> listener, PermissionRequest request) = 0;
};

}  // namespace coffer::mcp
