// Newline-delimited messages (MCP's stdio framing) out of a byte stream, with a size limit.
// Header-only: the daemon's local socket, the stdio shim and plugins that talk to stdio
// upstreams cut their input the same way.
//
//   coffer::LineSplitter lines(4 << 20);
//   lines.feed(buf, n, [&](std::string_view line) { … }, [&](std::size_t dropped) { … });
//   …at end of input: lines.finish([&](std::string_view line) { … });
//
// A line is handed over without its "\n" (nor a "\r" before it); blank lines carry no message
// and are skipped. A line longer than the limit is dropped whole and reported once, with its
// size, when its end arrives. A callback may call halt() to stop the current feed().
//
// last_line(text, max) is what a process said last — the last line of its stderr that is not
// blank — for an error message ("exited during startup: …", "(stderr: …)").
#pragma once

#include <coffer/utf8.hpp>

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace coffer {

class LineSplitter {
public:
    explicit LineSplitter(std::size_t max_line) : max_(max_line) {}

    template <class OnLine, class OnOversize>
    void feed(const char* data, std::size_t n, OnLine&& on_line, OnOversize&& on_oversize) {
        halted_ = false;
        std::size_t i = 0;
        while (i < n && !halted_) {
            const char* nl = static_cast<const char*>(std::memchr(data + i, '\n', n - i));
            std::size_t end = nl ? static_cast<std::size_t>(nl - data) : n;
            std::size_t len = end - i;
            if (dropping_) {
                dropped_ += len;
            } else if (partial_.size() + len > max_) {
                dropping_ = true;
                dropped_ = partial_.size() + len;
                partial_.clear();
                partial_.shrink_to_fit();
            } else if (nl && partial_.empty()) {
                deliver(std::string_view(data + i, len), on_line);  // the common case: no copy
                i = end + 1;
                continue;
            } else {
                partial_.append(data + i, len);
            }
            if (!nl) return;
            if (dropping_) {
                dropping_ = false;
                std::size_t size = dropped_;
                dropped_ = 0;
                on_oversize(size);
            } else {
                std::string line = std::move(partial_);
                partial_.clear();
                deliver(line, on_line);
            }
            i = end + 1;
        }
    }

    // End of input: a last line without a line end is still a message.
    template <class OnLine>
    void finish(OnLine&& on_line) {
        if (dropping_ || partial_.empty()) return;
        std::string line = std::move(partial_);
        partial_.clear();
        deliver(line, on_line);
    }

    void halt() { halted_ = true; }
    // Bytes of an unfinished line held back (0 while dropping an oversized one).
    std::size_t pending() const { return partial_.size(); }

private:
    template <class OnLine>
    static void deliver(std::string_view line, OnLine& on_line) {
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
        on_line(line);
    }

    std::size_t max_;
    std::string partial_;
    bool dropping_ = false;
    std::size_t dropped_ = 0;
    bool halted_ = false;
};

// The last line of `text` that is not blank, without the spaces, tabs and line ends after it; at
// most `max_bytes` of it, cut at a character boundary and marked "…" when longer.
inline std::string last_line(std::string_view text, std::size_t max_bytes) {
    auto end = text.find_last_not_of(" \t\r\n");
    if (end == std::string_view::npos) return {};
    auto start = text.find_last_of('\n', end);
    start = start == std::string_view::npos ? 0 : start + 1;
    return utf8::clip(text.substr(start, end + 1 - start), max_bytes);
}

}  // namespace coffer
