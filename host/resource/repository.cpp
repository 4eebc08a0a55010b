#include "resource/repository.hpp"

#include <coffer/raw_json.hpp>

#include <boost/json.hpp>

namespace coffer::resource::repo {

namespace json = boost::json;

namespace {
constexpr const char* kColumns = "uid, kind, name, description, config, enabled, scope, created_at, updated_at";

Resource read_row(const store::Statement& st) {
    Resource r;
    r.uid = st.text(0);
    r.kind = st.text(1);
    r.name = st.text(2);
    r.description = st.text(3);
    boost::system::error_code ec;
    auto cfg = json::parse(st.text(4), ec);
    if (!ec && cfg.is_object()) r.config = std::move(cfg.as_object());
    r.enabled = st.int64(5) != 0;
    auto scope = json::parse(st.text(6), ec);
    if (!ec && scope.is_array()) r.scope = std::move(scope.as_array());
    r.created_at = st.text(7);
    r.updated_at = st.text(8);
    return r;
}
}  // namespace

core::Result<std::optional<Resource>> find(store::Database& db, std::string_view kind, std::string_view name) {
    auto st = db.prepare(std::string("SELECT ") + kColumns + " FROM resources WHERE kind = ? AND name = ?");
    if (!st) return st.error();
    st->bind(1, kind).bind(2, name);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<Resource>();
    return std::optional<Resource>(read_row(*st));
}

namespace {
// Calls `fn` with every row of the resources table (of one kind, if given), in listing order.
core::Result<void> each_row(store::Database& db, std::optional<std::string_view> kind,
                            const std::function<void(const store::Statement&)>& fn) {
    std::string sql = std::string("SELECT ") + kColumns + " FROM resources";
    if (kind) sql += " WHERE kind = ?";
    sql += " ORDER BY kind, name";
    auto st = db.prepare(sql);
    if (!st) return st.error();
    if (kind) st->bind(1, *kind);
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) return {};
        fn(*st);
    }
}
}  // namespace

core::Result<std::vector<Resource>> list(store::Database& db, std::optional<std::string_view> kind) {
    std::vector<Resource> out;
    auto done = each_row(db, kind, [&](const store::Statement& st) { out.push_back(read_row(st)); });
    if (!done) return done.error();
    return out;
}

core::Result<std::string> list_document(store::Database& db, std::optional<std::string_view> kind,
                                        const std::function<std::optional<bool>(const json::array& scope)>& place) {
    std::string out = R"({"resources":[)";
    bool first = true;
    auto done = each_row(db, kind, [&](const store::Statement& st) {
        boost::system::error_code ec;
        auto parsed = json::parse(st.text(6), ec);
        json::array scope = !ec && parsed.is_array() ? std::move(parsed.as_array()) : json::array();
        auto in_scope = place(scope);
        if (!in_scope) return;
        // The config column holds what insert()/update() serialized; anything else reads as {}
        // (as read_row() does).
        auto config = st.text(4);
        if (!raw_json::is_object(config)) config = "{}";
        if (!first) out += ',';
        first = false;
        out += R"({"uid":)";
        out += raw_json::quote(st.text(0));
        out += R"(,"kind":)";
        out += raw_json::quote(st.text(1));
        out += R"(,"name":)";
        out += raw_json::quote(st.text(2));
        out += R"(,"description":)";
        out += raw_json::quote(st.text(3));
        out += R"(,"config":)";
        out += config;
        out += st.int64(5) != 0 ? R"(,"enabled":true,"scope":)" : R"(,"enabled":false,"scope":)";
        out += json::serialize(scope);
        out += R"(,"created_at":)";
        out += raw_json::quote(st.text(7));
        out += R"(,"updated_at":)";
        out += raw_json::quote(st.text(8));
        if (!*in_scope) out += R"(,"in_scope":false)";
        out += '}';
    });
    if (!done) return done.error();
    out += "]}";
    return out;
}

core::Result<void> insert(store::Database& db, const Resource& r) {
    auto st = db.prepare(std::string("INSERT INTO resources (") + kColumns + ") VALUES (?,?,?,?,?,?,?,?,?)");
    if (!st) return st.error();
    st->bind(1, r.uid).bind(2, r.kind).bind(3, r.name).bind(4, r.description).bind(5, json::serialize(r.config));
    st->bind(6, r.enabled ? 1 : 0).bind(7, json::serialize(r.scope)).bind(8, r.created_at).bind(9, r.updated_at);
    return st->run();
}

core::Result<void> update(store::Database& db, const Resource& r) {
    auto st = db.prepare(
        "UPDATE resources SET description = ?, config = ?, enabled = ?, scope = ?, updated_at = ? WHERE uid = ?");
    if (!st) return st.error();
    st->bind(1, r.description).bind(2, json::serialize(r.config)).bind(3, r.enabled ? 1 : 0);
    st->bind(4, json::serialize(r.scope)).bind(5, r.updated_at).bind(6, r.uid);
    return st->run();
}

core::Result<void> remove(store::Database& db, std::string_view uid) {
    auto st = db.prepare("DELETE FROM resources WHERE uid = ?");
    if (!st) return st.error();
    st->bind(1, uid);
    return st->run();
}

}  // namespace coffer::resource::repo
