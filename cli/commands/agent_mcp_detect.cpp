// coffer agent detect — the managed-agent candidates on this machine, registering nothing:
// each type's binary on PATH and what its `--version` prints (bounded by a short timeout), its
// config folder, and whether Coffer's MCP entry is in its config. Local only: no daemon.
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "commands/agent_mcp.hpp"

#include "agentconf/mcp_entry.hpp"
#include "client/process.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ostream>

namespace coffer::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr auto kVersionTimeout = std::chrono::seconds(5);

struct VersionProbe {
    std::string text;   // the first line printed, trimmed
    std::string error;  // why there is none
};

// Runs `exe --version` in its own process group with no input; its first line of output, or an
// error after kVersionTimeout (the whole group is killed then).
VersionProbe probe_version(const fs::path& exe) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return {{}, "cannot create a pipe"};
    pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return {{}, "cannot fork"};
    }
    if (pid == 0) {
        ::setpgid(0, 0);
        int devnull = ::open("/dev/null", O_RDWR);
        ::dup2(devnull, 0);
        ::dup2(fds[1], 1);
        ::dup2(devnull, 2);
        const char* argv[] = {exe.c_str(), "--version", nullptr};
        ::execv(exe.c_str(), const_cast<char* const*>(argv));
        ::_exit(127);
    }
    ::setpgid(pid, pid);
    ::close(fds[1]);
    std::string out;
    auto deadline = std::chrono::steady_clock::now() + kVersionTimeout;
    bool timed_out = false;
    while (out.size() < 4096) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) { timed_out = true; break; }
        pollfd p{fds[0], POLLIN, 0};
        int n = ::poll(&p, 1, static_cast<int>(left));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { timed_out = n == 0; break; }
        char buf[512];
        auto got = ::read(fds[0], buf, sizeof buf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        out.append(buf, static_cast<std::size_t>(got));
    }
    ::close(fds[0]);
    if (timed_out) ::kill(-pid, SIGKILL);
    int status = 0;
    // The launcher may outlive a closed pipe briefly; wait for it within the same bound.
    while (true) {
        pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR)) break;
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            timed_out = true;
            break;
        }
        ::usleep(10000);
    }
    if (timed_out) return {{}, "no answer to --version within " + std::to_string(kVersionTimeout.count()) + " s"};
    auto nl = out.find('\n');
    std::string line = out.substr(0, nl);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !line.empty()) return {line, {}};
    return {{}, "--version failed" + (line.empty() ? std::string() : ": " + line)};
}

struct Candidate {
    agentconf::AgentType type;
    const char* binary;
};

}  // namespace

int detect_agents(Context& ctx, const Invocation&) {
    auto env = agentconf::AgentEnv::from_process();
    json::array agents;
    for (auto c : {Candidate{agentconf::AgentType::claude_code, "claude"}, Candidate{agentconf::AgentType::codex, "codex"}}) {
        json::object a{{"type", std::string(agentconf::to_string(c.type))}};
        auto exe = client::find_on_path(c.binary);
        json::object bin{{"name", c.binary}, {"path", exe ? json::value(exe->string()) : json::value(nullptr)}};
        if (exe) {
            auto v = probe_version(*exe);
            bin["version"] = v.text.empty() ? json::value(nullptr) : json::value(v.text);
            if (!v.error.empty()) bin["error"] = v.error;
        }
        a["binary"] = std::move(bin);
        auto dir = agentconf::config_dir(c.type, env);
        std::error_code ec;
        a["config_dir"] = json::object{{"path", dir.string()}, {"exists", fs::is_directory(dir, ec)}};
        json::object mcp{{"path", agentconf::config_path(c.type, env).string()}};
        if (auto st = agentconf::entry_state(c.type, env); st.ok()) {
            mcp["exists"] = st->config_exists;
            mcp["installed"] = st->installed;
            if (st->installed) {
                json::array args;
                for (const auto& x : st->args) args.emplace_back(x);
                mcp["entry"] = json::object{{"command", st->command}, {"args", std::move(args)}};
            }
        } else {
            mcp["exists"] = true;
            mcp["installed"] = nullptr;
            mcp["error"] = st.error().message;
        }
        a["mcp_config"] = std::move(mcp);
        bool found = exe.has_value() || fs::is_directory(dir, ec);
        a["found"] = found;
        agents.push_back(std::move(a));
    }
    if (ctx.json()) {
        ctx.print_json(json::object{{"agents", std::move(agents)}});
        return exit_code::ok;
    }
    auto& out = ctx.out();
    for (const auto& v : agents) {
        const auto& a = v.get_object();
        const auto& bin = field(v, "binary");
        const auto& mcp = field(v, "mcp_config");
        out << text_field(v, "type") << (a.at("found").get_bool() ? "" : " (not found)") << '\n';
        out << "  binary:  ";
        if (field(bin, "path").is_null()) out << text_field(bin, "name") << " is not on PATH\n";
        else {
            out << text_field(bin, "path");
            if (!field(bin, "version").is_null()) out << "  (" << text_field(bin, "version") << ")";
            if (auto e = text_field(bin, "error"); !e.empty()) out << "  (" << e << ")";
            out << '\n';
        }
        out << "  config:  " << text_field(field(v, "config_dir"), "path")
            << (field(field(v, "config_dir"), "exists").as_bool() ? "" : " (missing)") << '\n';
        out << "  coffer:  ";
        if (auto e = text_field(mcp, "error"); !e.empty()) out << "unknown: " << e << '\n';
        else if (field(mcp, "installed").as_bool()) {
            std::string args;
            for (const auto& x : field(field(mcp, "entry"), "args").as_array()) args += " " + as_text(x);
            out << "installed in " << text_field(mcp, "path") << " (" << text_field(field(mcp, "entry"), "command") << args << ")\n";
        } else {
            out << "not installed (coffer agent mcp install " << text_field(v, "type") << ")\n";
        }
    }
    return exit_code::ok;
}

}  // namespace coffer::cli
