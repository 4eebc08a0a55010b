// Schema JSON -> Compiled node graph, checking every supported keyword's value on the way.
#pragma once

#include "schema/compiled.hpp"

#include <optional>
#include <string>

namespace coffer::schema::detail {

struct CompileError {
    std::string pointer;  // where in the schema
    std::string message;  // what is wrong there
};

// Compiles out.document (already checked to be at most max_nesting_depth deep) into out.nodes and
// out.root. Resolves every $ref and rejects $ref loops that never descend into the instance.
std::optional<CompileError> compile_schema(Compiled& out);

}  // namespace coffer::schema::detail
