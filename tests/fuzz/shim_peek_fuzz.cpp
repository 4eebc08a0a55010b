// Fuzz target: what the stdio shim does to each line an MCP client writes before the daemon sees
// it (shim/message.*): peek() at kind, id and method, make_one_line(), its own error responses,
// and the header value encoding. With Boost.JSON (coffer-daemon's reader) as the reference for
// any input that is JSON:
//   - the kind is what the daemon will see: a request has a method string and an id that is a
//     string or a 64-bit integer, a notification a method and no usable id, a response a result
//     or error and an id, a batch an array;
//   - the method is the decoded method string, the id text parses to the id, bad_id and null_id
//     say what the id member holds (the last of a duplicated key counts, as in Boost.JSON);
//   - an error response for that id parses, with the same id; make_one_line keeps the value;
//   - header_safe_value is the value itself (plain visible ASCII) or its base64 form, which
//     decodes back to it.
#include "fuzz_check.hpp"
#include "shim/message.hpp"

#include <coffer/base64.hpp>

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;
using namespace coffer::shim;

void check_header_value(std::string_view v) {
    auto h = header_safe_value(v);
    if (h.rfind("=?base64?", 0) == 0 && h.size() >= 11 && h.substr(h.size() - 2) == "?=") {
        auto back = coffer::base64_decode(std::string_view(h).substr(9, h.size() - 11));
        FUZZ_CHECK(back && *back == v);
        return;
    }
    FUZZ_CHECK(h == v && !v.empty());
    for (unsigned char c : h) FUZZ_CHECK(c == '\t' || (c >= 0x20 && c <= 0x7E));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(bytes), size);
    Peek p = peek(text);
    check_header_value(text.substr(0, 200));
    if (!p.method.empty()) check_header_value(p.method);

    json::error_code ec;
    json::value ref = json::parse(text, ec);
    if (ec) return 0;

    std::string line(text);
    make_one_line(line);
    FUZZ_CHECK(line.find_first_of("\r\n") == std::string::npos);
    // (Boost.JSON 1.81 reads 0e400 as NaN, which equals nothing: compare the texts then.)
    auto again = json::parse(line);
    FUZZ_CHECK(again == ref || json::serialize(again) == json::serialize(ref));

    if (ref.is_array()) {
        FUZZ_CHECK(p.kind == MsgKind::batch);
        return 0;
    }
    auto* obj = ref.if_object();
    if (!obj) {
        FUZZ_CHECK(p.kind == MsgKind::invalid);
        return 0;
    }
    const json::value* id = obj->if_contains("id");
    const json::value* method = obj->if_contains("method");
    bool usable_id = id && (id->is_string() || id->is_int64() || id->is_uint64());
    FUZZ_CHECK(p.null_id == (id && id->is_null()));
    FUZZ_CHECK(p.bad_id == (id && !id->is_null() && !usable_id));
    FUZZ_CHECK(p.id.empty() == !usable_id);
    if (usable_id) FUZZ_CHECK(json::parse(p.id) == *id);
    if (method && method->is_string()) {
        FUZZ_CHECK(p.method == method->get_string());
        FUZZ_CHECK(p.kind == (usable_id ? MsgKind::request : MsgKind::notification));
    } else {
        FUZZ_CHECK(p.method.empty());
        bool answer = (obj->contains("result") || obj->contains("error")) && id;
        FUZZ_CHECK(p.kind == (answer ? MsgKind::response : MsgKind::invalid));
    }

    // The shim's errors may quote the method ("unknown method …"): still one valid JSON line.
    auto text_err = error_response(p.id, rpc_error::invalid_request, "bad message " + p.method, json::object{{"k", 1}});
    FUZZ_CHECK(text_err.find_first_of("\r\n") == std::string::npos);
    auto err = json::parse(text_err);
    FUZZ_CHECK(err.at("id") == (usable_id ? *id : json::value(nullptr)));
    FUZZ_CHECK(err.at("error").at("code") == rpc_error::invalid_request);
    return 0;
}
