// Hostile input: deep nesting, long $ref chains, exponential schemas, huge strings and arrays.
// Validation must stay bounded and still report a problem rather than crash or hang.
#include "schema_test_util.hpp"

#include <chrono>
#include <string>
#include <thread>
#include <vector>

using namespace schema_test;
using coffer::schema::max_nesting_depth;

namespace {

// `levels` nested arrays around `inner`: [[[...inner...]]]
json::value nested_arrays(std::size_t levels, json::value inner) {
    json::value v = std::move(inner);
    for (std::size_t i = 0; i < levels; ++i) {
        json::array a;
        a.push_back(std::move(v));
        v = std::move(a);
    }
    return v;
}

std::string repeat(std::string_view s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(limits)

BOOST_AUTO_TEST_CASE(instance_nesting_at_the_limit_is_validated) {
    const auto v = compiled(R"({"$defs":{"n":{"anyOf":[{"type":"integer"},
                                  {"type":"array","items":{"$ref":"#/$defs/n"}}]}},
                                "$ref":"#/$defs/n"})");
    BOOST_TEST(render(v.validate(nested_arrays(max_nesting_depth, 1))) == "");
    const auto problems = v.validate(nested_arrays(max_nesting_depth, "x"));
    BOOST_REQUIRE(problems.size() == 1u);
    BOOST_TEST(problems[0].pointer == repeat("/0", max_nesting_depth));
    BOOST_TEST(problems[0].message == "must be an integer or an array");
}

BOOST_AUTO_TEST_CASE(deeper_instances_are_refused_with_one_problem) {
    const auto v = compiled("{}");
    const auto problems = v.validate(nested_arrays(300, 1));
    BOOST_REQUIRE(problems.size() == 1u);
    BOOST_TEST(problems[0].pointer == repeat("/0", max_nesting_depth + 1));
    BOOST_TEST(problems[0].message == "is nested too deeply (more than 256 levels)");

    json::value deep_object = 1;
    for (int i = 0; i < 5000; ++i) deep_object = json::object{{"a/b", std::move(deep_object)}};
    const auto object_problems = compiled("true").validate(json::object{{"x", std::move(deep_object)}});
    BOOST_REQUIRE(object_problems.size() == 1u);
    BOOST_TEST(object_problems[0].pointer == "/x" + repeat("/a~1b", max_nesting_depth));
}

