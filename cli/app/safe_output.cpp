// SafeOutputBuf: buffers up to the end of a line, then writes the line rendered terminal-safe.
#include "app/safe_output.hpp"

#include "app/terminal.hpp"

namespace coffer::cli {

SafeOutputBuf::~SafeOutputBuf() { sync(); }

SafeOutputBuf::int_type SafeOutputBuf::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    pending_.push_back(traits_type::to_char_type(ch));
    if (ch == '\n') write_lines();
    return ch;
}

std::streamsize SafeOutputBuf::xsputn(const char* s, std::streamsize n) {
    pending_.append(s, static_cast<std::size_t>(n));
    if (pending_.find('\n', pending_.size() - static_cast<std::size_t>(n)) != std::string::npos) write_lines();
    return n;
}

int SafeOutputBuf::sync() {
    if (!pending_.empty()) {
        sink_ << terminal_safe(pending_, Layout::text);
        pending_.clear();
    }
    sink_.flush();
    return sink_ ? 0 : -1;
}

void SafeOutputBuf::write_lines() {
    auto end = pending_.rfind('\n');
    if (end == std::string::npos) return;
    sink_ << terminal_safe(std::string_view(pending_).substr(0, end + 1), Layout::text);
    pending_.erase(0, end + 1);
}

}  // namespace coffer::cli
