// coffer kb add|list|show|search|reindex|stats|check|delete — knowledge bases (resources of kind
// knowledge_base) over the generic resource routes and the kind's actions. See
// docs/knowledge-and-memory.md.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <ostream>
#include <thread>

namespace coffer::cli {
namespace json = boost::json;

namespace {

constexpr const char* kGroup = "kb";
constexpr const char* kKind = "knowledge_base";

std::string resource_path(const std::string& name) { return client::api_path({"resources", kKind, name}); }
std::string action_path(const std::string& name, const char* action) {
    return client::api_path({"resources", kKind, name, "actions", action});
}

const json::value& plugin_status(const json::value& res) {
    const auto& st = field(res, "status");
    const auto& p = field(st, "plugin");
    return p.is_object() ? p : st;
}

// Success with --json: the action's result alone (the documented shape), else `human`.
int respond_result(Context& ctx, const client::ApiReply& reply, const std::function<void(const json::value&)>& human) {
    if (!reply.ok()) return ctx.report(reply);
    const auto& result = field(reply.body(), "result");
    if (ctx.json()) ctx.print_json(result);
    else human(result);
    return exit_code::ok;
}

// A count option (1..100).
int parse_count(const std::string& text, const char* option, const char* group, const char* command) {
    bool digits = !text.empty() && text.size() <= 3 && text.find_first_not_of("0123456789") == std::string::npos;
    int n = digits ? std::stoi(text) : 0;
    if (n < 1 || n > 100) throw UsageError(std::string("--") + option + " must be a number from 1 to 100", group, command);
    return n;
}

std::string absolute(const std::string& path, const char* command) { return absolute_path_arg(path, kGroup, command); }

int add(Context& ctx, const Invocation& inv) {
    const auto& name = inv.args[0];
    json::object config;
    if (inv.args.size() > 1) config["path"] = absolute(inv.args[1], "add");
    if (inv.flag("writable")) config["writable"] = true;
    if (auto m = inv.value("mode")) config["default_mode"] = *m;
    auto url = inv.value("embeddings-url"), model = inv.value("embeddings-model"), key = inv.value("embeddings-key");
    if (url || model || key) {
        if (!url || !model) throw UsageError("--embeddings-url and --embeddings-model go together", kGroup, "add");
        json::object e{{"base_url", *url}, {"model", *model}};
        if (key) e["api_key"] = *key;
        config["embeddings"] = std::move(e);
    }
    json::object body{{"kind", kKind}, {"name", name}, {"config", std::move(config)}};
    if (auto d = inv.value("description")) body["description"] = *d;
    auto reply = ctx.call("POST", client::api_path({"resources"}), json::value(std::move(body)));
    return ctx.respond(reply, [&](const json::value& b) {
        const auto& st = plugin_status(field(b, "resource"));
        ctx.out() << "created kb:" << name << " over " << text_field(st, "path", "?") << " ("
                  << (field(st, "writable").is_bool() && field(st, "writable").get_bool() ? "writable" : "read-only")
                  << "); indexing in the background — `coffer kb stats " << name << "` shows the counts\n"
                  << "agents see it as the tools " << name << "__search, " << name << "__read, " << name << "__list"
                  << (field(st, "writable").is_bool() && field(st, "writable").get_bool() ? ", " + name + "__write" : "")
                  << '\n';
    });
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::with_query(client::api_path({"resources"}), {{"kind", kKind}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "resources").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no knowledge bases (add one with `coffer kb add NAME [FOLDER]`)\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& r : *list) {
            auto shown = ctx.call("GET", resource_path(text_field(r, "name")));
            const auto& st = plugin_status(field(shown.body(), "resource"));
            rows.push_back({text_field(r, "name"), text_field(r, "enabled", "-"), text_field(st, "health", "-"),
                            text_field(st, "documents", "-"), text_field(st, "writable", "-"), text_field(st, "path", "-")});
        }
        print_table(ctx.out(), {"NAME", "ENABLED", "HEALTH", "DOCS", "WRITABLE", "PATH"}, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", resource_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto& r = field(body, "resource");
        const auto& st = plugin_status(r);
        ctx.out() << "kb:" << text_field(r, "name", "?") << '\n'
                  << "  enabled:      " << text_field(r, "enabled", "-") << '\n'
                  << "  health:       " << text_field(st, "health", "-") << '\n'
                  << "  path:         " << text_field(st, "path", "-") << '\n'
                  << "  writable:     " << text_field(st, "writable", "-") << '\n'
                  << "  documents:    " << text_field(st, "documents", "0") << " (" << text_field(st, "chunks", "0")
                  << " chunks, " << text_field(st, "vectors", "0") << " vectors)\n"
                  << "  default mode: " << text_field(st, "default_mode", "keyword") << '\n'
                  << "  embeddings:   " << text_field(st, "embeddings", "none") << '\n'
                  << "  last sync:    " << text_field(st, "last_sync", "never") << '\n';
        if (auto e = text_field(st, "last_error"); !e.empty()) ctx.out() << "  last error:   " << e << '\n';
        if (ctx.verbose()) ctx.out() << "  uid:          " << text_field(r, "uid", "-") << '\n';
    });
}

void print_hits(Context& ctx, const json::value& result) {
    if (field(result, "degraded").is_bool() && field(result, "degraded").get_bool())
        ctx.out() << "note: " << text_field(result, "degraded_reason", "vector search unavailable")
                  << "; showing keyword results\n";
    const auto* hits = field(result, "results").if_array();
    if (!hits || hits->empty()) {
        ctx.out() << "no results\n";
        return;
    }
    int rank = 0;
    for (const auto& h : *hits) {
        const auto* lines = field(h, "lines").if_array();
        std::string range = lines && lines->size() == 2 ? as_text((*lines)[0]) + "-" + as_text((*lines)[1]) : "?";
        ctx.out() << ++rank << ". " << text_field(h, "kb") << ":" << text_field(h, "path") << ":" << range;
        if (auto heading = text_field(h, "heading"); !heading.empty()) ctx.out() << "  " << heading;
        char score[32];
        std::snprintf(score, sizeof score, "%.3g", field(h, "score").is_number() ? field(h, "score").to_number<double>() : 0.0);
        ctx.out() << "  [" << text_field(h, "engine") << " " << score << "]\n";
        auto snippet = text_field(h, "snippet");
        for (auto& c : snippet)
            if (c == '\n') c = ' ';
        if (!snippet.empty()) ctx.out() << "   " << snippet << '\n';
    }
}

int search(Context& ctx, const Invocation& inv) {
    json::object args{{"query", inv.args[0]}};
    auto kbs = inv.values_of("kb");
    if (!kbs.empty()) {
        json::array a;
        for (auto& k : kbs) a.emplace_back(k);
        args["kbs"] = std::move(a);
    }
    if (auto m = inv.value("mode")) args["mode"] = *m;
    if (auto k = inv.value("top-k")) args["top_k"] = parse_count(*k, "top-k", kGroup, "search");
    if (inv.flag("regex")) args["regex"] = true;
    auto reply = ctx.call("POST", client::api_path({"kinds", kKind, "actions", "search"}), json::value(std::move(args)));
    return respond_result(ctx, reply, [&](const json::value& r) { print_hits(ctx, r); });
}

// Started in the background and followed through the resource's status rather than waited for
// in one request: a waiting action would hold the daemon's request thread for the whole index
// (every other API call would wait behind it). On a terminal it shows how far the index got.
int reindex(Context& ctx, const Invocation& inv) {
    const auto& name = inv.args[0];
    const bool show = !ctx.json() && ::isatty(STDERR_FILENO);
    auto started = ctx.call("POST", action_path(name, "reindex"), json::value(json::object{{"wait", false}}));
    if (!started.ok()) return ctx.report(started);
    const auto& result = field(started.body(), "result");
    // The sync asked for here ends the sync running when it was queued, if one was, and then its own.
    auto count = [](const json::value& v) -> std::int64_t { return v.is_number() ? v.to_number<std::int64_t>() : -1; };
    const bool behind = field(result, "running").is_bool() && field(result, "running").get_bool();
    const std::int64_t target = std::max<std::int64_t>(count(field(result, "syncs")), 0) + (behind ? 2 : 1);
    auto pause = std::chrono::milliseconds(10);
    for (;;) {
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::milliseconds(200));
        auto shown = ctx.call("GET", resource_path(name));
        if (!shown.ok()) return ctx.report(shown);
        const auto& st = plugin_status(field(shown.body(), "resource"));
        const bool running = field(st, "progress").is_object();
        if (show && running) {
            const auto& p = field(st, "progress");
            std::cerr << "\rindexing " << text_field(p, "done", "0") << "/" << text_field(p, "total", "?") << " files"
                      << std::flush;
        }
        if (running || count(field(st, "syncs")) < target) continue;
        if (show) std::cerr << "\r\033[K" << std::flush;
        if (auto e = text_field(st, "last_error"); !e.empty())
            return ctx.fail(core::Error::make(core::code::unavailable, "kb:" + name + " could not be indexed: " + e));
        json::object out;
        if (const auto* s = field(st, "last_stats").if_object()) out = *s;
        out["documents"] = field(st, "documents");
        if (ctx.json()) {
            ctx.print_json(out);
            return exit_code::ok;
        }
        json::value s(std::move(out));
        ctx.out() << "reindexed kb:" << name << ": " << text_field(s, "scanned", "0") << " files, "
                  << text_field(s, "added", "0") << " added, " << text_field(s, "updated", "0") << " updated, "
                  << text_field(s, "removed", "0") << " removed, " << text_field(s, "chunks", "0") << " chunks in "
                  << text_field(s, "seconds", "0") << " s\n";
        return exit_code::ok;
    }
}

