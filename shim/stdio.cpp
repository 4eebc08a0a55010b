#include "shim/stdio.hpp"

#include <coffer/eager_io.hpp>
#include <coffer/lines.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/write.hpp>

#include <cerrno>
#include <cstring>
#include <deque>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace coffer::shim {
namespace net = boost::asio;

namespace {

constexpr std::size_t kReadChunk = 64 * 1024;

// dup() with close-on-exec, so the daemon we may spawn never inherits our stdio.
int dup_cloexec(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

}  // namespace

// ------------------------------------------------------------------------------------------
// LineReader

struct LineReader::Impl : std::enable_shared_from_this<LineReader::Impl> {
    Impl(net::io_context& io, int fd, std::size_t max_line, Handlers h)
        : io(io), desc(io), fd(dup_cloexec(fd)), max_line(max_line), handlers(std::move(h)) {}

    net::io_context& io;
    net::posix::stream_descriptor desc;
    int fd;
    std::size_t max_line;
    Handlers handlers;
    std::vector<char> buf = std::vector<char>(kReadChunk);
    LineSplitter lines{max_line};
    bool stopped = false;
    bool paused = false;
    bool reading = false;  // an async read is outstanding

    void start() {
        if (fd < 0) return eof();
        boost::system::error_code ec;
        desc.assign(fd, ec);
        if (!ec) {
            // Probe pollability: epoll refuses regular files, which then get a reader thread.
            desc.non_blocking(true, ec);
            if (!ec) return read_async();
            desc.release();
        } else {
            desc.release();
        }
        start_thread();
    }

    void read_async() {
        if (paused || reading || stopped) return;
        reading = true;
        desc.async_read_some(net::buffer(buf), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
            self->reading = false;
            if (self->stopped) return;
            if (n) self->consume(self->buf.data(), n);
            if (ec) {
                if (ec == net::error::operation_not_supported || ec.value() == EPERM) {
                    // Not pollable after all: read it from a thread.
                    self->desc.release();
                    return self->start_thread();
                }
                return self->eof();
            }
            self->read_async();
        });
    }

    void start_thread() {
        std::thread([self = shared_from_this()] {
            std::vector<char> local(kReadChunk);
            while (true) {
                ssize_t n = ::read(self->fd, local.data(), local.size());
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) {
                    net::post(self->io, [self] { self->eof(); });
                    return;
                }
                std::string chunk(local.data(), static_cast<std::size_t>(n));
                net::post(self->io, [self, chunk = std::move(chunk)] {
                    if (!self->stopped) self->consume(chunk.data(), chunk.size());
                });
            }
        }).detach();
    }

    void consume(const char* data, std::size_t n) {
        lines.feed(
            data, n,
            [this](std::string_view line) {
                if (stopped) return lines.halt();
                handlers.on_line(std::string(line));
            },
            [this](std::size_t bytes) {
                if (!stopped && handlers.on_oversize) handlers.on_oversize(bytes);
            });
    }

    void eof() {
        if (stopped) return;
        lines.finish([this](std::string_view line) { handlers.on_line(std::string(line)); });
        stopped = true;
        if (handlers.on_eof) handlers.on_eof();
    }
};

LineReader::LineReader(net::io_context& io, int fd, std::size_t max_line, Handlers handlers)
    : impl_(std::make_shared<Impl>(io, fd, max_line, std::move(handlers))) {}

LineReader::~LineReader() { stop(); }

void LineReader::start() { impl_->start(); }

void LineReader::pause() { impl_->paused = true; }

void LineReader::resume() {
    if (!impl_->paused) return;
    impl_->paused = false;
    if (impl_->desc.is_open()) impl_->read_async();
}

void LineReader::stop() {
    impl_->stopped = true;
    boost::system::error_code ec;
    if (impl_->desc.is_open()) impl_->desc.cancel(ec);
}

// ------------------------------------------------------------------------------------------
// LineWriter

