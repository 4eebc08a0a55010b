// Resumable server→client event streams of a Streamable HTTP session (MCP 2025-03-26 … 2025-11-25,
// transports, "Resumability and Redelivery"): every event carries an id naming its stream, the
// last events of each stream are kept, and a client that lost a connection reconnects with
// GET /mcp + Last-Event-ID to get what it missed and whatever follows (docs/decisions/0020-sse-resumption.md).
// Everything here runs on the network thread.
#pragma once

#include "http/message.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace coffer::mcp {

// An SSE event id "<stream>-<seq>": the stream's number, unique in the whole daemon (so an id of
// another session names no stream of this one), and the event's place in that stream, from 1.
struct EventId {
    std::uint64_t stream = 0, seq = 0;
};
std::string to_string(EventId id);
// Exactly "<digits>-<digits>", both non-zero and within 64 bits; anything else is no id of ours.
std::optional<EventId> parse_event_id(std::string_view text) noexcept;

// How messages are framed on a server→client stream: SSE events, or one JSON-RPC message per
// line (the local socket, where the connection is the session and nothing resumes).
enum class Framing { sse, lines };

// One server→client event stream: a POST's response stream or a session's GET stream. It
// outlives its HTTP connections: the client reconnects (GET + Last-Event-ID) and gets the kept
// events after that id, then everything new. It keeps its last kKeepEvents events and at most
// kKeepBytes of them, but always the newest one (an answer of any size can be fetched again);
// a resume from before what is kept gets what is left.
//
// A stream without a number (2026-07-28 requests, where closing the stream cancels the request;
// the legacy /sse stream; the local socket's lines) sends no ids and keeps an event only until a
// connection takes it.
class EventStream {
public:
    static constexpr std::size_t kKeepEvents = 256;
    static constexpr std::size_t kKeepBytes = std::size_t{1} << 20;

    explicit EventStream(std::uint64_t number = 0, Framing framing = Framing::sse)
        : number_(framing == Framing::sse ? number : 0), framing_(framing) {}

    std::uint64_t number() const { return number_; }
    bool resumable() const { return number_ != 0; }
    std::uint64_t last_seq() const { return seq_; }  // the id of the newest event (0: none yet)

    // The next event, one JSON-RPC message: written to the connection (if any) and kept.
    void send(const std::string& message);
    // 2025-11-25 priming: an event with an id and empty data, so the client can resume before any message.
    void prime();
    // A keep-alive comment, to the current connection only (SSE framing only).
    void comment();
    // (Re)connects: first the kept events after `after`, then everything new; a connection the
    // stream had before is ended. An ended stream ends the new connection after the replay.
    void connect(std::shared_ptr<http::Stream> conn, std::uint64_t after = 0);
    // The client left `conn` (nothing happens when another connection took over meanwhile).
    void disconnect(const std::shared_ptr<http::Stream>& conn);
    bool connected() const { return conn_ && conn_->open(); }
    // No more events (the answer went out, or the request was cancelled): the connection ends.
    void end();
    bool ended() const { return ended_; }

    std::size_t kept_events() const { return kept_.size(); }
    std::size_t kept_bytes() const { return bytes_; }

private:
    void emit(std::string text);

    std::uint64_t number_;
    Framing framing_;
    std::uint64_t seq_ = 0;
    std::deque<std::pair<std::uint64_t, std::string>> kept_;  // {seq, framed event}
    std::size_t bytes_ = 0;
    std::shared_ptr<http::Stream> conn_;
    bool ended_ = false;
};

// A session's resumable streams by number, so that a Last-Event-ID finds its stream. It keeps
// every stream still running and the kKeepEnded newest of those that ended.
class Streams {
public:
    static constexpr std::size_t kKeepEnded = 16;

    // A new stream, numbered from the daemon-wide counter.
    std::shared_ptr<EventStream> open();

    struct Match {
        std::shared_ptr<EventStream> stream;
        std::uint64_t after = 0;  // the client's last event: replay from the one after it
    };
    // The stream a Last-Event-ID names and where to resume it; nothing for an id this session
    // never gave (malformed, another session's, a stream forgotten, an event not sent yet).
    std::optional<Match> find(std::string_view last_event_id) const;

    std::size_t size() const { return streams_.size(); }
    void clear() { streams_.clear(); }

private:
    void prune();

    std::map<std::uint64_t, std::shared_ptr<EventStream>> streams_;
};

// How a POST's event stream is kept for resumption: in `streams` (none: not resumable — 2026-07-28,
// where disconnecting is cancelling), and whether it opens with a priming event (2025-11-25 on).
struct Resumption {
    std::shared_ptr<Streams> streams;
    bool prime = false;
};

}  // namespace coffer::mcp
