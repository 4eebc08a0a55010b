// Helpers shared by the schema tests: compile from JSON text and render problems as one string.
#pragma once

#include "schema/validator.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schema_test {

namespace json = boost::json;
using coffer::schema::Problem;
using coffer::schema::Validator;

inline json::value J(std::string_view text) { return json::parse(text); }

inline Validator compiled_json(const json::value& schema) {
    auto r = Validator::compile(schema);
    BOOST_REQUIRE_MESSAGE(r.ok(), "schema should compile: " + (r.ok() ? "" : r.error().message));
    return std::move(r).value();
}

inline Validator compiled(std::string_view schema) { return compiled_json(J(schema)); }

// "[pointer] message" per problem, joined with " | "; "" when valid.
inline std::string render(const std::vector<Problem>& problems) {
    std::string out;
    for (const auto& p : problems) {
        if (!out.empty()) out += " | ";
        out += "[" + p.pointer + "] " + p.message;
    }
    return out;
}

inline std::string check(const Validator& v, std::string_view instance) {
    return render(v.validate(J(instance)));
}

inline std::string check(std::string_view schema, std::string_view instance) {
    return check(compiled(schema), instance);
}

// The compile error's message, or "compiled" if the schema was (wrongly) accepted.
inline std::string compile_error_json(const json::value& schema) {
    auto r = Validator::compile(schema);
    if (r.ok()) return "compiled";
    BOOST_TEST(r.error().code == "BAD_REQUEST");
    return r.error().message;
}

inline std::string compile_error(std::string_view schema) { return compile_error_json(J(schema)); }

}  // namespace schema_test
