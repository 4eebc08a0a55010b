#include "daemon_fixture.hpp"

#include <signal.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace coffer::test {

namespace fs = std::filesystem;
namespace json = boost::json;

void install_test_plugins(const fs::path& vault, const std::vector<std::string>& cases) {
    fs::create_directories(vault / "plugins");
    for (auto& c : cases)
        for (auto& e : fs::directory_iterator(test_plugin_dir() / c))
            fs::copy(e.path(), vault / "plugins" / e.path().filename(), fs::copy_options::overwrite_existing);
}

Daemon::Daemon(fs::path vault, std::map<std::string, std::string> extra_env)
    : vault_(std::move(vault)), extra_env_(std::move(extra_env)) {
    fs::create_directories(vault_);
}

Daemon::~Daemon() {
    if (pid_ > 0 && pid_alive(pid_)) stop();
}

std::map<std::string, std::string> Daemon::env() const {
    std::map<std::string, std::string> e{{"COFFER_HOME", vault_.string()}, {"COFFER_PORT", "0"}};
    for (auto& [k, v] : extra_env_) e[k] = v;
    return e;
}

StartedDaemon::StartedDaemon(const std::vector<std::string>& test_plugins, std::map<std::string, std::string> env)
    : d(dir.path() / "vault", std::move(env)) {
    if (!test_plugins.empty()) install_test_plugins(d.vault(), test_plugins);
    if (!d.start()) throw std::runtime_error("coffer-daemon did not start:\n" + d.log());
}

std::string Daemon::log() const {
    std::ifstream in(vault_ / "daemon.stderr");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void Daemon::reload_state() {
    std::ifstream in(vault_ / "daemon.json");
    std::stringstream ss;
    ss << in.rdbuf();
    auto v = parse(ss.str());
    if (!v.is_object()) return;
    auto& o = v.as_object();
    if (auto* p = o.if_contains("port"); p && p->is_int64()) port_ = static_cast<std::uint16_t>(p->as_int64());
    if (auto* t = o.if_contains("token"); t && t->is_string()) token_ = std::string(t->as_string());
}

bool Daemon::start() {
    fs::remove(vault_ / "daemon.json");
    auto exe = binary_.empty() ? bin_dir() / "coffer-daemon" : binary_;
    pid_ = spawn({exe.string()}, env(), vault_ / "daemon.stderr");
    // Ready once daemon.json names a port that answers; a daemon that exits ends the wait early.
    bool exited = false;
    bool ready = eventually(
        [&] {
            if (!pid_alive(pid_)) return exited = true;
            if (!fs::exists(vault_ / "daemon.json")) return false;
            reload_state();
            return port_ != 0 && call("GET", "/api/v1/daemon/status").status == 200;
        },
        std::chrono::seconds(10), std::chrono::milliseconds(5));
    return ready && !exited;
}

int Daemon::stop() {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    int rc = wait_pid(pid_, std::chrono::seconds(10));
    if (rc == -2) {
        ::kill(pid_, SIGKILL);
        rc = wait_pid(pid_, std::chrono::seconds(5));
    }
    pid_ = -1;
    return rc;
}

void Daemon::kill9() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    wait_pid(pid_, std::chrono::seconds(5));
    pid_ = -1;
}

HttpResult Daemon::call(const std::string& method, const std::string& target, const std::string& body) {
    return http_request(port_, method, target, body, {{"X-Coffer-Token", token_}});
}

json::value Daemon::call_json(const std::string& method, const std::string& target, const std::string& body,
                              int* status) {
    auto r = call(method, target, body);
    if (status) *status = r.status;
    return parse(r.body);
}

RunResult Daemon::cli(const std::vector<std::string>& args, const std::string& stdin_data) {
    std::vector<std::string> argv{(bin_dir() / "coffer").string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, env(), std::chrono::seconds(30), stdin_data);
}

}  // namespace coffer::test
