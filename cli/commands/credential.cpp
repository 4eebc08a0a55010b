// coffer credential set <ref> [--value-stdin] | get <ref> | exists <ref> | delete <ref> | list
//
// A value never comes from the command line (it would land in shell history and `ps`): `set`
// reads it from standard input with --value-stdin, or prompts for it without echo on a terminal.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"
#include "core/utf8.hpp"

#include <boost/json.hpp>

#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <iterator>
#include <ostream>
#include <string>

namespace coffer::cli {
namespace json = boost::json;

namespace {

// Everything on stdin, minus one trailing line break (what `echo` and here-strings add).
std::string read_value_stdin() {
    std::string v((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    if (!v.empty() && v.back() == '\n') v.pop_back();
    if (!v.empty() && v.back() == '\r') v.pop_back();
    return v;
}

// One line from the terminal with echo off.
std::string prompt_value(Context& ctx, const std::string& ref) {
    ctx.err() << "value for credential '" << ref << "' (not echoed): " << std::flush;
    termios old{};
    bool restore = ::tcgetattr(0, &old) == 0;
    if (restore) {
        termios quiet = old;
        quiet.c_lflag &= static_cast<tcflag_t>(~ECHO);
        ::tcsetattr(0, TCSAFLUSH, &quiet);
    }
    std::string v;
    std::getline(std::cin, v);
    if (restore) ::tcsetattr(0, TCSAFLUSH, &old);
    ctx.err() << '\n';
    if (!v.empty() && v.back() == '\r') v.pop_back();
    return v;
}

int set(Context& ctx, const Invocation& inv) {
    const std::string& ref = inv.args[0];
    std::string value;
    if (inv.flag("value-stdin")) value = read_value_stdin();
    else if (::isatty(0)) value = prompt_value(ctx, ref);
    else
        throw UsageError("the value is read from standard input: pass --value-stdin (a value is never taken from "
                         "the command line)",
                         "credential", "set");
    // A value travels as a JSON string, which holds text only: say so here rather than let the
    // daemon refuse the request body.
    if (auto bad = core::utf8::first_invalid(value); bad != std::string::npos) {
        std::fill(value.begin(), value.end(), '\0');
        throw UsageError("the credential value read from " +
                             std::string(inv.flag("value-stdin") ? "standard input" : "the terminal") +
                             " is not valid UTF-8 (byte " + std::to_string(bad) +
                             "); credentials hold text: encode a binary value first, e.g. with base64",
                         "credential", "set");
    }
    json::object body{{"ref", ref}, {"value", value}};
    std::fill(value.begin(), value.end(), '\0');
    auto reply = ctx.call("POST", client::api_path({"credentials"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& res) {
        bool created = field(res, "created").is_bool() && field(res, "created").as_bool();
        ctx.out() << "credential '" << text_field(field(res, "credential"), "ref", ref) << "' "
                  << (created ? "created" : "replaced") << '\n';
    });
}

int get(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", client::api_path({"credentials", inv.args[0]}));
    return ctx.respond(reply, [&](const json::value& res) {
        // Exactly as stored (it is meant for scripts and was set by the user): not rendered.
        ctx.raw_out() << text_field(field(res, "credential"), "value") << '\n';
    });
}

int exists(Context& ctx, const Invocation& inv) {
    const std::string& ref = inv.args[0];
    auto reply = ctx.call("GET", client::api_path({"credentials", ref, "exists"}));
    return ctx.respond(reply, [&](const json::value& res) {
        bool yes = field(res, "exists").is_bool() && field(res, "exists").as_bool();
        ctx.out() << "credential '" << ref << "' " << (yes ? "exists" : "does not exist") << '\n';
    });
}

int remove(Context& ctx, const Invocation& inv) {
    const std::string& ref = inv.args[0];
    auto reply = ctx.call("DELETE", client::api_path({"credentials", ref}));
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << "credential '" << ref << "' deleted\n"; });
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::api_path({"credentials"}));
    return ctx.respond(reply, [&](const json::value& res) {
        const auto* items = field(res, "credentials").if_array();
        if (!items || items->empty()) {
            ctx.out() << "no credentials\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : *items) {
            std::string used;
            if (const auto* u = field(c, "used_by").if_array())
                for (const auto& n : *u) used += (used.empty() ? "" : ", ") + as_text(n);
            rows.push_back({text_field(c, "ref"), text_field(c, "updated_at"), used.empty() ? "-" : used});
        }
        print_table(ctx.out(), {"REF", "UPDATED", "USED BY"}, rows);
    });
}

}  // namespace

void register_credential_commands(Registry& r) {
    r.add_group({"credential", "secrets stored encrypted in the vault, used as credref:<ref> in configs"});
    r.add({"credential", "set", "<ref> [--value-stdin]",
           "store or replace a secret (read from stdin with --value-stdin, else prompted without echo)",
           {{"value-stdin", "", "read the value from standard input (one trailing newline is dropped)"}}, 1, 1, set});
    r.add({"credential", "get", "<ref>", "print a secret's value (audited as credential_read)", {}, 1, 1, get});
    r.add({"credential", "exists", "<ref>", "whether a credential exists (never prints its value)", {}, 1, 1, exists});
    r.add({"credential", "delete", "<ref>", "delete a credential no resource refers to", {}, 1, 1, remove});
    r.add({"credential", "list", "", "every credential's ref and which resources use it (never values)", {}, 0, 0,
           list});
}

}  // namespace coffer::cli
