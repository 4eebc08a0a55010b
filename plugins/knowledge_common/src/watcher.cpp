// inotify watcher (see watcher.hpp).
#include "watcher.hpp"

#include "confine.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cctype>
#include <cstring>

namespace coffer::knowledge {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kMask = IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO |
                                IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW;
// How long a batch gathers after its first event before it is delivered.
constexpr auto kQuiet = std::chrono::milliseconds(150);

std::string join(const std::string& dir, std::string_view name) {
    return dir.empty() ? std::string(name) : dir + "/" + std::string(name);
}

}  // namespace

bool Watcher::start(Sink sink) {
    if (fd_ >= 0) return true;
    fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd_ < 0 || ::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) != 0) {
        host_.warn(std::string("cannot watch folders (inotify: ") + std::strerror(errno) +
                   "); changes are picked up when a search hits a changed file or on reindex");
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
        return false;
    }
    sink_ = std::move(sink);
    thread_ = std::thread([this] { loop(); });
    return true;
}

void Watcher::stop() {
    if (fd_ < 0) return;
    char b = 1;
    (void)!::write(wake_[1], &b, 1);  // the loop sees it; a full pipe already wakes it
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
    fd_ = -1;
    std::lock_guard<std::mutex> g(mu_);
    places_.clear();
    roots_.clear();
}

void Watcher::watch(const std::string& key, const fs::path& root) {
    std::lock_guard<std::mutex> g(mu_);
    if (fd_ < 0) return;
    drop_key(key);
    roots_[key] = root;
    add_tree(key, root);
}

void Watcher::unwatch(const std::string& key) {
    std::lock_guard<std::mutex> g(mu_);
    if (fd_ < 0) return;
    drop_key(key);
    roots_.erase(key);
}

void Watcher::drop_key(const std::string& key) {
    for (auto it = places_.begin(); it != places_.end();) {
        auto& v = it->second;
        v.erase(std::remove_if(v.begin(), v.end(), [&](const Place& p) { return p.key == key; }), v.end());
        if (v.empty()) {
            ::inotify_rm_watch(fd_, it->first);
            it = places_.erase(it);
        } else {
            ++it;
        }
    }
}

void Watcher::add_one(const std::string& key, const fs::path& dir, const std::string& rel) {
    int wd = ::inotify_add_watch(fd_, dir.c_str(), kMask);
    if (wd < 0) {
        if (errno == ENOSPC && !full_warned_) {
            full_warned_ = true;
            host_.warn("the inotify watch limit is reached (fs.inotify.max_user_watches); folders beyond it are "
                       "not watched: their changes are found when a search hits them or on reindex");
        }
        return;
    }
    auto& v = places_[wd];
    for (auto& p : v)
        if (p.key == key) {
            p.rel = rel;
            return;
        }
    v.push_back(Place{key, rel});
}

void Watcher::add_tree(const std::string& key, const fs::path& root) {
    add_one(key, root, "");
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const auto& e = *it;
        std::error_code st;
        if (e.is_symlink(st)) {
            it.disable_recursion_pending();
            continue;
        }
        if (!e.is_directory(st)) continue;
        auto name = e.path().filename().string();
        if (!name.empty() && name[0] == '.') {
            it.disable_recursion_pending();
            continue;
        }
        add_one(key, e.path(), e.path().lexically_relative(root).generic_string());
    }
}

void Watcher::read_events(std::map<std::string, Pending>& batch) {
    alignas(struct inotify_event) char buf[64 * 1024];
    for (;;) {
        auto n = ::read(fd_, buf, sizeof buf);
        if (n <= 0) return;
        std::lock_guard<std::mutex> g(mu_);
        for (char* p = buf; p < buf + n;) {
            auto* ev = reinterpret_cast<struct inotify_event*>(p);
            p += sizeof(struct inotify_event) + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                for (auto& [key, root] : roots_) batch[key].rescan = true;
                continue;
            }
            auto it = places_.find(ev->wd);
            if (it == places_.end()) continue;
            std::string_view name = ev->len ? std::string_view(ev->name) : std::string_view();
            for (auto& place : it->second) {
                auto& pending = batch[place.key];
                if (ev->mask & (IN_ISDIR | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
                    if (!name.empty() && name[0] == '.') continue;  // hidden folders are not indexed
                    pending.rescan = true;
                } else if (!name.empty() && name[0] != '.' && is_markdown_name(name)) {
                    pending.rels.insert(join(place.rel, name));
                }
            }
        }
    }
}

void Watcher::loop() {
    std::map<std::string, Pending> batch;
    auto first = std::chrono::steady_clock::now();
    for (;;) {
        int timeout = -1;
        if (!batch.empty()) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(first + kQuiet -
                                                                              std::chrono::steady_clock::now());
            timeout = static_cast<int>(std::max<long long>(0, left.count()));
        }
        pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        int rc = ::poll(fds, 2, timeout);
        if (rc < 0 && errno != EINTR) return;
        if (fds[1].revents) return;
        if (rc > 0 && (fds[0].revents & POLLIN)) {
            bool was_empty = batch.empty();
            read_events(batch);
            if (was_empty && !batch.empty()) first = std::chrono::steady_clock::now();
            continue;
        }
        if (batch.empty()) continue;
        // Quiet long enough: a folder change re-reads the key's tree of watches, then deliver.
        for (auto& [key, pending] : batch) {
            if (!pending.rescan) continue;
            std::lock_guard<std::mutex> g(mu_);
            if (auto r = roots_.find(key); r != roots_.end()) {
                auto root = r->second;
                drop_key(key);
                add_tree(key, root);
            }
        }
        for (auto& [key, pending] : batch) {
            std::vector<std::string> rels(pending.rels.begin(), pending.rels.end());
            try {
                sink_(key, rels, pending.rescan);
            } catch (const std::exception& e) {
                host_.warn(std::string("folder change not handled: ") + e.what());
            }
        }
        batch.clear();
    }
}

}  // namespace coffer::knowledge
