// A plain driver for any LLVMFuzzerTestOneInput, for any compiler and for CI: replays every corpus
// file, then feeds deterministic random mutations of them for a bounded time. Mutations insert
// tokens from a libFuzzer-format dictionary when one is given (tests/fuzz/dict/<target>.dict).
//   fuzz_<target> <corpus dir | one input file> [--seconds N] [--runs N] [--seed N] [--dict FILE]
// Given a file, it runs just that input (to reproduce a crash). When an input fails (an invariant
// aborts, a signal, a sanitizer report), it is saved as fuzz-crash-<pid> in the working directory
// (or $COFFER_FUZZ_ARTIFACTS) before the process dies, and the path is printed.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Called by the sanitizers before they end the process (weak: absent without them).
extern "C" void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

namespace {

// Bytes every parser here should meet: structure, escapes, bad UTF-8, line ends, big numbers.
const std::string_view kGeneric[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "null", "true", "1e999",
                          "-0", "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "\n", "\r\n", "\r", "\t",
                          " ", std::string_view("\0", 1)};

std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// libFuzzer/AFL dictionary: one `"token"` or `name="token"` a line, `#` comments, escapes \\ \" \xNN.
std::vector<std::string> read_dict(const std::string& path) {
    std::vector<std::string> out;
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "fuzz: cannot read dictionary %s\n", path.c_str());
        std::exit(64);
    }
    std::string line;
    while (std::getline(in, line)) {
        auto q = line.find('"');
        if (line.empty() || line[0] == '#' || q == std::string::npos || line.back() != '"' || q + 1 >= line.size()) continue;
        std::string tok;
        for (std::size_t i = q + 1; i + 1 < line.size(); ++i) {
            if (line[i] != '\\' || i + 2 >= line.size()) {
                tok += line[i];
            } else if (line[i + 1] == 'x' && i + 3 < line.size()) {
                tok += static_cast<char>(std::strtol(line.substr(i + 2, 2).c_str(), nullptr, 16));
                i += 3;
            } else {
                tok += line[++i];
            }
        }
        out.push_back(tok);
    }
    return out;
}

struct Mutator {
    std::vector<std::string> corpus, tokens;
    std::mt19937_64 rng;

    std::size_t pick(std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0; }
    std::string token() {
        if (!tokens.empty() && rng() % 4 != 0) return tokens[pick(tokens.size())];
        return std::string(kGeneric[pick(std::size(kGeneric))]);
    }

    std::string mutate(std::string s) {
        int steps = 1 + static_cast<int>(rng() % 4);
        for (int i = 0; i < steps; ++i) {
            switch (rng() % 8) {
                case 0:  // flip a bit
                    if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
                    break;
                case 1:  // delete a range
                    if (!s.empty()) {
                        auto at = pick(s.size());
                        s.erase(at, 1 + pick(std::min<std::size_t>(16, s.size() - at)));
                    }
                    break;
                case 2:  // insert a token
                    s.insert(pick(s.size() + 1), token());
                    break;
                case 3:  // duplicate a range
                    if (!s.empty()) {
                        auto at = pick(s.size());
                        auto len = 1 + pick(std::min<std::size_t>(64, s.size() - at));
                        s.insert(pick(s.size() + 1), s.substr(at, len));
                    }
                    break;
                case 4:  // splice with another input
                    if (!corpus.empty()) {
                        auto& o = corpus[pick(corpus.size())];
                        s = s.substr(0, pick(s.size() + 1)) + o.substr(pick(o.size() + 1));
                    }
                    break;
                case 5:  // random byte
                    s.insert(pick(s.size() + 1), 1, static_cast<char>(rng() & 0xff));
                    break;
                case 6:  // overwrite a byte with a token's first byte (keeps lengths and offsets)
                    if (!s.empty()) {
                        auto t = token();
                        if (!t.empty()) s[pick(s.size())] = t[0];
                    }
                    break;
                default:  // nest
                    s = (rng() & 1 ? "[" : "{\"a\":") + s + (s.size() & 1 ? "]" : "}");
                    break;
            }
        }
        if (s.size() > (1u << 16)) s.resize(1u << 16);
        return s;
    }
};

// The input being run and where to save it if the process dies on it (prepared before, since only
// async-signal-safe calls are allowed in the handler).
const std::string* g_current = nullptr;
char g_crash_path[4096];

void save_current() {
    static bool saved = false;
    if (saved || !g_current) return;
    saved = true;
    int fd = ::open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    std::size_t at = 0;
    while (at < g_current->size()) {
        auto n = ::write(fd, g_current->data() + at, g_current->size() - at);
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
    }
    ::close(fd);
    const char msg[] = "\nfuzz: the failing input is saved as ";
    (void)!::write(2, msg, sizeof msg - 1);
    (void)!::write(2, g_crash_path, std::strlen(g_crash_path));
    (void)!::write(2, "\n", 1);
}

void on_fatal_signal(int sig) {
    save_current();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

void arm_crash_saving() {
    const char* dir = std::getenv("COFFER_FUZZ_ARTIFACTS");
    std::snprintf(g_crash_path, sizeof g_crash_path, "%s/fuzz-crash-%d", dir ? dir : ".", static_cast<int>(::getpid()));
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, on_fatal_signal);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(save_current);
}

int run(const std::string& s) {
    g_current = &s;
    // An exact-size heap copy, as libFuzzer passes: under ASan a read one byte past the input is
    // caught (a std::string has its terminator and spare capacity there).
    std::unique_ptr<std::uint8_t[]> exact(new std::uint8_t[s.size()]);
    std::memcpy(exact.get(), s.data(), s.size());
    int rc = LLVMFuzzerTestOneInput(exact.get(), s.size());
    g_current = nullptr;
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <corpus dir | input file> [--seconds N] [--runs N] [--seed N] [--dict FILE]\n",
                     argv[0]);
        return 64;
    }
    namespace fs = std::filesystem;
    arm_crash_saving();
    if (fs::is_regular_file(argv[1])) {
        run(slurp(argv[1]));
        std::printf("fuzz: %s ran without failure\n", argv[1]);
        return 0;
    }
    double seconds = 10;
    long long runs = -1;
    std::uint64_t seed = 20261130;
    Mutator m;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--runs")) runs = std::atoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--dict")) m.tokens = read_dict(argv[i + 1]);
    }
    if (const char* s = std::getenv("COFFER_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
    m.rng.seed(seed);
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(argv[1]))
        if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());  // the same order every run, so a seed reproduces
    for (auto& f : files) m.corpus.push_back(slurp(f));
    for (auto& c : m.corpus) run(c);
    auto start = std::chrono::steady_clock::now();
    auto deadline = start + std::chrono::duration<double>(seconds);
    long long n = 0;
    std::string last;
    while ((runs < 0 || n < runs) && std::chrono::steady_clock::now() < deadline) {
        auto base = m.corpus.empty() || m.rng() % 8 == 0 ? last : m.corpus[m.rng() % m.corpus.size()];
        last = m.mutate(base);
        run(last);
        ++n;
    }
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("fuzz: %zu corpus inputs, %lld mutations in %.1f s (%.0f exec/s, seed %llu), no failures\n",
                m.corpus.size(), n, took, took > 0 ? n / took : 0.0, static_cast<unsigned long long>(seed));
    return 0;
}
