// Loads the built libhello_kind.so the way the daemon does (dlopen RTLD_NOW|RTLD_LOCAL, look up
// coffer_plugin_entry_v1) and drives it through the fake host: checks the shipped file, not just
// the sources — its export, its link (no undefined symbols) and its agreement with the manifest.
#include <boost/test/unit_test.hpp>

#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(module)

BOOST_AUTO_TEST_CASE(the_built_module_loads_like_the_daemon_loads_it) {
    const std::filesystem::path lib = HELLO_KIND_MODULE;
    void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    BOOST_REQUIRE_MESSAGE(handle, "dlopen failed: " << dlerror());
    auto entry = reinterpret_cast<coffer_plugin_entry_fn>(dlsym(handle, COFFER_PLUGIN_ENTRY_SYMBOL));
    BOOST_REQUIRE_MESSAGE(entry, "no " COFFER_PLUGIN_ENTRY_SYMBOL " in " << lib);

    // The sidecar manifest sits next to the library and agrees with what the library declares.
    std::ifstream in(lib.parent_path() / "hello_kind.plugin.json");
    BOOST_REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    auto manifest = json::parse(text.str()).as_object();
    BOOST_TEST(manifest.at("library").as_string() == lib.filename().string());

    auto vault = std::filesystem::temp_directory_path() / "hello-kind-module-test";
    std::filesystem::remove_all(vault);
    {
        coffer::testing::FakeHost host(entry, "{}", vault);
        auto& p = host.plugin();
        BOOST_TEST(manifest.at("name").as_string() == coffer::testing::view(p.name));
        BOOST_TEST(manifest.at("version").as_string() == coffer::testing::view(p.version));
        BOOST_TEST(manifest.at("abi").at("major").to_number<int>() == p.abi_major);
        BOOST_REQUIRE(manifest.at("kinds").as_array().size() == p.kind_count);
        BOOST_TEST(manifest.at("kinds").at(0).as_string() == coffer::testing::view(p.kinds[0]->name));

        auto* g = host.create("greeter", "from-module", R"({"language":"fr"})");
        auto r = host.action(g, "greet", R"({"who":"Ada"})");
        BOOST_REQUIRE_MESSAGE(r.ok(), r.message);
        BOOST_TEST(json::parse(r.json).at("message") == "Bonjour, Ada!");
    }
    std::filesystem::remove_all(vault);
    // Never dlclose: the ABI v1 rule (code of a closed library may still be referenced).
}

BOOST_AUTO_TEST_SUITE_END()