BOOST_AUTO_TEST_CASE(deep_schemas_are_refused) {
    json::value schema = json::object{};
    for (int i = 0; i < 200; ++i) schema = json::object{{"not", std::move(schema)}};  // 201 levels: fine
    BOOST_TEST(compile_error_json(schema) == "compiled");
    for (int i = 0; i < 100; ++i) schema = json::object{{"not", std::move(schema)}};
    BOOST_TEST(compile_error_json(schema) == "invalid schema at " + repeat("/not", max_nesting_depth + 1) +
                                            ": is nested too deeply (more than 256 levels)");
    BOOST_TEST(compile_error_json(json::object{{"const", nested_arrays(1000, 1)}}).find("is nested too deeply") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(long_ref_chains_compile_and_stop_at_the_evaluation_limit) {
    constexpr int n = 5000;
    json::object defs;
    for (int i = 0; i < n; ++i) {
        defs["d" + std::to_string(i)] = json::object{{"$ref", "#/$defs/d" + std::to_string(i + 1)}};
    }
    defs["d" + std::to_string(n)] = json::object{{"type", "string"}};
    const auto v = compiled_json(json::value(json::object{{"$defs", std::move(defs)}, {"$ref", "#/$defs/d0"}}));
    const auto problems = v.validate(J(R"("s")"));
    BOOST_REQUIRE(problems.size() == 1u);
    BOOST_TEST(problems[0].message == "could not be validated: the schema nests too deeply here");

    // A long chain that loops back is rejected without recursing.
    json::object loop;
    for (int i = 0; i < n; ++i) {
        loop["d" + std::to_string(i)] = json::object{{"$ref", "#/$defs/d" + std::to_string((i + 1) % n)}};
    }
    BOOST_TEST(compile_error_json(json::value(json::object{{"$defs", std::move(loop)}})).find("forms a $ref loop") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(exponential_schemas_hit_the_work_limit) {
    // d0 -> twice d1 -> twice d2 ... : 2^40 evaluations if nothing stopped it.
    json::object defs;
    for (int i = 0; i < 40; ++i) {
        const json::value next = json::object{{"$ref", "#/$defs/d" + std::to_string(i + 1)}};
        defs["d" + std::to_string(i)] = json::object{{"allOf", json::array{next, next}}};
    }
    defs["d40"] = json::object{{"type", "string"}};
    const auto v = compiled_json(json::value(json::object{{"$defs", std::move(defs)}, {"$ref", "#/$defs/d0"}}));
    const auto start = std::chrono::steady_clock::now();
    const auto problems = v.validate(J("1"));
    BOOST_TEST(seconds_since(start) < 20.0);
    BOOST_REQUIRE(!problems.empty());
    BOOST_TEST(problems.back().pointer == "");
    BOOST_TEST(problems.back().message == "is too complex to validate against this schema (work limit reached)");
}

BOOST_AUTO_TEST_CASE(backtracking_patterns_on_long_strings_do_not_crash) {
    const auto catastrophic = compiled(R"({"pattern":"^(a+)+$"})");
    const auto problems = catastrophic.validate(json::value(std::string(40, 'a') + "!"));
    BOOST_REQUIRE(problems.size() == 1u);
    BOOST_TEST((problems[0].message == "must match pattern ^(a+)+$" ||
                problems[0].message ==
                    "could not be checked against pattern ^(a+)+$ (the value is too complex for this pattern)"),
               problems[0].message);

    const auto alternation = compiled(R"({"pattern":"^(a|b)*$"})");
    const json::value huge = json::string(2'000'000, 'a');
    const auto huge_problems = alternation.validate(huge);  // std::regex would overflow the stack here
    BOOST_TEST(huge_problems.size() <= 1u);
    if (!huge_problems.empty()) {
        BOOST_TEST(huge_problems[0].message.find("could not be checked against pattern") == 0u);
    }
    BOOST_TEST(check(R"({"pattern":"^[a-z]+$"})", '"' + std::string(1'000'000, 'a') + '"') == "");
    BOOST_TEST(check(R"({"maxLength":10})", '"' + std::string(1'000'000, 'a') + '"') ==
               "[] must be at most 10 characters");
}

BOOST_AUTO_TEST_CASE(large_arrays_validate_in_full) {
    json::array items;
    for (int i = 0; i < 100'000; ++i) items.push_back(json::object{{"id", i}, {"name", "n"}});
    const auto v = compiled(R"({"uniqueItems":true,"items":{"type":"object","required":["id","name"],
                                "properties":{"id":{"type":"integer"},"name":{"type":"string"}},
                                "additionalProperties":false}})");
    const auto start = std::chrono::steady_clock::now();
    BOOST_TEST(render(v.validate(items)) == "");
    items.push_back(json::object{{"name", "n"}, {"id", 500}});
    BOOST_TEST(render(v.validate(items)) ==
               "[] must not contain duplicate items (items 500 and 100000 are equal)");
    BOOST_TEST(seconds_since(start) < 20.0);
}

BOOST_AUTO_TEST_CASE(many_members_and_pattern_properties) {
    json::object big;
    for (int i = 0; i < 20'000; ++i) big["k" + std::to_string(i)] = i;
    big["bad key"] = 1;
    const auto v = compiled(R"({"patternProperties":{"^k[0-9]+$":{"type":"integer"}},
                                "additionalProperties":false})");
    BOOST_TEST(render(v.validate(big)) == "[/bad key] is not allowed (unknown property)");
}

BOOST_AUTO_TEST_CASE(concurrent_validation_with_one_validator) {
    const auto v = compiled(R"({"type":"object","properties":{"port":{"type":"integer","maximum":10}},
                                "patternProperties":{"^x":{"pattern":"^[a-z]+$"}}})");
    const auto instance = J(R"({"port":11,"xa":"abc","xb":"ABC"})");
    const std::string expected = "[/port] must be at most 10 | [/xb] must match pattern ^[a-z]+$";
    std::vector<std::string> results(4);
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < results.size(); ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 500; ++i) {
                std::string r = render(v.validate(instance));
                if (r != expected) {
                    results[t] = r;
                    return;
                }
            }
            results[t] = expected;
        });
    }
    for (auto& th : threads) th.join();
    for (const auto& r : results) BOOST_TEST(r == expected);
}

BOOST_AUTO_TEST_SUITE_END()
