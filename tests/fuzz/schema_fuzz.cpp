// Fuzz target: JSON Schema compilation and validation (host/schema), which runs on plugin- and
// user-supplied schemas and on every config and tool argument. The input's first line is the
// schema, each further line an instance. Invariants:
//   - compile() and validate() never throw or crash, and validation is deterministic;
//   - every problem names a place in the instance: its pointer resolves there, or (a required
//     member that is missing) its parent is an object there;
//   - the boolean schemas true/false accept everything/nothing;
//   - for a schema S without $ref (which wrapping would move), {"not": S} accepts exactly what S
//     refuses, and {"anyOf": [S, true]} accepts everything — unless a verdict was not reached
//     (a too expensive pattern, too deep a nesting), which the problem then says.
#include "fuzz_check.hpp"
#include "schema/validator.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace json = boost::json;
using coffer::schema::Problem;
using coffer::schema::Validator;

json::value parse(std::string_view text, bool& ok) {
    json::parse_options opt;
    opt.max_depth = 300;  // past the validator's own limit (256), so that limit is reached too
    json::error_code ec;
    auto v = json::parse(text, ec, {}, opt);
    ok = !ec;
    return v;
}

bool undecided(const std::vector<Problem>& ps) {
    for (auto& p : ps)
        if (p.message.find("could not") != std::string::npos || p.message.find("too deeply") != std::string::npos)
            return true;
    return false;
}

std::vector<Problem> checked(const Validator& v, const json::value& instance) {
    auto problems = v.validate(instance);
    FUZZ_CHECK(v.validate(instance) == problems);
    for (auto& p : problems) {
        FUZZ_CHECK(!p.message.empty());
        json::error_code ec;
        if (p.pointer.empty() || instance.find_pointer(p.pointer, ec)) continue;
        auto parent = instance.find_pointer(p.pointer.substr(0, p.pointer.rfind('/')), ec);
        FUZZ_CHECK(parent && parent->is_object());
    }
    return problems;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(bytes), size);
    auto nl = input.find('\n');
    bool ok = false;
    json::value schema = parse(input.substr(0, nl), ok);
    if (!ok) return 0;
    std::vector<json::value> instances;
    while (nl != std::string_view::npos && instances.size() < 8) {
        auto next = input.find('\n', nl + 1);
        auto line = input.substr(nl + 1, next == std::string_view::npos ? std::string_view::npos : next - nl - 1);
        auto v = parse(line, ok);
        if (ok) instances.push_back(std::move(v));
        nl = next;
    }
    instances.push_back(schema);  // a schema is also an instance worth trying

    auto compiled = Validator::compile(schema);
    if (!compiled) {
        FUZZ_CHECK(!compiled.error().message.empty());
        return 0;
    }
    auto always = Validator::compile(json::value(true));
    auto never = Validator::compile(json::value(false));
    FUZZ_CHECK(always && never);

    bool wrappable = json::serialize(schema).find("$ref") == std::string::npos;
    auto negated = Validator::compile(json::object{{"not", schema}});
    auto relaxed = Validator::compile(json::object{{"anyOf", json::array{schema, true}}});
    if (wrappable) FUZZ_CHECK(negated && relaxed);

    for (auto& instance : instances) {
        auto problems = checked(*compiled, instance);
        FUZZ_CHECK(checked(*always, instance).empty());
        FUZZ_CHECK(!checked(*never, instance).empty());
        if (!wrappable || undecided(problems)) continue;
        auto against = checked(*negated, instance);
        if (!undecided(against)) FUZZ_CHECK(against.empty() == !problems.empty());
        auto loose = checked(*relaxed, instance);
        if (!undecided(loose)) FUZZ_CHECK(loose.empty());
    }
    return 0;
}
