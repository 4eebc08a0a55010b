// coffer skill import|list|show|enable|disable|delete|verify — agent skills (resources of kind
// skill) over the generic resource routes and the skill kind's actions. See docs/skills.md.
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

constexpr const char* kGroup = "skill";
constexpr const char* kKind = "skill";

std::string resource_path(const std::string& name) { return client::api_path({"resources", kKind, name}); }

// The plugin's part of a resource's live status.
const json::value& plugin_status(const json::value& res) {
    const auto& st = field(res, "status");
    const auto& p = field(st, "plugin");
    return p.is_object() ? p : st;
}

std::string health_of(const json::value& res) {
    if (field(res, "enabled").is_bool() && !field(res, "enabled").get_bool()) return "disabled";
    return text_field(plugin_status(res), "health", "-");
}

std::string targets_text(const json::value& config) {
    const auto* t = field(config, "targets").if_array();
    if (!t) return "claude_code,codex";
    std::string s;
    for (const auto& x : *t) s += (s.empty() ? "" : ",") + as_text(x);
    return s.empty() ? "(none)" : s;
}

void print_targets(std::ostream& out, const json::value& targets, const std::string& pad) {
    const auto* list = targets.if_array();
    if (!list) return;
    for (const auto& t : *list) {
        out << pad << text_field(t, "target") << ": " << text_field(t, "state", "?") << "  " << text_field(t, "path");
        if (auto r = text_field(t, "reason"); !r.empty()) out << "\n" << pad << "  " << r;
        if (auto e = text_field(t, "error"); !e.empty()) out << "\n" << pad << "  error: " << e;
        for (const char* kind : {"modified", "missing", "extra"})
            if (const auto* files = field(t, kind).if_array())
                for (const auto& f : *files) out << "\n" << pad << "  " << kind << ": " << as_text(f);
        if (field(t, "repaired").is_bool()) out << (field(t, "repaired").get_bool() ? "  (repaired)" : "  (not repaired)");
        out << '\n';
    }
}

void print_skill(std::ostream& out, const json::value& res, bool verbose) {
    const auto& st = plugin_status(res);
    const auto& lib = field(st, "library");
    out << "skill:" << text_field(res, "name", "?") << '\n'
        << "  enabled:     " << text_field(res, "enabled", "-") << '\n'
        << "  health:      " << health_of(res) << '\n'
        << "  description: " << text_field(res, "description", "-") << '\n'
        << "  library:     " << text_field(lib, "path", "-") << " (" << text_field(lib, "files", "?") << " files, "
        << text_field(lib, "state", "?") << ")\n"
        << "  source:      " << text_field(st, "source", text_field(field(res, "config"), "source", "-")) << '\n'
        << "  imported:    " << text_field(st, "imported_at", "-") << '\n'
        << "  targets:     " << targets_text(field(res, "config")) << '\n';
    if (auto last = text_field(field(res, "status"), "last_error"); !last.empty()) out << "  last error:  " << last << '\n';
    print_targets(out, field(st, "targets"), "    ");
    if (verbose) {
        out << "  uid:         " << text_field(res, "uid", "-") << '\n'
            << "  hash:        " << text_field(lib, "hash", "-") << '\n'
            << "  updated:     " << text_field(res, "updated_at", "-") << '\n';
    }
}

