// Test support: a real coffer-daemon on a free loopback port with a temporary vault.
#pragma once

#include "eventually.hpp"
#include "http_client.hpp"
#include "json_check.hpp"
#include "process.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace coffer::test {

// Copies the named test plugin case folders (<build>/test-plugins/<case>) into `vault/plugins`.
void install_test_plugins(const std::filesystem::path& vault, const std::vector<std::string>& cases);

class Daemon {
public:
    // Starts the daemon for `vault` (created if needed) and waits until it is ready.
    explicit Daemon(std::filesystem::path vault, std::map<std::string, std::string> extra_env = {});
    ~Daemon();

    // Runs this coffer-daemon instead of the build's own (e.g. a sanitized build's), from start().
    void use_binary(std::filesystem::path exe) { binary_ = std::move(exe); }
    bool start();  // returns false when it did not become ready in 10 s
    int stop();    // SIGTERM and wait; returns the exit code
    void kill9();

    std::uint16_t port() const { return port_; }
    const std::string& token() const { return token_; }
    pid_t pid() const { return pid_; }
    const std::filesystem::path& vault() const { return vault_; }
    std::map<std::string, std::string> env() const;  // COFFER_HOME etc. for CLI runs
    std::string log() const;                          // the daemon's stderr/stdout capture

    // An authenticated REST call; `body` may be empty.
    HttpResult call(const std::string& method, const std::string& target, const std::string& body = "");
    boost::json::value call_json(const std::string& method, const std::string& target, const std::string& body = "",
                                 int* status = nullptr);
    // Runs the `coffer` CLI against this vault.
    RunResult cli(const std::vector<std::string>& args, const std::string& stdin_data = "");
    void reload_state();  // re-read daemon.json (after a token rotation)

private:
    std::filesystem::path vault_;
    std::map<std::string, std::string> extra_env_;
    std::filesystem::path binary_;
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
    std::string token_;
};

// The usual test set-up: a daemon on a fresh temporary vault with the named test plugin cases
// installed (see install_test_plugins), started and ready. Throws with the daemon's log when it
// does not start.
struct StartedDaemon {
    TempDir dir;
    Daemon d;
    explicit StartedDaemon(const std::vector<std::string>& test_plugins = {},
                           std::map<std::string, std::string> env = {});
};

}  // namespace coffer::test
