// A stand-in for the `claude` and `codex` CLIs in tests: accepts the flags the drivers pass
// (`-p --output-format stream-json --verbose [--resume ID] [--mcp-config F] -- PROMPT`;
// `exec --json … [resume ID] PROMPT`) and prints their recorded stream formats (docs/agents-and-
// chat.md, /work/shared/reference/agents.md §5.1–5.2). What it does is scripted by words in the
// prompt, so one binary serves every test:
//   chunks=N     the answer in N text deltas (default 3)      sleep=MS   pause between lines (10)
//   tool         a tool call (Bash / command_execution)        hang=MS    wait before finishing
//   crash        stderr "fatal: the model backend crashed", exit 3, no terminal event
//   fail         a terminal error event (result is_error / turn.failed)
//   ignore-int   ignore SIGINT      ignore-term  ignore SIGINT and SIGTERM (only SIGKILL ends it)
//   child        start a grandchild (same process group) that sleeps
//   noise        a line that is not JSON and events of unknown types
//   stamp        each text delta is the wall-clock time it was printed ("<µs since the epoch>;")
//   long=N       the answer grows by N bytes of Markdown: paragraphs and fenced code blocks
// The session id is new on every run: "s-<pid>", or "<resumed id>+" when resuming (Claude Code
// may hand back a new id on --resume). With FAKE_AGENT_LOG set, one JSON line per run is appended
// there: start time (µs since the epoch), pid, process group, argv, cwd, grandchild pid.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string esc(const std::string& s) {
    std::string o;
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
        else if (c == '\n') o += "\\n";
        else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else o += static_cast<char>(c);
    }
    return o;
}

void line(const std::string& s) {
    std::string l = s + "\n";
    (void)!::write(1, l.data(), l.size());
}

void nap(int ms) {
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

struct Script {
    int chunks = 3, sleep_ms = 10, hang_ms = 0, long_bytes = 0;
    bool tool = false, stamp = false, crash = false, fail = false, ignore_int = false, ignore_term = false, child = false, noise = false;
};

Script parse(const std::string& prompt) {
    Script s;
    std::istringstream in(prompt);
    std::string w;
    while (in >> w) {
        auto num = [&](const char* key, int& into) {
            auto k = std::string(key) + "=";
            if (w.rfind(k, 0) == 0) into = std::atoi(w.c_str() + k.size());
        };
        num("chunks", s.chunks);
        num("sleep", s.sleep_ms);
        num("hang", s.hang_ms);
        num("long", s.long_bytes);
        s.tool |= w == "tool";
        s.crash |= w == "crash";
        s.fail |= w == "fail";
        s.ignore_int |= w == "ignore-int" || w == "ignore-term";
        s.ignore_term |= w == "ignore-term";
        s.child |= w == "child";
        s.noise |= w == "noise";
        s.stamp |= w == "stamp";
    }
    if (s.chunks < 1) s.chunks = 1;
    return s;
}

// `n` bytes (about) of Markdown: numbered paragraphs, every third one followed by a fenced code
// block of 40 numbered lines, so that a long answer has blocks a chunker must not break.
std::string long_markdown(int n) {
    std::string out;
    for (int i = 1; static_cast<int>(out.size()) < n; ++i) {
        out += "\n\nParagraph " + std::to_string(i) + ": the quick brown fox jumps over the lazy dog, again and again.";
        if (i % 3 == 0) {
            out += "\n\n```cpp\n";
            for (int l = 1; l <= 40; ++l) out += "int line_" + std::to_string(i) + "_" + std::to_string(l) + " = " + std::to_string(l) + ";\n";
            out += "```";
        }
    }
    return out;
}

std::vector<std::string> split(const std::string& text, int n) {
    std::vector<std::string> out;
    std::size_t step = (text.size() + n - 1) / n;
    for (std::size_t i = 0; i < text.size(); i += step) out.push_back(text.substr(i, step));
    return out;
}

long long started_us = 0;  // CLOCK_REALTIME when main() began (for the POST → start benchmark)

void log_run(const std::vector<std::string>& argv, pid_t grandchild) {
    const char* path = std::getenv("FAKE_AGENT_LOG");
    if (!path) return;
    std::string a;
    for (auto& s : argv) a += (a.empty() ? "\"" : ",\"") + esc(s) + "\"";
    char cwd[4096] = "";
    (void)!::getcwd(cwd, sizeof cwd);
    std::ofstream out(path, std::ios::app);
    out << "{\"started_us\":" << started_us << ",\"pid\":" << ::getpid() << ",\"pgid\":" << ::getpgrp() << ",\"grandchild\":" << grandchild << ",\"cwd\":\""
        << esc(cwd) << "\",\"argv\":[" << a << "]}\n";
}

int claude(const std::vector<std::string>& args, const Script& sc, const std::string& prompt, const std::string& resume) {
    bool p = false, stream_json = false, verbose = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        p |= args[i] == "-p";
        verbose |= args[i] == "--verbose";
        if (args[i] == "--output-format" && i + 1 < args.size()) stream_json = args[i + 1] == "stream-json";
    }
    if (!p || !stream_json || !verbose) {
        std::fprintf(stderr, "Error: --output-format=stream-json requires -p and --verbose\n");
        return 1;
    }
    std::string sid = resume.empty() ? "s-" + std::to_string(::getpid()) : resume + "+";
    line(R"({"type":"system","subtype":"init","session_id":")" + sid + R"(","cwd":".","model":"fake","tools":["Bash"],"mcp_servers":[]})");
    if (sc.noise) {
        line("this is not json");
        line(R"({"type":"tool_progress","tool_use_id":"x","elapsed":1})");
        line(R"({"type":"system","subtype":"hook_started","hook":"x"})");
    }
    std::string text = "echo: " + prompt + long_markdown(sc.long_bytes);
    line(R"({"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1"}},"session_id":")" + sid + "\"}");
    for (auto piece : split(text, sc.chunks)) {
        nap(sc.sleep_ms);
        if (sc.stamp)
            piece = std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::system_clock::now().time_since_epoch()).count()) + ";";
        line(R"({"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":")" +
             esc(piece) + R"("}},"session_id":")" + sid + "\"}");
    }
    line(R"({"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":")" + esc(text) +
         R"("}]},"session_id":")" + sid + "\"}");
    if (sc.tool) {
        nap(sc.sleep_ms);
        line(R"({"type":"assistant","message":{"id":"msg_2","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"session_id":")" + sid + "\"}");
        nap(sc.sleep_ms);
        line(R"({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt\nb.txt"}]},"session_id":")" + sid + "\"}");
    }
    nap(sc.hang_ms);
    if (sc.crash) {
        std::fprintf(stderr, "fatal: the model backend crashed\n");
        return 3;
    }
    line(std::string(R"({"type":"result","subtype":")") + (sc.fail ? "error_during_execution" : "success") +
         R"(","is_error":)" + (sc.fail ? "true" : "false") + R"(,"result":")" + esc(sc.fail ? "it failed" : text) +
         R"(","session_id":")" + sid + R"(","num_turns":1,"duration_ms":5,"total_cost_usd":0.001,"usage":{"input_tokens":12,"output_tokens":7,"cache_read_input_tokens":3}})");
    return 0;
}

