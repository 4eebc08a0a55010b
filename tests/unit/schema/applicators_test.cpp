// Applicators: allOf, anyOf, oneOf, not, if/then/else — including how failures are explained.
#include "schema_test_util.hpp"

using namespace schema_test;

BOOST_AUTO_TEST_SUITE(all_of)

BOOST_AUTO_TEST_CASE(every_subschema_applies_and_all_problems_are_reported) {
    const auto v = compiled(R"({"allOf":[{"type":"integer"},{"minimum":10},{"multipleOf":4}]})");
    BOOST_TEST(check(v, "12") == "");
    BOOST_TEST(check(v, "9.5") ==
               "[] must be an integer | [] must be at least 10 | [] must be a multiple of 4");
}

BOOST_AUTO_TEST_CASE(identical_problems_are_reported_once) {
    BOOST_TEST(check(R"({"allOf":[{"required":["a"]},{"required":["a"]}],"required":["a"]})", "{}") ==
               "[/a] is required");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(any_of)

BOOST_AUTO_TEST_CASE(one_match_is_enough) {
    const auto v = compiled(R"({"anyOf":[{"type":"string","maxLength":2},{"type":"integer"}]})");
    BOOST_TEST(check(v, R"("ab")") == "");
    BOOST_TEST(check(v, "5") == "");
}

BOOST_AUTO_TEST_CASE(wrong_type_everywhere_lists_the_allowed_types) {
    const auto v = compiled(R"({"anyOf":[{"type":"string"},{"type":"integer"}]})");
    BOOST_TEST(check(v, "true") == "[] must be a string or an integer");
}

BOOST_AUTO_TEST_CASE(the_only_alternative_of_the_right_type_explains_the_failure) {
    const auto v = compiled(R"({"anyOf":[{"type":"string","maxLength":2},{"type":"integer"}]})");
    BOOST_TEST(check(v, R"("abc")") == "[] must be at most 2 characters");
    BOOST_TEST(check(v, "1.5") == "[] must be a string or an integer");
}

BOOST_AUTO_TEST_CASE(problems_shared_by_every_alternative_are_reported) {
    const auto v = compiled(R"({"anyOf":[
        {"required":["kind","host"]},
        {"required":["kind","path"]}]})");
    BOOST_TEST(check(v, R"({"kind":1,"path":"/"})") == "");
    BOOST_TEST(check(v, R"({"port":1})") == "[/kind] is required");
}

BOOST_AUTO_TEST_CASE(wrong_value_everywhere_lists_the_allowed_values) {
    const auto v = compiled(R"({"anyOf":[{"const":"a"},{"enum":["b","a","c"]}]})");
    BOOST_TEST(check(v, R"("c")") == "");
    BOOST_TEST(check(v, R"("d")") == R"([] must be one of: "a", "b", "c")");
}

BOOST_AUTO_TEST_CASE(otherwise_a_generic_message) {
    const auto v = compiled(R"({"anyOf":[{"required":["host"]},{"required":["path"]}]})");
    BOOST_TEST(check(v, "{}") == "[] does not match any of the allowed alternatives");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(one_of)

BOOST_AUTO_TEST_CASE(exactly_one_must_match) {
    const auto v = compiled(R"({"oneOf":[{"multipleOf":3},{"multipleOf":5}]})");
    BOOST_TEST(check(v, "9") == "");
    BOOST_TEST(check(v, "10") == "");
    BOOST_TEST(check(v, "15") ==
               "[] must match exactly one of the allowed alternatives, but matches alternatives 1 and 2");
    BOOST_TEST(check(v, "7") == "[] does not match any of the allowed alternatives");
    BOOST_TEST(check(R"({"oneOf":[true,{},{"type":"number"}]})", "1") ==
               "[] must match exactly one of the allowed alternatives, but matches alternatives 1, 2 and 3");
}

BOOST_AUTO_TEST_CASE(discriminated_union_reports_the_meant_variant) {
    const auto v = compiled(R"({"oneOf":[
        {"type":"object","properties":{"kind":{"const":"tcp"},"port":{"type":"integer"}},
         "required":["kind","port"]},
        {"type":"object","properties":{"kind":{"const":"unix"},"path":{"type":"string"}},
         "required":["kind","path"]}]})");
    BOOST_TEST(check(v, R"({"kind":"tcp","port":80})") == "");
    BOOST_TEST(check(v, R"({"kind":"unix","path":"/run/s"})") == "");
    BOOST_TEST(check(v, R"({"kind":"tcp","port":"80"})") == "[/port] must be an integer");
    BOOST_TEST(check(v, R"({"kind":"unix"})") == "[/path] is required");
    BOOST_TEST(check(v, R"({"kind":"udp","port":1})") == R"([/kind] must be one of: "tcp", "unix")");
    BOOST_TEST(check(v, R"({"port":1})") == "[/kind] is required");
    BOOST_TEST(check(v, "[]") == "[] must be an object");
}

