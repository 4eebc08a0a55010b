// coffer channel add|list|status|pair|unpair|remove — IM channels: resources of a channel-adapter
// kind (telegram, seatalk, external, …) over /api/v1/channels, and owner pairing. See
// docs/channels.md.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "app/json_input.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace coffer::cli {
namespace json = boost::json;

namespace {

constexpr const char* kGroup = "channel";

// Flags that set one member of the adapter's config (credentials as credref:NAME).
constexpr std::pair<const char*, const char*> kConfigFlags[] = {
    {"agent", "agent"},       {"deliver", "deliver"}, {"cwd", "cwd"},         {"token", "token"},
    {"api-base", "api_base"}, {"app-id", "app_id"},   {"app-secret", "app_secret"},
    {"signing-secret", "signing_secret"},
};

void print_channel(std::ostream& out, const json::value& c) {
    const auto& owner = field(c, "owner");
    out << "channel:" << text_field(c, "name", "?") << '\n'
        << "  adapter:  " << text_field(c, "adapter", "-") << '\n'
        << "  enabled:  " << text_field(c, "enabled", "-") << '\n'
        << "  agent:    " << text_field(field(c, "config"), "agent", "-") << '\n'
        << "  deliver:  " << text_field(field(c, "config"), "deliver", "agent") << '\n'
        << "  health:   " << text_field(c, "health", "-") << '\n'
        << "  owner:    " << (owner.is_object() ? text_field(owner, "sender") + " (chat " + text_field(owner, "chat") + ")"
                                                : std::string("none — pair with `coffer channel pair NAME`")) << '\n';
    if (const auto* counters = field(c, "counters").if_object()) {
        out << "  counters:";
        for (auto& kv : *counters) out << ' ' << std::string(kv.key()) << '=' << json::serialize(kv.value());
        out << '\n';
    }
}

int add(Context& ctx, const Invocation& inv) {
    auto adapter = inv.value("adapter");
    if (!adapter) throw UsageError("--adapter is required (telegram, seatalk, external or another installed adapter)", kGroup, "add");
    json::object config;
    if (auto c = config_argument(inv)) {
        if (!c->is_object()) throw UsageError("--config must be a JSON object", kGroup, "add");
        config = c->as_object();
    }
    for (auto [flag, member] : kConfigFlags)
        if (auto v = inv.value(flag)) config[member] = *v;
    json::object body{{"name", inv.args[0]}, {"adapter", *adapter}, {"config", std::move(config)}};
    if (auto d = inv.value("description")) body["description"] = *d;
    auto reply = ctx.call("POST", client::api_path({"channels"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& b) {
        ctx.out() << "added ";
        print_channel(ctx.out(), field(b, "channel"));
    });
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::api_path({"channels"}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "channels").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no channels (add one with `coffer channel add NAME --adapter telegram --token credref:REF --agent AGENT`)\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : *list)
            rows.push_back({text_field(c, "name"), text_field(c, "adapter"), text_field(field(c, "config"), "agent", "-"),
                            field(c, "owner").is_object() ? "paired" : "unpaired", text_field(c, "health", "-")});
        print_table(ctx.out(), {"NAME", "ADAPTER", "AGENT", "OWNER", "HEALTH"}, rows);
    });
}

int status(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", client::api_path({"channels", inv.args[0]}));
    return ctx.respond(reply, [&](const json::value& body) { print_channel(ctx.out(), field(body, "channel")); });
}

int pair(Context& ctx, const Invocation& inv) {
    json::object body;
    if (auto ttl = inv.value("ttl")) {
        try {
            body["ttl_s"] = std::stoll(*ttl);
        } catch (...) {
            throw UsageError("--ttl takes whole seconds (1-3600)", kGroup, "pair");
        }
    }
    auto reply = ctx.call("POST", client::api_path({"channels", inv.args[0], "pair"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& b) {
        ctx.out() << "pairing code: " << text_field(b, "code") << "  (single use, valid until " << text_field(b, "expires_at") << ")\n"
                  << "send it to the bot from the account that should own channel:" << inv.args[0] << '\n';
        if (auto locked = text_field(b, "locked_until"); !locked.empty())
            ctx.out() << "note: the channel refuses codes until " << locked << " after too many wrong ones\n";
    });
}

int unpair(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("POST", client::api_path({"channels", inv.args[0], "unpair"}), json::value(json::object{}));
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << "channel:" << inv.args[0] << " has no owner now\n"; });
}

int remove(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("DELETE", client::api_path({"channels", inv.args[0]}));
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << "removed channel:" << inv.args[0] << '\n'; });
}

}  // namespace

void register_channel_commands(Registry& r) {
    r.add_group({kGroup, "IM channels (Telegram, SeaTalk, external adapters) that reach an agent (docs/channels.md)"});
    r.add({kGroup, "add", "<name> --adapter ADAPTER (--agent AGENT | --deliver session) [--token credref:REF] [--api-base URL] ...",
           "add a channel; it drops every message until it is paired with its owner",
           {{"adapter", "ADAPTER", "the channel adapter kind: telegram, seatalk, external, …"},
            {"agent", "AGENT", "the agent its messages go to (coffer agent list)"},
            {"deliver", "agent|session", "agent (default): to AGENT's conversations; session: to your own agent "
                                         "sessions that listen (coffer-mcp-shim --channel NAME)"},
            {"cwd", "DIR", "the working folder of its conversations (default: the daemon's home)"},
            {"token", "CREDREF", "the bot token, as credref:NAME (Telegram)"},
            {"api-base", "URL", "the platform API's base URL (default: the public API; a local stand-in in tests)"},
            {"app-id", "CREDREF", "the app id (SeaTalk)"},
            {"app-secret", "CREDREF", "the app secret, as credref:NAME (SeaTalk)"},
            {"signing-secret", "CREDREF", "the callback signing secret, as credref:NAME (SeaTalk)"},
            {"config", "JSON", "further adapter config (merged under the flags)"},
            {"config-file", "FILE", "the same from a file"},
            {"description", "TEXT", "a note shown in listings"}},
           1, 1, add});
    r.add({kGroup, "list", "", "every channel with its adapter, owner and health", {}, 0, 0, list});
    r.add({kGroup, "status", "<name>", "one channel: owner, health (receiving or why not) and counters", {}, 1, 1, status});
    r.add({kGroup, "pair", "<name> [--ttl SECONDS]", "issue a single-use pairing code for the owner to send to the bot",
           {{"ttl", "SECONDS", "how long the code is valid (default and most: 3600)"}}, 1, 1, pair});
    r.add({kGroup, "unpair", "<name>", "forget the owner; the channel drops everything again", {}, 1, 1, unpair});
    r.add({kGroup, "remove", "<name>", "remove a channel", {}, 1, 1, remove});
}

}  // namespace coffer::cli
