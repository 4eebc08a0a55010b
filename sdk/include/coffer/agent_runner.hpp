// Running agent turns for a driver plugin (ABI 1.5): one child process per turn, the leader of
// its own process group and recorded with the host (child_started), its stdout read line by line
// into a driver's StreamParser, the tail of its stderr kept for the error message, interrupt as
// SIGINT → SIGTERM → SIGKILL to the whole group, and exactly one "turn.completed" — sent only
// after the child was reaped and its group killed, so a caller that sees it sees no process left.
//
// One I/O thread per Runner (per plugin) serves every turn: no thread per turn. Header-only;
// a new driver (another CLI, an ACP agent) writes a StreamParser and an argv builder and reuses
// this. See docs/agents-and-chat.md and docs/decisions/0033.
#pragma once

#include <coffer/child_process.hpp>
#include <coffer/sdk.hpp>
#include <coffer/utf8.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace coffer::agent {

namespace json = boost::json;
namespace asio = boost::asio;
using namespace std::chrono_literals;

// Translates one agent CLI's stdout into normalised events.
class StreamParser {
public:
    virtual ~StreamParser() = default;
    // One stdout line without its end. Pushes the events it yields; bad input becomes a warning
    // event or is ignored, never an exception. A "turn.completed" is not pushed: it is kept for
    // terminal() and sent by the runner once the child is gone.
    virtual void feed(std::string_view line, std::vector<json::object>& out) = 0;
    // The terminal event the stream carried (status ok|error), if any.
    virtual std::optional<json::object> terminal() const = 0;
    // How many upstream events were not understood, and the first few of their types (for one
    // bounded log line per turn).
    std::size_t ignored = 0;
    std::vector<std::string> ignored_types;
    void ignore(std::string_view type) {
        ++ignored;
        if (ignored_types.size() < 8) ignored_types.emplace_back(type.substr(0, 64));
    }

    // The line as a JSON object (kept in `storage`); a line that is not one becomes a "warning"
    // event with its start, and null.
    static json::object* object_line(std::string_view line, json::value& storage, std::vector<json::object>& out) {
        boost::system::error_code ec;
        storage = json::parse(line, ec);
        if (!ec && storage.is_object()) return &storage.as_object();
        out.push_back(json::object{{"type", "warning"}, {"message", "the agent printed a line that is not JSON"},
                                   {"line", utf8::clip(line, 200)}});
        return nullptr;
    }

    // At most 500 bytes of `s`, cut between characters, "…" when cut (tool outputs, bad lines).
    static std::string preview(std::string_view s) { return utf8::clip(s, 500); }
};

struct Command {
    std::string path;               // resolved program
    std::vector<std::string> argv;  // argv[0] included
    std::vector<std::string> env;   // NAME=value
    std::string cwd;
};

struct Timing {
    std::chrono::milliseconds interrupt_grace{2000};  // SIGINT → SIGTERM
    std::chrono::milliseconds term_grace{2000};       // SIGTERM → SIGKILL
    std::chrono::milliseconds drain_after_exit{300};  // pipes still open after the leader exited
    std::size_t stderr_tail = 4096;
    std::size_t max_line = 16u << 20;
};

class Runner {
    struct Run : std::enable_shared_from_this<Run> {
        Run(asio::io_context& io) : out(io), err(io), poll(io), escalate(io) {}
        sdk::AgentTurn turn;
        std::unique_ptr<StreamParser> parser;
        Timing timing;
        pid_t pid = -1;
        asio::posix::stream_descriptor out, err;
        asio::steady_timer poll, escalate;
        std::string line, tail;
        char obuf[16384], ebuf[4096];
        bool out_eof = false, err_eof = false, exited = false, interrupted = false, finished = false;
        int wstatus = 0;
        std::chrono::steady_clock::time_point exited_at{};
    };

public:
    explicit Runner(sdk::Host host, Timing timing = {}) : host_(host), timing_(timing) {
        thread_ = std::thread([this] { io_.run(); });
    }
    ~Runner() { shutdown(); }
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;

