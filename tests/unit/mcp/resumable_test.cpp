#include <boost/test/unit_test.hpp>

#include "mcp/resumable.hpp"

#include <boost/json.hpp>

#include <cstdint>

#include <string>
#include <vector>

using namespace coffer::mcp;

namespace {

// An HTTP stream that records what was written to it.
struct FakeConn final : coffer::http::Stream {
    std::string out;
    bool ended = false, gone = false;
    void write(std::string data) override {
        if (!ended && !gone) out += data;
    }
    void end() override { ended = true; }
    bool open() const override { return !ended && !gone; }
};

// The `a` members of the events' JSON payloads in `text`, in order (the priming event has none).
std::vector<std::int64_t> payload_a(const std::string& text) {
    std::vector<std::int64_t> out;
    for (std::size_t p = text.find("data: "); p != std::string::npos; p = text.find("data: ", p + 1)) {
        if (p != 0 && text[p - 1] != '\n') continue;
        auto line = text.substr(p + 6, text.find('\n', p) - p - 6);
        if (line.empty()) continue;
        out.push_back(boost::json::parse(line).at("a").as_int64());
    }
    return out;
}

// The ids of the events in `text`, in order.
std::vector<std::string> ids(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t p = text.find("id: "); p != std::string::npos; p = text.find("id: ", p + 1))
        if (p == 0 || text[p - 1] == '\n') out.push_back(text.substr(p + 4, text.find('\n', p) - p - 4));
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(event_ids_parse_strictly) {
    auto id = parse_event_id("12-345");
    BOOST_REQUIRE(id);
    BOOST_TEST(id->stream == 12u);
    BOOST_TEST(id->seq == 345u);
    BOOST_TEST(to_string(*id) == "12-345");
    for (auto bad : {"", "-", "12", "12-", "-3", "0-1", "1-0", "a-1", "1-b", "1-2-3", " 1-2", "1-2 ", "+1-2",
                     "18446744073709551616-1", "1-99999999999999999999999"})
        BOOST_TEST(!parse_event_id(bad), bad);
    BOOST_TEST(parse_event_id("18446744073709551615-1").has_value());
}

BOOST_AUTO_TEST_CASE(a_stream_replays_after_the_last_id_and_continues) {
    Streams streams;
    auto s = streams.open();
    auto first = std::make_shared<FakeConn>();
    s->connect(first);
    s->prime();
    s->send(R"({"a":1})");
    s->send(R"({"a":2})");
    s->send(R"({"a":3})");
    auto n = std::to_string(s->number());
    BOOST_TEST(ids(first->out) == (std::vector<std::string>{n + "-1", n + "-2", n + "-3", n + "-4"}),
               boost::test_tools::per_element());
    BOOST_TEST(first->out.find("id: " + n + "-1\ndata: \n\n") == 0u);  // the priming event comes first

    // The client saw up to -2 and comes back: -3 and -4 again, then what follows; the old connection ends.
    first->gone = true;
    auto match = streams.find(n + "-2");
    BOOST_REQUIRE(match);
    BOOST_TEST(match->stream == s);
    BOOST_TEST(match->after == 2u);
    auto second = std::make_shared<FakeConn>();
    s->connect(second, match->after);
    s->send(R"({"a":4})");
    BOOST_TEST(ids(second->out) == (std::vector<std::string>{n + "-3", n + "-4", n + "-5"}),
               boost::test_tools::per_element());
    // -2 is {"a":1}: the client has it; -3 and -4 ({"a":2}, {"a":3}) again, then -5, the new {"a":4}.
    BOOST_TEST(payload_a(second->out) == (std::vector<std::int64_t>{2, 3, 4}), boost::test_tools::per_element());
    BOOST_TEST(first->ended);

    // Ended: a late resume gets the tail, then the connection ends.
    s->end();
    BOOST_TEST(second->ended);
    auto third = std::make_shared<FakeConn>();
    s->connect(third, 4);
    BOOST_TEST(ids(third->out) == (std::vector<std::string>{n + "-5"}), boost::test_tools::per_element());
    BOOST_TEST(third->ended);
}

BOOST_AUTO_TEST_CASE(ids_that_name_no_stream_of_this_session_match_nothing) {
    Streams mine, theirs;
    auto m = mine.open();
    auto t = theirs.open();
    BOOST_TEST(m->number() != t->number());  // daemon-wide numbers
    m->send("{}");
    t->send("{}");
    BOOST_TEST(mine.find(std::to_string(m->number()) + "-1").has_value());
    BOOST_TEST(!mine.find(std::to_string(t->number()) + "-1"));     // another session's stream
    BOOST_TEST(!mine.find(std::to_string(m->number()) + "-2"));     // an event not sent yet
    BOOST_TEST(!mine.find("garbage"));
    BOOST_TEST(!mine.find(""));
}

BOOST_AUTO_TEST_CASE(a_stream_keeps_its_newest_events_within_the_caps) {
    EventStream s(7);
    for (int i = 1; i <= 300; ++i) s.send("{\"i\":" + std::to_string(i) + "}");
    BOOST_TEST(s.kept_events() == EventStream::kKeepEvents);
    auto conn = std::make_shared<FakeConn>();
    s.connect(conn, 0);  // from before what is kept: what is left, from 300 - 256 + 1 on
    auto got = ids(conn->out);
    BOOST_REQUIRE_EQUAL(got.size(), EventStream::kKeepEvents);
    BOOST_TEST(got.front() == "7-45");
    BOOST_TEST(got.back() == "7-300");

    EventStream big(8);
    std::string half(EventStream::kKeepBytes / 2, 'x');
    for (int i = 0; i < 3; ++i) big.send(half);
    BOOST_TEST(big.kept_events() == 1u);  // two halves plus framing exceed the cap
    BOOST_TEST(big.kept_bytes() <= EventStream::kKeepBytes);
    EventStream huge(9);
    huge.send(std::string(EventStream::kKeepBytes * 2, 'y'));
    BOOST_TEST(huge.kept_events() == 1u);  // the newest event is always kept
}

BOOST_AUTO_TEST_CASE(ended_streams_are_forgotten_beyond_the_cap_running_ones_never) {
    Streams streams;
    auto running = streams.open();
    running->send("{}");
    std::vector<std::shared_ptr<EventStream>> ended;
    for (std::size_t i = 0; i < Streams::kKeepEnded + 5; ++i) {
        auto s = streams.open();
        s->send("{}");
        s->end();
        ended.push_back(s);
    }
    streams.open();  // pruning happens when a stream opens
    BOOST_TEST(streams.size() == Streams::kKeepEnded + 2);  // + the running one + the new one
    BOOST_TEST(streams.find(std::to_string(running->number()) + "-1").has_value());
    BOOST_TEST(!streams.find(std::to_string(ended.front()->number()) + "-1"));
    BOOST_TEST(streams.find(std::to_string(ended.back()->number()) + "-1").has_value());
}

BOOST_AUTO_TEST_CASE(an_unnumbered_stream_sends_no_ids_and_keeps_only_a_backlog) {
    EventStream s;
    s.send(R"({"early":1})");  // before any connection: held
    BOOST_TEST(s.kept_events() == 1u);
    auto conn = std::make_shared<FakeConn>();
    s.connect(conn);
    s.prime();  // no priming without ids
    s.send(R"({"late":2})");
    BOOST_TEST(conn->out == "event: message\ndata: {\"early\":1}\n\nevent: message\ndata: {\"late\":2}\n\n");
    BOOST_TEST(s.kept_events() == 0u);
    BOOST_TEST(ids(conn->out).empty());
}

BOOST_AUTO_TEST_CASE(a_lines_stream_writes_bare_messages_and_no_comments) {
    EventStream s(5, Framing::lines);
    BOOST_TEST(!s.resumable());
    auto conn = std::make_shared<FakeConn>();
    s.connect(conn);
    s.comment();
    s.send(R"({"a":1})");
    BOOST_TEST(conn->out == R"({"a":1})");
}
