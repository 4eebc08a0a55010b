#include "resource/channels.hpp"

#include "core/log.hpp"

#include <algorithm>
#include <cstring>

namespace coffer::resource {

bool Channels::publish(const plugin::Kind& kind, const std::string& uid, const std::string& name, coffer_instance* inst) {
    const coffer_channel_adapter* raw = kind.fns.channel;
    if (!raw || !inst || !kind.plugin) return false;
    ChannelAdapter a;
    std::memcpy(&a.fns, raw, std::min<std::size_t>(raw->struct_size, sizeof(coffer_channel_adapter)));
    if (!a.fns.capabilities || !a.fns.start || !a.fns.stop || !a.fns.send) {
        core::log::warn("channel adapter table lacks capabilities/start/stop/send; the resource cannot receive",
                        {{"kind", kind.name}, {"resource", name}});
        return false;
    }
    a.uid = uid;
    a.kind = kind.name;
    a.name = name;
    a.plugin = kind.plugin;
    a.instance = inst;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (by_uid_.count(uid)) return true;  // already published (a refresh)
        by_uid_[uid] = a;
    }
    if (listener_.published) listener_.published(a);
    return true;
}

void Channels::retire(const std::string& uid) {
    std::optional<ChannelAdapter> a;
    {
        std::lock_guard<std::mutex> g(mu_);
        auto it = by_uid_.find(uid);
        if (it == by_uid_.end()) return;
        a = it->second;
        by_uid_.erase(it);
    }
    if (listener_.retiring) listener_.retiring(*a);
}

void Channels::set_listener(Listener l) {
    listener_ = std::move(l);
    if (listener_.published)
        for (auto& a : all()) listener_.published(a);
}

std::optional<ChannelAdapter> Channels::find_uid(const std::string& uid) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = by_uid_.find(uid);
    if (it == by_uid_.end()) return std::nullopt;
    return it->second;
}

std::vector<ChannelAdapter> Channels::all() const {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<ChannelAdapter> out;
    for (auto& [uid, a] : by_uid_) out.push_back(a);
    return out;
}

}  // namespace coffer::resource