int stats(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("POST", action_path(inv.args[0], "stats"), json::value(json::object{}));
    return respond_result(ctx, reply, [&](const json::value& s) {
        ctx.out() << "kb:" << inv.args[0] << ": " << text_field(s, "documents", "0") << " documents, "
                  << text_field(s, "chunks", "0") << " chunks, " << text_field(s, "vectors", "0") << " vectors, "
                  << text_field(s, "bytes", "0") << " bytes";
        if (auto m = text_field(s, "embedding_model"); !m.empty()) ctx.out() << " (vectors of " << m << ")";
        ctx.out() << "\n  last sync: " << text_field(s, "last_sync", "never") << '\n';
    });
}

int check(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("POST", action_path(inv.args[0], "check"), json::value(json::object{}));
    int rc = respond_result(ctx, reply, [&](const json::value& r) {
        const auto* diff = field(r, "differences").if_array();
        if (!diff || diff->empty()) {
            ctx.out() << "kb:" << inv.args[0] << ": the index agrees with the folder\n";
            return;
        }
        for (const auto& d : *diff) ctx.out() << as_text(d) << '\n';
        ctx.out() << diff->size() << " difference(s); `coffer kb reindex " << inv.args[0] << "` repairs them\n";
    });
    return rc;
}

int remove(Context& ctx, const Invocation& inv) {
    auto shown = ctx.call("GET", resource_path(inv.args[0]));
    std::string path = text_field(plugin_status(field(shown.body(), "resource")), "path");
    auto reply = ctx.call("DELETE", resource_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value&) {
        ctx.out() << "deleted kb:" << inv.args[0] << " (its index)";
        if (!path.empty()) ctx.out() << "; the documents in " << path << " were left in place";
        ctx.out() << '\n';
    });
}

}  // namespace

