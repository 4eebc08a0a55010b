#include "credential/store.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "credential/ref.hpp"
#include "crypto/key_file.hpp"
#include "resource/audit.hpp"

#include <openssl/crypto.h>

#include <boost/json.hpp>

namespace coffer::credential {

namespace json = boost::json;
using core::Error;

namespace {

core::Result<void> check_ref(std::string_view ref) {
    auto problem = ref_problem(ref);
    if (problem.empty()) return {};
    return Error::make(core::code::validation_failed, "invalid credential reference: " + problem,
                       json::object{{"errors", json::array{json::object{{"pointer", "/ref"}, {"message", problem}}}}});
}

Error not_found(std::string_view ref) {
    return Error::make(core::code::not_found, "no credential '" + std::string(ref) + "' (create it with `coffer credential set " +
                                                  std::string(ref) + "`)");
}

std::string quoted_list(const std::vector<std::string>& items) {
    std::string out;
    for (auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out;
}

}  // namespace

Store::Store(store::Database& db, std::filesystem::path vault) : db_(db), vault_(std::move(vault)) {}

core::Result<void> Store::open() {
    auto loaded = crypto::load_key_file(key_path());
    if (!loaded) return loaded.error();
    if (loaded->loosened)
        core::log::warn("master.key was readable by others; its mode is now 0600", {{"path", key_path().string()}});

    std::map<std::string, std::string, std::less<>> tokens;
    auto st = db_.prepare("SELECT ref, token FROM credentials ORDER BY ref");
    if (!st) return st.error();
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        tokens.emplace(st->text(0), st->text(1));
    }

    if (!tokens.empty() && !loaded->key)
        return Error::make(core::code::internal,
                           "MasterKeyMissing: the vault holds " + std::to_string(tokens.size()) +
                               " encrypted credential(s) but " + key_path().string() +
                               " does not exist, so they cannot be decrypted. Put the master.key that belongs to "
                               "this vault back (from the backup made with --include-master-key); coffer-daemon "
                               "refuses to start without it rather than lose or overwrite the credentials.");
    if (loaded->key && !tokens.empty()) {
        std::vector<std::string> bad;
        for (auto& [ref, token] : tokens) {
            auto plain = crypto::fernet_decrypt(*loaded->key, token);
            if (!plain) bad.push_back(ref);
            else OPENSSL_cleanse(plain->data(), plain->size());
        }
        if (bad.size() == tokens.size())
            return Error::make(core::code::internal,
                               "MasterKeyMismatch: " + key_path().string() + " opens none of the " +
                                   std::to_string(tokens.size()) +
                                   " stored credential(s); it is not the key this vault's credentials were "
                                   "encrypted with. Put the right master.key back.");
        if (!bad.empty())
            core::log::warn("credentials that master.key cannot decrypt (they will not resolve)",
                            {{"refs", quoted_list(bad)}});
    }
    std::lock_guard<std::mutex> g(mu_);
    key_ = std::move(loaded->key);
    tokens_ = std::move(tokens);
    return {};
}

core::Result<void> Store::ensure_key(std::string_view actor) {
    {
        std::lock_guard<std::mutex> g(mu_);
        if (key_) return {};
    }
    auto key = crypto::create_key_file(key_path());
    if (!key) return key.error();
    core::log::info("master key created", {{"path", key_path().string()}});
    resource::record_audit(db_, actor, "master_key_created", "master.key", json::object{});
    std::lock_guard<std::mutex> g(mu_);
    key_ = std::move(key).value();
    return {};
}

core::Result<SetOutcome> Store::set(std::string_view ref, std::string_view value, std::string_view actor) {
    if (auto r = check_ref(ref); !r) return r.error();
    auto value_problem = [&]() -> std::string {
        if (value.empty()) return "must not be empty";
        if (value.size() > kMaxValueBytes) return "is longer than " + std::to_string(kMaxValueBytes) + " bytes";
        if (value.find('\0') != std::string_view::npos) return "must not contain NUL characters";
        return {};
    }();
    if (!value_problem.empty())
        return Error::make(core::code::validation_failed, "the credential value " + value_problem,
                           json::object{{"errors", json::array{json::object{{"pointer", "/value"}, {"message", value_problem}}}}});
    if (auto r = ensure_key(actor); !r) return r.error();

    std::string token;
    {
        std::lock_guard<std::mutex> g(mu_);
        token = crypto::fernet_encrypt(*key_, value);
    }
    auto now = core::now_iso();
    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    auto find = db_.prepare("SELECT created_at FROM credentials WHERE ref = ?");
    if (!find) return find.error();
    find->bind(1, ref);
    auto row = find->step();
    if (!row) return row.error();
    bool created = !*row;
    std::string created_at = created ? now : find->text(0);
    find->reset();
    auto up = db_.prepare(
        "INSERT INTO credentials (ref, token, created_at, updated_at) VALUES (?,?,?,?) "
        "ON CONFLICT(ref) DO UPDATE SET token = excluded.token, updated_at = excluded.updated_at");
    if (!up) return up.error();
    up->bind(1, ref).bind(2, token).bind(3, now).bind(4, now);
    if (auto r = up->run(); !r) return r.error();
    if (auto r = resource::write_audit(db_, actor, "credential_set", ref, json::object{{"created", created}}); !r)
        return r.error();
    if (auto r = tx.commit(); !r) return r.error();
    {
        std::lock_guard<std::mutex> g(mu_);
        tokens_[std::string(ref)] = token;
    }
    core::log::info(created ? "credential created" : "credential replaced", {{"ref", std::string(ref)}});
    return SetOutcome{json::object{{"ref", ref}, {"created_at", created_at}, {"updated_at", now}}, created};
}

core::Result<std::map<std::string, std::vector<std::string>>> Store::users_by_ref() {
    auto st = db_.prepare("SELECT kind, name, config FROM resources ORDER BY kind, name");
    if (!st) return st.error();
    std::map<std::string, std::vector<std::string>> used;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        boost::system::error_code ec;
        auto config = json::parse(st->text(2), ec);
        if (ec) continue;
        for (auto& r : referenced_refs(config)) used[r].push_back(st->text(0) + ":" + st->text(1));
    }
    return used;
}

