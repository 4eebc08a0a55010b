#include "plugin/loop.hpp"

#include <coffer/handoff.hpp>
#include <coffer/loop_poll.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <vector>

namespace coffer::plugin {

namespace asio = boost::asio;

struct Loop::Entry {
    std::uint64_t id = 0;
    std::string owner;
    std::recursive_mutex mu;  // held while the callback runs
    bool dead = false;        // under mu
    ReadyFn ready = nullptr;
    FireFn fire = nullptr;
    void* ctx = nullptr;
    std::uint32_t events = 0;
    int fd = -1;  // the host's duplicate until `desc` owns it
    // The loop thread only:
    std::unique_ptr<asio::posix::stream_descriptor> desc;
    std::unique_ptr<asio::steady_timer> clock;
    bool read_pending = false;
    bool write_pending = false;
    bool check_posted = false;

    bool is_dead() {
        std::lock_guard<std::recursive_mutex> g(mu);
        return dead;
    }
};

Loop::Loop(asio::io_context& io) : io_(io), to_loop_(std::make_unique<Handoff>(io)) {}

Loop::~Loop() {
    std::unordered_map<std::uint64_t, std::shared_ptr<Entry>> left;
    {
        std::lock_guard<std::mutex> g(mu_);
        left.swap(entries_);
    }
    for (auto& [id, e] : left) {
        {
            std::lock_guard<std::recursive_mutex> g(e->mu);
            e->dead = true;
        }
        end(e);
    }
    to_loop_.reset();
}

bool Loop::in_loop() const { return io_.get_executor().running_in_this_thread(); }

std::size_t Loop::live() const {
    std::lock_guard<std::mutex> g(mu_);
    return entries_.size();
}

std::shared_ptr<Loop::Entry> Loop::add(const std::string& owner) {
    auto e = std::make_shared<Entry>();
    e->owner = owner;
    std::lock_guard<std::mutex> g(mu_);
    e->id = next_id_++;
    entries_.emplace(e->id, e);
    return e;
}

void Loop::erase(std::uint64_t id) {
    std::lock_guard<std::mutex> g(mu_);
    entries_.erase(id);
}

void Loop::on_loop(std::function<void()> fn) {
    if (in_loop()) return fn();
    // Not delivered only once the loop is gone, and with it everything registered on it.
    (void)to_loop_->post(std::move(fn));
}

coffer_status Loop::watch(const std::string& owner, int fd, std::uint32_t events, ReadyFn ready, void* ctx,
                          std::uint64_t* id) {
    events &= COFFER_LOOP_READABLE | COFFER_LOOP_WRITABLE;
    if (!ready || fd < 0 || events == 0) return COFFER_E_INVALID;
    int mine = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (mine < 0) return COFFER_E_INVALID;
    auto e = add(owner);
    e->events = events;
    e->ready = ready;
    e->ctx = ctx;
    e->fd = mine;
    if (id) *id = e->id;
    on_loop([this, e] {
        if (e->is_dead()) return end(e);
        e->desc = std::make_unique<asio::posix::stream_descriptor>(io_);
        boost::system::error_code ec;
        e->desc->assign(e->fd, ec);
        if (ec) {
            e->desc.reset();
            deliver(e, COFFER_LOOP_ERROR);  // the plugin learns its descriptor cannot be watched
            return;
        }
        e->fd = -1;
        arm(e);
    });
    return COFFER_OK;
}

void Loop::arm(const std::shared_ptr<Entry>& e) {
    if (!e->desc || e->is_dead()) return;
    auto wait = [this, e](asio::posix::descriptor_base::wait_type type, bool Entry::*pending, std::uint32_t flag) {
        if ((*e).*pending) return;
        (*e).*pending = true;
        e->desc->async_wait(type, [this, e, pending, flag](boost::system::error_code ec) {
            (*e).*pending = false;
            if (ec == asio::error::operation_aborted) return;
            deliver(e, ec ? (flag | COFFER_LOOP_ERROR) : flag);
        });
    };
    if (e->events & COFFER_LOOP_READABLE) wait(asio::posix::descriptor_base::wait_read, &Entry::read_pending, COFFER_LOOP_READABLE);
    if (e->events & COFFER_LOOP_WRITABLE) wait(asio::posix::descriptor_base::wait_write, &Entry::write_pending, COFFER_LOOP_WRITABLE);
    // Level-triggered: Asio's reactor reports edges, so a condition that is already true (data the
    // callback left unread, a pipe with room) would otherwise wait for a change that may never
    // come. Look once, after the waits are queued, so no edge falls between the look and them.
    if (e->check_posted) return;
    auto now = loop_poll::look(e->desc->native_handle(), e->events);
    if (!now) return;
    e->check_posted = true;
    asio::post(io_, [this, e, now] {
        e->check_posted = false;
        deliver(e, now);
    });
}

void Loop::deliver(const std::shared_ptr<Entry>& e, std::uint32_t events) {
    {
        std::lock_guard<std::recursive_mutex> g(e->mu);
        if (e->dead) return;
        try {
            e->ready(e->ctx, events);
        } catch (...) {
            // A C callback does not throw; one that does must not take the loop down.
        }
    }
    arm(e);
}

void Loop::fire(const std::shared_ptr<Entry>& e) {
    {
        std::lock_guard<std::recursive_mutex> g(e->mu);
        if (e->dead) return;
        e->dead = true;  // one shot: a cancel from inside the callback finds it spent
        try {
            e->fire(e->ctx);
        } catch (...) {
        }
    }
    erase(e->id);
    e->clock.reset();
}

coffer_status Loop::timer(const std::string& owner, std::uint64_t delay_ms, FireFn fire_fn, void* ctx,
                          std::uint64_t* id) {
    if (!fire_fn) return COFFER_E_INVALID;
    auto e = add(owner);
    e->fire = fire_fn;
    e->ctx = ctx;
    if (id) *id = e->id;
    // Clamped to a day: longer delays are almost certainly a unit mistake, and the clock's
    // duration arithmetic must not overflow.
    auto delay = std::chrono::milliseconds(std::min<std::uint64_t>(delay_ms, 24ull * 3600 * 1000));
    on_loop([this, e, delay] {
        if (e->is_dead()) return;
        e->clock = std::make_unique<asio::steady_timer>(io_, delay);
        e->clock->async_wait([this, e](boost::system::error_code ec) {
            if (ec == asio::error::operation_aborted) return;
            fire(e);
        });
    });
    return COFFER_OK;
}

coffer_status Loop::defer(const std::string& owner, FireFn fire_fn, void* ctx, std::uint64_t* id) {
    if (!fire_fn) return COFFER_E_INVALID;
    auto e = add(owner);
    e->fire = fire_fn;
    e->ctx = ctx;
    if (id) *id = e->id;
    // On the loop thread a plain post queues without a system call; from elsewhere the Handoff
    // wakes the loop once (docs/decisions/0012).
    if (in_loop()) asio::post(io_, [this, e] { fire(e); });
    else (void)to_loop_->post([this, e] { fire(e); });
    return COFFER_OK;
}

coffer_status Loop::cancel(const std::string& owner, std::uint64_t id) {
    std::shared_ptr<Entry> e;
    {
        std::lock_guard<std::mutex> g(mu_);
        auto it = entries_.find(id);
        if (it == entries_.end() || it->second->owner != owner) return COFFER_E_NOT_FOUND;
        e = it->second;
        entries_.erase(it);
    }
    {
        std::lock_guard<std::recursive_mutex> g(e->mu);  // waits for a callback running elsewhere
        e->dead = true;
    }
    on_loop([this, e] { end(e); });
    return COFFER_OK;
}

void Loop::forget(const std::string& owner) {
    std::vector<std::uint64_t> ids;
    {
        std::lock_guard<std::mutex> g(mu_);
        for (auto& [id, e] : entries_)
            if (e->owner == owner) ids.push_back(id);
    }
    for (auto id : ids) (void)cancel(owner, id);
}

void Loop::end(const std::shared_ptr<Entry>& e) {
    boost::system::error_code ec;
    if (e->desc) e->desc->close(ec);  // cancels its waits and closes the host's duplicate
    e->desc.reset();
    if (e->fd >= 0) ::close(e->fd);
    e->fd = -1;
    if (e->clock) e->clock->cancel();
}

}  // namespace coffer::plugin
