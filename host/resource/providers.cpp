#include "resource/providers.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <cstring>

namespace coffer::resource {

void Providers::set_closer(Closer c) {
    std::lock_guard<std::mutex> g(mu_);
    closer_ = std::move(c);
}

void Providers::set_listener(Listener l) {
    std::lock_guard<std::mutex> g(mu_);
    listener_ = std::move(l);
}

bool Providers::publish(const plugin::Kind& kind, const std::string& uid, const std::string& name,
                        const boost::json::array& scope, coffer_instance* inst, bool auto_enable_new) {
    const coffer_mcp_provider* raw = kind.fns.mcp;
    if (!raw || !inst || !kind.plugin) return false;
    Provider p;
    std::size_t n = std::min<std::size_t>(raw->struct_size, sizeof(coffer_mcp_provider));
    std::memcpy(&p.fns, raw, n);
    if (!p.fns.open || !p.fns.request || !p.fns.close) {
        core::log::warn("MCP provider table lacks open/request/close; the resource contributes nothing",
                        {{"kind", kind.name}, {"resource", name}});
        return false;
    }
    p.uid = uid;
    p.kind = kind.name;
    p.name = name;
    p.scope = scope;
    p.auto_enable_new = auto_enable_new;
    p.plugin = kind.plugin;
    p.instance = inst;
    {
        std::lock_guard<std::mutex> g(mu_);
        auto next = std::make_shared<std::vector<Provider>>(*list_);
        std::erase_if(*next, [&](const Provider& q) { return q.uid == uid; });
        auto at = std::lower_bound(next->begin(), next->end(), p.name,
                                   [](const Provider& q, const std::string& n) { return q.name < n; });
        next->insert(at, std::move(p));
        list_ = std::move(next);
    }
    changed();
    return true;
}

void Providers::retire(const std::string& uid) {
    Closer closer;
    bool found = false;
    {
        std::lock_guard<std::mutex> g(mu_);
        auto next = std::make_shared<std::vector<Provider>>(*list_);
        found = std::erase_if(*next, [&](const Provider& q) { return q.uid == uid; }) > 0;
        if (found) list_ = std::move(next);
        closer = closer_;
    }
    if (!found) return;
    if (closer) closer(uid);  // outside the lock: it waits for the network thread
    changed();
}

std::shared_ptr<const std::vector<Provider>> Providers::snapshot() const {
    std::lock_guard<std::mutex> g(mu_);
    return list_;
}

std::optional<Provider> Providers::find(const std::string& uid) const {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& p : *list_)
        if (p.uid == uid) return p;
    return std::nullopt;
}

void Providers::changed() {
    Listener l;
    {
        std::lock_guard<std::mutex> g(mu_);
        l = listener_;
    }
    if (l) l();
}

}  // namespace coffer::resource
