// coffer resource create|list|show|update|enable|disable|delete|action
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "app/json_input.hpp"
#include "client/url.hpp"

#include <boost/json/object.hpp>

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

namespace {

struct Ref {
    std::string kind;
    std::string name;
    std::string label() const { return kind + ":" + name; }
};

Ref parse_ref(const std::string& text) {
    auto colon = text.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
        throw UsageError("expected <kind>:<name>, got '" + text + "'", "resource");
    return {text.substr(0, colon), text.substr(colon + 1)};
}

std::string resource_path(const Ref& r) { return client::api_path({"resources", r.kind, r.name}); }

std::string label_of(const json::value& res) {
    return text_field(res, "kind", "?") + ":" + text_field(res, "name", "?");
}

// A short form of a resource's live status for tables: its "state" or "health", else compact JSON.
std::string status_text(const json::value& status) {
    if (status.is_null()) return "-";
    if (const auto* o = status.if_object()) {
        if (o->empty()) return "-";
        for (const char* key : {"state", "health", "status"})
            if (auto* v = o->if_contains(key); v && v->is_string()) return std::string(v->get_string());
    }
    return compact_json(status);
}

std::string scope_text(const json::value& scope) {
    const auto* list = scope.if_array();
    if (!list) return scope.is_null() ? "-" : compact_json(scope);
    std::string s;
    for (const auto& e : *list) {
        std::string agents;
        if (const auto* a = field(e, "agents").if_array())
            for (const auto& x : *a) agents += (agents.empty() ? "" : ",") + as_text(x);
        s += (s.empty() ? "" : "; ") + std::string("machine ") + text_field(e, "machine", "*") +
             ", agents " + (agents.empty() ? "-" : agents);
    }
    return s.empty() ? "-" : s;
}

std::string indented(const std::string& text, const std::string& pad) {
    std::string out = pad;
    for (char c : text) {
        out.push_back(c);
        if (c == '\n') out += pad;
    }
    return out;
}

void print_resource(std::ostream& out, const json::value& res, bool verbose) {
    out << label_of(res) << '\n'
        << "  enabled:     " << text_field(res, "enabled", "-") << '\n'
        << "  description: " << text_field(res, "description", "-") << '\n'
        << "  status:      " << status_text(field(res, "status")) << '\n';
    if (auto last = text_field(field(res, "status"), "last_error"); !last.empty())
        out << "  last error:  " << last << '\n';
    out
        << "  scope:       " << scope_text(field(res, "scope")) << '\n'
        << "  uid:         " << text_field(res, "uid", "-") << '\n'
        << "  created:     " << text_field(res, "created_at", "-") << '\n'
        << "  updated:     " << text_field(res, "updated_at", "-") << '\n';
    if (verbose && field(res, "status").is_object() && !field(res, "status").get_object().empty())
        out << "  live status:\n" << indented(pretty_json(field(res, "status")), "    ") << '\n';
    out << "  config:\n" << indented(pretty_json(field(res, "config")), "    ") << '\n';
}

std::optional<json::value> scope_argument(const Invocation& inv) {
    auto s = inv.value("scope");
    if (!s) return std::nullopt;
    json::value v = parse_json_argument(*s, "--scope", "resource");
    if (!v.is_array())
        throw UsageError("--scope must be a JSON array such as "
                         "'[{\"machine\":\"*\",\"agents\":[\"*\"]}]'",
                         "resource");
    return v;
}

int create(Context& ctx, const Invocation& inv) {
    Ref ref;
    if (inv.args.size() == 1) {
        ref = parse_ref(inv.args[0]);
    } else {
        ref = {inv.args[0], inv.args[1]};
        if (ref.kind.empty() || ref.name.empty())
            throw UsageError("kind and name must not be empty", "resource");
    }
    json::object body;
    body["kind"] = ref.kind;
    body["name"] = ref.name;
    body["config"] = config_argument(inv).value_or(json::object());
    if (auto d = inv.value("description")) body["description"] = *d;
    if (inv.flag("disabled")) body["enabled"] = false;
    if (auto scope = scope_argument(inv)) body["scope"] = *scope;

    auto reply = ctx.call("POST", client::api_path({"resources"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& res) {
        const auto& r = field(res, "resource");
        ctx.out() << "created " << label_of(r) << " (uid " << text_field(r, "uid", "?") << ", "
                  << (field(r, "enabled").is_bool() && !field(r, "enabled").get_bool() ? "disabled"
                                                                                       : "enabled")
                  << ")\n";
        if (ctx.verbose()) print_resource(ctx.out(), r, true);
    });
}

int list(Context& ctx, const Invocation& inv) {
    std::string kind = inv.value("kind").value_or("");
    auto reply = ctx.call("GET", client::with_query(client::api_path({"resources"}), {{"kind", kind}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "resources").if_array();
        if (!list || list->empty()) {
            ctx.out() << (kind.empty() ? "no resources" : "no resources of kind " + kind) << '\n';
            return;
        }
        std::vector<std::string> header = {"KIND", "NAME", "ENABLED", "STATUS", "DESCRIPTION"};
        if (ctx.verbose()) {
            header.push_back("UPDATED");
            header.push_back("UID");
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& r : *list) {
            std::vector<std::string> row = {text_field(r, "kind"), text_field(r, "name"),
                                            text_field(r, "enabled", "-"),
                                            status_text(field(r, "status")),
                                            text_field(r, "description")};
            if (ctx.verbose()) {
                row.push_back(text_field(r, "updated_at"));
                row.push_back(text_field(r, "uid"));
            }
            rows.push_back(std::move(row));
        }
        print_table(ctx.out(), header, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    Ref ref = parse_ref(inv.args[0]);
    auto reply = ctx.call("GET", resource_path(ref));
    return ctx.respond(reply, [&](const json::value& body) {
        print_resource(ctx.out(), field(body, "resource"), ctx.verbose());
    });
}

int update(Context& ctx, const Invocation& inv) {
    Ref ref = parse_ref(inv.args[0]);
    json::object body;
    if (auto config = config_argument(inv)) body["config"] = *config;
    if (auto d = inv.value("description")) body["description"] = *d;
    if (auto scope = scope_argument(inv)) body["scope"] = *scope;
    if (body.empty())
        throw UsageError("nothing to update: give --config, --config-file, --description or --scope",
                         "resource");
    auto reply = ctx.call("PATCH", resource_path(ref), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& res) {
        ctx.out() << "updated " << label_of(field(res, "resource")) << '\n';
        if (ctx.verbose()) print_resource(ctx.out(), field(res, "resource"), true);
    });
}

int toggle(Context& ctx, const Invocation& inv, const char* verb) {
    Ref ref = parse_ref(inv.args[0]);
    auto reply = ctx.call("POST", resource_path(ref) + "/" + verb);
    return ctx.respond(reply, [&](const json::value& res) {
        ctx.out() << verb << "d " << label_of(field(res, "resource")) << '\n';
    });
}

int remove(Context& ctx, const Invocation& inv) {
    Ref ref = parse_ref(inv.args[0]);
    auto reply = ctx.call("DELETE", resource_path(ref));
    return ctx.respond(reply, [&](const json::value& res) {
        const auto& d = field(res, "deleted");
        ctx.out() << "deleted " << (d.is_object() ? label_of(d) : ref.label());
        if (auto uid = text_field(d, "uid"); !uid.empty()) ctx.out() << " (uid " << uid << ")";
        ctx.out() << '\n';
    });
}

int action(Context& ctx, const Invocation& inv) {
    Ref ref = parse_ref(inv.args[0]);
    const std::string& name = inv.args[1];
    json::value args = json::object();
    if (auto a = inv.value("args")) {
        args = parse_json_argument(*a, "--args", "resource");
        if (!args.is_object()) throw UsageError("--args must be a JSON object", "resource");
    }
    auto reply = ctx.call("POST", client::api_path({"resources", ref.kind, ref.name, "actions", name}),
                          args);
    return ctx.respond(reply, [&](const json::value& res) {
        const auto& result = field(res, "result");
        if (result.is_null())
            ctx.out() << ref.label() << ' ' << name << ": ok\n";
        else if (result.is_string())
            ctx.out() << std::string_view(result.get_string()) << '\n';
        else
            ctx.out() << pretty_json(result) << '\n';
    });
}

const OptionDef opt_config{"config", "JSON", "the kind-specific configuration (a JSON document)"};
const OptionDef opt_config_file{"config-file", "FILE", "read the configuration from FILE ('-' = stdin)"};
const OptionDef opt_description{"description", "TEXT", "a free-text description"};
const OptionDef opt_scope{"scope", "JSON",
                          "where it applies: [{\"machine\":\"*\",\"agents\":[\"*\"]}] (default: everywhere)"};

}  // namespace

void register_resource_commands(Registry& r) {
    r.add_group({"resource", "create, inspect and change resources (<kind>:<name>)"});
    r.add({"resource", "create",
           "<kind> <name> [--config JSON | --config-file FILE] [--description TEXT] [--disabled] "
           "[--scope JSON]",
           "create a resource (config defaults to {}); validated by the kind's schema and plugin",
           {opt_config, opt_config_file, opt_description,
            {"disabled", "", "create it disabled (it is not started)"}, opt_scope},
           1, 2, create});
    r.add({"resource", "list", "[--kind KIND]", "all resources, ordered by kind and name",
           {{"kind", "KIND", "only resources of this kind"}}, 0, 0, list});
    r.add({"resource", "show", "<kind>:<name>", "one resource with its config and live status", {},
           1, 1, show});
    r.add({"resource", "update",
           "<kind>:<name> [--config JSON | --config-file FILE] [--description TEXT] [--scope JSON]",
           "replace the config and/or description (validated like create)",
           {opt_config, opt_config_file, opt_description, opt_scope}, 1, 1, update});
    r.add({"resource", "enable", "<kind>:<name>", "enable (and start) a resource", {}, 1, 1,
           [](Context& c, const Invocation& i) { return toggle(c, i, "enable"); }});
    r.add({"resource", "disable", "<kind>:<name>", "disable (and stop) a resource", {}, 1, 1,
           [](Context& c, const Invocation& i) { return toggle(c, i, "disable"); }});
    r.add({"resource", "delete", "<kind>:<name>", "delete a resource", {}, 1, 1, remove});
    r.add({"resource", "action", "<kind>:<name> <action> [--args JSON]",
           "run a kind-specific action (see the kind's actions); prints its result",
           {{"args", "JSON", "the action's arguments (a JSON object; default {})"}}, 2, 2, action});
}

}  // namespace coffer::cli
