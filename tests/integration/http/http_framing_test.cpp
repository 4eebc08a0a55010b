// The HTTP server against ambiguous message framing (issue 18, item 5; RFC 9112 §6): every
// Transfer-Encoding but plain `chunked`, Transfer-Encoding with Content-Length, conflicting
// Content-Lengths, Transfer-Encoding on HTTP/1.0 and duplicate Host or Origin headers are answered
// 400 and the connection is closed, so a body is never read as a second request. Also (item 7):
// REST bodies must be application/json, else 415.
#define BOOST_TEST_MODULE http_framing
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"
#include "raw_conn.hpp"

using namespace coffer::test;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

struct Exchange {
    std::string raw;     // every byte the server sent
    bool closed = false; // the server closed the connection
};

// Sends `bytes` on a fresh connection and collects the answer until the server closes or stays
// quiet for 1.5 s.
Exchange send_raw(const Daemon& d, const std::string& bytes) {
    RawConn c(d.port());
    Exchange out;
    if (!c.send(bytes)) return out;
    out.raw = c.read_until_close(1500ms, &out.closed);
    return out;
}

std::string host(const Daemon& d) { return "127.0.0.1:" + std::to_string(d.port()); }

// A request head with the token; `fields` are extra header lines, each ending in \r\n.
std::string head(const Daemon& d, const std::string& method, const std::string& target, const std::string& fields,
                 const std::string& version = "HTTP/1.1") {
    return method + " " + target + " " + version + "\r\nHost: " + host(d) + "\r\nX-Coffer-Token: " + d.token() +
           "\r\n" + fields + "\r\n";
}

// A complete, valid request, hidden in the body of another one.
std::string smuggled(const Daemon& d) { return head(d, "GET", "/api/v1/daemon/status", ""); }

std::string error_code(const std::string& raw) {
    auto v = parse(first_body(raw));
    if (!v.is_object() || !v.as_object().contains("error")) return "<no envelope>";
    return std::string(v.at("error").at("code").as_string());
}

void expect_refused(const Exchange& e, const std::string& what) {
    BOOST_TEST_CONTEXT(what) {
        BOOST_TEST(count_responses(e.raw) == 1, "responses: " << count_responses(e.raw) << "\n" << e.raw);
        BOOST_TEST(first_status(e.raw) == 400);
        BOOST_TEST(e.closed, "the connection stayed open after the 400");
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(transfer_encodings_other_than_chunked_are_refused_and_the_body_is_never_a_request) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto in_body = smuggled(d);
    auto chunked = [](const std::string& s) {
        char size[20];
        std::snprintf(size, sizeof size, "%zx\r\n", s.size());
        return std::string(size) + s + "\r\n0\r\n\r\n";
    };
    const std::pair<std::string, std::string> cases[] = {
        {"Transfer-Encoding: xchunked\r\n", in_body},
        {"Transfer-Encoding: chunked, identity\r\n", in_body},
        {"Transfer-Encoding: identity\r\n", in_body},
        {"Transfer-Encoding: gzip, chunked\r\n", chunked("x") + in_body},
        {"Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", chunked("x") + in_body},
        {"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", chunked("x") + in_body},
        {"Transfer-Encoding: xchunked\r\nContent-Length: " + std::to_string(in_body.size()) + "\r\n", in_body},
        {"Content-Length: " + std::to_string(in_body.size()) + "\r\nTransfer-Encoding: xchunked\r\n", in_body},
        {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", chunked("x") + in_body},
    };
    for (auto& [fields, body] : cases)
        expect_refused(send_raw(d, head(d, "POST", "/api/v1/mcp/refresh", fields) + body), fields);
    // Transfer-Encoding does not exist in HTTP/1.0.
    expect_refused(send_raw(d, head(d, "POST", "/api/v1/mcp/refresh", "Transfer-Encoding: chunked\r\n", "HTTP/1.0") +
                                   chunked("x") + in_body),
                   "HTTP/1.0 with Transfer-Encoding");
    // The daemon still serves.
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
}

BOOST_AUTO_TEST_CASE(conflicting_content_lengths_are_refused) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto in_body = smuggled(d);
    auto n = std::to_string(in_body.size());
    expect_refused(send_raw(d, head(d, "POST", "/api/v1/mcp/refresh", "Content-Length: 0\r\nContent-Length: " + n + "\r\n") +
                                   in_body),
                   "two Content-Length fields");
    expect_refused(send_raw(d, head(d, "POST", "/api/v1/mcp/refresh", "Content-Length: 0, " + n + "\r\n") + in_body),
                   "a Content-Length list");
}

BOOST_AUTO_TEST_CASE(duplicate_host_or_origin_headers_are_refused) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto with = [&](const std::string& fields) {
        return "GET /api/v1/daemon/status HTTP/1.1\r\nX-Coffer-Token: " + d.token() + "\r\n" + fields + "\r\n";
    };
    // Neither the first nor the last one is picked: a proxy and this server could disagree.
    expect_refused(send_raw(d, with("Host: evil.example\r\nHost: " + host(d) + "\r\n")), "Host: evil, loopback");
    expect_refused(send_raw(d, with("Host: " + host(d) + "\r\nHost: " + host(d) + "\r\n")), "the same Host twice");
    expect_refused(send_raw(d, with("Host: " + host(d) + "\r\nOrigin: http://evil.example\r\nOrigin: http://localhost\r\n")),
                   "Origin: evil, loopback");
    expect_refused(send_raw(d, with("Host: " + host(d) + "\r\nOrigin: http://localhost\r\nOrigin: http://localhost\r\n")),
                   "the same Origin twice");
    // One of each is fine.
    auto one = send_raw(d, with("Host: " + host(d) + "\r\nOrigin: http://localhost\r\nConnection: close\r\n"));
    BOOST_TEST(first_status(one.raw) == 200);
}

