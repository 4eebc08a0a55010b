// Delivery: copying a skill's library folder into one agent's skill folder, and removing it
// again. Coffer writes only inside <agent skills>/<name>/ and only files it records in the
// manifest; a folder of that name that Coffer did not deliver is never touched (a conflict).
#pragma once

#include "record.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

struct DeliverResult {
    bool conflict = false;
    std::string conflict_reason;  // when conflict
    Delivery delivery;            // what is now there (when not a conflict)
    std::size_t written = 0;      // files (re)written
    std::size_t removed = 0;      // files removed (no longer in the library)
};

// Delivers `library` (the files of library folder `library_root`, tree hash `library_hash`)
// to `dest` (<agent skills>/<name>). `previous`: what Coffer delivered there before, if
// anything — the only case in which an existing `dest` is written to. Unchanged files are
// left as they are. Throws on I/O failure.
//
// A first delivery is built under a hidden name; `before_publish` (when given) is called with the
// finished delivery just before that folder is renamed to `dest`, so the caller can record it
// first: a process killed after the rename then leaves a folder its record names (removable and
// updatable), not one that looks like the user's own. Killed before the rename, the record names
// a folder that is absent (delivered again at the next start) and the hidden one is abandoned
// (remove_abandoned_staging).
DeliverResult deliver(const fs::path& library_root, const FileMap& library, const std::string& library_hash,
                      const fs::path& dest, const Delivery* previous,
                      const std::function<void(const Delivery&)>& before_publish = {});

struct RemoveResult {
    std::size_t removed = 0;      // files removed
    bool folder_removed = false;  // the delivered folder itself is gone
    bool left_alone = false;      // something else is there now: nothing was touched
};

// Removes exactly the files of `delivery` (whatever their content now), then the folders that
// became empty; files someone else added stay, and so does their folder.
RemoveResult undeliver(const Delivery& delivery);

// Removes ".coffer-staging-<name>-<pid>-*" folders in an agent's skills folder whose process is
// gone (a daemon killed mid-delivery). Returns the paths removed.
std::vector<std::string> remove_abandoned_staging(const fs::path& agent_root);

}  // namespace coffer::plugins::skill
