// coffer plugin list
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

namespace {

std::string joined(const json::value& list) {
    std::string s;
    if (const auto* a = list.if_array())
        for (const auto& e : *a) s += (s.empty() ? "" : ",") + as_text(e);
    return s.empty() ? "-" : s;
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::api_path({"plugins"}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* plugins = field(body, "plugins").if_array();
        if (!plugins || plugins->empty()) {
            ctx.out() << "no plugins loaded\n";
            return;
        }
        std::vector<std::string> header = {"NAME", "VERSION", "ABI", "KINDS", "STATUS", "ERROR"};
        if (ctx.verbose()) header.push_back("FILE");
        std::vector<std::vector<std::string>> rows;
        for (const auto& p : *plugins) {
            std::vector<std::string> row = {text_field(p, "name", "?"), text_field(p, "version", "-"),
                                            text_field(p, "abi", "-"), joined(field(p, "kinds")),
                                            text_field(p, "status", "-"), text_field(p, "error")};
            if (ctx.verbose()) row.push_back(text_field(p, "file"));
            rows.push_back(std::move(row));
        }
        print_table(ctx.out(), header, rows);
    });
}

}  // namespace

void register_plugin_commands(Registry& r) {
    r.add_group({"plugin", "list the plugins the daemon found and why any was refused"});
    r.add({"plugin", "list", "", "every plugin: version, ABI, kinds, load status and error",
           {}, 0, 0, list});
}

}  // namespace coffer::cli
