// Validation of an instance against a Compiled schema.
#pragma once

#include "schema/compiled.hpp"
#include "schema/validator.hpp"

#include <boost/json/value.hpp>

#include <vector>

namespace coffer::schema::detail {

// Never empty when the instance is invalid; bounded in stack depth and work for any instance.
std::vector<Problem> evaluate(const Compiled& compiled, const boost::json::value& instance);

}  // namespace coffer::schema::detail
