#include "curation/curation.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "curation/prefs_store.hpp"

#include <boost/asio/post.hpp>

namespace coffer::curation {

Curation::Curation(store::Database& db, boost::asio::any_io_executor service) : db_(db), service_(std::move(service)) {}

core::Result<void> Curation::load() {
    auto rows = load_rows(db_);
    if (!rows) return rows.error();
    prefs_.load(*rows);
    return {};
}

void Curation::observe(const std::string& server, Type t, const std::vector<std::string>& names, bool auto_enable) {
    auto now = core::now_ms();
    auto fresh = prefs_.observe(server, t, names, auto_enable, now);
    if (fresh.empty()) return;
    core::log::info("new capabilities seen", {{"server", server},
                                               {"type", std::string(to_string(t))},
                                               {"count", static_cast<std::int64_t>(fresh.size())},
                                               {"enabled", auto_enable}});
    boost::asio::post(service_, [this, server, t, fresh = std::move(fresh), auto_enable, now] {
        if (auto r = write_observed(db_, server, t, fresh, auto_enable, now); !r)
            core::log::error("could not record new capabilities", {{"server", server}, {"error", r.error().message}});
    });
}

core::Result<Entry> Curation::set(const std::string& server, Type t, const std::string& name, bool enabled,
                                  std::string_view actor) {
    auto now = core::now_ms();
    auto cur = prefs_.server(server);
    const Entry* before = cur ? cur->find(t, name) : nullptr;
    Row row{server, t, name, Entry{enabled, std::string(kOriginUser), before ? before->first_seen_ms : 0, now}};
    if (auto r = write_choice(db_, row, before ? std::optional<bool>(before->enabled) : std::nullopt, actor); !r)
        return r.error();
    prefs_.put(row);
    core::log::info(enabled ? "capability enabled" : "capability disabled",
                    {{"server", server}, {"type", std::string(to_string(t))}, {"name", name}});
    if (changed_) changed_(t);
    return row.entry;
}

}  // namespace coffer::curation
