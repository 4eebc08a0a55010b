// What a command runs with: global options, the vault, the daemon connection, and the one place
// that turns outcomes into output and exit codes.
#pragma once

#include "app/safe_output.hpp"
#include "client/client.hpp"
#include "core/error.hpp"

#include <boost/json/value.hpp>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::cli {

// Exit codes (docs/cli.md).
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failed = 1;      // the daemon reported an error
inline constexpr int usage = 2;       // bad command line
inline constexpr int unreachable = 3; // no daemon could be reached (or started)
}  // namespace exit_code

// Client-side error code for usage errors in --json output.
inline constexpr std::string_view usage_code = "USAGE";

struct GlobalOptions {
    bool json = false;
    bool verbose = false;
    bool no_spawn = false; // --no-spawn or COFFER_NO_SPAWN
    std::string home;      // the vault, resolved from --home / $COFFER_HOME / ~/.coffer (vault::resolve_home)
};

class Context {
public:
    Context(GlobalOptions options, std::ostream& out, std::ostream& err);

    const GlobalOptions& options() const noexcept { return options_; }
    bool json() const noexcept { return options_.json; }
    bool verbose() const noexcept { return options_.verbose; }
    const std::filesystem::path& vault() const noexcept { return vault_; }
    // Human output: control characters in what is written are shown, not obeyed (terminal.hpp).
    std::ostream& out() noexcept { return safe_out_; }
    std::ostream& err() noexcept { return safe_err_; }
    // Exact bytes on stdout, for output that must not change (a credential's value): flushes
    // out() first so the order holds.
    std::ostream& raw_out();

    // A REST call to the live daemon, found or (unless spawning is off or `allow_spawn` is
    // false) started on first use. Never throws: an unreachable daemon is an outcome.
    client::ApiReply call(std::string_view method, std::string target,
                          const std::optional<boost::json::value>& body = std::nullopt,
                          bool allow_spawn = true);

    // Success: with --json print the body, else run `human`. Failure: report() it.
    int respond(const client::ApiReply& reply,
                const std::function<void(const boost::json::value& body)>& human);

    // Reports a failed reply (exit 1 for daemon errors, 3 when unreachable).
    int report(const client::ApiReply& reply);
    // An error that is the daemon's or ours (exit 1).
    int fail(const core::Error& error, int http_status = 0, std::string_view trace = {});
    // The daemon cannot be reached (exit 3), with a hint of what to do: start it (when none was
    // started because spawning was off) or look at its log (when starting or talking failed).
    int unreachable(const std::string& message, bool spawn_was_allowed = true);
    // Usage error (exit 2): message and usage text on stderr (envelope on stdout with --json).
    int usage_error(const std::string& message, const std::string& usage);

    // The daemon the last call() reached (nullptr before one did): for exchanges call() does not
    // make, such as reading an event stream.
    const client::DaemonInfo* daemon_info() const noexcept { return client_ ? &client_->info() : nullptr; }

    void print_json(const boost::json::value& document);
    void note(const std::string& message); // stderr, only with --verbose

private:
    GlobalOptions options_;
    std::filesystem::path vault_;
    std::ostream& out_;  // JSON documents go here as they are
    std::ostream& err_;
    SafeOutput safe_out_;
    SafeOutput safe_err_;
    std::unique_ptr<client::Client> client_;
    bool spawn_refused_ = false; // the last connect failed without trying to spawn
};

}  // namespace coffer::cli
