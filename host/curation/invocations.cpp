#include "curation/invocations.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "resource/audit.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace coffer::curation {

namespace json = boost::json;

InvocationLog::InvocationLog(store::Database& db, boost::asio::any_io_executor service, Options opt)
    : db_(db), service_(service), opt_(opt), timer_(service) {}

void InvocationLog::record(Invocation inv) {
    if (observer_) observer_(inv);
    bool schedule = false;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (queue_.size() >= opt_.max_queued) {
            ++dropped_;
            return;
        }
        queue_.push_back(std::move(inv));
        ++recorded_;
        if (!scheduled_) schedule = scheduled_ = true;
    }
    if (!schedule) return;
    boost::asio::post(service_, [this] {
        timer_.expires_after(opt_.delay);
        timer_.async_wait([this](boost::system::error_code ec) {
            if (!ec) write_some();
        });
    });
}

void InvocationLog::flush() {
    timer_.cancel();
    while (refill()) {
        write(pending_at_, pending_.size());
        pending_at_ = pending_.size();
    }
}

// The queue is taken whole (an O(1) swap under the lock, so record() never waits behind a batch)
// and written `batch` rows per handler turn; REST requests get their turns in between.
void InvocationLog::write_some() {
    if (!refill()) return;
    auto to = std::min(pending_.size(), pending_at_ + opt_.batch);
    write(pending_at_, to);
    pending_at_ = to;
    boost::asio::post(service_, [this] { write_some(); });  // the rest, or what arrived meanwhile
}

bool InvocationLog::refill() {
    if (pending_at_ < pending_.size()) return true;
    pending_.clear();
    pending_at_ = 0;
    std::lock_guard<std::mutex> g(mu_);
    if (queue_.empty()) {
        scheduled_ = false;  // the next record() schedules a write again
        return false;
    }
    pending_.swap(queue_);
    return true;
}

void InvocationLog::write(std::size_t from, std::size_t to) {
    if (from >= to) return;
    auto n = to - from;
    store::Transaction tx(db_);
    if (!tx.begun()) {
        core::log::error("invocation log: cannot begin a transaction", {{"error", tx.begun().error().message}});
        dropped_ += n;
        return;
    }
    auto st = db_.prepare("INSERT INTO mcp_invocations (ts_ms, session, agent, server, type, target, duration_ms, "
                          "outcome, error_code, retried) VALUES (?,?,?,?,?,?,?,?,?,?)");
    if (!st) {
        core::log::error("invocation log: cannot prepare", {{"error", st.error().message}});
        dropped_ += n;
        return;
    }
    for (auto k = from; k < to; ++k) {
        auto& i = pending_[k];
        st->reset();
        st->bind(1, i.ts_ms).bind(2, i.session).bind(3, i.agent).bind(4, i.server).bind(5, to_string(i.type));
        st->bind(6, i.target).bind(7, i.duration_ms).bind(8, i.outcome).bind(9, i.error_code);
        st->bind(10, static_cast<std::int64_t>(i.retried ? 1 : 0));
        if (auto r = st->run(); !r) {
            core::log::error("invocation log: insert failed", {{"error", r.error().message}});
            dropped_ += n;
            return;
        }
        if (i.retried)  // what the gateway did on its own is audited (docs/decisions/0037-safe-retry.md)
            resource::record_audit(db_, i.agent.empty() ? std::string_view("mcp") : std::string_view(i.agent),
                                   "mcp.call.retried", i.target,
                                   json::object{{"server", i.server}, {"session", i.session}, {"outcome", i.outcome}});
    }
    if (auto r = tx.commit(); !r) {
        core::log::error("invocation log: commit failed", {{"error", r.error().message}});
        dropped_ += n;
        return;
    }
    written_ += n;
}

core::Result<json::array> list_invocations(store::Database& db, const std::optional<std::string>& server, int limit) {
    std::string sql = "SELECT id, ts_ms, session, agent, server, type, target, duration_ms, outcome, error_code, "
                      "retried FROM mcp_invocations";
    if (server) sql += " WHERE server = ?";
    sql += " ORDER BY id DESC LIMIT ?";
    auto st = db.prepare(sql);
    if (!st) return st.error();
    int i = 1;
    if (server) st->bind(i++, *server);
    st->bind(i, limit);
    json::array out;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back(json::object{{"id", st->int64(0)},
                                   {"ts", core::iso_time(st->int64(1))},
                                   {"session", st->text(2)},
                                   {"agent", st->text(3)},
                                   {"server", st->text(4)},
                                   {"type", st->text(5)},
                                   {"target", st->text(6)},
                                   {"duration_ms", st->int64(7)},
                                   {"outcome", st->text(8)},
                                   {"error_code", st->is_null(9) ? json::value(nullptr) : json::value(st->int64(9))},
                                   {"retried", st->int64(10) != 0}});
    }
    return out;
}

}  // namespace coffer::curation
