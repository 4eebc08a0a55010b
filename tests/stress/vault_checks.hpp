// Checks of a vault's files for the crash-safety test, made from outside the daemon: SQLite
// databases opened read-only (integrity), and names of temporaries that a killed writer leaves
// behind (the host's and the skill plugin's own naming, see below).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace coffer::test {

// Every file under `root` whose first bytes are SQLite's header ("SQLite format 3").
std::vector<std::filesystem::path> sqlite_files(const std::filesystem::path& root);

// `PRAGMA integrity_check` on `db` opened read-only: "ok", or the rows SQLite reported, or the
// error opening it.
std::string integrity_check(const std::filesystem::path& db);

// Rows of `sql` (one column per field, NULL as "") on `db` opened read-only; an "error: …" row
// when it cannot run.
std::vector<std::vector<std::string>> query(const std::filesystem::path& db, const std::string& sql);

// Paths under `root` (relative) whose names are temporaries of a write in progress:
//   "<name>.tmp-<…>"            coffer/atomic_file.hpp, host/crypto/key_file.cpp
//   ".staging-…", ".old-…"      the skill library's import staging and the copy it replaces
//   ".coffer-staging-…"         a first delivery into an agent's folder
//   ".<name>.coffer-tmp-…"      a delivered file being replaced
//   ".inspect-…", ".scratch/…"  the skill plugin's scratch space (anything inside it)
//   "…-journal"                 a SQLite rollback journal (the vault's database runs in WAL mode)
std::vector<std::string> temporaries(const std::filesystem::path& root);

}  // namespace coffer::test
