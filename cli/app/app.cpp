#include "app/app.hpp"
#include "client/spawn.hpp"

#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/help.hpp"
#include "core/error.hpp"
#include "vault/home.hpp"

#include <boost/json/object.hpp>

#include <cstdlib>
#include <exception>
#include <ostream>
#include <string>
#include <vector>

#ifndef COFFER_VERSION
#define COFFER_VERSION "0.0.0"
#endif

namespace coffer::cli {

namespace {


// --json must shape even the errors of a command line that does not parse.
bool wants_json(const std::vector<std::string>& args) {
    for (const auto& a : args) {
        if (a == "--") break;
        if (a == "--json") return true;
    }
    return false;
}

}  // namespace

int run(int argc, char** argv, std::ostream& out, std::ostream& err) {
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    const Registry registry = make_registry();

    GlobalOptions globals;
    globals.json = wants_json(args);
    globals.no_spawn = client::no_spawn_from_env();

    Invocation inv;
    try {
        inv = parse_command_line(registry, args);
    } catch (const UsageError& e) {
        Context ctx(globals, out, err);
        return ctx.usage_error(e.what(), usage_text(registry, e.group(), e.command()));
    }
    globals.json = inv.flag("json");
    globals.verbose = inv.flag("verbose");
    globals.no_spawn = globals.no_spawn || inv.flag("no-spawn");
    // The vault, resolved once (--home, else $COFFER_HOME, else ~/.coffer): every command sees it.
    auto home = vault::resolve_home(inv.value("home").value_or(""));
    if (!home) {
        Context failed(globals, out, err);
        return failed.fail(home.error());
    }
    globals.home = home->string();
    Context ctx(globals, out, err);

    if (inv.flag("version")) {
        if (ctx.json()) {
            boost::json::object v;
            v["version"] = COFFER_VERSION;
            ctx.print_json(v);
        } else {
            out << "coffer " << COFFER_VERSION << '\n';
        }
        return exit_code::ok;
    }
    if (inv.flag("help")) {
        out << (inv.group.empty() ? overview_help(registry) : group_help(registry, inv.group));
        return exit_code::ok;
    }
    if (args.empty()) {
        err << overview_help(registry);
        return exit_code::usage;
    }

    try {
        const CommandDef& command = validate(registry, inv);
        return command.run(ctx, inv);
    } catch (const UsageError& e) {
        return ctx.usage_error(e.what(), usage_text(registry, inv.group, inv.command));
    } catch (const std::exception& e) {
        return ctx.fail(core::Error::make(core::code::internal, std::string("unexpected: ") + e.what()));
    }
}

}  // namespace coffer::cli
