// $ref to local definitions: resolution, recursion, escaping, and loops rejected at compile time.
#include "schema_test_util.hpp"

using namespace schema_test;

BOOST_AUTO_TEST_SUITE(ref)

BOOST_AUTO_TEST_CASE(defs_and_definitions) {
    const auto v = compiled(R"({
        "$defs":{"port":{"type":"integer","minimum":1,"maximum":65535}},
        "definitions":{"host":{"type":"string","minLength":1}},
        "properties":{"port":{"$ref":"#/$defs/port"},"host":{"$ref":"#/definitions/host"}}})");
    BOOST_TEST(check(v, R"({"port":80,"host":"h"})") == "");
    BOOST_TEST(check(v, R"({"port":0,"host":""})") ==
               "[/port] must be at least 1 | [/host] must be at least 1 character");
}

BOOST_AUTO_TEST_CASE(ref_to_the_root_validates_recursive_structures) {
    const auto v = compiled(R"({"type":"object","properties":{
        "name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}},
        "required":["name"]})");
    BOOST_TEST(check(v, R"({"name":"a","children":[{"name":"b","children":[{"name":"c"}]}]})") == "");
    BOOST_TEST(check(v, R"({"name":"a","children":[{"name":"b","children":[{"name":1},{}]}]})") ==
               "[/children/0/children/0/name] must be a string | [/children/0/children/1/name] is required");
}

BOOST_AUTO_TEST_CASE(mutually_recursive_definitions) {
    const auto v = compiled(R"({"$ref":"#/$defs/a","$defs":{
        "a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},
        "b":{"type":"array","items":{"$ref":"#/$defs/a"}}}})");
    BOOST_TEST(check(v, R"({"b":[{"b":[]},{"b":[{}]}]})") == "");
    BOOST_TEST(check(v, R"({"b":[{"b":[1]}]})") == "[/b/0/b/0] must be an object");
}

BOOST_AUTO_TEST_CASE(chained_refs) {
    const auto v = compiled(R"({"$ref":"#/$defs/a","$defs":{
        "a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/c"},"c":{"type":"boolean"}}})");
    BOOST_TEST(check(v, "true") == "");
    BOOST_TEST(check(v, "1") == "[] must be a boolean");
}

BOOST_AUTO_TEST_CASE(siblings_of_ref_also_apply) {
    const auto v = compiled(R"({"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":2})");
    BOOST_TEST(check(v, R"("ab")") == "");
    BOOST_TEST(check(v, R"("abc")") == "[] must be at most 2 characters");
    BOOST_TEST(check(v, "1") == "[] must be a string");
}

BOOST_AUTO_TEST_CASE(escaped_and_percent_encoded_names) {
    const auto v = compiled(R"({"$defs":{"a/b":{"const":1},"c~d":{"const":2},"e f":{"const":3},"%":{"const":4}},
        "properties":{"x":{"$ref":"#/$defs/a~1b"},"y":{"$ref":"#/$defs/c~0d"},
                      "z":{"$ref":"#/$defs/e%20f"},"w":{"$ref":"#/%24defs/%25"}}})");
    BOOST_TEST(check(v, R"({"x":1,"y":2,"z":3,"w":4})") == "");
    BOOST_TEST(check(v, R"({"x":0,"y":0,"z":0,"w":0})") ==
               "[/x] must be equal to 1 | [/y] must be equal to 2 | [/z] must be equal to 3 | "
               "[/w] must be equal to 4");
}

BOOST_AUTO_TEST_CASE(refs_into_other_schema_locations) {
    const auto v = compiled(R"({"properties":{"a":{"type":"integer"},"b":{"$ref":"#/properties/a"},
                                "c":{"anyOf":[{"type":"null"},{"type":"string"}]},
                                "d":{"$ref":"#/properties/c/anyOf/1"}}})");
    BOOST_TEST(check(v, R"({"a":1,"b":2,"d":"s"})") == "");
    BOOST_TEST(check(v, R"({"b":"x","d":null})") == "[/b] must be an integer | [/d] must be a string");
}