void register_kb_commands(Registry& r) {
    r.add_group({kGroup, "knowledge bases: folders of Markdown documents agents search (docs/knowledge-and-memory.md)"});
    r.add({kGroup, "add",
           "<name> [<folder>] [--writable] [--mode MODE] [--embeddings-url URL --embeddings-model MODEL "
           "[--embeddings-key credref:NAME]] [--description TEXT]",
           "add a knowledge base over a folder (default: $COFFER_HOME/knowledge/<name>/, created, writable)",
           {{"writable", "", "agents may write documents (default for a folder you name: read-only)"},
            {"mode", "MODE", "default search mode: keyword, grep, vector or hybrid"},
            {"embeddings-url", "URL", "an OpenAI-compatible embeddings endpoint, e.g. http://127.0.0.1:11434/v1"},
            {"embeddings-model", "MODEL", "the embeddings model, e.g. nomic-embed-text"},
            {"embeddings-key", "credref:NAME", "the endpoint's API key, as a stored credential's reference"},
            {"description", "TEXT", "what the documents are about (shown to agents)"}},
           1, 2, add});
    r.add({kGroup, "list", "", "every knowledge base with its folder and document count", {}, 0, 0, list});
    r.add({kGroup, "show", "<name>", "one knowledge base: folder, counts, embeddings, last sync", {}, 1, 1, show});
    r.add({kGroup, "search", "<query> [--kb NAME]... [--mode MODE] [--top-k N] [--regex]",
           "search knowledge bases (all enabled ones unless --kb names some)",
           {{"kb", "NAME", "search this knowledge base (repeatable)"},
            {"mode", "MODE", "grep, keyword, vector or hybrid"},
            {"top-k", "N", "how many results (1-100, default 10)"},
            {"regex", "", "grep: the query is a regular expression"}},
           1, 1, search});
    r.add({kGroup, "reindex", "<name>", "make the index agree with the folder (shows progress on a terminal)", {}, 1, 1,
           reindex});
    r.add({kGroup, "stats", "<name>", "documents, chunks, vectors and bytes in the index", {}, 1, 1, stats});
    r.add({kGroup, "check", "<name>", "differences between the folder and the index", {}, 1, 1, check});
    r.add({kGroup, "delete", "<name>", "delete the knowledge base and its index (the documents stay)", {}, 1, 1, remove});
}

}  // namespace coffer::cli
