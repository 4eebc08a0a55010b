// Malformed schemas are refused at compile() with an error naming the place in the schema.
#include "schema_test_util.hpp"

#include <utility>

using namespace schema_test;

BOOST_AUTO_TEST_SUITE(compile)

BOOST_AUTO_TEST_CASE(error_is_bad_request_with_the_schema_pointer) {
    auto r = Validator::compile(J(R"({"properties":{"port":{"minimum":"1"}}})"));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().code == "BAD_REQUEST");
    BOOST_TEST(r.error().message == "invalid schema at /properties/port/minimum: must be a number");
    BOOST_TEST(r.error().details.at("schema_pointer").as_string() == "/properties/port/minimum");
}

BOOST_AUTO_TEST_CASE(schema_must_be_object_or_boolean) {
    BOOST_TEST(compile_error("1") == "invalid schema at the root: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error("null") == "invalid schema at the root: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"("string")") == "invalid schema at the root: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"({"properties":{"a":[]}})") ==
               "invalid schema at /properties/a: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"({"items":1})") == "invalid schema at /items: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"({"not":null})") == "invalid schema at /not: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"({"additionalProperties":"no"})") ==
               "invalid schema at /additionalProperties: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"({"$defs":{"x":3}})") == "invalid schema at /$defs/x: must be a schema (an object or a boolean)");
}

BOOST_AUTO_TEST_CASE(bad_type_values) {
    BOOST_TEST(compile_error(R"({"type":"str"})") ==
               "invalid schema at /type: unknown type \"str\" (expected null, boolean, object, array, "
               "number, string or integer)");
    BOOST_TEST(compile_error(R"({"type":["string",1]})") == "invalid schema at /type/1: must be a type name");
    BOOST_TEST(compile_error(R"({"type":["string","string"]})") ==
               "invalid schema at /type/1: lists type \"string\" twice");
    BOOST_TEST(compile_error(R"({"type":[]})") ==
               "invalid schema at /type: must be a type name or a non-empty array of type names");
    BOOST_TEST(compile_error(R"({"type":{"a":1}})") ==
               "invalid schema at /type: must be a type name or a non-empty array of type names");
}

BOOST_AUTO_TEST_CASE(bad_counts) {
    for (const char* keyword : {"minLength", "maxLength", "minItems", "maxItems", "minProperties",
                                "maxProperties"}) {
        for (const char* value : {"-1", "1.5", "\"3\"", "null", "true", "1e30"}) {
            const std::string schema = std::string("{\"") + keyword + "\":" + value + "}";
            BOOST_TEST(compile_error(schema) ==
                           std::string("invalid schema at /") + keyword + ": must be a non-negative integer",
                       schema);
        }
        BOOST_TEST(compile_error(std::string("{\"") + keyword + "\":3.0}") == "compiled");
        BOOST_TEST(compile_error(std::string("{\"") + keyword + "\":0}") == "compiled");
    }
}

BOOST_AUTO_TEST_CASE(bad_numbers) {
    BOOST_TEST(compile_error(R"({"maximum":"10"})") == "invalid schema at /maximum: must be a number");
    BOOST_TEST(compile_error(R"({"exclusiveMinimum":true,"minimum":0})") ==
               "invalid schema at /exclusiveMinimum: must be a number (the draft-04 boolean form is not supported)");
    BOOST_TEST(compile_error(R"({"exclusiveMaximum":false})") ==
               "invalid schema at /exclusiveMaximum: must be a number (the draft-04 boolean form is not supported)");
    BOOST_TEST(compile_error(R"({"multipleOf":0})") == "invalid schema at /multipleOf: must be a number greater than 0");
    BOOST_TEST(compile_error(R"({"multipleOf":-2})") == "invalid schema at /multipleOf: must be a number greater than 0");
    BOOST_TEST(compile_error(R"({"multipleOf":0.0})") == "invalid schema at /multipleOf: must be a number greater than 0");
    BOOST_TEST(compile_error(R"({"multipleOf":"2"})") == "invalid schema at /multipleOf: must be a number");
}

