#include "schema/validator.hpp"

#include "schema/compiled.hpp"
#include "schema/compiler.hpp"
#include "schema/evaluator.hpp"
#include "schema/nesting.hpp"

#include <boost/json/object.hpp>

#include <exception>
#include <utility>

namespace coffer::schema {

namespace {

core::Error schema_error(const std::string& pointer, const std::string& message) {
    const std::string where = pointer.empty() ? "the root" : pointer;
    return core::Error::make(core::code::bad_request, "invalid schema at " + where + ": " + message,
                             boost::json::object{{"schema_pointer", pointer}});
}

}  // namespace

Validator::Validator(std::shared_ptr<const detail::Compiled> compiled)
    : compiled_(std::move(compiled)) {}

core::Result<Validator> Validator::compile(const boost::json::value& schema) {
    if (auto shape = detail::measure(schema, max_nesting_depth); shape.too_deep_at) {
        return schema_error(*shape.too_deep_at, "is nested too deeply (more than " +
                                                    std::to_string(max_nesting_depth) + " levels)");
    }
    try {
        auto compiled = std::make_shared<detail::Compiled>();
        compiled->document = schema;  // the nodes point into this copy
        if (auto error = detail::compile_schema(*compiled)) {
            return schema_error(error->pointer, error->message);
        }
        return Validator(std::move(compiled));
    } catch (const std::exception& e) {
        return schema_error("", std::string("could not be compiled: ") + e.what());
    }
}

std::vector<Problem> Validator::validate(const boost::json::value& instance) const {
    return detail::evaluate(*compiled_, instance);
}

}  // namespace coffer::schema
