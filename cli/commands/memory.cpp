// coffer memory list|show|search|forget — the facts agents remembered (the memory kind), through
// the memory resource's actions. With no memory resource yet, the first command creates one
// named "memory" (and says so): memory is one store per vault, and creating the resource is what
// gives agents the memory__remember/recall/forget tools. See docs/knowledge-and-memory.md.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <filesystem>
#include <ostream>

namespace coffer::cli {
namespace json = boost::json;

namespace {

constexpr const char* kGroup = "memory";
constexpr const char* kKind = "memory";

// The memory resource's name, creating "memory" when there is none; "" after a reported failure
// (then *rc holds the exit code).
std::string memory_resource(Context& ctx, int* rc) {
    auto listed = ctx.call("GET", client::with_query(client::api_path({"resources"}), {{"kind", kKind}}));
    if (!listed.ok()) {
        *rc = ctx.report(listed);
        return {};
    }
    if (const auto* list = field(listed.body(), "resources").if_array(); list && !list->empty())
        return text_field((*list)[0], "name");
    auto created = ctx.call("POST", client::api_path({"resources"}),
                            json::value(json::object{{"kind", kKind}, {"name", "memory"}, {"config", json::object{}}}));
    if (!created.ok() && created.status != 409) {
        *rc = ctx.report(created);
        return {};
    }
    ctx.err() << "coffer: created the memory resource 'memory' (agents now have memory__remember, memory__recall "
                 "and memory__forget)\n";
    return "memory";
}

int run_action(Context& ctx, const char* action, json::object args, const std::function<void(const json::value&)>& human) {
    int rc = exit_code::ok;
    auto name = memory_resource(ctx, &rc);
    if (name.empty()) return rc;
    auto reply = ctx.call("POST", client::api_path({"resources", kKind, name, "actions", action}), json::value(std::move(args)));
    if (!reply.ok()) return ctx.report(reply);
    const auto& result = field(reply.body(), "result");
    if (ctx.json()) ctx.print_json(result);
    else human(result);
    return exit_code::ok;
}

std::string absolute(const std::string& path, const char* command) { return absolute_path_arg(path, kGroup, command); }

std::string one_line(std::string text, std::size_t max) {
    for (auto& c : text)
        if (c == '\n' || c == '\t') c = ' ';
    if (text.size() > max) text = text.substr(0, max - 3) + "...";
    return text;
}

int list(Context& ctx, const Invocation& inv) {
    json::object args;
    if (auto p = inv.value("project")) args["project"] = absolute(*p, "list");
    return run_action(ctx, "list", std::move(args), [&](const json::value& r) {
        const auto* facts = field(r, "facts").if_array();
        if (!facts || facts->empty()) {
            ctx.out() << "no memories\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& f : *facts)
            rows.push_back({text_field(f, "id"), text_field(f, "scope"), text_field(f, "updated"),
                            one_line(text_field(f, "text"), 70)});
        print_table(ctx.out(), {"ID", "SCOPE", "UPDATED", "FACT"}, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    return run_action(ctx, "show", json::object{{"id", inv.args[0]}}, [&](const json::value& f) {
        std::string tags;
        if (const auto* t = field(f, "tags").if_array())
            for (const auto& x : *t) tags += (tags.empty() ? "" : ", ") + as_text(x);
        ctx.out() << "memory " << text_field(f, "id") << '\n'
                  << "  scope:   " << text_field(f, "scope") << '\n'
                  << "  file:    " << text_field(f, "path") << '\n'
                  << "  created: " << text_field(f, "created", "-") << "  updated: " << text_field(f, "updated", "-") << '\n'
                  << "  tags:    " << (tags.empty() ? "-" : tags) << '\n'
                  << "  source:  " << text_field(f, "source", "-") << '\n';
        if (auto p = text_field(f, "project"); !p.empty()) ctx.out() << "  project: " << p << '\n';
        ctx.out() << '\n' << text_field(f, "text") << '\n';
    });
}

int search(Context& ctx, const Invocation& inv) {
    json::object args{{"query", inv.args[0]}};
    if (auto p = inv.value("project")) args["project"] = absolute(*p, "search");
    if (auto m = inv.value("mode")) args["mode"] = *m;
    return run_action(ctx, "search", std::move(args), [&](const json::value& r) {
        if (field(r, "degraded").is_bool() && field(r, "degraded").get_bool())
            ctx.out() << "note: " << text_field(r, "degraded_reason", "vector search unavailable") << "; keyword results\n";
        const auto* hits = field(r, "results").if_array();
        if (!hits || hits->empty()) {
            ctx.out() << "no results\n";
            return;
        }
        int rank = 0;
        for (const auto& h : *hits)
            ctx.out() << ++rank << ". [" << text_field(h, "kb") << "] " << text_field(h, "path") << "\n   "
                      << one_line(text_field(h, "snippet"), 200) << '\n';
    });
}

int forget(Context& ctx, const Invocation& inv) {
    return run_action(ctx, "forget", json::object{{"id", inv.args[0]}}, [&](const json::value& r) {
        const auto& f = field(r, "forgotten");
        ctx.out() << "forgot " << text_field(f, "id") << " (deleted " << text_field(f, "path") << ")\n";
    });
}

}  // namespace

void register_memory_commands(Registry& r) {
    r.add_group({kGroup, "facts agents remembered (memory/global and memory/projects; docs/knowledge-and-memory.md)"});
    r.add({kGroup, "list", "[--project DIR]", "remembered facts (a project's and the global ones with --project)",
           {{"project", "DIR", "the project folder (its git root is the project)"}}, 0, 0, list});
    r.add({kGroup, "show", "<id>", "one fact with its metadata and file", {}, 1, 1, show});
    r.add({kGroup, "search", "<query> [--project DIR] [--mode MODE]",
           "search facts (a project's and the global ones with --project, else every scope)",
           {{"project", "DIR", "the project folder"}, {"mode", "MODE", "grep, keyword, vector or hybrid"}}, 1, 1, search});
    r.add({kGroup, "forget", "<id>", "delete a fact's file (and its index entry)", {}, 1, 1, forget});
}

}  // namespace coffer::cli
