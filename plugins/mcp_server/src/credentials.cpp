#include "credentials.hpp"

#include <openssl/crypto.h>
#include <strings.h>

namespace coffer::mcp_server {

namespace {

// Why `value` cannot go where it is used (a header must stay one line; nothing may hold NUL).
std::string unusable(std::string_view value, bool header) {
    if (value.find('\0') != std::string_view::npos) return "it contains a NUL character";
    if (header && value.find_first_of("\r\n") != std::string_view::npos) return "it contains a line break";
    return {};
}

// Replaces each credref value in `pairs`; "" or the error.
std::string resolve_all(std::vector<std::pair<std::string, std::string>>& pairs, const char* where, bool header,
                        const sdk::Host& host) {
    for (auto& [name, value] : pairs) {
        if (!is_credref(value)) continue;
        std::string ref(credref::ref_of(value));
        std::string place = std::string(where) + " " + name;
        auto c = host.resolve_credential(ref);
        switch (c.status) {
            case COFFER_OK: break;
            case COFFER_E_NOT_FOUND:
                return "credential '" + ref + "' (" + place + ") does not exist; create it with `coffer credential set " +
                       ref + "`";
            case COFFER_E_INVALID: return "'credref:" + ref + "' (" + place + ") is not a valid credential reference";
            case COFFER_E_UNAVAILABLE:
                return "credential '" + ref + "' (" + place + ") cannot be decrypted with this vault's master key";
            case COFFER_E_UNSUPPORTED:
                return "this Coffer host cannot resolve credential references (" + place + "; needs plugin ABI 1.3)";
            default: return "credential '" + ref + "' (" + place + ") could not be resolved";
        }
        if (auto why = unusable(c.value, header); !why.empty()) {
            OPENSSL_cleanse(c.value.data(), c.value.size());
            return "credential '" + ref + "' cannot be used as " + place + ": " + why;
        }
        OPENSSL_cleanse(value.data(), value.size());
        value = std::move(c.value);
    }
    return {};
}

// A copy that wipes its env and header values when the last owner (the transport) lets go.
std::shared_ptr<ServerConfig> wiped_copy(const ServerConfig& cfg) {
    return std::shared_ptr<ServerConfig>(new ServerConfig(cfg), [](ServerConfig* c) {
        for (auto* pairs : {&c->env, &c->headers})
            for (auto& [k, v] : *pairs) OPENSSL_cleanse(v.data(), v.size());
        OPENSSL_cleanse(c->oauth.client_secret.data(), c->oauth.client_secret.size());
        delete c;
    });
}

}  // namespace

bool has_header(const ServerConfig& cfg, std::string_view name) {
    for (const auto& [k, v] : cfg.headers)
        if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return true;
    return false;
}

std::shared_ptr<const ServerConfig> with_bearer(const std::shared_ptr<const ServerConfig>& cfg, const std::string& token) {
    auto copy = wiped_copy(*cfg);
    copy->headers.emplace_back("Authorization", "Bearer " + token);
    return copy;
}

ResolvedConfig resolve_credentials(const std::shared_ptr<const ServerConfig>& cfg, const sdk::Host& host) {
    if (cfg->first_credential_reference().empty()) return ResolvedConfig{cfg, {}};
    auto copy = wiped_copy(*cfg);
    auto error = resolve_all(copy->env, "env", false, host);
    if (error.empty()) error = resolve_all(copy->headers, "header", true, host);
    if (!error.empty()) return ResolvedConfig{nullptr, std::move(error)};
    return ResolvedConfig{std::move(copy), {}};
}

}  // namespace coffer::mcp_server
