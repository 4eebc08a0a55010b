#include "plugin/handles.hpp"

#include <mutex>
#include <unordered_map>

namespace coffer::plugin {

namespace {

template <typename Target> class Table {
public:
    std::uintptr_t add(Target* t) {
        std::lock_guard<std::mutex> g(mu_);
        auto id = next_++;
        live_.emplace(id, t);
        return id;
    }
    void remove(std::uintptr_t id) {
        std::lock_guard<std::mutex> g(mu_);
        live_.erase(id);
    }
    // Runs fn(target) with the lock held; false when the id is not live.
    template <typename F> bool with(std::uintptr_t id, F&& fn) {
        std::lock_guard<std::mutex> g(mu_);
        auto it = live_.find(id);
        if (it == live_.end()) return false;
        fn(*it->second);
        return true;
    }
    std::size_t size() {
        std::lock_guard<std::mutex> g(mu_);
        return live_.size();
    }

private:
    std::mutex mu_;
    std::uintptr_t next_ = 1;  // 0 is the null handle
    std::unordered_map<std::uintptr_t, Target*> live_;
};

// Never destroyed: plugin threads may complete calls during static destruction.
Table<CallTarget>& calls() {
    static auto* t = new Table<CallTarget>();
    return *t;
}
Table<SessionTarget>& sessions() {
    static auto* t = new Table<SessionTarget>();
    return *t;
}

template <typename H> std::uintptr_t id_of(H* h) { return reinterpret_cast<std::uintptr_t>(h); }

}  // namespace

coffer_call* register_call(CallTarget* target) { return reinterpret_cast<coffer_call*>(calls().add(target)); }
coffer_session* register_session(SessionTarget* target) {
    return reinterpret_cast<coffer_session*>(sessions().add(target));
}
void retire(coffer_call* handle) {
    if (handle) calls().remove(id_of(handle));
}
void retire(coffer_session* handle) {
    if (handle) sessions().remove(id_of(handle));
}

bool complete_call(coffer_call* handle, std::string_view result_json, std::string_view error_json) {
    if (!handle) return false;
    return calls().with(id_of(handle), [&](CallTarget& t) { t.complete(result_json, error_json); });
}

coffer_status session_notify(coffer_session* handle, coffer_call* related, std::string_view notification_json) {
    coffer_status st = COFFER_E_NOT_FOUND;
    if (handle) sessions().with(id_of(handle), [&](SessionTarget& t) { st = t.notify(related, notification_json); });
    return st;
}

coffer_status session_request(coffer_session* handle, coffer_call* related, std::uint64_t token,
                              std::string_view request_json) {
    coffer_status st = COFFER_E_NOT_FOUND;
    if (handle)
        sessions().with(id_of(handle), [&](SessionTarget& t) { st = t.request(related, token, request_json); });
    return st;
}

std::size_t live_calls() { return calls().size(); }
std::size_t live_sessions() { return sessions().size(); }

}  // namespace coffer::plugin
