// Fuzz target: the one raw-JSON scanner (sdk/include/coffer/raw_json.hpp) that the gateway, the
// mcp_server plugin and the shim run on every message. Boost.JSON is the reference:
//   - valid() and is_object() agree with boost::json::parse at the same depth — never accepting
//     what it rejects, nor the reverse;
//   - members() of an object: each value span parses to the value Boost.JSON keeps for that key
//     (of a duplicated key, the last), member() returns it, and there are as many distinct keys;
//   - replace_member() with the member's own bytes is the identity, with `null` gives the object
//     with that key null; prepend_members() keeps an object; items() of an array match its items;
//   - decode_string() of a string token is Boost.JSON's string, and nothing for any other token;
//   - nothing is read outside the input (the driver hands over an exact-size heap copy, so ASan in
//     `make test-sanitize` and libFuzzer sees a read past the end).
#include "coffer/raw_json.hpp"
#include "core/json_numbers.hpp"
#include "fuzz_check.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace json = boost::json;
namespace raw = coffer::raw_json;

json::value reference(std::string_view text, bool& ok) {
    json::parse_options opt;
    opt.max_depth = raw::kDefaultMaxDepth;
    json::error_code ec;
    auto v = json::parse(text, ec, {}, opt);
    ok = !ec;
    return v;
}

json::value must_parse(std::string_view text) {
    bool ok = false;
    auto v = reference(text, ok);
    FUZZ_CHECK(ok);
    return v;
}

void check_object(std::string_view text, const json::object& obj) {
    std::vector<raw::Member> ms;
    FUZZ_CHECK(raw::members(text, ms));
    std::set<std::string> keys;
    for (auto& m : ms) {
        FUZZ_CHECK(m.value_begin < m.value_end && m.value_end <= text.size());
        keys.insert(m.key);
    }
    FUZZ_CHECK(keys.size() == obj.size());
    for (auto& kv : obj) {
        auto v = raw::member(text, kv.key());
        FUZZ_CHECK(v && must_parse(*v) == kv.value());
        auto same = raw::replace_member(text, kv.key(), *v);
        FUZZ_CHECK(same && *same == text);
        auto nulled = raw::replace_member(text, kv.key(), "null");
        FUZZ_CHECK(nulled);
        json::object expect = obj;
        expect[kv.key()] = nullptr;
        FUZZ_CHECK(must_parse(*nulled) == expect);
    }
    FUZZ_CHECK(!raw::member(text, "\x01 no such key"));
    // pick() in one pass agrees with member() key by key (a missing key stays empty).
    if (!obj.empty()) {
        std::array<std::string_view, 2> want{obj.begin()->key(), "\x01 no such key"};
        std::array<std::optional<std::string_view>, 2> got;
        FUZZ_CHECK(raw::pick(text, want, got));
        FUZZ_CHECK(got[0] && *got[0] == *raw::member(text, want[0]) && !got[1]);
    }
    auto more = raw::prepend_members(text, "\"\\u0001 fuzz\":true");
    FUZZ_CHECK(raw::is_object(more));
    auto bigger = must_parse(more).as_object();
    FUZZ_CHECK(bigger.size() == obj.size() + 1 && bigger.at("\x01 fuzz") == true);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(bytes), size);
    bool ok = false;
    json::value ref = reference(text, ok);
    FUZZ_CHECK(raw::valid(text) == ok);
    FUZZ_CHECK(raw::is_object(text) == (ok && ref.is_object()));

    std::vector<raw::Member> ms;
    bool scanned = raw::members(text, ms);  // on any input: no crash, spans inside the text
    for (auto& m : ms) FUZZ_CHECK(m.value_begin <= m.value_end && m.value_end <= text.size());
    std::vector<std::string_view> items;
    bool listed = raw::items(text, items);
    for (auto it : items) FUZZ_CHECK(it.data() >= text.data() && it.data() + it.size() <= text.data() + text.size());
    (void)raw::member(text, "id");
    (void)raw::replace_member(text, "id", "1");
    (void)raw::prepend_members(text, "\"a\":1");

    auto decoded = raw::decode_string(text);
    if (decoded) FUZZ_CHECK(ok && ref.is_string() && ref.get_string() == *decoded);
    else if (ok && ref.is_string() && text.front() == '"' && text.back() == '"') FUZZ_CHECK(!"a string token was not decoded");

    if (!ok || coffer::core::has_non_finite(ref)) return 0;
    if (auto* obj = ref.if_object()) {
        FUZZ_CHECK(scanned);
        check_object(text, *obj);
    }
    if (auto* arr = ref.if_array()) {
        FUZZ_CHECK(listed && items.size() == arr->size());
        for (std::size_t i = 0; i < items.size(); ++i) FUZZ_CHECK(must_parse(items[i]) == (*arr)[i]);
    }
    return 0;
}
