// Fuzz target: the JSON-RPC/MCP message parser, the raw JSON splicer, the namespace splitter and
// URI prefixing, result bridging, and 2026-07-28 header decoding — everything a downstream byte
// reaches before a provider does. Besides "never crash", it checks round-trip invariants: what
// the gateway re-serializes (params, ids) parses again.
#include "mcp/bridge.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/modern.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/sse.hpp"
#include "core/utf8.hpp"
#include "fuzz_check.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace {

using namespace coffer::mcp;
namespace json = boost::json;

void check_name(std::string_view exposed) {
    auto s = names::split(exposed);
    if (!s) return;
    FUZZ_CHECK(!s->server.empty() && !s->name.empty());
    FUZZ_CHECK(names::join(s->server, s->name) == exposed);
    if (names::addressable_server(s->server)) {
        std::string joined = names::join(s->server, s->name);
        auto again = names::split(joined);
        FUZZ_CHECK(again && again->server == s->server && again->name == s->name);
    }
}

void check_uri(std::string_view uri) {
    if (auto u = names::unprefix_uri(uri)) {
        FUZZ_CHECK(names::prefix_uri(u->server, u->name) == uri);
    }
    std::string prefixed = names::prefix_uri("srv", uri);
    if (!uri.empty()) {
        auto back = names::unprefix_uri(prefixed);
        FUZZ_CHECK(back && back->server == "srv" && back->name == uri);
    }
}

void check_raw(std::string_view text) {
    std::vector<raw::Member> ms;
    bool is_obj = raw::is_object(text);
    bool scanned = raw::members(text, ms);
    if (is_obj) {
        FUZZ_CHECK(scanned);
        for (std::size_t i = 0; i < ms.size(); ++i) {
            auto& m = ms[i];
            FUZZ_CHECK(m.value_begin <= m.value_end && m.value_end <= text.size());
            bool last = true;  // replace_member acts on the last of duplicated keys
            for (std::size_t j = i + 1; j < ms.size(); ++j) last &= ms[j].key != m.key;
            if (!last) continue;
            auto value = text.substr(m.value_begin, m.value_end - m.value_begin);
            auto same = raw::replace_member(text, m.key, value);
            FUZZ_CHECK(same && *same == text);
        }
        auto more = raw::prepend_members(text, "\"resultType\":\"complete\"");
        FUZZ_CHECK(raw::is_object(more));
        FUZZ_CHECK(raw::is_object(bridge::result(Version::v2026_07_28, "resources/read", text)));
        FUZZ_CHECK(bridge::result(Version::v2025_11_25, "tools/call", text) == text);
    }
    std::vector<std::string_view> items;
    if (raw::items(text, items))
        for (auto it : items) FUZZ_CHECK(it.data() >= text.data() && it.data() + it.size() <= text.data() + text.size());
    (void)raw::decode_string(text);
    (void)bridge::error(Version::v2026_07_28, "resources/read", text);
}

void check_message(const rpc::Message& m) {
    if (m.kind == rpc::Kind::request) FUZZ_CHECK(m.id.is_string() || m.id.is_int64() || m.id.is_uint64());
    FUZZ_CHECK(m.params.is_null() || m.params.is_object());
    // The gateway forwards params re-serialized (dispatch, relay): that text must be JSON again.
    json::error_code ec;
    (void)json::parse(json::serialize(m.params), ec);
    FUZZ_CHECK(!ec);
    (void)rpc::id_key(m.id);
    check_name(m.method);
    if (auto* p = m.params.if_object()) {
        if (auto* n = p->if_contains("name"); n && n->is_string()) check_name(n->as_string());
        if (auto* u = p->if_contains("uri"); u && u->is_string()) check_uri(u->as_string());
    }
    if (m.kind == rpc::Kind::request) {  // our answer to it parses back as a response to the same id
        auto round = rpc::parse(rpc::result(m.id, "{}"));
        FUZZ_CHECK(!round.error && round.entries.size() == 1 && round.entries[0].message);
        FUZZ_CHECK(round.entries[0].message->kind == rpc::Kind::response && round.entries[0].message->id == m.id);
    }
    coffer::http::Request req;
    req.headers["mcp-protocol-version"] = "2026-07-28";
    req.headers["mcp-method"] = m.method;
    (void)modern::check(req, m);
    (void)modern::is_modern_request(req, m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    auto parsed = rpc::parse(input);
    if (parsed.error) {
        FUZZ_CHECK(parsed.entries.empty());
        FUZZ_CHECK(!rpc::error(parsed.error->id, parsed.error->code, parsed.error->message).empty());
    } else {
        FUZZ_CHECK(coffer::core::utf8::first_invalid(input) == std::string_view::npos);
        for (auto& e : parsed.entries) {
            FUZZ_CHECK(e.message.has_value() != e.error.has_value());
            if (e.message) check_message(*e.message);
        }
    }
    check_raw(input);
    check_name(input);
    check_uri(input);
    (void)modern::decode_header(input);
    auto ev = sse::event(input, "message");
    FUZZ_CHECK(ev.size() >= input.size() && ev.substr(ev.size() - 2) == "\n\n");
    return 0;
}
