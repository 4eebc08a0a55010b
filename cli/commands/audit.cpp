// coffer audit [--limit N]
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

namespace {

int audit(Context& ctx, const Invocation& inv) {
    std::string limit = inv.value("limit").value_or("");
    if (inv.value("limit")) {
        bool digits = !limit.empty() && limit.size() <= 9 &&
                      limit.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoi(limit) < 1)
            throw UsageError("--limit must be a positive integer (the daemon caps it at 1000)", "audit");
    }
    auto reply = ctx.call("GET", client::with_query(client::api_path({"audit"}), {{"limit", limit}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* events = field(body, "events").if_array();
        if (!events || events->empty()) {
            ctx.out() << "no audit events\n";
            return;
        }
        std::vector<std::string> header = {"TIME", "ACTOR", "EVENT", "TARGET"};
        if (ctx.verbose()) {
            header.insert(header.begin(), "ID");
            header.push_back("PAYLOAD");
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& e : *events) {
            std::vector<std::string> row = {text_field(e, "ts"), text_field(e, "actor"),
                                            text_field(e, "event_type"), text_field(e, "target", "-")};
            if (ctx.verbose()) {
                row.insert(row.begin(), text_field(e, "id"));
                row.push_back(compact_json(field(e, "payload")));
            }
            rows.push_back(std::move(row));
        }
        print_table(ctx.out(), header, rows);
    });
}

}  // namespace

void register_audit_commands(Registry& r) {
    r.add_group({"audit", "show the audit log, newest first"});
    r.add({"audit", "", "[--limit N]", "the newest audit events (default 50, at most 1000)",
           {{"limit", "N", "how many events (1–1000; default 50)"}}, 0, 0, audit});
}

}  // namespace coffer::cli