struct LineWriter::Impl : std::enable_shared_from_this<LineWriter::Impl> {
    Impl(net::io_context& io, int fd, std::function<void(const std::string&)> on_error)
        : desc(io), fd(dup_cloexec(fd)), on_error(std::move(on_error)) {
        boost::system::error_code ec;
        if (this->fd >= 0) {
            desc.assign(this->fd, ec);
            if (!ec) desc.non_blocking(true, ec);
            if (ec) {
                desc.release();
                blocking = true;
            }
        }
    }

    net::posix::stream_descriptor desc;
    int fd;
    std::function<void(const std::string&)> on_error;
    bool blocking = false;
    bool writing = false;
    bool posted = false; // a flush is queued for the end of this turn
    bool failed = false;
    std::size_t bytes = 0;            // in queue and inflight
    std::deque<std::string> queue;    // waiting
    std::vector<std::string> inflight; // being written
    std::vector<std::function<void()>> drained;

    void write(std::string line) {
        if (failed) return;
        line.push_back('\n');
        if (blocking || fd < 0) return write_blocking(line);
        bytes += line.size();
        queue.push_back(std::move(line));
        if (writing || posted) return;
        // Everything written during this turn of the event loop goes out in one write.
        posted = true;
        net::post(desc.get_executor(), [self = shared_from_this()] {
            self->posted = false;
            if (!self->writing) self->flush();
        });
    }

    void write_blocking(const std::string& line) {
        std::size_t off = 0;
        while (off < line.size()) {
            ssize_t n = ::write(fd, line.data() + off, line.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return fail(std::strerror(errno));
            off += static_cast<std::size_t>(n);
        }
    }

    void flush() {
        for (;;) {
            // What the last write carried is out.
            for (auto& s : inflight) bytes -= s.size();
            inflight.clear();
            if (queue.empty() || failed) {
                writing = false;
                auto fns = std::move(drained);
                drained.clear();
                for (auto& fn : fns) fn();
                return;
            }
            writing = true;
            std::vector<net::const_buffer> bufs;
            while (!queue.empty() && inflight.size() < 64) {
                inflight.push_back(std::move(queue.front()));
                queue.pop_front();
            }
            bufs.reserve(inflight.size());
            for (auto& s : inflight) bufs.emplace_back(s.data(), s.size());
            // Most often the pipe takes it all at once: then this turn goes on without a posted
            // completion (coffer/eager_io.hpp); what it does not take is written asynchronously.
            boost::system::error_code ec;
            std::size_t n = eager_io::write_now(desc, bufs, ec);
            if (ec) return fail(ec.message());
            if (n == net::buffer_size(bufs)) continue;
            std::vector<net::const_buffer> rest;
            for (auto& b : bufs) {
                if (n >= b.size()) {
                    n -= b.size();
                    continue;
                }
                rest.push_back(b + n);
                n = 0;
            }
            net::async_write(desc, rest, [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                if (ec) return self->fail(ec.message());
                self->flush();
            });
            return;
        }
    }

    void fail(const std::string& why) {
        if (failed) return;
        failed = true;
        writing = false;
        queue.clear();
        inflight.clear();
        bytes = 0;
        if (on_error) on_error(why);
        auto fns = std::move(drained);
        drained.clear();
        for (auto& fn : fns) fn();
    }
};

LineWriter::LineWriter(net::io_context& io, int fd, std::function<void(const std::string&)> on_error)
    : impl_(std::make_shared<Impl>(io, fd, std::move(on_error))) {}

LineWriter::~LineWriter() = default;

void LineWriter::write(std::string line) { impl_->write(std::move(line)); }

bool LineWriter::idle() const noexcept { return !impl_->writing && !impl_->posted && impl_->queue.empty(); }

std::size_t LineWriter::queued_bytes() const noexcept { return impl_->bytes; }

void LineWriter::on_drained(std::function<void()> fn) {
    if (idle()) return fn();
    impl_->drained.push_back(std::move(fn));
}

}  // namespace coffer::shim