// `coffer skill import <path> [--name N] [--target T]… [--disabled]`: inspect the source (its
// name and description come from SKILL.md), then create the skill, or re-import it when it exists.
int import(Context& ctx, const Invocation& inv) {
    std::error_code ec;
    auto source = std::filesystem::absolute(inv.args[0], ec).lexically_normal().string();
    if (ec) throw UsageError("cannot resolve the path '" + inv.args[0] + "'", kGroup, "import");
    if (source.size() > 1 && source.back() == '/') source.pop_back();

    json::object args{{"source", source}};
    if (auto n = inv.value("name")) args["name"] = *n;
    auto inspected = ctx.call("POST", client::api_path({"kinds", kKind, "actions", "inspect"}), json::value(args));
    if (!inspected.ok()) return ctx.report(inspected);
    const auto& info = field(inspected.body(), "result");
    std::string name = inv.value("name").value_or(text_field(info, "name"));
    std::string description = text_field(info, "description");
    while (!description.empty() && (description.back() == '\n' || description.back() == ' ')) description.pop_back();

    json::object config{{"source", source}};
    auto targets = inv.values_of("target");
    if (!targets.empty()) {
        json::array t;
        for (auto& x : targets) t.emplace_back(x);
        config["targets"] = std::move(t);
    }

    auto existing = ctx.call("GET", resource_path(name));
    client::ApiReply reply;
    std::string verb;
    if (existing.ok()) {
        const auto& cur = field(field(existing.body(), "resource"), "config");
        json::object next = config;
        if (targets.empty())
            if (const auto* t = field(cur, "targets").if_array()) next["targets"] = *t;  // keep the chosen agents
        bool same = cur.is_object() && cur.get_object() == next;
        if (same) {
            reply = ctx.call("POST", client::api_path({"resources", kKind, name, "actions", "reimport"}), json::value(json::object{}));
        } else {
            json::object body{{"config", std::move(next)}};
            if (!description.empty()) body["description"] = description.substr(0, 1024);
            reply = ctx.call("PATCH", resource_path(name), json::value(std::move(body)));
        }
        verb = "re-imported";
    } else if (existing.status == 404) {
        json::object body{{"kind", kKind}, {"name", name}, {"config", std::move(config)}};
        if (!description.empty()) body["description"] = description.substr(0, 1024);
        if (inv.flag("disabled")) body["enabled"] = false;
        reply = ctx.call("POST", client::api_path({"resources"}), json::value(std::move(body)));
        verb = "imported";
    } else {
        return ctx.report(existing);
    }
    if (!reply.ok()) return ctx.report(reply);
    // Show the skill as it now is (the reimport action answers with its status only).
    auto shown = ctx.call("GET", resource_path(name));
    if (!shown.ok()) return ctx.report(shown);
    return ctx.respond(shown, [&](const json::value& body) {
        const auto& r = field(body, "resource");
        ctx.out() << verb << " skill:" << name << " (" << text_field(info, "files", "?") << " files) from " << source << '\n';
        if (!field(r, "enabled").get_bool()) {
            ctx.out() << "disabled: not delivered; `coffer skill enable " << name << "` delivers it\n";
            return;
        }
        print_targets(ctx.out(), field(plugin_status(r), "targets"), "  ");
        if (const auto* w = field(info, "warnings").if_array())
            for (const auto& x : *w) ctx.out() << "note: " << as_text(x) << '\n';
    });
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::with_query(client::api_path({"resources"}), {{"kind", kKind}}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "resources").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no skills (import one with `coffer skill import PATH`)\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& r : *list) {
            std::string d = text_field(r, "description");
            if (d.size() > 60) d = d.substr(0, 57) + "...";
            rows.push_back({text_field(r, "name"), text_field(r, "enabled", "-"), targets_text(field(r, "config")), d});
        }
        print_table(ctx.out(), {"NAME", "ENABLED", "TARGETS", "DESCRIPTION"}, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", resource_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value& body) { print_skill(ctx.out(), field(body, "resource"), ctx.verbose()); });
}

int toggle(Context& ctx, const Invocation& inv, const char* verb) {
    auto reply = ctx.call("POST", resource_path(inv.args[0]) + "/" + verb);
    return ctx.respond(reply, [&](const json::value& body) {
        const auto& r = field(body, "resource");
        ctx.out() << verb << "d skill:" << inv.args[0] << '\n';
        if (std::string(verb) == "enable") print_targets(ctx.out(), field(plugin_status(r), "targets"), "  ");
    });
}

int remove(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("DELETE", resource_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value&) {
        ctx.out() << "deleted skill:" << inv.args[0] << " (its library copy and every delivered copy)\n";
    });
}

