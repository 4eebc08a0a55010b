// Invocation log benchmark (issue 4, G-23, R-8). Prints figures; asserts nothing about time.
//
//  1. The write path in process: InvocationLog::record on the calling thread (what the gateway's
//     network thread pays per call) and how fast the service thread drains the queue into SQLite.
//  2. Retention under load: 1,000,000 invocation rows older than the policy, a real daemon, and a
//     client calling GET /api/v1/mcp/invocations back to back while the periodic purge deletes
//     them: REST p50/p99/max before and during the purge, and the purge's duration.
//
//   coffer-bench-invocations [--quick] [--rows N]
#include "daemon_fixture.hpp"
#include "stats.hpp"

#include "curation/invocations.hpp"
#include "store/database.hpp"
#include "store/migrations.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace coffer::test;
namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

namespace {

double ms_since(clk::time_point t) { return std::chrono::duration<double, std::milli>(clk::now() - t).count(); }

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

coffer::curation::Invocation sample(int i) {
    coffer::curation::Invocation inv;
    inv.ts_ms = now_ms();
    inv.session = "0123456789abcdef0123456789abcdef";
    inv.agent = "bench";
    inv.server = "srv" + std::to_string(i % 8);
    inv.target = inv.server + "__tool_" + std::to_string(i % 50);
    inv.duration_ms = i % 17;
    inv.outcome = "ok";
    return inv;
}

void write_path(const fs::path& dir, int n) {
    auto db = coffer::store::Database::open(dir / "writepath.db");
    if (!db) {
        std::printf("write path: cannot open a database: %s\n", db.error().message.c_str());
        return;
    }
    auto& database = **db;
    (void)coffer::store::migrate(database);
    boost::asio::io_context svc;
    auto guard = boost::asio::make_work_guard(svc);
    std::thread service([&] { svc.run(); });
    coffer::curation::InvocationLog log(database, svc.get_executor());

    std::vector<double> per_call_ns;
    per_call_ns.reserve(static_cast<std::size_t>(n));
    auto t0 = clk::now();
    for (int i = 0; i < n; ++i) {
        auto inv = sample(i);
        auto a = clk::now();
        log.record(std::move(inv));
        per_call_ns.push_back(std::chrono::duration<double, std::nano>(clk::now() - a).count());
        // 50,000 calls/s: beyond what one gateway network thread completes, yet not a synthetic flood.
        if (i % 1000 == 999) std::this_thread::sleep_until(t0 + std::chrono::milliseconds((i + 1) / 50));
    }
    double recording_ms = ms_since(t0);
    while (log.written() + log.dropped() < static_cast<std::uint64_t>(n) && ms_since(t0) < 60000)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    double drained_ms = ms_since(t0);
    std::promise<void> flushed;
    boost::asio::post(svc, [&] {
        log.flush();
        flushed.set_value();
    });
    flushed.get_future().wait();
    guard.reset();
    svc.stop();
    service.join();
    std::printf("write path: %d records  record() p50 %.0f ns  p99 %.0f ns  max %.0f ns\n", n, percentile(per_call_ns, 0.50),
                percentile(per_call_ns, 0.99), percentile(per_call_ns, 1.0));
    std::printf("write path: all %llu rows committed %.1f ms after the first record (recording took %.1f ms; "
                "%.0f rows/s written; dropped %llu)\n",
                static_cast<unsigned long long>(log.written()), drained_ms, recording_ms,
                static_cast<double>(log.written()) / (drained_ms / 1000.0), static_cast<unsigned long long>(log.dropped()));
}

// Old rows straight into the table while no daemon runs.
bool seed_old_rows(const fs::path& db_path, int rows, std::int64_t ts) {
    sqlite3* db = nullptr;
    if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) return false;
    sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db,
                       "INSERT INTO mcp_invocations (ts_ms, session, agent, server, type, target, duration_ms, outcome) "
                       "VALUES (?, 'old-session', 'bench', ?, 'tool', ?, 3, 'ok')",
                       -1, &st, nullptr);
    for (int i = 0; i < rows; ++i) {
        std::string server = "srv" + std::to_string(i % 8);
        std::string target = server + "__tool_" + std::to_string(i % 50);
        sqlite3_bind_int64(st, 1, ts + i / 100);  // written in time order, as the daemon does
        sqlite3_bind_text(st, 2, server.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, target.c_str(), -1, SQLITE_TRANSIENT);
        if (sqlite3_step(st) != SQLITE_DONE) {
            sqlite3_finalize(st);
            sqlite3_close(db);
            return false;
        }
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    bool ok = sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

long long old_rows(sqlite3* db, std::int64_t cutoff) {
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM mcp_invocations WHERE ts_ms < ?", -1, &st, nullptr);
    sqlite3_bind_int64(st, 1, cutoff);
    long long n = -1;
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

void purge_under_load(const fs::path& dir, int rows) {
    auto vault = dir / "vault";
    {
        Daemon d(vault);  // creates the schema
        if (!d.start()) {
            std::printf("purge: the daemon did not start:\n%s\n", d.log().c_str());
            return;
        }
        d.stop();
    }
    auto old_ts = now_ms() - 60LL * 86400000;  // older than the 30-day default
    auto t_seed = clk::now();
    if (!seed_old_rows(vault / "coffer.db", rows, old_ts)) {
        std::printf("purge: seeding failed\n");
        return;
    }
    std::printf("purge: seeded %d invocation rows 60 days old in %.0f ms\n", rows, ms_since(t_seed));

    Daemon d(vault);
    if (!d.start()) {
        std::printf("purge: the daemon did not start:\n%s\n", d.log().c_str());
        return;
    }
    // The hammering client: one request after another on fresh connections, as the CLI does.
    std::atomic<int> phase{0};  // 0 before the purge, 1 during, 2 after
    std::atomic<bool> stop{false};
    std::vector<double> lat[3];
    int failures = 0;
    std::thread client([&] {
        while (!stop) {
            auto a = clk::now();
            auto r = d.call("GET", "/api/v1/mcp/invocations?limit=20");
            double ms = ms_since(a);
            if (r.status != 200) ++failures;
            lat[phase.load()].push_back(ms);
        }
    });
    sqlite3* watch = nullptr;
    sqlite3_open_v2((vault / "coffer.db").c_str(), &watch, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_busy_timeout(watch, 1000);
    auto cutoff = now_ms() - 30LL * 86400000;
    auto t0 = clk::now();
    clk::time_point started, ended;
    long long n = old_rows(watch, cutoff);
    while (ms_since(t0) < 120000) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        n = old_rows(watch, cutoff);
        if (phase == 0 && n >= 0 && n < rows) {
            started = clk::now();
            phase = 1;
        }
        if (phase == 1 && n == 0) {
            ended = clk::now();
            phase = 2;
            break;
        }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // a little of "after"
    stop = true;
    client.join();
    sqlite3_close(watch);
    if (phase != 2) {
        std::printf("purge: did not finish in 120 s (%lld old rows left)\n", n);
        return;
    }
    double purge_ms = std::chrono::duration<double, std::milli>(ended - started).count();
    std::printf("purge: %d rows deleted in %.0f ms (%.0f rows/s; observed by polling every 20 ms)\n", rows, purge_ms,
                rows / (purge_ms / 1000.0));
    const char* names[] = {"before purge", "during purge", "after purge"};
    for (int p = 0; p < 3; ++p)
        std::printf("REST GET /api/v1/mcp/invocations %-13s n=%-6zu p50 %.2f ms  p99 %.2f ms  max %.2f ms\n", names[p],
                    lat[p].size(), percentile(lat[p], 0.50), percentile(lat[p], 0.99), percentile(lat[p], 1.0));
    std::printf("REST during purge p99 %.2f ms (target <= 50 ms); failed requests: %d\n", percentile(lat[1], 0.99), failures);
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    int rows = 1000000;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quick") == 0) quick = true;
        else if (std::strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = std::atoi(argv[++i]);
    }
    if (quick) rows = std::min(rows, 20000);
    TempDir dir;
    write_path(dir.path(), quick ? 5000 : 200000);
    purge_under_load(dir.path(), rows);
    return 0;
}