BOOST_AUTO_TEST_CASE(bad_patterns) {
    BOOST_TEST(compile_error(R"({"pattern":"("})").rfind(
                   "invalid schema at /pattern: is not a valid regular expression \"(\": ", 0) == 0);
    BOOST_TEST(compile_error(R"({"pattern":"[a-"})").rfind("invalid schema at /pattern: ", 0) == 0);
    BOOST_TEST(compile_error(R"({"pattern":5})") == "invalid schema at /pattern: must be a string (a regular expression)");
    BOOST_TEST(compile_error(R"({"patternProperties":{"a(":{}}})").rfind(
                   "invalid schema at /patternProperties/a(: is not a valid regular expression", 0) == 0);
    BOOST_TEST(compile_error(R"({"patternProperties":{"^a/b":{}}})") == "compiled");
    BOOST_TEST(compile_error(R"({"patternProperties":{"^a/b(":{}}})").rfind(
                   "invalid schema at /patternProperties/^a~1b(:", 0) == 0);
}

BOOST_AUTO_TEST_CASE(bad_object_keywords) {
    BOOST_TEST(compile_error(R"({"properties":[]})") ==
               "invalid schema at /properties: must be an object mapping property names to schemas");
    BOOST_TEST(compile_error(R"({"patternProperties":true})") ==
               "invalid schema at /patternProperties: must be an object mapping patterns to schemas");
    BOOST_TEST(compile_error(R"({"required":"a"})") == "invalid schema at /required: must be an array of property names");
    BOOST_TEST(compile_error(R"({"required":["a",1]})") == "invalid schema at /required/1: must be a property name (a string)");
    BOOST_TEST(compile_error(R"({"required":["a","b","a"]})") == "invalid schema at /required/2: lists \"a\" twice");
    BOOST_TEST(compile_error(R"({"required":[]})") == "compiled");
    BOOST_TEST(compile_error(R"({"$defs":[]})") == "invalid schema at /$defs: must be an object mapping names to schemas");
    BOOST_TEST(compile_error(R"({"definitions":1})") ==
               "invalid schema at /definitions: must be an object mapping names to schemas");
}

BOOST_AUTO_TEST_CASE(bad_array_keywords) {
    BOOST_TEST(compile_error(R"({"items":[{"type":"string"}]})") ==
               "invalid schema at /items: must be a single schema (draft 2020-12); use prefixItems for a "
               "schema per position");
    BOOST_TEST(compile_error(R"({"prefixItems":{}})") == "invalid schema at /prefixItems: must be a non-empty array of schemas");
    BOOST_TEST(compile_error(R"({"prefixItems":[]})") == "invalid schema at /prefixItems: must be a non-empty array of schemas");
    BOOST_TEST(compile_error(R"({"prefixItems":[{},3]})") ==
               "invalid schema at /prefixItems/1: must be a schema (an object or a boolean)");
    BOOST_TEST(compile_error(R"({"uniqueItems":1})") == "invalid schema at /uniqueItems: must be true or false");
}

BOOST_AUTO_TEST_CASE(bad_applicators) {
    for (const char* keyword : {"allOf", "anyOf", "oneOf"}) {
        BOOST_TEST(compile_error(std::string("{\"") + keyword + "\":[]}") ==
                   std::string("invalid schema at /") + keyword + ": must be a non-empty array of schemas");
        BOOST_TEST(compile_error(std::string("{\"") + keyword + "\":{}}") ==
                   std::string("invalid schema at /") + keyword + ": must be a non-empty array of schemas");
        BOOST_TEST(compile_error(std::string("{\"") + keyword + "\":[{},{\"type\":\"nope\"}]}").rfind(
                       std::string("invalid schema at /") + keyword + "/1/type: unknown type", 0) == 0);
    }
    BOOST_TEST(compile_error(R"({"if":{"type":1}})") == "invalid schema at /if/type: must be a type name or a non-empty array of type names");
    BOOST_TEST(compile_error(R"({"then":{"minimum":[]}})") == "invalid schema at /then/minimum: must be a number");
    BOOST_TEST(compile_error(R"({"else":{"enum":1}})") == "invalid schema at /else/enum: must be an array");
}

BOOST_AUTO_TEST_CASE(unimplemented_validation_keywords_are_refused_not_ignored) {
    for (const char* keyword : {"contains", "minContains", "maxContains", "dependentRequired",
                                "dependentSchemas", "dependencies", "unevaluatedProperties",
                                "unevaluatedItems", "additionalItems", "$dynamicRef", "$recursiveRef"}) {
        json::object schema{{"properties", json::object{{"a", json::object{{keyword, true}}}}}};
        BOOST_TEST(compile_error_json(json::value(schema)) ==
                       std::string("invalid schema at /properties/a/") + keyword + ": keyword \"" + keyword +
                           "\" is not supported by this validator",
                   keyword);
    }
}

BOOST_AUTO_TEST_CASE(keyword_names_inside_data_are_not_keywords) {
    // A property *named* "contains" or "type" is fine, and so is a const whose value looks like a schema.
    const auto v = compiled(R"({"properties":{"contains":{"type":"string"},"type":{}},
                                "required":["contains"],"const":{"contains":"x","type":1},
                                "examples":[{"contains":1}],"default":{"items":[]}})");
    BOOST_TEST(check(v, R"({"contains":"x","type":1})") == "");
}

BOOST_AUTO_TEST_CASE(errors_escape_schema_pointers) {
    BOOST_TEST(compile_error(R"({"properties":{"a/b":{"properties":{"c~d":{"type":"x"}}}}})").rfind(
                   "invalid schema at /properties/a~1b/properties/c~0d/type: unknown type", 0) == 0);
}

BOOST_AUTO_TEST_CASE(validators_are_values) {
    auto r = Validator::compile(J(R"({"type":"integer"})"));
    BOOST_REQUIRE(r.ok());
    const Validator original = std::move(r).value();
    Validator copy = original;  // shares the compiled schema
    BOOST_TEST(check(copy, "1") == "");
    BOOST_TEST(check(copy, "1.5") == "[] must be an integer");
    Validator moved = std::move(copy);
    BOOST_TEST(check(moved, "\"x\"") == "[] must be an integer");
    BOOST_TEST(check(original, "2") == "");
}

BOOST_AUTO_TEST_CASE(the_schema_is_copied_at_compile_time) {
    auto schema = J(R"({"enum":["a"],"minimum":3})");
    const auto v = compiled_json(schema);
    schema = J(R"({"enum":["b"]})");  // the caller's value may change or die afterwards
    BOOST_TEST(check(v, R"("a")") == "");
    BOOST_TEST(check(v, "1") == R"([] must be one of: "a" | [] must be at least 3)");
}

BOOST_AUTO_TEST_SUITE_END()