BOOST_AUTO_TEST_CASE(ref_to_boolean_schema) {
    const auto v = compiled(R"({"$defs":{"never":false},"properties":{"old":{"$ref":"#/$defs/never"}}})");
    BOOST_TEST(check(v, "{}") == "");
    BOOST_TEST(check(v, R"({"old":1})") == "[/old] is not allowed");
}

BOOST_AUTO_TEST_CASE(unused_definitions_are_still_checked) {
    BOOST_TEST(compile_error(R"({"$defs":{"unused":{"minLength":-1}}})") ==
               "invalid schema at /$defs/unused/minLength: must be a non-negative integer");
}

BOOST_AUTO_TEST_CASE(unresolvable_refs_are_rejected) {
    BOOST_TEST(compile_error(R"({"$ref":"#/$defs/missing"})") ==
               R"(invalid schema at /$ref: reference "#/$defs/missing" points to nothing)");
    BOOST_TEST(compile_error(R"({"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{}})") ==
               R"(invalid schema at /properties/a/$ref: reference "#/$defs/x" points to nothing)");
    BOOST_TEST(compile_error(R"({"allOf":[{}],"$ref":"#/allOf/1"})") ==
               R"(invalid schema at /$ref: reference "#/allOf/1" points to nothing)");
    BOOST_TEST(compile_error(R"({"allOf":[{}],"$ref":"#/allOf/01"})") ==
               R"(invalid schema at /$ref: reference "#/allOf/01" points to nothing)");
    BOOST_TEST(compile_error(R"({"$ref":"#/type","type":"string"})") ==
               R"(invalid schema at /$ref: reference "#/type" does not point to a schema)");
}

BOOST_AUTO_TEST_CASE(non_local_refs_are_rejected) {
    for (const char* ref : {"https://example.com/s.json", "other.json#/a", "#anchor", "", "#/a%2"}) {
        json::object schema{{"$ref", ref}, {"$defs", json::object{{"a", true}}}};
        const auto message = compile_error_json(json::value(schema));
        BOOST_TEST(message.rfind("invalid schema at /$ref: unsupported reference", 0) == 0, message);
    }
    BOOST_TEST(compile_error(R"({"$ref":"#/a~2"})") ==
               "invalid schema at /$ref: unsupported reference \"#/a~2\": has an invalid \"~\" escape "
               "(use ~0 for \"~\" and ~1 for \"/\")");
    BOOST_TEST(compile_error(R"({"$ref":5})") == "invalid schema at /$ref: must be a string");
}

BOOST_AUTO_TEST_CASE(loops_that_never_descend_are_rejected) {
    BOOST_TEST(compile_error(R"({"$ref":"#"})") ==
               "invalid schema at /$ref: forms a $ref loop back to the root schema that never "
               "descends into the instance");
    BOOST_TEST(compile_error(R"({"$defs":{"a":{"$ref":"#/$defs/a"}}})") ==
               "invalid schema at /$defs/a/$ref: forms a $ref loop back to /$defs/a that never "
               "descends into the instance");
    const auto through_applicators = compile_error(R"({"$defs":{
        "a":{"anyOf":[{"type":"string"},{"$ref":"#/$defs/b"}]},
        "b":{"allOf":[{"not":{"$ref":"#/$defs/a"}}]}}})");
    BOOST_TEST(through_applicators.find("forms a $ref loop") != std::string::npos, through_applicators);
    const auto through_if = compile_error(R"({"if":{"$ref":"#"}})");
    BOOST_TEST(through_if.find("forms a $ref loop") != std::string::npos, through_if);
}

BOOST_AUTO_TEST_CASE(loops_through_instance_children_are_fine) {
    // Recursion through properties/items/additionalProperties consumes the instance.
    BOOST_TEST(check(R"({"additionalProperties":{"$ref":"#"},"maxProperties":1})", R"({"a":{"b":{}}})") == "");
    BOOST_TEST(check(R"({"additionalProperties":{"$ref":"#"},"maxProperties":1})", R"({"a":{"b":{},"c":{}}})") ==
               "[/a] must have at most 1 property");
    BOOST_TEST(check(R"({"propertyNames":{"$ref":"#"},"maxLength":3})", R"({"abcd":1})") ==
               "[/abcd] property name must be at most 3 characters");
}

BOOST_AUTO_TEST_SUITE_END()
