#include "curation/prefs_store.hpp"

#include "resource/audit.hpp"

#include <boost/json.hpp>

namespace coffer::curation {

namespace json = boost::json;

namespace {
// An audit payload lists at most this many names (a server may expose thousands of resources).
constexpr std::size_t kAuditNames = 100;
}  // namespace

core::Result<std::vector<Row>> load_rows(store::Database& db) {
    auto st = db.prepare("SELECT server, type, name, enabled, origin, first_seen_ms, updated_ms FROM mcp_capability_prefs");
    if (!st) return st.error();
    std::vector<Row> rows;
    for (;;) {
        auto more = st->step();
        if (!more) return more.error();
        if (!*more) break;
        auto type = parse_type(st->text(1));
        if (!type) continue;  // written by a newer version: leave it alone
        Row r;
        r.server = st->text(0);
        r.type = *type;
        r.name = st->text(2);
        r.entry.enabled = st->int64(3) != 0;
        r.entry.origin = st->text(4);
        r.entry.first_seen_ms = st->is_null(5) ? 0 : st->int64(5);
        r.entry.updated_ms = st->int64(6);
        rows.push_back(std::move(r));
    }
    return rows;
}

core::Result<void> write_observed(store::Database& db, const std::string& server, Type type,
                                  const std::vector<std::string>& names, bool enabled, std::int64_t now_ms) {
    if (names.empty()) return {};
    store::Transaction tx(db);
    if (!tx.begun()) return tx.begun().error();
    auto st = db.prepare("INSERT OR IGNORE INTO mcp_capability_prefs "
                         "(server, type, name, enabled, origin, first_seen_ms, updated_ms) VALUES (?,?,?,?,?,?,?)");
    if (!st) return st.error();
    std::int64_t inserted = 0;
    json::array listed;
    for (auto& n : names) {
        st->reset();
        st->bind(1, server).bind(2, to_string(type)).bind(3, n).bind(4, enabled ? 1 : 0).bind(5, kOriginPolicy);
        st->bind(6, now_ms).bind(7, now_ms);
        if (auto r = st->run(); !r) return r;
        if (db.changes() > 0) {
            ++inserted;
            if (listed.size() < kAuditNames) listed.emplace_back(n);
        }
    }
    if (inserted > 0) {
        json::object payload{{"server", server},
                             {"type", to_string(type)},
                             {"names", std::move(listed)},
                             {"count", inserted},
                             {"enabled", enabled},
                             {"policy", enabled ? "auto_enable_new: true" : "auto_enable_new: false"}};
        if (auto r = resource::write_audit(db, "system", "capabilities_discovered", server, payload); !r) return r;
    }
    return tx.commit();
}

core::Result<void> write_choice(store::Database& db, const Row& row, std::optional<bool> before, std::string_view actor) {
    store::Transaction tx(db);
    if (!tx.begun()) return tx.begun().error();
    auto st = db.prepare("INSERT INTO mcp_capability_prefs (server, type, name, enabled, origin, first_seen_ms, updated_ms) "
                         "VALUES (?,?,?,?,?,?,?) ON CONFLICT(server, type, name) DO UPDATE SET "
                         "enabled = excluded.enabled, origin = excluded.origin, updated_ms = excluded.updated_ms");
    if (!st) return st.error();
    st->bind(1, row.server).bind(2, to_string(row.type)).bind(3, row.name).bind(4, row.entry.enabled ? 1 : 0);
    st->bind(5, row.entry.origin);
    if (row.entry.first_seen_ms) st->bind(6, row.entry.first_seen_ms);
    else st->bind_null(6);
    st->bind(7, row.entry.updated_ms);
    if (auto r = st->run(); !r) return r;
    json::object payload{{"server", row.server},
                         {"type", to_string(row.type)},
                         {"name", row.name},
                         {"from", before ? json::value(*before) : json::value(nullptr)},
                         {"to", row.entry.enabled}};
    auto event = row.entry.enabled ? "capability_enabled" : "capability_disabled";
    if (auto r = resource::write_audit(db, actor, event, row.server, payload); !r) return r;
    return tx.commit();
}

}  // namespace coffer::curation