BOOST_AUTO_TEST_CASE(nested_alternatives_keep_the_deep_pointer) {
    const auto v = compiled(R"({"properties":{"listen":{"oneOf":[
        {"type":"integer","minimum":1},
        {"type":"object","properties":{"port":{"type":"integer","maximum":65535}}}]}}})");
    BOOST_TEST(check(v, R"({"listen":{"port":70000}})") == "[/listen/port] must be at most 65535");
    BOOST_TEST(check(v, R"({"listen":0})") == "[/listen] must be at least 1");
    BOOST_TEST(check(v, R"({"listen":"x"})") == "[/listen] must be an integer or an object");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(not_keyword)

BOOST_AUTO_TEST_CASE(rejects_what_matches) {
    const auto v = compiled(R"({"not":{"type":"string"}})");
    BOOST_TEST(check(v, "1") == "");
    BOOST_TEST(check(v, R"("s")") == "[] must not match the disallowed schema");
    BOOST_TEST(check(R"({"not":false})", "1") == "");
    BOOST_TEST(check(R"({"not":true})", "1") == "[] must not match the disallowed schema");
    BOOST_TEST(check(R"({"not":{"not":{"const":1}}})", "1") == "");
    BOOST_TEST(check(R"({"not":{"not":{"const":1}}})", "2") == "[] must not match the disallowed schema");
}

BOOST_AUTO_TEST_CASE(inside_properties) {
    const auto v = compiled(R"({"properties":{"user":{"not":{"enum":["root","admin"]}}}})");
    BOOST_TEST(check(v, R"({"user":"bob"})") == "");
    BOOST_TEST(check(v, R"({"user":"root"})") == "[/user] must not match the disallowed schema");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(conditionals)

BOOST_AUTO_TEST_CASE(if_then_else) {
    const auto v = compiled(R"({
        "if":{"properties":{"tls":{"const":true}},"required":["tls"]},
        "then":{"required":["cert"]},
        "else":{"properties":{"port":{"maximum":1023}}}})");
    BOOST_TEST(check(v, R"({"tls":true,"cert":"c"})") == "");
    BOOST_TEST(check(v, R"({"tls":true})") == "[/cert] is required");
    BOOST_TEST(check(v, R"({"tls":false,"port":80})") == "");
    BOOST_TEST(check(v, R"({"port":8080})") == "[/port] must be at most 1023");
}

BOOST_AUTO_TEST_CASE(missing_branches_mean_no_constraint) {
    BOOST_TEST(check(R"({"if":{"type":"string"},"then":{"minLength":2}})", "1") == "");
    BOOST_TEST(check(R"({"if":{"type":"string"},"then":{"minLength":2}})", R"("a")") ==
               "[] must be at least 2 characters");
    BOOST_TEST(check(R"({"if":{"type":"string"},"else":{"type":"integer"}})", R"("a")") == "");
    BOOST_TEST(check(R"({"if":{"type":"string"},"else":{"type":"integer"}})", "1.5") ==
               "[] must be an integer");
    // then/else without if, and if alone, have no effect.
    BOOST_TEST(check(R"({"then":false,"else":false})", "1") == "");
    BOOST_TEST(check(R"({"if":false})", "1") == "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(combinations)

BOOST_AUTO_TEST_CASE(invalid_instances_always_get_a_problem) {
    // Every schema here rejects the instance; whatever the explanation, it must not be empty.
    const char* cases[][2] = {
        {R"({"not":{}})", "1"},
        {R"({"anyOf":[false,false]})", "1"},
        {R"({"oneOf":[true,true]})", "1"},
        {R"({"allOf":[true,false]})", "1"},
        {R"({"anyOf":[{"not":{}},{"oneOf":[{},{}]}]})", "{}"},
        {R"({"if":true,"then":false})", "null"},
        {R"({"if":false,"else":{"not":true}})", "null"},
        {R"({"items":{"anyOf":[{"const":1},{"const":2}]}})", "[1,2,3]"},
    };
    for (const auto& c : cases) {
        const auto problems = compiled(c[0]).validate(J(c[1]));
        BOOST_TEST(!problems.empty(), c[0]);
    }
}

BOOST_AUTO_TEST_SUITE_END()
