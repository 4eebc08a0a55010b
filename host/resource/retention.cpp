#include "resource/retention.hpp"

#include "resource/audit.hpp"

#include <boost/json.hpp>

#include <mutex>
#include <vector>

namespace coffer::resource {

namespace json = boost::json;

namespace {
std::mutex g_mu;
std::vector<RetainedTable>& tables() {
    static std::vector<RetainedTable> t{{"audit", "ts_ms", 365, {}}};
    return t;
}
}  // namespace

void register_retained_table(RetainedTable t) {
    std::lock_guard<std::mutex> g(g_mu);
    for (auto& e : tables())
        if (e.name == t.name) return;
    tables().push_back(std::move(t));
}

const RetainedTable* find_retained_table(std::string_view name) {
    std::lock_guard<std::mutex> g(g_mu);
    for (auto& e : tables())
        if (e.name == name) return &e;
    return nullptr;
}

core::Result<std::optional<int>> get_retention(store::Database& db, std::string_view table) {
    auto* t = find_retained_table(table);
    if (!t) return core::Error::make(core::code::not_found, "no retention policy for table '" + std::string(table) + "'");
    auto st = db.prepare("SELECT days FROM retention WHERE table_name = ?");
    if (!st) return st.error();
    st->bind(1, table);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return t->default_days;
    if (st->is_null(0)) return std::optional<int>();
    return std::optional<int>(static_cast<int>(st->int64(0)));
}

core::Result<json::array> list_retention(store::Database& db) {
    std::vector<RetainedTable> copy;
    {
        std::lock_guard<std::mutex> g(g_mu);
        copy = tables();
    }
    json::array out;
    for (auto& t : copy) {
        auto d = get_retention(db, t.name);
        if (!d) return d.error();
        out.push_back(json::object{{"table", t.name}, {"days", *d ? json::value(**d) : json::value(nullptr)}});
    }
    return out;
}

core::Result<void> set_retention(store::Database& db, std::string_view table, std::optional<int> days,
                                 std::string_view actor) {
    if (!find_retained_table(table))
        return core::Error::make(core::code::not_found, "no retention policy for table '" + std::string(table) + "'");
    if (days && (*days < 1 || *days > 36500))
        return core::Error::make(core::code::validation_failed, "days must be between 1 and 36500, or null for forever",
                                 json::object{{"errors", json::array{json::object{{"pointer", "/days"},
                                                                                  {"message", "must be 1..36500 or null"}}}}});
    auto before = get_retention(db, table);
    if (!before) return before.error();
    store::Transaction tx(db);
    if (!tx.begun()) return tx.begun().error();
    auto st = db.prepare("INSERT INTO retention (table_name, days) VALUES (?, ?) "
                         "ON CONFLICT(table_name) DO UPDATE SET days = excluded.days");
    if (!st) return st.error();
    st->bind(1, table);
    if (days) st->bind(2, static_cast<std::int64_t>(*days));
    else st->bind_null(2);
    if (auto r = st->run(); !r) return r;
    json::object payload{{"table", table},
                         {"from", *before ? json::value(**before) : json::value(nullptr)},
                         {"to", days ? json::value(*days) : json::value(nullptr)}};
    if (auto r = write_audit(db, actor, "retention_changed", table, payload); !r) return r;
    return tx.commit();
}

core::Result<std::int64_t> purge_batch(store::Database& db, std::string_view table, std::int64_t now_ms, int batch) {
    auto* t = find_retained_table(table);
    if (!t) return core::Error::make(core::code::not_found, "unknown table");
    auto days = get_retention(db, table);
    if (!days) return days.error();
    if (!*days) return std::int64_t{0};
    std::int64_t cutoff = now_ms - static_cast<std::int64_t>(**days) * 86400000LL;
    // Table and column names come from the registered list above, never from the user.
    const std::string& table_sql = t->sql_table.empty() ? t->name : t->sql_table;
    std::string sql = "DELETE FROM " + table_sql + " WHERE rowid IN (SELECT rowid FROM " + table_sql + " WHERE " +
                      t->ts_column + " < ? LIMIT ?)";
    auto st = db.prepare(sql);
    if (!st) return st.error();
    st->bind(1, cutoff).bind(2, batch);
    if (auto r = st->run(); !r) return r.error();
    return db.changes();
}

}  // namespace coffer::resource
