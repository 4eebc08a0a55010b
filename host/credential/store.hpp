// The credential store (G-40): secrets live only as Fernet tokens in the `credentials` table,
// encrypted with the vault's master key ($COFFER_HOME/master.key, 0600, created on the first
// `set`). Values never reach a log line, an audit row or an error message.
//
// Threads: open/set/remove/exists/read/list run on the daemon's service thread (they use the
// database); resolve() may be called from any thread (plugins resolve at spawn/connect time) and
// only touches an in-memory copy of the tokens and the key, under a mutex — it never blocks on
// the database.
#pragma once

#include "crypto/fernet.hpp"
#include "store/database.hpp"
#include "vault/layout.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::credential {

struct Resolution {
    enum class Outcome { ok, invalid_ref, not_found, unavailable };
    Outcome outcome = Outcome::not_found;
    std::string value;    // the secret, only when ok
    std::string message;  // why not (never contains a value)
};

struct SetOutcome {
    boost::json::object credential;  // {ref, created_at, updated_at}
    bool created = false;            // false: an existing value was replaced
};

class Store {
public:
    Store(store::Database& db, std::filesystem::path vault);

    // Startup: reads master.key (when present) and the stored tokens. Refuses with
    // "MasterKeyMissing: …" when tokens exist but the key file does not, "MasterKeyInvalid: …"
    // when the file holds no key, "MasterKeyMismatch: …" when the key opens none of the tokens.
    core::Result<void> open();

    core::Result<SetOutcome> set(std::string_view ref, std::string_view value, std::string_view actor);
    core::Result<boost::json::object> remove(std::string_view ref, std::string_view actor);
    core::Result<bool> exists(std::string_view ref);
    // The plaintext; writes a `credential_read` audit row.
    core::Result<std::string> read(std::string_view ref, std::string_view actor);
    // [{ref, created_at, updated_at, used_by:[…]}] ordered by ref; never values.
    core::Result<boost::json::array> list();
    // "kind:name" of every resource whose config holds "credref:<ref>", sorted.
    core::Result<std::vector<std::string>> users(std::string_view ref);

    // Any thread.
    Resolution resolve(std::string_view ref) const;

    std::filesystem::path key_path() const { return vault_ / vault::kMasterKey; }

private:
    core::Result<void> ensure_key(std::string_view actor);
    // ref -> "kind:name" of the resources whose config names it (one pass over the resources).
    core::Result<std::map<std::string, std::vector<std::string>>> users_by_ref();

    store::Database& db_;
    std::filesystem::path vault_;
    mutable std::mutex mu_;
    std::optional<crypto::FernetKey> key_;
    std::map<std::string, std::string, std::less<>> tokens_;  // ref → token
};

}  // namespace coffer::credential
