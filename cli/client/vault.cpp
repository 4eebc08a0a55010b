#include "client/vault.hpp"

#include "vault/layout.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

namespace coffer::client {
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

std::string string_field(const json::object& o, std::string_view key) {
    if (auto* v = o.if_contains(key); v && v->is_string()) return std::string(v->get_string());
    return {};
}

}  // namespace

fs::path daemon_json_path(const fs::path& vault) { return vault / vault::kDaemonJson; }

core::Result<DaemonInfo> read_daemon_info(const fs::path& vault) {
    const fs::path file = daemon_json_path(vault);
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        int err = errno;
        if (err == ENOENT)
            return core::Error::make(core::code::not_found, file.string() + " does not exist");
        return core::Error::make(core::code::internal,
                                 "cannot read " + file.string() + ": " + std::strerror(err));
    }
    std::stringstream ss;
    ss << in.rdbuf();
    boost::system::error_code ec;
    json::value v = json::parse(ss.str(), ec);
    if (ec || !v.is_object())
        return core::Error::make(core::code::internal, file.string() + " is not a JSON object");
    const auto& o = v.get_object();
    DaemonInfo info;
    if (auto* pid = o.if_contains("pid"); pid && pid->is_number()) {
        boost::system::error_code nec;
        auto n = pid->to_number<std::int64_t>(nec);
        if (!nec && n > 0 && n < (1LL << 31)) info.pid = static_cast<int>(n);
    }
    if (auto* port = o.if_contains("port"); port && port->is_number()) {
        boost::system::error_code nec;
        auto n = port->to_number<std::int64_t>(nec);
        if (!nec && n > 0 && n <= 65535) info.port = static_cast<std::uint16_t>(n);
    }
    info.token = string_field(o, "token");
    info.version = string_field(o, "version");
    info.started_at = string_field(o, "started_at");
    info.vault = string_field(o, "vault");
    info.mcp_socket = string_field(o, "mcp_socket");
    if (info.pid == 0 || info.port == 0 || info.token.empty())
        return core::Error::make(core::code::internal,
                                 file.string() + " lacks a valid pid, port or token");
    return info;
}

core::Result<void> ensure_vault_dir(const fs::path& vault) {
    std::error_code ec;
    if (vault.has_parent_path()) fs::create_directories(vault.parent_path(), ec);
    if (::mkdir(vault.c_str(), 0700) != 0 && errno != EEXIST)
        return core::Error::make(core::code::internal, "cannot create vault directory " +
                                                           vault.string() + ": " +
                                                           std::strerror(errno));
    if (!fs::is_directory(vault, ec))
        return core::Error::make(core::code::internal,
                                 vault.string() + " exists but is not a directory");
    return {};
}

}  // namespace coffer::client
