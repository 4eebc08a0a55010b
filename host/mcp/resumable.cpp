#include "mcp/resumable.hpp"

#include "mcp/sse.hpp"

#include <atomic>
#include <charconv>

namespace coffer::mcp {

namespace {
// Stream numbers, daemon-wide: ids of different sessions never collide.
std::atomic<std::uint64_t> g_next_stream{0};

std::optional<std::uint64_t> positive(std::string_view digits) noexcept {
    if (digits.empty() || digits.size() > 20) return std::nullopt;
    for (char c : digits)
        if (c < '0' || c > '9') return std::nullopt;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || v == 0) return std::nullopt;
    return v;
}
}  // namespace

std::string to_string(EventId id) { return std::to_string(id.stream) + "-" + std::to_string(id.seq); }

std::optional<EventId> parse_event_id(std::string_view text) noexcept {
    auto dash = text.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    auto stream = positive(text.substr(0, dash));
    auto seq = positive(text.substr(dash + 1));
    if (!stream || !seq) return std::nullopt;
    return EventId{*stream, *seq};
}

// ---- EventStream ----

void EventStream::emit(std::string text) {
    if (conn_) conn_->write(text);
    if (!resumable() && conn_) return;  // delivered; nothing to resume later
    bytes_ += text.size();
    kept_.emplace_back(seq_, std::move(text));
    while (kept_.size() > 1 && (kept_.size() > kKeepEvents || bytes_ > kKeepBytes)) {
        bytes_ -= kept_.front().second.size();
        kept_.pop_front();
    }
}

void EventStream::send(const std::string& message) {
    if (ended_) return;
    ++seq_;
    if (framing_ == Framing::lines) return emit(message);
    emit(sse::event(message, "message", resumable() ? to_string(EventId{number_, seq_}) : std::string()));
}

void EventStream::prime() {
    if (ended_ || !resumable()) return;
    ++seq_;
    emit(sse::event({}, {}, to_string(EventId{number_, seq_})));
}

void EventStream::comment() {
    if (conn_ && !ended_ && framing_ == Framing::sse) conn_->write(sse::comment());
}

void EventStream::connect(std::shared_ptr<http::Stream> conn, std::uint64_t after) {
    if (conn_ && conn_ != conn) conn_->end();
    conn_ = std::move(conn);
    for (auto& [seq, text] : kept_)
        if (seq > after) conn_->write(text);
    if (!resumable()) {
        kept_.clear();
        bytes_ = 0;
    }
    if (ended_) conn_->end();
}

void EventStream::disconnect(const std::shared_ptr<http::Stream>& conn) {
    if (conn_ == conn) conn_.reset();
}

void EventStream::end() {
    if (ended_) return;
    ended_ = true;
    if (conn_) conn_->end();
}

// ---- Streams ----

std::shared_ptr<EventStream> Streams::open() {
    auto s = std::make_shared<EventStream>(++g_next_stream);
    streams_.emplace(s->number(), s);
    prune();
    return s;
}

void Streams::prune() {
    std::size_t ended = 0;
    for (auto& [n, s] : streams_) ended += s->ended();
    // Numbers grow with time: the first ended ones in the map are the oldest.
    for (auto it = streams_.begin(); ended > kKeepEnded && it != streams_.end();) {
        if (it->second->ended()) {
            it = streams_.erase(it);
            --ended;
        } else {
            ++it;
        }
    }
}

std::optional<Streams::Match> Streams::find(std::string_view last_event_id) const {
    auto id = parse_event_id(last_event_id);
    if (!id) return std::nullopt;
    auto it = streams_.find(id->stream);
    if (it == streams_.end() || id->seq > it->second->last_seq()) return std::nullopt;
    return Match{it->second, id->seq};
}

}  // namespace coffer::mcp
