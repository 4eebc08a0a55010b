#include "mcp/local_socket.hpp"

#include "core/log.hpp"

#include <coffer/eager_io.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace coffer::mcp {

namespace net = boost::asio;
using local = net::local::stream_protocol;

namespace {
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kPauseReading = 8u << 20;  // answers not yet taken: read no more requests
constexpr std::size_t kMaxQueued = 256u << 20;    // a client that stops reading is cut off here
}  // namespace

LocalConnection::LocalConnection(local::socket socket, std::size_t max_line)
    : socket_(std::move(socket)), lines_(max_line) {}

void LocalConnection::start(Handlers handlers) {
    handlers_ = std::move(handlers);
    inbuf_.resize(kReadChunk);
    read();
}

void LocalConnection::read() {
    socket_.async_read_some(net::buffer(inbuf_), [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
        if (self->closing_ || self->closed_) return;
        if (n)
            self->lines_.feed(
                self->inbuf_.data(), n,
                [&](std::string_view line) {
                    if (self->closing_) return self->lines_.halt();
                    self->handlers_.on_line(line);
                },
                [&](std::size_t bytes) {
                    if (!self->closing_ && self->handlers_.on_oversize) self->handlers_.on_oversize(bytes);
                });
        if (self->closing_ || self->closed_) return;
        if (ec) {
            self->lines_.finish([&](std::string_view line) { self->handlers_.on_line(line); });
            if (self->closing_ || self->closed_) return;
            // The client went away (or half-closed: stdio semantics, it is done): the owner ends
            // what it had open, which may still write a last answer or two.
            auto closed = std::move(self->handlers_.on_closed);
            self->handlers_.on_closed = nullptr;
            if (closed) closed();
            return self->close();
        }
        // Flow control: a client that does not take its answers gets no more requests read.
        if (self->queued_.size() + self->sending_.size() > kPauseReading) {
            self->paused_ = true;
            return;
        }
        self->read();
    });
}

void LocalConnection::write(std::string_view message) {
    if (closed_) return;
    if (queued_.size() + message.size() > kMaxQueued) {
        core::log::warn("mcp local client does not read its answers; disconnecting",
                        {{"queued_bytes", static_cast<std::int64_t>(queued_.size())}});
        queued_.clear();
        // Not from here: the caller may be the session that ending this connection destroys.
        closing_ = true;
        lines_.halt();
        net::post(socket_.get_executor(), [self = shared_from_this()] { self->finish(); });
        return;
    }
    queued_.append(message);
    queued_.push_back('\n');
    if (writing_ || flush_posted_) return;
    // Everything written during this turn of the event loop goes out together.
    flush_posted_ = true;
    net::post(socket_.get_executor(), [self = shared_from_this()] {
        self->flush_posted_ = false;
        self->flush();
    });
}

void LocalConnection::flush() {
    if (closed_ || writing_) return;
    if (queued_.empty()) {
        if (closing_) finish();
        return;
    }
    writing_ = true;
    sending_.clear();
    sending_.swap(queued_);
    // Most often the socket takes it all at once, and this turn goes on without a posted
    // completion (coffer/eager_io.hpp); the rest, if any, is written asynchronously.
    boost::system::error_code ec;
    auto n = eager_io::write_now(socket_, net::buffer(sending_), ec);
    if (ec) {
        writing_ = false;
        return finish();
    }
    if (n == sending_.size()) return sent();
    net::async_write(socket_, net::buffer(sending_) + n, [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
        if (ec) {
            self->writing_ = false;
            return self->finish();
        }
        self->sent();
    });
}

void LocalConnection::sent() {
    writing_ = false;
    // Give back the memory of a huge answer.
    if (sending_.capacity() > (1u << 20)) std::string().swap(sending_);
    sending_.clear();
    if (paused_ && !closing_ && queued_.size() < kPauseReading) {
        paused_ = false;
        read();
    }
    flush();
}

void LocalConnection::close() {
    if (closing_ || closed_) return;
    closing_ = true;
    lines_.halt();
    if (!writing_ && !flush_posted_) flush();
}

void LocalConnection::finish() {
    if (closed_) return;
    closed_ = true;
    closing_ = true;
    boost::system::error_code ignore;
    socket_.shutdown(local::socket::shutdown_both, ignore);
    socket_.close(ignore);
    auto closed = std::move(handlers_.on_closed);
    handlers_.on_closed = nullptr;
    if (closed) closed();
    // The owner's state is captured in the handlers: let it go, but not under a running handler.
    net::post(socket_.get_executor(), [h = std::move(handlers_)] {});
    handlers_ = {};
}

// ------------------------------------------------------------------------------------------

LocalListener::LocalListener(net::io_context& io, std::size_t max_line)
    : io_(io), max_line_(max_line), acceptor_(io), retry_(io) {}

LocalListener::~LocalListener() { stop(); }

std::string LocalListener::listen(const std::filesystem::path& path, OnConnection on_connection) {
    if (path.string().size() >= sizeof(sockaddr_un::sun_path))
        return "the socket path is too long for a Unix-domain socket (" + std::to_string(path.string().size()) +
               " bytes): " + path.string();
    std::error_code fec;
    std::filesystem::remove(path, fec);  // a crashed daemon's socket (we hold the vault lock)
    boost::system::error_code ec;
    acceptor_.open(local(), ec);
    if (!ec) {
            acceptor_.bind(local::endpoint(path.string()), ec);
        // 0600: nobody but this user may even connect (the vault is 0700 too, so nobody else could
        // reach it between bind and chmod; umask is process-wide and plugin threads run).
        if (!ec && ::chmod(path.c_str(), 0600) != 0) ec.assign(errno, boost::system::system_category());
    }
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) {
        boost::system::error_code ignore;
        acceptor_.close(ignore);
        return "cannot listen on " + path.string() + ": " + ec.message();
    }
    path_ = path;
    on_connection_ = std::move(on_connection);
    accept();
    return {};
}

void LocalListener::accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, local::socket socket) {
        if (ec == net::error::operation_aborted || !acceptor_.is_open()) return;
        if (ec) {  // out of descriptors or the like: try again shortly, without spinning
            core::log::warn("mcp local accept failed", {{"error", ec.message()}});
            retry_.expires_after(std::chrono::milliseconds(100));
            return retry_.async_wait([this](boost::system::error_code e) {
                if (!e) accept();
            });
        }
        {
            ucred cred{};
            socklen_t len = sizeof(cred);
            if (::getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
                cred.uid != ::geteuid()) {
                core::log::warn("mcp local connection of another user refused", {{"uid", static_cast<std::int64_t>(cred.uid)}});
            } else {
                on_connection_(std::make_shared<LocalConnection>(std::move(socket), max_line_));
            }
        }
        accept();
    });
}

void LocalListener::stop() {
    if (!acceptor_.is_open()) return;
    boost::system::error_code ignore;
    acceptor_.close(ignore);
    retry_.cancel();
    std::error_code fec;
    if (!path_.empty()) std::filesystem::remove(path_, fec);
}

}  // namespace coffer::mcp
