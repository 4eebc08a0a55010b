#include "vault_checks.hpp"

#include <sqlite3.h>

#include <cstring>
#include <fstream>

namespace coffer::test {

namespace fs = std::filesystem;

std::vector<fs::path> sqlite_files(const fs::path& root) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        std::ifstream in(it->path(), std::ios::binary);
        char head[16] = {};
        in.read(head, sizeof head);
        if (in.gcount() == 16 && std::memcmp(head, "SQLite format 3\0", 16) == 0) out.push_back(it->path());
    }
    return out;
}

std::vector<std::vector<std::string>> query(const fs::path& db, const std::string& sql) {
    std::vector<std::vector<std::string>> rows;
    sqlite3* h = nullptr;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        rows.push_back({"error: cannot open " + db.string() + ": " + (h ? sqlite3_errmsg(h) : "out of memory")});
        sqlite3_close(h);
        return rows;
    }
    sqlite3_busy_timeout(h, 5000);
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        rows.push_back({std::string("error: ") + sqlite3_errmsg(h)});
        sqlite3_close(h);
        return rows;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        std::vector<std::string> row;
        for (int i = 0; i < sqlite3_column_count(st); ++i) {
            auto* t = sqlite3_column_text(st, i);
            row.emplace_back(t ? reinterpret_cast<const char*>(t) : "");
        }
        rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) rows.push_back({std::string("error: ") + sqlite3_errmsg(h)});
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rows;
}

std::string integrity_check(const fs::path& db) {
    auto rows = query(db, "PRAGMA integrity_check");
    std::string out;
    for (auto& r : rows) out += (out.empty() ? "" : "; ") + (r.empty() ? std::string() : r[0]);
    return out;
}

std::vector<std::string> temporaries(const fs::path& root) {
    std::vector<std::string> out;
    auto starts = [](const std::string& s, const char* p) { return s.rfind(p, 0) == 0; };
    auto ends = [](const std::string& s, const char* p) {
        auto n = std::strlen(p);
        return s.size() >= n && s.compare(s.size() - n, n, p) == 0;
    };
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
         it.increment(ec)) {
        auto name = it->path().filename().string();
        auto rel = fs::relative(it->path(), root, ec).string();
        bool temp = name.find(".tmp-") != std::string::npos || starts(name, ".staging-") || starts(name, ".old-") ||
                    starts(name, ".coffer-staging-") || name.find(".coffer-tmp-") != std::string::npos ||
                    starts(name, ".inspect-") || ends(name, "-journal") ||
                    rel.find(".scratch/") != std::string::npos;
        if (temp) out.push_back(rel);
    }
    return out;
}

}  // namespace coffer::test
