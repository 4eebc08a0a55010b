// Boost.JSON compiled into the libFuzzer build, so it is instrumented too.
#include <boost/json/src.hpp>