core::Result<std::vector<std::string>> Store::users(std::string_view ref) {
    auto used = users_by_ref();
    if (!used) return used.error();
    auto it = used->find(std::string(ref));
    return it == used->end() ? std::vector<std::string>{} : std::move(it->second);
}

core::Result<boost::json::object> Store::remove(std::string_view ref, std::string_view actor) {
    if (auto r = check_ref(ref); !r) return r.error();
    auto present = exists(ref);
    if (!present) return present.error();
    if (!*present) return not_found(ref);
    auto used = users(ref);
    if (!used) return used.error();
    if (!used->empty()) {
        json::array names;
        for (auto& u : *used) names.push_back(json::value(u));
        return Error::make(core::code::conflict,
                           "credential '" + std::string(ref) + "' is referenced by " + quoted_list(*used) +
                               "; change or delete " + (used->size() == 1 ? "that resource" : "those resources") +
                               " first",
                           json::object{{"ref", ref}, {"resources", std::move(names)}});
    }
    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    auto del = db_.prepare("DELETE FROM credentials WHERE ref = ?");
    if (!del) return del.error();
    del->bind(1, ref);
    if (auto r = del->run(); !r) return r.error();
    if (auto r = resource::write_audit(db_, actor, "credential_deleted", ref, json::object{}); !r) return r.error();
    if (auto r = tx.commit(); !r) return r.error();
    {
        std::lock_guard<std::mutex> g(mu_);
        if (auto it = tokens_.find(ref); it != tokens_.end()) tokens_.erase(it);
    }
    core::log::info("credential deleted", {{"ref", std::string(ref)}});
    return json::object{{"ref", ref}};
}

core::Result<bool> Store::exists(std::string_view ref) {
    if (auto r = check_ref(ref); !r) return r.error();
    auto st = db_.prepare("SELECT 1 FROM credentials WHERE ref = ?");
    if (!st) return st.error();
    st->bind(1, ref);
    auto row = st->step();
    if (!row) return row.error();
    return *row;
}

core::Result<std::string> Store::read(std::string_view ref, std::string_view actor) {
    if (auto r = check_ref(ref); !r) return r.error();
    auto st = db_.prepare("SELECT token FROM credentials WHERE ref = ?");
    if (!st) return st.error();
    st->bind(1, ref);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return not_found(ref);
    auto token = st->text(0);
    st->reset();
    std::optional<crypto::FernetKey> key;
    {
        std::lock_guard<std::mutex> g(mu_);
        key = key_;
    }
    if (!key)
        return Error::make(core::code::unavailable, "credential '" + std::string(ref) + "' cannot be decrypted: " +
                                                        key_path().string() + " is missing");
    auto plain = crypto::fernet_decrypt(*key, token);
    if (!plain)
        return Error::make(core::code::unavailable, "credential '" + std::string(ref) +
                                                        "' cannot be decrypted with this vault's master.key (" +
                                                        plain.error().message + ")");
    if (auto r = resource::write_audit(db_, actor, "credential_read", ref, json::object{}); !r) {
        OPENSSL_cleanse(plain->data(), plain->size());
        return r.error();
    }
    return plain;
}

core::Result<boost::json::array> Store::list() {
    auto users = users_by_ref();  // which resources use which ref: one pass over the resources
    if (!users) return users.error();
    auto& used = *users;
    auto st = db_.prepare("SELECT ref, created_at, updated_at FROM credentials ORDER BY ref");
    if (!st) return st.error();
    json::array out;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        auto ref = st->text(0);
        auto it = used.find(ref);
        out.push_back(json::object{{"ref", ref},
                                   {"created_at", st->text(1)},
                                   {"updated_at", st->text(2)},
                                   {"used_by", it == used.end() ? json::array{} : json::array(it->second.begin(), it->second.end())}});
    }
    return out;
}

Resolution Store::resolve(std::string_view ref) const {
    Resolution r;
    if (auto problem = ref_problem(ref); !problem.empty()) {
        r.outcome = Resolution::Outcome::invalid_ref;
        r.message = "invalid credential reference: " + problem;
        return r;
    }
    std::lock_guard<std::mutex> g(mu_);
    auto it = tokens_.find(ref);
    if (it == tokens_.end()) {
        r.outcome = Resolution::Outcome::not_found;
        r.message = "no credential '" + std::string(ref) + "'";
        return r;
    }
    if (!key_) {
        r.outcome = Resolution::Outcome::unavailable;
        r.message = "master.key is missing";
        return r;
    }
    auto plain = crypto::fernet_decrypt(*key_, it->second);
    if (!plain) {
        r.outcome = Resolution::Outcome::unavailable;
        r.message = "credential '" + std::string(ref) + "' cannot be decrypted with this vault's master.key";
        return r;
    }
    r.outcome = Resolution::Outcome::ok;
    r.value = std::move(plain).value();
    return r;
}

}  // namespace coffer::credential
