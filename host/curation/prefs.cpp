#include "curation/prefs.hpp"

namespace coffer::curation {

const Entry* ServerPrefs::find(Type t, std::string_view name) const {
    auto& m = by_type[static_cast<std::size_t>(t)];
    auto it = m.find(name);
    return it == m.end() ? nullptr : &it->second;
}

bool ServerPrefs::enabled(Type t, std::string_view name, bool auto_enable) const {
    auto* e = find(t, name);
    return e ? e->enabled : auto_enable;
}

std::shared_ptr<const ServerPrefs> Prefs::server(const std::string& name) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = servers_.find(name);
    return it == servers_.end() ? nullptr : it->second;
}

bool Prefs::enabled(const std::string& server, Type t, std::string_view name, bool auto_enable) const {
    auto s = this->server(server);
    return s ? s->enabled(t, name, auto_enable) : auto_enable;
}

std::vector<std::string> Prefs::observe(const std::string& server, Type t, const std::vector<std::string>& names,
                                        bool auto_enable, std::int64_t now_ms) {
    std::vector<std::string> fresh;
    std::lock_guard<std::mutex> g(mu_);
    auto& slot = servers_[server];
    const ServerPrefs* cur = slot.get();
    for (auto& n : names)
        if (!cur || !cur->find(t, n)) fresh.push_back(n);
    if (fresh.empty()) return fresh;
    auto next = cur ? std::make_shared<ServerPrefs>(*cur) : std::make_shared<ServerPrefs>();
    auto& m = next->by_type[static_cast<std::size_t>(t)];
    std::vector<std::string> added;
    for (auto& n : fresh)
        if (m.emplace(n, Entry{auto_enable, std::string(kOriginPolicy), now_ms, now_ms}).second) added.push_back(n);
    slot = std::move(next);
    return added;  // a name listed twice is new once
}

void Prefs::put(const Row& row) {
    std::lock_guard<std::mutex> g(mu_);
    auto& slot = servers_[row.server];
    auto next = slot ? std::make_shared<ServerPrefs>(*slot) : std::make_shared<ServerPrefs>();
    next->by_type[static_cast<std::size_t>(row.type)][row.name] = row.entry;
    slot = std::move(next);
}

void Prefs::load(const std::vector<Row>& rows) {
    std::map<std::string, std::shared_ptr<ServerPrefs>, std::less<>> built;
    for (auto& r : rows) {
        auto& s = built[r.server];
        if (!s) s = std::make_shared<ServerPrefs>();
        s->by_type[static_cast<std::size_t>(r.type)][r.name] = r.entry;
    }
    std::lock_guard<std::mutex> g(mu_);
    servers_.clear();
    for (auto& [k, v] : built) servers_.emplace(k, std::move(v));
}

}  // namespace coffer::curation
