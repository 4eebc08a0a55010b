// The CLI application: parse, dispatch, map outcomes to exit codes. main() only calls run().
#pragma once

#include <iosfwd>

namespace coffer::cli {

int run(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace coffer::cli
