// Two wrapper-based plugins built with default symbol visibility, loaded into one process with
// RTLD_LOCAL as the daemon loads them. The wrapper's per-library state (function-local statics
// in inline functions) must not be merged between them: without sdk.hpp's hidden-visibility
// pragma those statics become STB_GNU_UNIQUE symbols, bound process-wide despite RTLD_LOCAL, and
// the second library's entry would return the first library's descriptor.
#define BOOST_TEST_MODULE sdk_visibility
#include <boost/test/unit_test.hpp>

#include <coffer/abi.h>

#include <dlfcn.h>

#include <string>

namespace {
std::string plugin_name(const char* lib) {
    void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    BOOST_REQUIRE_MESSAGE(h, "dlopen: " << dlerror());
    auto entry = reinterpret_cast<coffer_plugin_entry_fn>(dlsym(h, COFFER_PLUGIN_ENTRY_SYMBOL));
    BOOST_REQUIRE(entry);
    const coffer_plugin* p = entry(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
    BOOST_REQUIRE(p);
    return std::string(p->name.ptr, p->name.len);
}
}  // namespace

BOOST_AUTO_TEST_CASE(plugins_built_without_hidden_visibility_stay_apart) {
    BOOST_TEST(plugin_name(VIS_LIB_A) == "vis_a");
    BOOST_TEST(plugin_name(VIS_LIB_B) == "vis_b");
}
