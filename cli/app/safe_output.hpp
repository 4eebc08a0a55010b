// A stream for human output: everything written to it reaches the underlying stream through
// terminal_safe(…, Layout::text), a whole line at a time (a line never splits a UTF-8 sequence,
// so no character is cut in two). Every command's human output and every message on stderr go
// through one of these (Context::out/err), so text from the daemon can never drive the terminal,
// whichever command prints it.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace coffer::cli {

class SafeOutputBuf : public std::streambuf {
public:
    explicit SafeOutputBuf(std::ostream& sink) : sink_(sink) {}
    ~SafeOutputBuf() override;
    SafeOutputBuf(const SafeOutputBuf&) = delete;
    SafeOutputBuf& operator=(const SafeOutputBuf&) = delete;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;  // writes what is pending (a partial line too) and flushes the sink

private:
    void write_lines();  // writes the complete lines pending
    std::ostream& sink_;
    std::string pending_;
};

// An ostream over a SafeOutputBuf.
class SafeOutput : public std::ostream {
public:
    explicit SafeOutput(std::ostream& sink) : std::ostream(nullptr), buf_(sink) { rdbuf(&buf_); }

private:
    SafeOutputBuf buf_;
};

}  // namespace coffer::cli
