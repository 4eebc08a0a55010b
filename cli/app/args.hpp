// The command-line parser: global options anywhere, `<group> [<command>] args… [options]`.
#pragma once

#include "app/command.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace coffer::cli {

// A usage error (exit 2). `group` and `command` select the usage text printed with it (empty: the
// overview).
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string& message, std::string group = {}, std::string command = {})
        : std::runtime_error(message), group_(std::move(group)), command_(std::move(command)) {}
    const std::string& group() const noexcept { return group_; }
    const std::string& command() const noexcept { return command_; }

private:
    std::string group_;
    std::string command_;
};

// Options accepted by every command: --json --verbose --no-spawn --home DIR --help/-h --version.
const std::vector<OptionDef>& global_options();

// Parses argv[1..]. Recognizes `help [<group>]` as --help. Throws UsageError for unknown
// commands/options and missing option values. Does not check argument counts or that a command
// was given (so `--help` and `--version` work alone); see validate().
Invocation parse_command_line(const Registry& registry, const std::vector<std::string>& argv);

// Checks that a command was named, that every option belongs to it, and the argument count.
// Returns the command. Throws UsageError.
const CommandDef& validate(const Registry& registry, const Invocation& invocation);

// A path argument made absolute against the CLI's working directory (the daemon has its own),
// normalised, without a trailing '/'. Throws UsageError naming `group` and `command`.
std::string absolute_path_arg(const std::string& path, const char* group, const char* command);

}  // namespace coffer::cli
