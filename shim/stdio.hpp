// The client side of the stdio transport: newline-delimited messages from stdin, written to
// stdout, asynchronously on the io_context (pipes and sockets are polled; a regular file or
// other unpollable descriptor falls back to a reader thread / blocking writes).
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace coffer::shim {

class LineReader {
public:
    struct Handlers {
        std::function<void(std::string line)> on_line;      // one message, without its line end
        std::function<void(std::size_t bytes)> on_oversize; // a line longer than the limit was dropped
        std::function<void()> on_eof;                       // input ended (or failed)
    };
    // Reads `fd` (not owned; it is dup'ed). Lines longer than `max_line` are discarded whole.
    LineReader(boost::asio::io_context& io, int fd, std::size_t max_line, Handlers handlers);
    ~LineReader();
    void start();
    void stop(); // no more callbacks
    // Flow control: while paused no more is read (lines already read are still handed over);
    // resume() goes on where it stopped. Pollable input only (a reader thread is not paused).
    void pause();
    void resume();

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

class LineWriter {
public:
    // Writes to `fd` (dup'ed). `on_error` is called once when the descriptor fails (EPIPE …).
    LineWriter(boost::asio::io_context& io, int fd, std::function<void(const std::string&)> on_error);
    ~LineWriter();
    // Queues `line` followed by "\n".
    void write(std::string line);
    bool idle() const noexcept;
    std::size_t queued_bytes() const noexcept;  // written but not yet taken by the reader
    // Called (once) when everything queued so far has been written (at once if idle).
    void on_drained(std::function<void()> fn);

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace coffer::shim
