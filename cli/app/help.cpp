#include "app/help.hpp"

#include "app/args.hpp"

#include <algorithm>
#include <sstream>

namespace coffer::cli {

namespace {

std::string synopsis_line(const CommandDef& c) {
    std::string s = "coffer " + c.group;
    if (!c.name.empty()) s += " " + c.name;
    if (!c.synopsis.empty()) s += " " + c.synopsis;
    return s;
}

void options_block(std::ostringstream& out, const std::vector<OptionDef>& options) {
    std::size_t width = 0;
    auto label = [](const OptionDef& o) {
        std::string s = "--" + o.name;
        if (o.name == "help") s += ", -h";
        if (o.takes_value()) s += " " + o.value_name;
        return s;
    };
    for (const auto& o : options) width = std::max(width, label(o).size());
    for (const auto& o : options) {
        std::string l = label(o);
        out << "  " << l << std::string(width - l.size() + 2, ' ') << o.help << '\n';
    }
}

const char* const exit_codes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  the daemon reported an error (\"error: <message> [<CODE>]\" on stderr)\n"
    "  2  usage error (bad command line or invalid JSON argument)\n"
    "  3  the daemon is unreachable (not running with --no-spawn, or could not be started)\n";

}  // namespace

std::string overview_help(const Registry& r) {
    std::ostringstream out;
    out << "coffer — manage a Coffer vault through its local daemon (coffer-daemon)\n\n"
           "Usage: coffer [global options] <command> [arguments] [options]\n\n"
           "Commands:\n";
    std::size_t width = 0;
    for (const auto& g : r.groups()) width = std::max(width, g.name.size());
    for (const auto& g : r.groups()) {
        out << "  " << g.name << std::string(width - g.name.size() + 2, ' ') << g.summary << '\n';
    }
    out << "\nGlobal options (accepted by every command, anywhere on the line):\n";
    options_block(out, global_options());
    out << '\n' << exit_codes;
    out << "\nEnvironment:\n"
           "  COFFER_HOME       vault directory (default ~/.coffer)\n"
           "  COFFER_PORT       port for a daemon the CLI starts (0 = any free port)\n"
           "  COFFER_NO_SPAWN   1 = never start a daemon (same as --no-spawn)\n"
           "  COFFER_DAEMON_BIN path of the coffer-daemon executable to start\n"
           "\nRun 'coffer <command> --help' for the command's details. Without a running daemon,\n"
           "any command (except daemon status/stop/rotate-token, backup, restore) starts one in the\n"
           "background.\n";
    return out.str();
}

std::string group_help(const Registry& r, const std::string& group) {
    const GroupDef* g = r.group(group);
    if (!g) return overview_help(r);
    std::ostringstream out;
    out << "coffer " << g->name << " — " << g->summary << "\n\nUsage:\n";
    std::vector<OptionDef> options;
    for (const auto* c : r.commands_of(group)) {
        out << "  " << synopsis_line(*c) << "\n      " << c->summary << '\n';
        for (const auto& o : c->options) {
            bool seen = std::any_of(options.begin(), options.end(),
                                    [&](const OptionDef& x) { return x.name == o.name; });
            if (!seen) options.push_back(o);
        }
    }
    if (!options.empty()) {
        out << "\nOptions:\n";
        options_block(out, options);
    }
    out << "\nGlobal options: --json --verbose --no-spawn --home DIR --help --version "
           "(see 'coffer --help')\n\n"
        << exit_codes;
    return out.str();
}

std::string usage_text(const Registry& r, const std::string& group, const std::string& command) {
    std::ostringstream out;
    if (const CommandDef* c = r.command(group, command); c && !group.empty()) {
        out << "Usage: " << synopsis_line(*c) << "\nRun 'coffer " << group
            << " --help' for details.\n";
        return out.str();
    }
    if (group.empty() || !r.group(group)) {
        out << "Usage: coffer [global options] <command> [arguments] [options]\n"
               "Commands:";
        for (const auto& g : r.groups()) out << ' ' << g.name;
        out << "\nRun 'coffer --help' for details.\n";
        return out.str();
    }
    out << "Usage:\n";
    for (const auto* c : r.commands_of(group)) out << "  " << synopsis_line(*c) << '\n';
    out << "Run 'coffer " << group << " --help' for details.\n";
    return out.str();
}

}  // namespace coffer::cli
