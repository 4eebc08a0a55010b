// coffer retention show | set <table> <days|forever>
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/object.hpp>

#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

namespace {

std::string days_text(const json::value& days) {
    if (days.is_null()) return "forever";
    std::string d = as_text(days);
    return d == "1" ? "1 day" : d + " days";
}

int show(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::api_path({"retention"}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "retention").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no retention policies\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& r : *list)
            rows.push_back({text_field(r, "table"), days_text(field(r, "days"))});
        print_table(ctx.out(), {"TABLE", "KEEP"}, rows);
    });
}

int set(Context& ctx, const Invocation& inv) {
    const std::string& table = inv.args[0];
    const std::string& days = inv.args[1];
    json::value value = nullptr;
    if (days != "forever") {
        bool digits = !days.empty() && days.size() <= 9 &&
                      days.find_first_not_of("0123456789") == std::string::npos;
        if (!digits)
            throw UsageError("days must be a non-negative whole number or 'forever', not '" + days + "'",
                             "retention");
        value = std::stoll(days);
    }
    json::object body;
    body["days"] = value;
    auto reply = ctx.call("PUT", client::api_path({"retention", table}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& res) {
        const auto& r = field(res, "retention");
        ctx.out() << "retention of " << text_field(r, "table", table) << ": keep "
                  << days_text(field(r, "days")) << '\n';
    });
}

}  // namespace

void register_retention_commands(Registry& r) {
    r.add_group({"retention", "how long log tables keep their rows"});
    r.add({"retention", "show", "", "every table's retention policy", {}, 0, 0, show});
    r.add({"retention", "set", "<table> <days|forever>",
           "keep rows of <table> for <days> days, or forever (audited)", {}, 2, 2, set});
}

}  // namespace coffer::cli
