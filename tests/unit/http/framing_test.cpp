// The request framing rules (host/http/framing.hpp): what is refused before a body is read.
#define BOOST_TEST_MODULE http
#include <boost/test/unit_test.hpp>

#include "http/framing.hpp"

using coffer::http::framing_error;
using coffer::http::Head;

namespace {
Head head(std::vector<std::pair<std::string_view, std::string_view>> fields, unsigned version = 11) {
    Head h;
    h.version = version;
    h.fields = std::move(fields);
    return h;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(framing)

BOOST_AUTO_TEST_CASE(plain_requests_pass) {
    BOOST_TEST(!framing_error(head({{"Host", "127.0.0.1"}})));
    BOOST_TEST(!framing_error(head({{"Host", "127.0.0.1"}, {"Content-Length", "12"}})));
    BOOST_TEST(!framing_error(head({{"Host", "127.0.0.1"}, {"Origin", "http://localhost"}})));
    BOOST_TEST(!framing_error(head({{"Content-Length", "12"}}, 10)));
    BOOST_TEST(!framing_error(head({})));  // a missing Host is the guard's business (403)
}

BOOST_AUTO_TEST_CASE(only_plain_chunked_is_a_transfer_encoding) {
    for (auto v : {"chunked", "Chunked", "CHUNKED", " chunked ", "\tchunked"})
        BOOST_TEST(!framing_error(head({{"Transfer-Encoding", v}})), v);
    BOOST_TEST(!framing_error(head({{"transfer-encoding", "chunked"}})));
    for (auto v : {"xchunked", "chunkedx", "chunked, identity", "gzip, chunked", "identity", "", "chunked,",
                   ", chunked", "chunked, chunked", "chunked;q=1", "\"chunked\""})
        BOOST_TEST(framing_error(head({{"Transfer-Encoding", v}})).has_value(), v);
    // Split over several fields, the codings are a list all the same.
    BOOST_TEST(framing_error(head({{"Transfer-Encoding", "gzip"}, {"Transfer-Encoding", "chunked"}})).has_value());
    BOOST_TEST(framing_error(head({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}})).has_value());
}

BOOST_AUTO_TEST_CASE(transfer_encoding_with_content_length_or_on_http_1_0_is_refused) {
    BOOST_TEST(framing_error(head({{"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}})).has_value());
    BOOST_TEST(framing_error(head({{"Content-Length", "3"}, {"Transfer-Encoding", "chunked"}})).has_value());
    BOOST_TEST(framing_error(head({{"Content-Length", "0"}, {"Transfer-Encoding", "xchunked"}})).has_value());
    BOOST_TEST(framing_error(head({{"Transfer-Encoding", "chunked"}}, 10)).has_value());
}

BOOST_AUTO_TEST_CASE(content_length_must_be_one_number) {
    BOOST_TEST(!framing_error(head({{"Content-Length", "5"}, {"Content-Length", "5"}})));
    BOOST_TEST(!framing_error(head({{"Content-Length", "5, 5"}})));
    BOOST_TEST(!framing_error(head({{"Content-Length", "005"}, {"Content-Length", "5"}})));
    BOOST_TEST(framing_error(head({{"Content-Length", "5"}, {"Content-Length", "6"}})).has_value());
    BOOST_TEST(framing_error(head({{"Content-Length", "5, 6"}})).has_value());
    for (auto v : {"", "-1", "+5", "5x", "0x10", "1 2", "99999999999999999999999"})
        BOOST_TEST(framing_error(head({{"Content-Length", v}})).has_value(), v);
}

BOOST_AUTO_TEST_CASE(one_host_and_at_most_one_origin) {
    BOOST_TEST(framing_error(head({{"Host", "127.0.0.1"}, {"host", "127.0.0.1"}})).has_value());
    BOOST_TEST(framing_error(head({{"Host", "evil.example"}, {"Host", "127.0.0.1"}})).has_value());
    BOOST_TEST(framing_error(head({{"Host", "127.0.0.1"}, {"Origin", "http://a"}, {"ORIGIN", "http://a"}})).has_value());
}

BOOST_AUTO_TEST_CASE(messages_say_what_to_do) {
    auto why = framing_error(head({{"Transfer-Encoding", "xchunked"}}));
    BOOST_REQUIRE(why);
    BOOST_TEST(why->find("'xchunked'") != std::string::npos);
    BOOST_TEST(why->find("only 'chunked'") != std::string::npos);
    // A long hostile value is not echoed in full.
    std::string long_value(10000, 'a');
    auto shown = framing_error(head({{"Transfer-Encoding", long_value}}));
    BOOST_REQUIRE(shown);
    BOOST_TEST(shown->size() < 200u);
}

BOOST_AUTO_TEST_SUITE_END()
