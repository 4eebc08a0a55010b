// coffer/sse.hpp (the SDK's event-stream parser, used by the shim and the mcp_server plugin), in
// every chunking.
#include <boost/test/unit_test.hpp>

#include <coffer/sse.hpp>

#include <string>
#include <vector>

using namespace coffer;

namespace {

struct Seen {
    std::string type, data, id;
};

std::vector<Seen> parse_in_chunks(const std::string& stream, std::size_t chunk, SseParser* out = nullptr) {
    SseParser p;
    std::vector<Seen> seen;
    for (std::size_t i = 0; i < stream.size(); i += chunk)
        p.feed(std::string_view(stream).substr(i, chunk),
               [&](const SseEvent& e) { seen.push_back({std::string(e.type), std::string(e.data), std::string(e.id)}); });
    if (out) *out = p;
    return seen;
}

}  // namespace

BOOST_AUTO_TEST_CASE(events_in_any_chunking) {
    const std::string stream =
        ": keep-alive comment\r\n"
        "id: 1\r\n"
        "data: {\"a\":1}\r\n"
        "\r\n"
        "event: message\n"
        "data:{\"b\":\n"
        "data: 2}\n"
        "\n"
        "retry: 1500\r"
        "id: 3\r"
        "data\r"
        "\r"
        "event: endpoint\n"
        "data: /messages?x=1\n"
        "\n"
        "data: no terminator yet";
    for (std::size_t chunk : {1u, 2u, 3u, 7u, 64u, 4096u}) {
        SseParser p;
        auto seen = parse_in_chunks(stream, chunk, &p);
        BOOST_TEST_REQUIRE(seen.size() == 4u, "chunk " << chunk);
        BOOST_TEST(seen[0].type == "message");
        BOOST_TEST(seen[0].data == "{\"a\":1}");
        BOOST_TEST(seen[0].id == "1");
        BOOST_TEST(seen[1].data == "{\"b\":\n2}");
        BOOST_TEST(seen[1].id.empty());
        BOOST_TEST(seen[2].data.empty()); // "data" with no colon: an empty data line
        BOOST_TEST(seen[2].id == "3");
        BOOST_TEST(seen[3].type == "endpoint");
        BOOST_TEST(seen[3].data == "/messages?x=1");
        BOOST_TEST(p.last_event_id() == "3");
        BOOST_TEST(p.retry_ms().value_or(-1) == 1500);
    }
}

BOOST_AUTO_TEST_CASE(events_without_data_are_not_dispatched) {
    auto seen = parse_in_chunks("id: 5\n\nevent: x\n\n\n\n", 1);
    BOOST_TEST(seen.empty());
}
