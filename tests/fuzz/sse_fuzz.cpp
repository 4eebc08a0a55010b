// Fuzz target: the Server-Sent Events reader (coffer/sse.hpp) that the shim runs on the daemon's
// streams and the mcp_server plugin on its upstreams' streams. Invariants:
//   - the events do not depend on how the bytes are chunked (whole, one byte at a time, or cut at
//     points taken from the input), nor do the last event id and retry;
//   - the gateway's writer (mcp/sse.hpp) and this reader agree: any data written as one event is
//     read back as one event with the same data, line ends normalised to LF.
#include "coffer/sse.hpp"
#include "fuzz_check.hpp"
#include "mcp/sse.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct Seen {
    std::string type, data, id;
    std::optional<long> retry;
    bool operator==(const Seen&) const = default;
};

struct Outcome {
    std::vector<Seen> events;
    std::string last_id;
    std::optional<long> retry;
    bool operator==(const Outcome&) const = default;
};

// Feeds `input` in pieces ending at the offsets `cut` chooses (strictly increasing).
template <class Cut>
Outcome read(std::string_view input, Cut cut) {
    coffer::SseParser p;
    Outcome out;
    auto on = [&](const coffer::SseEvent& e) {
        out.events.push_back(Seen{std::string(e.type), std::string(e.data), std::string(e.id), e.retry});
    };
    std::size_t at = 0;
    while (at < input.size()) {
        std::size_t next = cut(at);
        FUZZ_CHECK(p.feed(input.substr(at, next - at), on));  // inputs are far below the 64 MiB limit
        at = next;
    }
    out.last_id = p.last_event_id();
    out.retry = p.retry_ms();
    return out;
}

// LF, CR LF and CR all become LF; a final line end is dropped (the writer ends the last line itself).
std::string normalised(std::string_view data) {
    std::string out;
    for (std::size_t i = 0; i < data.size(); ++i) {
        if (data[i] == '\r') {
            out += '\n';
            if (i + 1 < data.size() && data[i + 1] == '\n') ++i;
        } else {
            out += data[i];
        }
    }
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(bytes), size);

    Outcome whole = read(input, [&](std::size_t) { return input.size(); });
    Outcome single = read(input, [&](std::size_t at) { return at + 1; });
    FUZZ_CHECK(single == whole);
    // Cut points from the input itself: each piece is 1 + (the byte at its start) % 7 long.
    Outcome jagged = read(input, [&](std::size_t at) {
        return std::min(input.size(), at + 1 + static_cast<unsigned char>(input[at]) % 7);
    });
    FUZZ_CHECK(jagged == whole);

    // Whatever we write as one event reads back as exactly that event.
    std::string framed = coffer::mcp::sse::event(input, "message", "7");
    Outcome back = read(framed, [&](std::size_t) { return framed.size(); });
    FUZZ_CHECK(back.events.size() == 1);
    FUZZ_CHECK(back.events[0].type == "message" && back.events[0].id == "7");
    FUZZ_CHECK(back.events[0].data == normalised(input));
    FUZZ_CHECK(back.last_id == "7");
    return 0;
}