    // Starts the child (on the calling thread, so a failure is thrown as sdk::Error and nothing
    // runs) and hands it to the I/O thread.
    void start(sdk::AgentTurn turn, const Command& cmd, std::unique_ptr<StreamParser> parser,
               const std::string& description, std::optional<Timing> timing = std::nullopt) {
        std::string error;
        auto child = child::spawn(cmd.path, cmd.argv, cmd.env, cmd.cwd, error);
        if (!child) throw sdk::Error(COFFER_E_UNAVAILABLE, error);
        auto run = std::make_shared<Run>(io_);
        run->turn = std::move(turn);
        run->parser = std::move(parser);
        run->timing = timing.value_or(timing_);
        run->pid = child->pid;
        run->out.assign(child->out);
        run->err.assign(child->err);
        {
            std::lock_guard<std::mutex> g(mu_);
            runs_[run->turn.handle()] = run;
        }
        // Recorded from the I/O thread: the host writes the record durably (an fsync, often several
        // milliseconds), which must not hold up the caller — the host's service thread.
        asio::post(io_, [this, run, description] {
            host_.child_started(run->pid, description);
            read_out(run);
            read_err(run);
            arm_poll(run);
        });
    }

    // Any thread; never blocks. Unknown or finished turns are ignored.
    void interrupt(coffer_turn* turn) {
        std::shared_ptr<Run> run;
        {
            std::lock_guard<std::mutex> g(mu_);
            auto it = runs_.find(turn);
            if (it != runs_.end()) run = it->second;
        }
        if (run) asio::post(io_, [this, run] { begin_interrupt(run); });
    }

    void interrupt_all() {
        std::lock_guard<std::mutex> g(mu_);
        for (auto& [t, run] : runs_) asio::post(io_, [this, r = run] { begin_interrupt(r); });
    }

    std::size_t running() const {
        std::lock_guard<std::mutex> g(mu_);
        return runs_.size();
    }

    // Kills every child's group at once, reaps them, completes their turns, joins the thread.
    void shutdown() {
        if (!thread_.joinable()) return;
        asio::post(io_, [this] {
            std::vector<std::shared_ptr<Run>> all;
            {
                std::lock_guard<std::mutex> g(mu_);
                for (auto& [t, r] : runs_) all.push_back(r);
            }
            for (auto& r : all) {
                r->interrupted = true;
                ::kill(-r->pid, SIGKILL);
                if (!r->exited && ::waitpid(r->pid, &r->wstatus, 0) == r->pid) r->exited = true;
                finish(r);
            }
            io_.stop();
        });
        thread_.join();
    }

private:
    void read_out(const std::shared_ptr<Run>& run) {
        run->out.async_read_some(asio::buffer(run->obuf), [this, run](boost::system::error_code ec, std::size_t n) {
            if (run->finished) return;
            if (ec) {
                run->out_eof = true;
                if (!run->line.empty()) deliver(run, std::exchange(run->line, {}));
                return maybe_finish(run);
            }
            std::string_view chunk(run->obuf, n);
            while (!chunk.empty()) {
                auto nl = chunk.find('\n');
                if (nl == std::string_view::npos) {
                    run->line.append(chunk);
                    if (run->line.size() > run->timing.max_line) run->line.clear();  // a runaway line is dropped
                    break;
                }
                run->line.append(chunk.substr(0, nl));
                chunk.remove_prefix(nl + 1);
                deliver(run, std::exchange(run->line, {}));
            }
            read_out(run);
        });
    }

    void read_err(const std::shared_ptr<Run>& run) {
        run->err.async_read_some(asio::buffer(run->ebuf), [this, run](boost::system::error_code ec, std::size_t n) {
            if (run->finished) return;
            if (ec) {
                run->err_eof = true;
                return maybe_finish(run);
            }
            run->tail.append(run->ebuf, n);
            if (run->tail.size() > run->timing.stderr_tail) run->tail.erase(0, run->tail.size() - run->timing.stderr_tail);
            read_err(run);
        });
    }

    void deliver(const std::shared_ptr<Run>& run, const std::string& line) {
        if (!line.empty() && line.back() == '\r') return deliver(run, line.substr(0, line.size() - 1));
        if (line.find_first_not_of(" \t") == std::string::npos) return;
        std::vector<json::object> events;
        run->parser->feed(line, events);
        for (auto& e : events) run->turn.event(e);
    }

