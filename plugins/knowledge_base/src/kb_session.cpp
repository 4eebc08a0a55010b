// The MCP tools of a knowledge base (see kb_session.hpp).
#include "kb_session.hpp"

#include "operations.hpp"
#include "confine.hpp"
#include "results.hpp"
#include "tool_result.hpp"
#include "tool_specs.hpp"

namespace coffer::plugins::knowledge_base {

using knowledge::tool_ok;

KbSession::KbSession(Library& lib, std::string uid, const json::object& info)
    : lib_(lib), uid_(std::move(uid)), peers_(knowledge::peer_uids(info)), agent_(knowledge::session_string(info, "agent")) {}

SpecPtr KbSession::self() const {
    auto spec = lib_.by_uid(uid_);
    if (!spec) throw sdk::Error(COFFER_E_UNAVAILABLE, "This knowledge base is not running (disabled or deleted)");
    return spec;
}

json::array KbSession::tools() const {
    auto spec = lib_.by_uid(uid_);
    return spec ? kb_tools(*spec) : json::array{};
}

void KbSession::call_tool(sdk::McpCall& call, const std::string& name, const json::object& args) {
    if (name == "search") return search(call, args);
    if (name == "read") return read(call, args);
    if (name == "list") return list(call, args);
    if (name == "write") return write(call, args);
    throw sdk::Error(COFFER_E_INVALID, "Unknown tool: " + name);
}

void KbSession::search(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"query", "mode", "top_k", "regex", "all_kbs"}, "search");
    auto spec = self();
    SearchRequest req;
    req.args = knowledge::search_args(args);
    req.mode = req.args.mode.value_or(spec->default_mode);
    req.regex = knowledge::optional_bool(args, "regex").value_or(false);
    std::vector<SpecPtr> specs{spec};
    bool all = knowledge::optional_bool(args, "all_kbs").value_or(false);
    if (all) {
        specs.clear();
        for (auto& uid : peers_)  // never a knowledge base outside the session's scope
            if (auto peer = lib_.by_uid(uid)) specs.push_back(peer);
        if (specs.empty()) specs.push_back(spec);
    }
    auto& host = lib_.host();
    on_worker(lib_.engine(), std::move(call), [&host, specs, req, all, name = spec->name](retrieval::Index& index) {
        auto answer = knowledge_base::search(index, host, specs, req);
        auto text = knowledge::answer_text(answer, req.args.query, all, {},
                                           all ? "Open a result with <kb>__read (path, from_line, to_line)."
                                               : "Open a result with " + name + "__read (path, from_line, to_line).");
        return tool_ok(text, knowledge::answer_json(answer));
    }, knowledge::Engine::Access::read);
}

void KbSession::read(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"path", "from_line", "to_line"}, "read");
    auto spec = self();
    auto path = knowledge::required_text(args, "path", knowledge::kMaxPathBytes);
    int from = static_cast<int>(knowledge::optional_int(args, "from_line", 1, 100000000).value_or(1));
    int to = static_cast<int>(knowledge::optional_int(args, "to_line", 1, 100000000).value_or(0));
    on_worker(lib_.engine(), std::move(call), [spec, path, from, to](retrieval::Index&) {
        auto r = read_document(*spec, path, from, to, true);
        auto& e = r.excerpt;
        std::string head = r.path + " — lines " + std::to_string(e.from) + "-" + std::to_string(e.to) + " of " +
                           std::to_string(e.total) + ":\n";
        std::string tail;
        if (e.truncated)
            tail = "\n[cut at 64 KiB; continue with from_line=" + std::to_string(e.to + 1) + "]";
        else if (e.from > e.total)
            tail = "(the document has only " + std::to_string(e.total) + " lines)";
        json::object structured{{"path", r.path}, {"from_line", e.from}, {"to_line", e.to},
                                {"total_lines", e.total}, {"truncated", e.truncated}};
        return tool_ok(head + e.text + tail, structured);
    }, knowledge::Engine::Access::read);
}

void KbSession::list(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"prefix", "limit"}, "list");
    auto spec = self();
    auto prefix = knowledge::optional_text(args, "prefix", knowledge::kMaxPathBytes).value_or("");
    auto limit = static_cast<std::size_t>(knowledge::optional_int(args, "limit", 1, kMaxListed).value_or(200));
    on_worker(lib_.engine(), std::move(call), [spec, prefix, limit](retrieval::Index&) {
        bool truncated = false;
        auto docs = knowledge::list_documents(spec->root, prefix, limit, &truncated);
        std::string text = std::to_string(docs.size()) + (docs.size() == 1 ? " document" : " documents") +
                           (prefix.empty() ? "" : " under '" + prefix + "'") + " in " + spec->name + ":\n";
        json::array list;
        for (auto& d : docs) {
            text += "- " + d.path + " — " + d.title + " (" + std::to_string(d.bytes) + " bytes)\n";
            list.push_back(json::object{{"path", d.path}, {"title", d.title}, {"bytes", d.bytes}});
        }
        if (truncated) text += "[more documents exist; raise limit or give a prefix]\n";
        return tool_ok(text, json::object{{"documents", std::move(list)}, {"truncated", truncated}});
    }, knowledge::Engine::Access::read);
}

void KbSession::write(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"path", "content", "mode"}, "write");
    auto spec = self();
    if (!spec->writable) throw sdk::Error(COFFER_E_DENIED, "Knowledge base '" + spec->name + "' is read-only");
    auto path = knowledge::required_text(args, "path", knowledge::kMaxPathBytes);
    auto content = knowledge::optional_text(args, "content", kMaxWriteBytes);
    if (!content) throw sdk::Error(COFFER_E_INVALID, "The argument 'content' is required and must be a string");
    auto mode_text = knowledge::optional_text(args, "mode", 16).value_or("create");
    auto mode = parse_write_mode(mode_text);
    if (!mode) throw sdk::Error(COFFER_E_INVALID, "The argument 'mode' must be create, replace or append");
    auto& lib = lib_;
    on_worker(lib_.engine(), std::move(call),
              [&lib, spec, path, content = *content, mode = *mode, agent = agent_](retrieval::Index& index) {
                  auto r = write_document(index, lib, *spec, path, content, mode, agent);
                  if (spec->embeddings)
                      lib.engine().post([&lib, spec](retrieval::Index& i) { lib.embed(i, *spec); });
                  std::string text = std::string(r.at("created").as_bool() ? "Created " : "Wrote ") +
                                     std::string(r.at("path").as_string()) + " (" +
                                     json::serialize(r.at("bytes")) +
                                     " bytes) in " + spec->name + "; it is searchable now.";
                  return tool_ok(text, r);
              });
}

}  // namespace coffer::plugins::knowledge_base
