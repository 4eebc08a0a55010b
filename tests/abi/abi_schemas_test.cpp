// The schemas the good plugins declare — test_kind, c_counter and the out-of-tree example's
// greeter — compiled by the daemon's own JSON Schema validator (coffer::schema), with the pointers
// a user would see for typical mistakes. A schema the host cannot compile refuses the plugin, so
// this catches it before an integration test or a user does.
#define BOOST_TEST_MODULE abi_schemas
#include <boost/test/unit_test.hpp>

#include "schema/validator.hpp"

#include "../../examples/hello_kind/src/greeter.hpp"

#include <coffer/abi.h>

#include <boost/json.hpp>

#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace json = boost::json;

namespace {

// The schema text of `kind` in the case library `name`, read from its static descriptor.
std::string schema_of(const std::string& name, const std::string& kind) {
    auto lib = std::filesystem::path(COFFER_TEST_PLUGIN_DIR) / name / ("lib" + name + ".so");
    void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    auto entry = reinterpret_cast<coffer_plugin_entry_fn>(dlsym(h, COFFER_PLUGIN_ENTRY_SYMBOL));
    if (!entry) throw std::runtime_error("no entry in " + lib.string());
    const coffer_plugin* p = entry(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
    for (size_t i = 0; p && i < p->kind_count; ++i)
        if (std::string(p->kinds[i]->name.ptr, p->kinds[i]->name.len) == kind)
            return std::string(p->kinds[i]->schema_json.ptr, p->kinds[i]->schema_json.len);
    throw std::runtime_error("no kind " + kind + " in " + name);
}

coffer::schema::Validator compile(const std::string& text) {
    auto r = coffer::schema::Validator::compile(json::parse(text));
    if (!r) throw std::runtime_error("schema refused by the host: " + r.error().message);
    return std::move(r).value();
}

// The pointers of every problem the host finds in `config`.
std::vector<std::string> pointers(const coffer::schema::Validator& v, const char* config) {
    std::vector<std::string> out;
    for (auto& p : v.validate(json::parse(config))) out.push_back(p.pointer);
    return out;
}

using P = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(test_kind_schema) {
    auto v = compile(schema_of("test_kind", "test_kind"));
    BOOST_TEST(pointers(v, R"({"value":4,"label":"even","tags":["a"]})").empty());
    BOOST_TEST(pointers(v, R"({"value":"four"})") == P{"/value"});
    BOOST_TEST(pointers(v, R"({"label":"x"})") == P{"/value"});  // required: reported at the missing member
    BOOST_TEST(pointers(v, R"({"value":1,"bogus":1})") == P{"/bogus"});
    BOOST_TEST(pointers(v, R"({"value":-1})") == P{"/value"});
    BOOST_TEST(pointers(v, R"({"value":1000001})") == P{"/value"});
    BOOST_TEST(pointers(v, R"({"value":1,"tags":["a",2]})") == P{"/tags/1"});
    BOOST_TEST(pointers(v, (R"({"value":1,"label":")" + std::string(65, 'x') + "\"}").c_str()) == P{"/label"});
}

BOOST_AUTO_TEST_CASE(c_counter_schema) {
    auto v = compile(schema_of("c_kind", "c_counter"));
    BOOST_TEST(pointers(v, "{}").empty());
    BOOST_TEST(pointers(v, R"({"start":10,"step":5})").empty());
    BOOST_TEST(pointers(v, R"({"step":0})") == P{"/step"});
    BOOST_TEST(pointers(v, R"({"start":-1})") == P{"/start"});
    BOOST_TEST(pointers(v, R"({"stride":2})") == P{"/stride"});
}

BOOST_AUTO_TEST_CASE(throwing_hook_schema_accepts_any_object) {
    auto v = compile(schema_of("throwing_hook", "throwing_hook"));
    BOOST_TEST(pointers(v, "{}").empty());
}

BOOST_AUTO_TEST_CASE(example_greeter_schema) {
    hello::Settings settings;
    coffer::sdk::Host host;
    hello::GreeterKind kind(host, settings);
    auto v = compile(kind.schema());
    BOOST_TEST(pointers(v, R"({"language":"en"})").empty());
    BOOST_TEST(pointers(v, R"({"language":"ja","greeting":"やあ","punctuation":"?","repeat":5,"shout":false})").empty());
    BOOST_TEST(pointers(v, R"({"language":"xx"})") == P{"/language"});
    BOOST_TEST(pointers(v, R"({"language":"en","repeat":6})") == P{"/repeat"});
    BOOST_TEST(pointers(v, R"({"language":"en","repeat":0})") == P{"/repeat"});
    BOOST_TEST(pointers(v, R"({"language":"en","greeting":" padded"})") == P{"/greeting"});
    BOOST_TEST(pointers(v, R"({"language":"en","greeting":"two\nlines"})") == P{"/greeting"});
    BOOST_TEST(pointers(v, R"({"language":"en","greeting":"Hi there"})").empty());
    BOOST_TEST(pointers(v, R"({"language":"en","colour":"red"})") == P{"/colour"});
    BOOST_TEST(pointers(v, R"({"greeting":"Hi"})") == P{"/language"});
}