    // Reaps the leader every 20 ms; once it is gone and the pipes are done (or stayed open too
    // long — a grandchild holding them), the turn ends.
    void arm_poll(const std::shared_ptr<Run>& run) {
        run->poll.expires_after(20ms);
        run->poll.async_wait([this, run](boost::system::error_code ec) {
            if (ec || run->finished) return;
            if (!run->exited && ::waitpid(run->pid, &run->wstatus, WNOHANG) == run->pid) {
                run->exited = true;
                run->exited_at = std::chrono::steady_clock::now();
            }
            if (run->exited && std::chrono::steady_clock::now() - run->exited_at > run->timing.drain_after_exit)
                return finish(run);
            maybe_finish(run);
            if (!run->finished) arm_poll(run);
        });
    }

    void maybe_finish(const std::shared_ptr<Run>& run) {
        if (run->exited && run->out_eof && run->err_eof) finish(run);
    }

    void begin_interrupt(const std::shared_ptr<Run>& run) {
        if (run->finished || run->interrupted) return;
        run->interrupted = true;
        ::kill(-run->pid, SIGINT);
        run->escalate.expires_after(run->timing.interrupt_grace);
        run->escalate.async_wait([this, run](boost::system::error_code ec) {
            if (ec || run->finished) return;
            ::kill(-run->pid, SIGTERM);
            run->escalate.expires_after(run->timing.term_grace);
            run->escalate.async_wait([run](boost::system::error_code ec2) {
                if (ec2 || run->finished) return;
                ::kill(-run->pid, SIGKILL);
            });
        });
    }

    // The child is reaped: whatever is left of its group is killed, then the one terminal event.
    void finish(const std::shared_ptr<Run>& run) {
        if (run->finished) return;
        run->finished = true;
        ::kill(-run->pid, SIGKILL);  // grandchildren that outlived the leader
        if (!run->exited && ::waitpid(run->pid, &run->wstatus, 0) == run->pid) run->exited = true;
        host_.child_exited(run->pid);
        boost::system::error_code ignored;
        run->poll.cancel();
        run->escalate.cancel();
        run->out.close(ignored);
        run->err.close(ignored);
        if (run->parser->ignored > 0) {
            std::string types;
            for (auto& t : run->parser->ignored_types) types += (types.empty() ? "" : ", ") + t;
            host_.warn("agent turn: " + std::to_string(run->parser->ignored) + " upstream events ignored (" + types + ")");
        }
        run->turn.event(completion(*run));
        std::lock_guard<std::mutex> g(mu_);
        runs_.erase(run->turn.handle());
    }

    json::object completion(Run& run) {
        auto term = run.parser->terminal();
        if (run.interrupted) {
            json::object c = term ? *term : json::object{};
            c["type"] = "turn.completed";
            c["status"] = "interrupted";
            return c;
        }
        if (term) return *term;
        std::string how = WIFSIGNALED(run.wstatus) ? "was killed by signal " + std::to_string(WTERMSIG(run.wstatus))
                                                   : "exited with code " + std::to_string(WEXITSTATUS(run.wstatus));
        std::string tail = utf8::escape_invalid(run.tail);  // the tail may end inside a character
        while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
        return json::object{{"type", "turn.completed"},
                            {"status", "error"},
                            {"error", "the agent " + how + " without finishing the turn" +
                                          (tail.empty() ? std::string() : ": " + tail)},
                            {"stderr_tail", tail},
                            {"exit_code", WIFEXITED(run.wstatus) ? json::value(WEXITSTATUS(run.wstatus))
                                                                 : json::value(nullptr)}};
    }

    sdk::Host host_;
    Timing timing_;
    asio::io_context io_{1};
    asio::executor_work_guard<asio::io_context::executor_type> work_{io_.get_executor()};
    std::thread thread_;
    mutable std::mutex mu_;
    std::map<coffer_turn*, std::shared_ptr<Run>> runs_;
};

}  // namespace coffer::agent
