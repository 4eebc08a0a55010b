#include "shim/local_link.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cerrno>
#include <cstring>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace coffer::shim {

namespace json = boost::json;

namespace {
constexpr const char* kProtocol = "mcp-local/1";
}

LocalLink::LocalLink(boost::asio::io_context& io, std::string path, std::string token, std::size_t max_message,
                     Handlers handlers)
    : io_(io), path_(std::move(path)), token_(std::move(token)), max_message_(max_message), handlers_(std::move(handlers)),
      hello_timer_(io) {}

LocalLink::~LocalLink() {
    close();
    alive_.reset();
}

void LocalLink::start() {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path_.empty() || path_.size() >= sizeof(addr.sun_path))
        return closed(Refusal::unreachable, "no usable socket path");
    std::memcpy(addr.sun_path, path_.data(), path_.size());
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    // A local connect completes at once or fails (no listener; EAGAIN for a full backlog): it
    // never blocks the event loop.
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
        return closed(Refusal::unreachable, "cannot connect to " + path_ + ": " + std::strerror(errno));
    writer_ = std::make_unique<LineWriter>(io_, fd_, [this, alive = std::weak_ptr<bool>(alive_)](const std::string& why) {
        if (alive.lock()) closed(Refusal::none, "writing to the daemon failed: " + why);
    });
    reader_ = std::make_unique<LineReader>(
        io_, fd_, max_message_,
        LineReader::Handlers{[this](std::string line) { on_line(std::move(line)); },
                             [this](std::size_t bytes) {
                                 closed(Refusal::protocol, "the daemon sent a " + std::to_string(bytes) +
                                                               "-byte message, over the limit");
                             },
                             [this] { closed(ready_ ? Refusal::none : Refusal::unreachable, "the daemon closed the connection"); }});
    writer_->write(json::serialize(json::object{{"coffer", kProtocol}, {"token", token_}}));
    reader_->start();
    hello_timer_.expires_after(std::chrono::seconds(10));
    hello_timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](boost::system::error_code ec) {
        if (!ec && alive.lock() && !ready_) closed(Refusal::unreachable, "no answer to the hello within 10 s");
    });
}

void LocalLink::on_line(std::string line) {
    if (over_) return;
    if (ready_) return handlers_.on_message(std::move(line));
    boost::system::error_code ec;
    auto v = json::parse(line, ec);
    const json::object* o = !ec && v.is_object() ? &v.as_object() : nullptr;
    const json::value* ok = o ? o->if_contains("ok") : nullptr;
    if (ok && ok->is_bool() && ok->as_bool()) {
        if (auto* m = o->if_contains("max_message"); m && m->is_int64() && m->as_int64() > 0)
            daemon_max_ = static_cast<std::size_t>(m->as_int64());
        ready_ = true;
        hello_timer_.cancel();
        if (handlers_.on_ready) handlers_.on_ready();
        return;
    }
    std::string code, message = "unexpected answer to the hello";
    if (const json::value* e = o ? o->if_contains("error") : nullptr; e && e->is_object()) {
        if (auto* c = e->as_object().if_contains("code"); c && c->is_string()) code = std::string(c->as_string());
        if (auto* m = e->as_object().if_contains("message"); m && m->is_string()) message = std::string(m->as_string());
    }
    closed(code == "UNAUTHORIZED" ? Refusal::unauthorized : Refusal::protocol, "the daemon refused the link: " + message);
}

void LocalLink::send(std::string line) {
    if (!over_ && writer_) writer_->write(std::move(line));
}

void LocalLink::closed(Refusal refusal, const std::string& why) {
    if (over_) return;
    auto fn = std::move(handlers_.on_closed);
    close();
    if (fn) fn(refusal, why);
}

void LocalLink::close() {
    if (over_) return;
    over_ = true;
    ready_ = false;
    hello_timer_.cancel();
    if (reader_) reader_->stop();
    if (fd_ >= 0) {
        ::shutdown(fd_, SHUT_RDWR);  // the daemon sees the end now, whatever still holds a dup
        ::close(fd_);
        fd_ = -1;
    }
    // The reader and writer may be inside a callback that got us here: let them go later.
    auto reader = std::shared_ptr<LineReader>(std::move(reader_));
    auto writer = std::shared_ptr<LineWriter>(std::move(writer_));
    boost::asio::post(io_, [reader, writer] {});
}

}  // namespace coffer::shim