BOOST_AUTO_TEST_CASE(chunked_in_any_case_with_whitespace_is_accepted_and_keep_alive_continues) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    std::string body = R"({"days": 365})";
    char size[20];
    std::snprintf(size, sizeof size, "%zx\r\n", body.size());
    auto first = head(d, "PUT", "/api/v1/retention/audit",
                      "Content-Type: application/json\r\nTransfer-Encoding:  Chunked \r\n") +
                 size + body + "\r\n0\r\n\r\n";
    auto second = head(d, "GET", "/api/v1/daemon/status", "Connection: close\r\n");
    auto e = send_raw(d, first + second);
    BOOST_TEST(count_responses(e.raw) == 2, e.raw);
    BOOST_TEST(first_status(e.raw) == 200, e.raw);
    BOOST_TEST(e.raw.find("HTTP/1.1 200", 12) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rest_bodies_must_be_json) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto request = [&](const std::string& method, const std::string& target, const std::string& type,
                       const std::string& body) {
        std::string fields = "Connection: close\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
        if (!type.empty()) fields += "Content-Type: " + type + "\r\n";
        return send_raw(d, head(d, method, target, fields) + body).raw;
    };
    std::string days = R"({"days": 365})";
    for (auto type : {"text/plain", "", "application/x-www-form-urlencoded", "application/jsonx", "text/json"}) {
        BOOST_TEST_CONTEXT("Content-Type '" << type << "'") {
            auto r = request("PUT", "/api/v1/retention/audit", type, days);
            BOOST_TEST(first_status(r) == 415, r);
            BOOST_TEST(error_code(r) == "UNSUPPORTED_MEDIA_TYPE");
        }
    }
    auto create = request("POST", "/api/v1/resources", "text/plain", R"({"kind":"hello","name":"h","config":{}})");
    BOOST_TEST(first_status(create) == 415);
    // The backup endpoint is REST too.
    BOOST_TEST(first_status(request("POST", "/api/v1/backup", "text/plain", R"({"destination":"/nonexistent/x"})")) == 415);
    // JSON with parameters, in any case, is accepted.
    for (auto type : {"application/json", "application/json; charset=utf-8", "Application/JSON;charset=UTF-8"})
        BOOST_TEST(first_status(request("PUT", "/api/v1/retention/audit", type, days)) == 200, type);
    // No body, no type needed (and a type without a body is not looked at).
    BOOST_TEST(first_status(request("POST", "/api/v1/mcp/refresh", "", "")) == 200);
    BOOST_TEST(first_status(request("POST", "/api/v1/mcp/refresh", "text/plain", "")) == 200);
    BOOST_TEST(first_status(request("GET", "/api/v1/daemon/status", "", "")) == 200);
    // The MCP endpoint keeps its own JSON-RPC shaped 415.
    auto mcp = request("POST", "/mcp", "text/plain", R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    BOOST_TEST(first_status(mcp) == 415);
    BOOST_TEST(string_at(first_body(mcp), "/jsonrpc") == "2.0", first_body(mcp));
    // The CLI still works: it labels its bodies application/json.
    auto set = d.cli({"retention", "set", "audit", "365"});
    BOOST_TEST(set.exit_code == 0, set.err);
    auto status = d.cli({"daemon", "status"});
    BOOST_TEST(status.exit_code == 0, status.err);
}