int codex(const Script& sc, const std::string& prompt, const std::string& resume) {
    std::string tid = resume.empty() ? "s-" + std::to_string(::getpid()) : resume;  // Codex keeps its thread id
    line(R"({"type":"thread.started","thread_id":")" + tid + "\"}");
    line(R"({"type":"turn.started"})");
    if (sc.noise) {
        line("not json either");
        line(R"({"type":"item.started","item":{"id":"item_9","type":"brand_new_item"}})");
        line(R"({"type":"session.configured","x":1})");
    }
    if (sc.tool) {
        nap(sc.sleep_ms);
        line(R"({"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"","exit_code":null,"status":"in_progress"}})");
        nap(sc.sleep_ms);
        line(R"({"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","aggregated_output":"a.txt\nb.txt\n","exit_code":0,"status":"completed"}})");
    }
    nap(sc.sleep_ms);
    std::string text = "echo: " + prompt + long_markdown(sc.long_bytes);
    line(R"({"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":")" + esc(text) + "\"}}");
    nap(sc.hang_ms);
    if (sc.crash) {
        std::fprintf(stderr, "fatal: the model backend crashed\n");
        return 3;
    }
    if (sc.fail) line(R"({"type":"turn.failed","error":{"message":"it failed"}})");
    else line(R"({"type":"turn.completed","usage":{"input_tokens":24763,"cached_input_tokens":24448,"output_tokens":122}})");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    started_us = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
    std::vector<std::string> args(argv + 1, argv + argc);
    bool is_codex = !args.empty() && args[0] == "exec";
    std::string prompt, resume;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (!is_codex && args[i] == "--resume" && i + 1 < args.size()) resume = args[++i];
        else if (is_codex && args[i] == "resume" && i + 1 < args.size()) resume = args[++i];
        else if (args[i] == "--") {
            if (i + 1 < args.size()) prompt = args[i + 1];
            break;
        } else if (is_codex && args[i] == "-c" && i + 1 < args.size()) ++i;
        else if (!is_codex && (args[i] == "--output-format" || args[i] == "--mcp-config") && i + 1 < args.size()) ++i;
        else if (!args[i].empty() && args[i][0] != '-' && !(is_codex && i == 0)) prompt = args[i];
    }
    Script sc = parse(prompt);
    if (sc.ignore_int) ::signal(SIGINT, SIG_IGN);
    if (sc.ignore_term) ::signal(SIGTERM, SIG_IGN);
    pid_t grandchild = 0;
    if (sc.child) {
        grandchild = ::fork();
        if (grandchild == 0) {
            ::close(1);
            ::close(2);
            ::execlp("sleep", "sleep", "600", static_cast<char*>(nullptr));
            ::_exit(127);
        }
    }
    log_run(args, grandchild);
    return is_codex ? codex(sc, prompt, resume) : claude(args, sc, prompt, resume);
}