int verify(Context& ctx, const Invocation& inv) {
    json::object args;
    if (inv.flag("repair")) args["repair"] = true;
    if (inv.flag("deep")) args["deep"] = true;
    auto reply = ctx.call("POST", client::api_path({"kinds", kKind, "actions", "verify"}), json::value(std::move(args)));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto& r = field(body, "result");
        std::vector<std::vector<std::string>> rows;
        if (const auto* skills = field(r, "skills").if_array())
            for (const auto& s : *skills) {
                std::string lib = text_field(field(s, "library"), "state", "?");
                const auto* targets = field(s, "targets").if_array();
                if (!targets || targets->empty()) {
                    rows.push_back({text_field(s, "name"), "-", field(s, "enabled").get_bool() ? "no targets" : "disabled", lib, ""});
                    continue;
                }
                for (const auto& t : *targets) {
                    std::string note;
                    for (const char* kind : {"modified", "missing"})
                        if (const auto* files = field(t, kind).if_array(); files && !files->empty())
                            note += (note.empty() ? "" : "; ") + std::string(kind) + ": " + std::to_string(files->size()) + " file(s)";
                    if (field(t, "repaired").is_bool()) note += field(t, "repaired").get_bool() ? " (repaired)" : " (not repaired)";
                    if (auto reason = text_field(t, "reason"); !reason.empty() && note.empty()) note = reason;
                    rows.push_back({text_field(s, "name"), text_field(t, "target"), text_field(t, "state"), lib, note});
                }
            }
        if (!rows.empty()) print_table(ctx.out(), {"SKILL", "TARGET", "STATE", "LIBRARY", "NOTE"}, rows);
        if (const auto* un = field(r, "unmanaged").if_array(); un && !un->empty()) {
            ctx.out() << "\nunmanaged (in an agent's folder, not managed by Coffer; left alone):\n";
            for (const auto& u : *un) ctx.out() << "  " << text_field(u, "target") << ": " << text_field(u, "path") << '\n';
        }
        if (const auto* st = field(r, "stale").if_array(); st && !st->empty()) {
            ctx.out() << "\nstale deliveries (skills no longer live on this machine):\n";
            for (const auto& s : *st)
                ctx.out() << "  " << text_field(s, "name") << (field(s, "repaired").is_bool() ? " (removed)" : "") << '\n';
        }
        const auto& sum = field(r, "summary");
        ctx.out() << '\n'
                  << text_field(sum, "skills", "0") << " skill(s): " << text_field(sum, "ok", "0") << " ok, "
                  << text_field(sum, "modified", "0") << " modified, " << text_field(sum, "missing", "0") << " missing, "
                  << text_field(sum, "outdated", "0") << " outdated, " << text_field(sum, "conflict", "0") << " conflict, "
                  << text_field(sum, "unmanaged", "0") << " unmanaged";
        if (inv.flag("repair")) ctx.out() << "; " << text_field(sum, "repaired", "0") << " repaired";
        ctx.out() << '\n';
        if (!inv.flag("repair") && !(field(r, "ok").is_bool() && field(r, "ok").get_bool()))
            ctx.out() << "run `coffer skill verify --repair` to restore Coffer's copies\n";
    });
}

}  // namespace

void register_skill_commands(Registry& r) {
    r.add_group({kGroup, "agent skills: a library delivered into Claude Code and Codex (docs/skills.md)"});
    r.add({kGroup, "import", "<path> [--name NAME] [--target AGENT]... [--disabled]",
           "import (or re-import) a skill folder or .zip/.tar.gz archive and deliver it",
           {{"name", "NAME", "the skill's name (default: SKILL.md's name; picks one skill of several in an archive)"},
            {"target", "AGENT", "deliver to this agent only: claude_code or codex (repeatable; default: both)"},
            {"disabled", "", "import without delivering"}},
           1, 1, import});
    r.add({kGroup, "list", "", "every skill with its agents", {}, 0, 0, list});
    r.add({kGroup, "show", "<name>", "one skill: library copy, source and each delivered copy's state", {}, 1, 1, show});
    r.add({kGroup, "enable", "<name>", "deliver the skill to its agents", {}, 1, 1,
           [](Context& c, const Invocation& i) { return toggle(c, i, "enable"); }});
    r.add({kGroup, "disable", "<name>", "remove the files Coffer delivered (the library keeps the skill)", {}, 1, 1,
           [](Context& c, const Invocation& i) { return toggle(c, i, "disable"); }});
    r.add({kGroup, "delete", "<name>", "delete the skill: its deliveries and its library copy", {}, 1, 1, remove});
    r.add({kGroup, "verify", "[--repair] [--deep]",
           "drift of every delivered copy (ok, modified, missing, outdated, conflict) and unmanaged skills",
           {{"repair", "", "restore Coffer's copies (user files and unmanaged skills are left alone)"},
            {"deep", "", "hash every file instead of trusting unchanged file metadata"}},
           0, 0, verify});
}

}  // namespace coffer::cli
