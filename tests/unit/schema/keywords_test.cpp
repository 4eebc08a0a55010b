// Assertion keywords: type, enum, const, the number/string/array/object keywords, and pointers.
#define BOOST_TEST_MODULE schema
#include "schema_test_util.hpp"

#include <cstdint>
#include <limits>

using namespace schema_test;

BOOST_AUTO_TEST_SUITE(type_keyword)

BOOST_AUTO_TEST_CASE(each_type_accepts_its_values_and_rejects_others) {
    BOOST_TEST(check(R"({"type":"string"})", R"("x")") == "");
    BOOST_TEST(check(R"({"type":"string"})", "1") == "[] must be a string");
    BOOST_TEST(check(R"({"type":"number"})", "1") == "");
    BOOST_TEST(check(R"({"type":"number"})", "1.5") == "");
    BOOST_TEST(check(R"({"type":"number"})", "18446744073709551615") == "");
    BOOST_TEST(check(R"({"type":"number"})", R"("1")") == "[] must be a number");
    BOOST_TEST(check(R"({"type":"boolean"})", "false") == "");
    BOOST_TEST(check(R"({"type":"boolean"})", "0") == "[] must be a boolean");
    BOOST_TEST(check(R"({"type":"null"})", "null") == "");
    BOOST_TEST(check(R"({"type":"null"})", "false") == "[] must be null");
    BOOST_TEST(check(R"({"type":"object"})", "{}") == "");
    BOOST_TEST(check(R"({"type":"object"})", "[]") == "[] must be an object");
    BOOST_TEST(check(R"({"type":"array"})", "[]") == "");
    BOOST_TEST(check(R"({"type":"array"})", "{}") == "[] must be an array");
}

BOOST_AUTO_TEST_CASE(integer_accepts_whole_doubles_only) {
    const auto v = compiled(R"({"type":"integer"})");
    BOOST_TEST(check(v, "3") == "");
    BOOST_TEST(check(v, "-3") == "");
    BOOST_TEST(check(v, "18446744073709551615") == "");
    BOOST_TEST(check(v, "3.0") == "");
    BOOST_TEST(check(v, "1e300") == "");
    BOOST_TEST(check(v, "-0.0") == "");
    BOOST_TEST(check(v, "3.5") == "[] must be an integer");
    BOOST_TEST(check(v, R"("3")") == "[] must be an integer");
    BOOST_TEST(check(v, "true") == "[] must be an integer");
}

