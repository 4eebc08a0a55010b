#include "resource/audit.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

#include <boost/json.hpp>

namespace coffer::resource {

namespace json = boost::json;

core::Result<void> write_audit(store::Database& db, std::string_view actor, std::string_view event_type,
                               std::string_view target, const json::object& payload) {
    auto st = db.prepare("INSERT INTO audit (ts_ms, actor, event_type, target, payload) VALUES (?,?,?,?,?)");
    if (!st) return st.error();
    st->bind(1, core::now_ms()).bind(2, actor).bind(3, event_type).bind(4, target).bind(5, json::serialize(payload));
    return st->run();
}

void record_audit(store::Database& db, std::string_view actor, std::string_view event_type, std::string_view target,
                  const json::object& payload) {
    auto written = write_audit(db, actor, event_type, target, payload);
    if (written) return;
    core::log::error("audit row not written",
                     {{"event_type", event_type}, {"actor", actor}, {"target", target}, {"payload", payload},
                      {"error", written.error().message}});
}

core::Result<json::array> list_audit(store::Database& db, int limit) {
    auto st = db.prepare("SELECT id, ts_ms, actor, event_type, target, payload FROM audit ORDER BY id DESC LIMIT ?");
    if (!st) return st.error();
    st->bind(1, limit);
    json::array out;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        boost::system::error_code ec;
        auto payload = json::parse(st->text(5), ec);
        if (ec) payload = json::object{};
        out.push_back(json::object{{"id", st->int64(0)},
                                   {"ts", core::iso_time(st->int64(1))},
                                   {"actor", st->text(2)},
                                   {"event_type", st->text(3)},
                                   {"target", st->text(4)},
                                   {"payload", std::move(payload)}});
    }
    return out;
}

}  // namespace coffer::resource
