// A plain driver for LLVMFuzzerTestOneInput, for any compiler and for CI: replays every corpus
// file, then feeds deterministic random mutations of them for a bounded time.
//   mcp_message_fuzz_driver <corpus dir> [--seconds N] [--runs N] [--seed N]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

const char* kTokens[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "null", "true", "1e999",
                         "-0", "\"jsonrpc\":\"2.0\"", "\"id\":", "\"method\":", "\"params\":", "\"result\":",
                         "\"error\":", "__", "coffer://", "\"name\":\"a__b\"", "\"uri\":\"coffer://s/x\"",
                         "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf0\x9f\x98\x80", "\n", "\r\n", "=?base64?", "?=",
                         "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}"};

std::string mutate(std::string s, const std::vector<std::string>& corpus, std::mt19937_64& rng) {
    auto pick = [&](std::size_t n) { return n ? static_cast<std::size_t>(rng() % n) : 0; };
    int steps = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < steps; ++i) {
        switch (rng() % 7) {
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
                s.insert(pick(s.size() + 1), kTokens[pick(sizeof kTokens / sizeof *kTokens)]);
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
            default:  // nest
                s = (rng() & 1 ? "[" : "{\"a\":") + s + (s.size() & 1 ? "]" : "}");
                break;
        }
    }
    if (s.size() > (1u << 16)) s.resize(1u << 16);
    return s;
}

int run(const std::string& s) { return LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); }

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s <corpus dir> [--seconds N] [--runs N] [--seed N]\n", argv[0]);
        return 64;
    }
    double seconds = 10;
    long long runs = -1;
    std::uint64_t seed = 20261130;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--runs")) runs = std::atoll(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(argv[i + 1], nullptr, 10);
    }
    if (const char* s = std::getenv("COFFER_FUZZ_SEED")) seed = std::strtoull(s, nullptr, 10);
    std::vector<std::string> corpus;
    for (auto& e : std::filesystem::directory_iterator(argv[1])) {
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        corpus.push_back(ss.str());
    }
    for (auto& c : corpus) run(c);
    std::mt19937_64 rng(seed);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    long long n = 0;
    std::string last;
    while ((runs < 0 || n < runs) && std::chrono::steady_clock::now() < deadline) {
        auto base = corpus.empty() || rng() % 8 == 0 ? last : corpus[rng() % corpus.size()];
        last = mutate(base, corpus, rng);
        run(last);
        ++n;
    }
    std::printf("fuzz: %zu corpus inputs, %lld mutations (seed %llu), no failures\n", corpus.size(), n,
                static_cast<unsigned long long>(seed));
    return 0;
}