BOOST_AUTO_TEST_CASE(type_arrays_list_the_alternatives) {
    BOOST_TEST(check(R"({"type":["string","null"]})", "null") == "");
    BOOST_TEST(check(R"({"type":["null","string"]})", "1") == "[] must be a string or null");
    BOOST_TEST(check(R"({"type":["array","integer","string"]})", "{}") ==
               "[] must be a string, an integer or an array");
    // "number" already covers "integer".
    BOOST_TEST(check(R"({"type":["integer","number"]})", "true") == "[] must be a number");
    BOOST_TEST(check(R"({"type":["integer","boolean"]})", "2.5") ==
               "[] must be an integer or a boolean");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(enum_and_const)

BOOST_AUTO_TEST_CASE(enum_lists_allowed_values) {
    const auto v = compiled(R"({"enum":["a","b",3,null]})");
    BOOST_TEST(check(v, R"("a")") == "");
    BOOST_TEST(check(v, "null") == "");
    BOOST_TEST(check(v, "3.0") == "");  // numbers compare by value
    BOOST_TEST(check(v, R"("c")") == R"([] must be one of: "a", "b", 3, null)");
    BOOST_TEST(check(R"({"enum":["a","b"]})", R"("A")") == R"([] must be one of: "a", "b")");
}

BOOST_AUTO_TEST_CASE(enum_compares_structures_deeply_ignoring_member_order) {
    const auto v = compiled(R"({"enum":[{"a":1,"b":[1,2]},[1,{"x":null}]]})");
    BOOST_TEST(check(v, R"({"b":[1,2.0],"a":1})") == "");
    BOOST_TEST(check(v, R"([1,{"x":null}])") == "");
    BOOST_TEST(check(v, R"({"a":1,"b":[2,1]})") != "");
    BOOST_TEST(check(v, R"({"a":1,"b":[1,2],"c":0})") != "");
    BOOST_TEST(check(v, R"([1,{"x":false}])") != "");
    BOOST_TEST(check(v, R"([1])") != "");
}

BOOST_AUTO_TEST_CASE(enum_message_is_bounded) {
    std::string list = "[";
    for (int i = 0; i < 20; ++i) list += (i ? "," : "") + std::to_string(i);
    list += "]";
    BOOST_TEST(check(R"({"enum":)" + list + "}", "99") ==
               "[] must be one of: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ... (20 allowed values)");
    const std::string long_value(200, 'x');
    const auto message = check(R"({"enum":[")" + long_value + R"("]})", "1");
    BOOST_TEST(message.size() < 120u);
    BOOST_TEST(message.find("...") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(empty_enum_rejects_everything) {
    BOOST_TEST(check(R"({"enum":[]})", "1") == "[] is not allowed (the schema allows no value here)");
}

BOOST_AUTO_TEST_CASE(const_requires_equal_value) {
    BOOST_TEST(check(R"({"const":"tcp"})", R"("tcp")") == "");
    BOOST_TEST(check(R"({"const":"tcp"})", R"("udp")") == R"([] must be equal to "tcp")");
    BOOST_TEST(check(R"({"const":5})", "5.0") == "");
    BOOST_TEST(check(R"({"const":5})", "5.5") == "[] must be equal to 5");
    BOOST_TEST(check(R"({"const":null})", "false") == "[] must be equal to null");
    BOOST_TEST(check(R"({"const":false})", "0") == "[] must be equal to false");
    BOOST_TEST(check(R"({"const":{"a":[1]}})", R"({"a":[1.0]})") == "");
    BOOST_TEST(check(R"({"const":{"a":[1]}})", R"({"a":[1],"b":2})") == R"([] must be equal to {"a": [1]})");
}

BOOST_AUTO_TEST_CASE(big_integers_compare_exactly) {
    // 2^63 as uint64 and as double are the same number; 2^63-1 (int64) differs from 2^63.
    BOOST_TEST(check(R"({"const":9223372036854775808})", "9223372036854775808.0") == "");
    BOOST_TEST(check(R"({"const":9223372036854775808})", "9223372036854775807") != "");
    BOOST_TEST(check(R"({"const":-1})", "18446744073709551615") != "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(numbers)

BOOST_AUTO_TEST_CASE(inclusive_bounds) {
    const auto v = compiled(R"({"minimum":1,"maximum":65535})");
    BOOST_TEST(check(v, "1") == "");
    BOOST_TEST(check(v, "65535") == "");
    BOOST_TEST(check(v, "0") == "[] must be at least 1");
    BOOST_TEST(check(v, "0.999") == "[] must be at least 1");
    BOOST_TEST(check(v, "65535.5") == "[] must be at most 65535");
    BOOST_TEST(check(v, "18446744073709551615") == "[] must be at most 65535");
    BOOST_TEST(check(v, "-9223372036854775808") == "[] must be at least 1");
    BOOST_TEST(check(v, R"("0")") == "");  // number keywords ignore non-numbers
}

BOOST_AUTO_TEST_CASE(exclusive_bounds) {
    const auto v = compiled(R"({"exclusiveMinimum":0,"exclusiveMaximum":0.5})");
    BOOST_TEST(check(v, "0.25") == "");
    BOOST_TEST(check(v, "0") == "[] must be greater than 0");
    BOOST_TEST(check(v, "-1") == "[] must be greater than 0");
    BOOST_TEST(check(v, "0.5") == "[] must be less than 0.5");
    BOOST_TEST(check(v, "1") == "[] must be less than 0.5");
}

BOOST_AUTO_TEST_CASE(bounds_near_the_edges_of_integer_ranges) {
    // Converting to double would round 2^63-1 up to 2^63 and call it equal.
    BOOST_TEST(check(R"({"exclusiveMinimum":9223372036854775807})", "9223372036854775808") == "");
    BOOST_TEST(check(R"({"maximum":9223372036854775807})", "9223372036854775808.0") ==
               "[] must be at most 9223372036854775807");
    BOOST_TEST(check(R"({"minimum":18446744073709551615})", "18446744073709551614") ==
               "[] must be at least 18446744073709551615");
    BOOST_TEST(check(R"({"maximum":-9223372036854775808})", "-9223372036854775807") ==
               "[] must be at most -9223372036854775808");
    BOOST_TEST(check(R"({"minimum":2.5})", "2") == "[] must be at least 2.5");
    BOOST_TEST(check(R"({"minimum":-2.5})", "-2") == "");
    BOOST_TEST(check(R"({"maximum":-2.5})", "-2") == "[] must be at most -2.5");
}

BOOST_AUTO_TEST_CASE(multiple_of_integers) {
    const auto v = compiled(R"({"multipleOf":5})");
    BOOST_TEST(check(v, "0") == "");
    BOOST_TEST(check(v, "-15") == "");
    BOOST_TEST(check(v, "10.0") == "");
    BOOST_TEST(check(v, "-9223372036854775805") == "");
    BOOST_TEST(check(v, "-9223372036854775808") == "[] must be a multiple of 5");
    BOOST_TEST(check(R"({"multipleOf":2})", "-9223372036854775808") == "");
    BOOST_TEST(check(v, "18446744073709551615") == "");
    BOOST_TEST(check(R"({"multipleOf":18446744073709551615})", "18446744073709551614") ==
               "[] must be a multiple of 18446744073709551615");
    BOOST_TEST(check(v, "7") == "[] must be a multiple of 5");
    BOOST_TEST(check(v, "7.5") == "[] must be a multiple of 5");
}

BOOST_AUTO_TEST_CASE(multiple_of_decimals_tolerates_binary_rounding) {
    const auto cents = compiled(R"({"multipleOf":0.01})");
    BOOST_TEST(check(cents, "0.07") == "");
    BOOST_TEST(check(cents, "19.99") == "");
    BOOST_TEST(check(cents, "1234567.89") == "");
    BOOST_TEST(check(cents, "5") == "");
    BOOST_TEST(check(cents, "0.075") == "[] must be a multiple of 0.01");
    BOOST_TEST(check(R"({"multipleOf":0.1})", "0.3") == "");
    BOOST_TEST(check(R"({"multipleOf":2.5})", "7.5") == "");
    BOOST_TEST(check(R"({"multipleOf":2.5})", "10") == "");
    BOOST_TEST(check(R"({"multipleOf":2.5})", "8") == "[] must be a multiple of 2.5");
    BOOST_TEST(check(R"({"multipleOf":1})", "1.0000000001") == "[] must be a multiple of 1");
    // The quotient overflows a double: not provably a multiple.
    BOOST_TEST(check(R"({"multipleOf":0.123456789})", "1e308") == "[] must be a multiple of 0.123456789");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(strings)

BOOST_AUTO_TEST_CASE(lengths) {
    const auto v = compiled(R"({"minLength":2,"maxLength":4})");
    BOOST_TEST(check(v, R"("ab")") == "");
    BOOST_TEST(check(v, R"("abcd")") == "");
    BOOST_TEST(check(v, R"("a")") == "[] must be at least 2 characters");
    BOOST_TEST(check(v, R"("abcde")") == "[] must be at most 4 characters");
    BOOST_TEST(check(v, "12345") == "");  // ignores non-strings
    BOOST_TEST(check(R"({"minLength":1})", R"("")") == "[] must be at least 1 character");
    BOOST_TEST(check(R"({"maxLength":1})", R"("ab")") == "[] must be at most 1 character");
    BOOST_TEST(check(R"({"maxLength":64})", '"' + std::string(65, 'x') + '"') ==
               "[] must be at most 64 characters");
}

BOOST_AUTO_TEST_CASE(lengths_count_code_points_not_bytes) {
    const auto v = compiled(R"({"minLength":3,"maxLength":3})");
    BOOST_TEST(check(v, "\"h\xC3\xA9h\"") == "");                              // héh: 4 bytes
    BOOST_TEST(check(v, "\"\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\"") == "");    // €€€: 9 bytes
    BOOST_TEST(check(v, "\"\xF0\x9F\x98\x80\xF0\x9F\x98\x80\"") ==             // 2 emoji: 8 bytes
               "[] must be at least 3 characters");
    BOOST_TEST(check(v, R"("\u00e9\u00e9\ud83d\ude00")") == "");               // escapes: 3 code points
    BOOST_TEST(check(v, R"("\u00e9\u00e9\u00e9\u00e9")") == "[] must be at most 3 characters");
}

BOOST_AUTO_TEST_CASE(pattern_searches_anywhere_unless_anchored) {
    BOOST_TEST(check(R"({"pattern":"b+"})", R"("abbc")") == "");
    BOOST_TEST(check(R"({"pattern":"^b+"})", R"("abbc")") == "[] must match pattern ^b+");
    const auto v = compiled(R"({"pattern":"^[a-z]+$"})");
    BOOST_TEST(check(v, R"("abc")") == "");
    BOOST_TEST(check(v, R"("abc1")") == "[] must match pattern ^[a-z]+$");
    BOOST_TEST(check(v, R"("")") == "[] must match pattern ^[a-z]+$");
    BOOST_TEST(check(v, "7") == "");  // ignores non-strings
}

BOOST_AUTO_TEST_CASE(pattern_anchors_are_not_multiline) {
    const auto v = compiled(R"({"pattern":"^[a-z]+$"})");
    BOOST_TEST(check(v, R"("abc\n")") != "");
    BOOST_TEST(check(v, R"("abc\nevil")") != "");
    BOOST_TEST(check(v, R"("evil\nabc")") != "");
    BOOST_TEST(check(R"({"pattern":"^a.c$"})", R"("a\nc")") != "");
    BOOST_TEST(check(R"({"pattern":"^a.c$"})", R"("abc")") == "");
}

BOOST_AUTO_TEST_CASE(pattern_ecmascript_features) {
    BOOST_TEST(check(R"({"pattern":"^\\d{3}-\\w+$"})", R"("123-ab_c")") == "");
    BOOST_TEST(check(R"({"pattern":"^\\d{3}-\\w+$"})", R"("12-abc")") != "");
    BOOST_TEST(check(R"({"pattern":"^(?:ab|cd)+$"})", R"("abcdab")") == "");
    BOOST_TEST(check(R"j({"pattern":"^(?!admin$)"})j", R"("admin")") != "");
    BOOST_TEST(check(R"j({"pattern":"^(?!admin$)"})j", R"("root")") == "");
    BOOST_TEST(check(R"({"pattern":"[A-Z]"})", R"("abc")") != "");  // case-sensitive
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(arrays)

BOOST_AUTO_TEST_CASE(item_counts) {
    const auto v = compiled(R"({"minItems":1,"maxItems":2})");
    BOOST_TEST(check(v, "[1]") == "");
    BOOST_TEST(check(v, "[]") == "[] must have at least 1 item");
    BOOST_TEST(check(v, "[1,2,3]") == "[] must have at most 2 items");
    BOOST_TEST(check(v, "{}") == "");  // ignores non-arrays
    BOOST_TEST(check(R"({"minItems":2})", "[1]") == "[] must have at least 2 items");
}

BOOST_AUTO_TEST_CASE(items_applies_to_every_item_with_index_pointers) {
    const auto v = compiled(R"({"items":{"type":"integer"}})");
    BOOST_TEST(check(v, "[]") == "");
    BOOST_TEST(check(v, "[1,2]") == "");
    BOOST_TEST(check(v, R"([1,"x",3,null])") == "[/1] must be an integer | [/3] must be an integer");
}

BOOST_AUTO_TEST_CASE(prefix_items_then_items) {
    const auto v = compiled(R"({"prefixItems":[{"type":"string"},{"type":"integer"}],
                                "items":{"type":"boolean"}})");
    BOOST_TEST(check(v, R"(["a"])") == "");
    BOOST_TEST(check(v, R"(["a",1,true,false])") == "");
    BOOST_TEST(check(v, R"([1,"a",null])") ==
               "[/0] must be a string | [/1] must be an integer | [/2] must be a boolean");
    // Without items, extra items are unconstrained.
    BOOST_TEST(check(R"({"prefixItems":[{"type":"string"}]})", R"(["a",1,{}])") == "");
}

BOOST_AUTO_TEST_CASE(items_false_closes_a_tuple) {
    const auto v = compiled(R"({"prefixItems":[{"type":"string"},{"type":"integer"}],"items":false})");
    BOOST_TEST(check(v, R"(["a",1])") == "");
    BOOST_TEST(check(v, R"(["a"])") == "");
    BOOST_TEST(check(v, R"(["a",1,2,3])") == "[] must have at most 2 items");
    BOOST_TEST(check(R"({"items":false})", "[]") == "");
    BOOST_TEST(check(R"({"items":false})", "[0]") == "[] must have at most 0 items");
}

BOOST_AUTO_TEST_CASE(unique_items) {
    const auto v = compiled(R"({"uniqueItems":true})");
    BOOST_TEST(check(v, "[]") == "");
    BOOST_TEST(check(v, R"([1,"1",true,null,[1],{"a":1}])") == "");
    BOOST_TEST(check(v, R"([1,2,1])") == "[] must not contain duplicate items (items 0 and 2 are equal)");
    BOOST_TEST(check(v, R"([0,1,1.0])") == "[] must not contain duplicate items (items 1 and 2 are equal)");
    BOOST_TEST(check(v, R"([{"a":1,"b":2},{"b":2,"a":1}])") ==
               "[] must not contain duplicate items (items 0 and 1 are equal)");
    BOOST_TEST(check(v, R"([[1,2],[2,1]])") == "");
    BOOST_TEST(check(v, R"([false,0,null,"",[],{}])") == "");
    BOOST_TEST(check(R"({"uniqueItems":false})", "[1,1]") == "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(objects)

BOOST_AUTO_TEST_CASE(properties_and_nested_pointers) {
    const auto v = compiled(R"({
        "type":"object",
        "properties":{
            "name":{"type":"string"},
            "servers":{"type":"array","items":{
                "type":"object","properties":{"port":{"type":"integer","maximum":65535}}}}}})");
    BOOST_TEST(check(v, R"({"name":"x","servers":[{"port":1},{"port":2}],"other":1})") == "");
    BOOST_TEST(check(v, R"({"name":1,"servers":[{"port":1},{"port":"80"},{"port":70000}]})") ==
               "[/name] must be a string | [/servers/1/port] must be an integer | "
               "[/servers/2/port] must be at most 65535");
    BOOST_TEST(check(v, "[]") == "[] must be an object");
}

BOOST_AUTO_TEST_CASE(required_points_at_the_missing_member) {
    const auto v = compiled(R"({"properties":{"db":{"required":["host","port"]}},"required":["db"]})");
    BOOST_TEST(check(v, R"({"db":{"host":"h","port":1}})") == "");
    BOOST_TEST(check(v, "{}") == "[/db] is required");
    BOOST_TEST(check(v, R"({"db":{"port":1}})") == "[/db/host] is required");
    BOOST_TEST(check(v, R"({"db":{}})") == "[/db/host] is required | [/db/port] is required");
    BOOST_TEST(check(v, "[]") == "");  // required ignores non-objects
}

BOOST_AUTO_TEST_CASE(pointer_tokens_are_escaped) {
    const auto v = compiled(R"({"required":["a/b","c~d","~1"],
                                "properties":{"x/y":{"type":"string"},"":{"type":"string"}}})");
    BOOST_TEST(check(v, R"({"a/b":0,"c~d":0,"~1":0,"x/y":1,"":2})") ==
               "[/x~1y] must be a string | [/] must be a string");
    BOOST_TEST(check(v, "{}") == "[/a~1b] is required | [/c~0d] is required | [/~01] is required");
}

BOOST_AUTO_TEST_CASE(additional_properties_false) {
    const auto v = compiled(R"({"properties":{"a":{}},"patternProperties":{"^x-":{}},
                                "additionalProperties":false})");
    BOOST_TEST(check(v, R"({"a":1,"x-extra":2})") == "");
    BOOST_TEST(check(v, R"({"a":1,"b":2,"c/d":3})") ==
               "[/b] is not allowed (unknown property) | [/c~1d] is not allowed (unknown property)");
}

BOOST_AUTO_TEST_CASE(additional_properties_schema) {
    const auto v = compiled(R"({"properties":{"name":{"type":"string"}},
                                "additionalProperties":{"type":"integer"}})");
    BOOST_TEST(check(v, R"({"name":"n","x":1,"y":2})") == "");
    BOOST_TEST(check(v, R"({"name":"n","x":"1"})") == "[/x] must be an integer");
}

BOOST_AUTO_TEST_CASE(pattern_properties_apply_to_every_matching_member) {
    const auto v = compiled(R"({"patternProperties":{"^n_":{"type":"number"},"_i$":{"type":"integer"}},
                                "properties":{"n_x_i":{"minimum":10}}})");
    BOOST_TEST(check(v, R"({"n_a":1.5,"b_i":2,"n_x_i":10,"other":"s"})") == "");
    BOOST_TEST(check(v, R"({"n_a":"s","n_b_i":1.5,"n_x_i":2.5})") ==
               "[/n_a] must be a number | [/n_b_i] must be an integer | "
               "[/n_x_i] must be at least 10 | [/n_x_i] must be an integer");
}

BOOST_AUTO_TEST_CASE(property_names) {
    const auto v = compiled(R"({"propertyNames":{"pattern":"^[a-z]+$","maxLength":5}})");
    BOOST_TEST(check(v, R"({"abc":1,"de":2})") == "");
    BOOST_TEST(check(v, R"({"Abc":1,"abcdefg":2})") ==
               "[/Abc] property name must match pattern ^[a-z]+$ | "
               "[/abcdefg] property name must be at most 5 characters");
    BOOST_TEST(check(R"({"propertyNames":false})", "{}") == "");
    BOOST_TEST(check(R"({"propertyNames":false})", R"({"a":1})") == "[/a] property name is not allowed");
    BOOST_TEST(check(R"({"propertyNames":{"enum":["a","b"]}})", R"({"c":1})") ==
               R"([/c] property name must be one of: "a", "b")");
}

BOOST_AUTO_TEST_CASE(property_counts) {
    const auto v = compiled(R"({"minProperties":1,"maxProperties":2})");
    BOOST_TEST(check(v, R"({"a":1})") == "");
    BOOST_TEST(check(v, "{}") == "[] must have at least 1 property");
    BOOST_TEST(check(v, R"({"a":1,"b":2,"c":3})") == "[] must have at most 2 properties");
    BOOST_TEST(check(R"({"minProperties":2})", "{}") == "[] must have at least 2 properties");
    BOOST_TEST(check(v, "[]") == "");
}

BOOST_AUTO_TEST_CASE(problems_follow_instance_order_and_are_deterministic) {
    const auto v = compiled(R"({"additionalProperties":{"type":"string"},"required":["z","a"]})");
    const auto instance = J(R"({"m":1,"b":2,"y":3})");
    const auto first = v.validate(instance);
    BOOST_TEST(render(first) ==
               "[/z] is required | [/a] is required | [/m] must be a string | "
               "[/b] must be a string | [/y] must be a string");
    for (int i = 0; i < 5; ++i) BOOST_TEST(render(v.validate(instance)) == render(first));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(boolean_schemas)

BOOST_AUTO_TEST_CASE(true_accepts_and_false_rejects_everything) {
    for (const char* instance : {"null", "1", "\"s\"", "[]", "{}", "[[{}]]"}) {
        BOOST_TEST(check("true", instance) == "");
        BOOST_TEST(check("false", instance) == "[] is not allowed");
    }
    BOOST_TEST(check("{}", R"({"anything":[1,2,{"x":null}]})") == "");
}

BOOST_AUTO_TEST_CASE(false_property_forbids_that_member) {
    const auto v = compiled(R"({"properties":{"legacy":false,"ok":true}})");
    BOOST_TEST(check(v, R"({"ok":1,"other":2})") == "");
    BOOST_TEST(check(v, R"({"legacy":1})") == "[/legacy] is not allowed");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(annotations)

BOOST_AUTO_TEST_CASE(annotation_keywords_are_ignored) {
    const auto v = compiled(R"({
        "$schema":"https://json-schema.org/draft/2020-12/schema", "$id":"urn:coffer:test",
        "$comment":"c", "title":"T", "description":"D", "default":{"port":1}, "examples":[1],
        "format":"hostname", "deprecated":true, "readOnly":true, "x-ui":{"widget":"port"},
        "contentMediaType":"text/plain",
        "type":"string"})");
    BOOST_TEST(check(v, R"("not a hostname!")") == "");  // format is an annotation only
    BOOST_TEST(check(v, "1") == "[] must be a string");
}

BOOST_AUTO_TEST_SUITE_END()
