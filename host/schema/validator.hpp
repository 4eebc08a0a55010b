// coffer::schema::Validator — validates JSON instances against a JSON Schema (draft 2020-12 subset).
//
// Supported keywords: type, enum, const, properties, required, additionalProperties,
// patternProperties, propertyNames, minProperties, maxProperties, items, prefixItems, minItems,
// maxItems, uniqueItems, minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, multipleOf, allOf, anyOf, oneOf, not, if/then/else, $ref (local "#..." only),
// $defs/definitions, and the boolean schemas true/false. Annotation keywords (title, description,
// default, examples, format, $schema, $id, $comment, ...) are ignored. Validation keywords this
// validator does not implement (contains, dependentRequired, unevaluatedProperties, ...) make
// compile() fail rather than being silently skipped.
//
// A compiled Validator is immutable: copies share it, and validate() may run on many threads.
#pragma once

#include "core/result.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace coffer::schema {

namespace detail {
struct Compiled;
}

// Instances and schemas nested deeper than this many arrays/objects are refused.
inline constexpr std::size_t max_nesting_depth = 256;

struct Problem {
    std::string pointer;  // RFC 6901 pointer into the instance ("" = the root)
    std::string message;  // English, for users, e.g. "must be an integer"

    friend bool operator==(const Problem&, const Problem&) = default;
};

class Validator {
public:
    // Compiles a schema. A malformed schema, an unsupported keyword value, an unresolvable or
    // looping $ref, or an invalid pattern gives a BAD_REQUEST error whose message (and
    // details.schema_pointer) names the offending place in the schema.
    static coffer::core::Result<Validator> compile(const boost::json::value& schema);

    // The problems found in `instance`; empty means valid. The order is deterministic: schema
    // keywords in a fixed order, object members in instance order, array items by index.
    std::vector<Problem> validate(const boost::json::value& instance) const;

private:
    explicit Validator(std::shared_ptr<const detail::Compiled> compiled);
    std::shared_ptr<const detail::Compiled> compiled_;
};

}  // namespace coffer::schema
