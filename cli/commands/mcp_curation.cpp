// coffer mcp tools | tool|resource|prompt enable|disable | invocations — capability curation and
// the invocation log over /api/v1/mcp/… (docs/cli.md, docs/mcp-gateway.md).
#include "commands/mcp.hpp"

#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

namespace {

const char* const kGroup = "mcp";

std::string first_line(std::string s, std::size_t max) {
    if (auto nl = s.find('\n'); nl != std::string::npos) s = s.substr(0, nl);
    if (s.size() > max) s = s.substr(0, max - 3) + "...";
    return s;
}

std::string yes_no(const json::value& v) { return v.is_bool() ? (v.get_bool() ? "yes" : "no") : "-"; }

void print_section(Context& ctx, const json::value& body, const char* member, const char* title) {
    const auto* list = field(body, member).if_array();
    if (!list || list->empty()) return;
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : *list) {
        std::string state = yes_no(field(c, "enabled"));
        if (field(c, "present").is_bool() && !field(c, "present").get_bool()) state += " (absent)";
        std::string d = text_field(c, "description");
        rows.push_back({text_field(c, "exposed_name"), state, ctx.verbose() ? d : first_line(d, 70)});
    }
    print_table(ctx.out(), {title, "ENABLED", "DESCRIPTION"}, rows);
}

int tools(Context& ctx, const Invocation& inv) {
    const std::string& server = inv.args[0];
    auto path = client::api_path({"mcp", "servers", server, "capabilities"});
    if (inv.flag("no-live")) path = client::with_query(path, {{"live", "false"}});
    auto reply = ctx.call("GET", path);
    return ctx.respond(reply, [&](const json::value& body) {
        if (auto e = text_field(body, "live_error"); !e.empty() && !inv.flag("no-live"))
            ctx.out() << "note: " << server << " could not be asked now (" << e << "); showing remembered preferences\n";
        bool any = false;
        for (auto* m : {"tools", "resources", "prompts", "templates"})
            if (const auto* a = field(body, m).if_array(); a && !a->empty()) any = true;
        if (!any) {
            ctx.out() << server << " offers no tools, resources or prompts\n";
            return;
        }
        print_section(ctx, body, "tools", "TOOL");
        print_section(ctx, body, "resources", "RESOURCE");
        print_section(ctx, body, "prompts", "PROMPT");
        print_section(ctx, body, "templates", "TEMPLATE");
        ctx.out() << "new capabilities start " << (field(body, "auto_enable_new").is_bool() && !field(body, "auto_enable_new").get_bool()
                                                     ? "disabled"
                                                     : "enabled")
                  << " (auto_enable_new)\n";
    });
}

int toggle(Context& ctx, const Invocation& inv, const char* type, const char* plural) {
    const std::string& verb = inv.args[0];
    if (verb != "enable" && verb != "disable")
        throw UsageError(std::string("expected `coffer mcp ") + type + " enable|disable <server> <name>`, got '" + verb + "'",
                         kGroup, type);
    const std::string& server = inv.args[1];
    const std::string& name = inv.args[2];
    if (server.empty() || name.empty()) throw UsageError("the server and the name must not be empty", kGroup, type);
    auto reply = ctx.call("POST", client::api_path({"mcp", "servers", server, plural, verb}),
                          json::value(json::object{{"name", name}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto& c = field(body, "capability");
        ctx.out() << verb << "d " << type << ' ' << text_field(c, "exposed_name", name)
                  << (verb == "disable" ? " (hidden from every session's next list; calls are refused)\n"
                                        : " (listed again in every session's next list)\n");
    });
}

int invocations(Context& ctx, const Invocation& inv) {
    std::string limit = inv.value("limit").value_or("");
    if (inv.value("limit")) {
        bool digits = !limit.empty() && limit.size() <= 9 && limit.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoi(limit) < 1)
            throw UsageError("--limit must be a positive integer (the daemon caps it at 1000)", kGroup, "invocations");
    }
    std::string server = inv.value("server").value_or("");
    auto reply = ctx.call("GET", client::with_query(client::api_path({"mcp", "invocations"}),
                                                    {{"server", server}, {"limit", limit}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "invocations").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no invocations\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& i : *list) {
            std::string outcome = text_field(i, "outcome");
            if (auto code = text_field(i, "error_code"); !code.empty()) outcome += " (" + code + ")";
            rows.push_back({text_field(i, "ts"), text_field(i, "type"), text_field(i, "target"),
                            text_field(i, "duration_ms") + " ms", outcome, text_field(i, "agent", "-")});
        }
        print_table(ctx.out(), {"TIME", "TYPE", "TARGET", "DURATION", "OUTCOME", "AGENT"}, rows);
    });
}

}  // namespace

void register_mcp_curation_commands(Registry& r) {
    r.add({"mcp", "tools", "<name> [--no-live]",
           "the server's tools, resources, prompts and resource templates as clients see them (<name>__<tool>), each with its "
           "enabled flag; asks the server now unless --no-live (remembered preferences only)",
           {{"no-live", "", "do not contact the server; show the stored preferences"}}, 1, 1, tools});
    r.add({"mcp", "tool", "enable|disable <server> <tool>",
           "show or hide one tool in every session (a disabled tool's calls are refused with -32000)", {}, 3, 3,
           [](Context& c, const Invocation& i) { return toggle(c, i, "tool", "tools"); }});
    r.add({"mcp", "resource", "enable|disable <server> <uri>", "show or hide one resource (by its URI)", {}, 3, 3,
           [](Context& c, const Invocation& i) { return toggle(c, i, "resource", "resources"); }});
    r.add({"mcp", "prompt", "enable|disable <server> <prompt>", "show or hide one prompt", {}, 3, 3,
           [](Context& c, const Invocation& i) { return toggle(c, i, "prompt", "prompts"); }});
    r.add({"mcp", "template", "enable|disable <server> <uri-template>",
           "show or hide one resource template; a disabled one also refuses reads of the URIs it describes "
           "(unless the resource itself is listed and enabled)", {}, 3, 3,
           [](Context& c, const Invocation& i) { return toggle(c, i, "template", "templates"); }});
    r.add({"mcp", "invocations", "[--server S] [--limit N]",
           "recent tool calls, resource reads and prompt gets: time, target, duration, outcome (never "
           "arguments or results)",
           {{"server", "S", "only this server's"}, {"limit", "N", "how many (default 50, at most 1000)"}}, 0, 0,
           invocations});
}

}  // namespace coffer::cli
