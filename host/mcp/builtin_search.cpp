#include "mcp/builtin_search.hpp"

#include "curation/invocations.hpp"

#include "core/ascii.hpp"
#include "core/log.hpp"
#include "mcp/bridge.hpp"
#include "mcp/catalog.hpp"
#include "mcp/names.hpp"
#include "mcp/session.hpp"
#include "toolsearch/hybrid.hpp"
#include "toolsearch/index.hpp"

#include "retrieval/embedder.hpp"

#include <coffer/utf8.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <variant>

namespace coffer::mcp {

namespace json = boost::json;

namespace builtin {

namespace {

const std::pair<std::string, std::string>& search_tools_item() {
    static const std::pair<std::string, std::string> item{std::string(kSearchTools), search_tools_definition()};
    return item;
}

const std::pair<std::string, std::string>& channel_reply_item() {
    static const std::pair<std::string, std::string> item{std::string(kChannelReply), channel_reply_definition()};
    return item;
}

void add_one(std::vector<const std::pair<std::string, std::string>*>& sorted, const std::pair<std::string, std::string>* item) {
    auto at = std::lower_bound(sorted.begin(), sorted.end(), item->first,
                               [](const auto* a, const std::string& key) { return a->first < key; });
    if (at != sorted.end() && (*at)->first == item->first) *at = item;  // ours, never a provider's
    else sorted.insert(at, item);
}

}  // namespace

bool is_builtin(std::string_view name) noexcept { return name.substr(0, kPrefix.size()) == kPrefix; }

bool reserved_server(std::string_view server) noexcept {
    return core::ascii_iequals(server, "coffer");
}

void add_tools(std::vector<const std::pair<std::string, std::string>*>& sorted, bool channel_reply) {
    add_one(sorted, &search_tools_item());
    if (channel_reply) add_one(sorted, &channel_reply_item());
}

std::string text_result(const std::string& text, bool is_error) {
    return json::serialize(json::object{
        {"content", json::array{json::object{{"type", "text"}, {"text", text}}}}, {"isError", is_error}});
}

const std::string& channel_reply_definition() {
    static const std::string text = json::serialize(json::object{
        {"name", kChannelReply},
        {"title", "Reply on the IM channel"},
        {"description",
         "Send a message to the user on the IM channel (Telegram, SeaTalk, …) that a <channel> message came from. "
         "Messages from the user's phone arrive as <channel source=\"coffer\" channel=\"…\" chat_id=\"…\"> tags; "
         "answer them with this tool (not in the terminal), passing that chat_id. Markdown is rendered for the "
         "platform and long text is split into several messages."},
        {"inputSchema",
         json::object{{"type", "object"},
                      {"properties",
                       json::object{{"chat_id", json::object{{"type", "string"},
                                                             {"description", "the chat_id of the <channel> message"}}},
                                    {"text", json::object{{"type", "string"}, {"description", "the message (Markdown)"}}},
                                    {"channel", json::object{{"type", "string"},
                                                             {"description", "the channel attribute of the <channel> "
                                                                             "message (needed only when several "
                                                                             "channels are listened to)"}}}}},
                      {"required", json::array{"chat_id", "text"}},
                      {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", false}, {"destructiveHint", false}, {"openWorldHint", true}}}});
    return text;
}

const std::string& search_tools_definition() {
    static const std::string text = json::serialize(json::object{
        {"name", kSearchTools},
        {"title", "Search tools"},
        {"description",
         "Search the tools of every MCP server available in this session by what they do, and get the best matches "
         "ranked, with their names, descriptions and input schemas. Use it to find the right tool when there are many "
         "or you do not know a tool's name. Queries may be keywords or a sentence, in English or in Chinese, Japanese "
         "or Korean."},
        {"inputSchema",
         json::object{{"type", "object"},
                      {"properties",
                       json::object{{"query", json::object{{"type", "string"},
                                                           {"description", "What you want to do, e.g. \"create a GitHub "
                                                                           "issue\" or \"send an email\""}}},
                                    {"top_k", json::object{{"type", "integer"},
                                                           {"minimum", 1},
                                                           {"maximum", kMaxTopK},
                                                           {"default", kDefaultTopK},
                                                           {"description", "How many tools to return (default 5)"}}},
                                    {"limit", json::object{{"type", "integer"},
                                                           {"minimum", 1},
                                                           {"maximum", kMaxTopK},
                                                           {"description", "Same as top_k"}}}}},
                      {"required", json::array{"query"}},
                      {"additionalProperties", false}}},
        {"outputSchema",
         json::object{
             {"type", "object"},
             {"properties",
              json::object{{"tools", json::object{{"type", "array"},
                                                  {"items", json::object{{"type", "object"},
                                                                         {"properties", json::object{
                                                                              {"name", json::object{{"type", "string"}}},
                                                                              {"description", json::object{{"type", "string"}}},
                                                                              {"inputSchema", json::object{{"type", "object"}}},
                                                                              {"score", json::object{{"type", "number"}}}}},
                                                                         {"required", json::array{"name", "score"}}}}}},
                           {"total_searched", json::object{{"type", "integer"}}}}},
             {"required", json::array{"tools", "total_searched"}}}},
        {"annotations", json::object{{"readOnlyHint", true}, {"openWorldHint", false}}}});
    return text;
}

}  // namespace builtin

namespace search_detail {

// One index per distinct tool catalog, shared by the sessions that see the same tools; a catalog
// that changed (a server added, a tool disabled, an upstream upgraded) builds a new one.
struct Built {
    std::size_t fingerprint = 0;
    std::vector<std::string> names;
    std::vector<std::string> raw;
    std::map<std::string, std::string> instructions;  // by server
    toolsearch::Index index;
    // Hybrid search: the tools' vectors, when an embeddings endpoint is configured and answered.
    std::shared_ptr<const toolsearch::ToolVectors> vectors;
    toolsearch::HybridSettings hybrid;  // what the vectors were (or were to be) made with
    std::chrono::steady_clock::time_point vectors_failed{};  // when embedding the tools last failed
    mutable std::atomic<bool> retry_posted{false};
};

// The tools an index is built from, owned (a build runs on the indexing thread, after the
// network thread has moved on), and their servers' instructions by server name.
struct ToolItems {
    std::vector<std::pair<std::string, std::string>> tools;
    std::map<std::string, std::string> instructions;
};

// Embedding the tools again after the endpoint failed: at most this often, and never while a
// search waits (the keyword index answers meanwhile).
inline constexpr auto kVectorRetry = std::chrono::seconds(60);

// The gateway's lifetime as the search threads see it. Builtins::stopping (the gateway shutting
// down, on the network thread, before the io_context goes away) bumps the generation under the
// mutex; work started in an earlier generation embeds nothing more and posts nothing back, so no
// search thread touches a network thread that is gone.
std::mutex g_life_mutex;
std::atomic<std::uint64_t> g_generation{0};

// Posts `f` to `net` unless the gateway of `generation` has stopped since.
template <class Executor, class F>
void post_back(const Executor& net, std::uint64_t generation, F&& f) {
    std::lock_guard lock(g_life_mutex);
    if (g_generation.load() != generation) return;
    boost::asio::post(net, std::forward<F>(f));
}

// A request embedding failed at this steady-clock count (0: not lately): for kVectorRetry after
// one, searches use the keyword list without waiting on the endpoint again.
std::atomic<std::int64_t> g_query_failed{0};

// The embeddings client of the calling thread for `settings` (each of the two search threads has
// its own: the client is not shared between threads).
retrieval::Embedder* thread_embedder(const toolsearch::HybridSettings& settings, std::chrono::milliseconds timeout,
                                     int attempts) {
    thread_local std::unique_ptr<retrieval::Embedder> embedder;
    thread_local toolsearch::HybridSettings made_for;
    if (!embedder || !(made_for == settings)) {
        embedder = toolsearch::make_embedder(settings, timeout, attempts);
        made_for = settings;
    }
    return embedder.get();
}

// The tools' vectors made so far (any thread): a catalog that changed embeds only what is new.
// Keyed by endpoint and model (vector_space below); another of either starts it afresh.
toolsearch::VectorCache& vector_cache() {
    // Never destroyed: an embedding thread may still be here while the daemon's statics go.
    static auto* cache = new toolsearch::VectorCache;
    return *cache;
}

std::string vector_space(const toolsearch::HybridSettings& settings, const retrieval::Embedder& embedder) {
    return settings.base_url + '\n' + embedder.model_id();
}

class IndexCache {
public:
    // The index of exactly these tools if one is cached (any thread).
    std::shared_ptr<const Built> find(std::size_t fp, std::size_t count) {
        std::lock_guard lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if ((*it)->fingerprint == fp && (*it)->names.size() == count) {
                auto hit = *it;
                entries_.erase(it);
                entries_.insert(entries_.begin(), hit);
                return hit;
            }
        return nullptr;
    }

    // Builds (unless another build of the same tools finished meanwhile — with vectors, when
    // `with_vectors` asks for them) and caches. Indexing thread only: building 10,000 tools takes
    // long enough to stall every session if it ran on the network thread, and embedding them
    // waits on the endpoint. A search builds the keyword index alone and answers with it; the
    // vectors are made afterwards (retry_vectors), so no search waits for the endpoint.
    // `generation`: the gateway's, when the job that asks for vectors was posted (embedding stops
    // as soon as the gateway stopped since).
    std::shared_ptr<const Built> build_and_keep(const ToolItems& items, std::size_t fp,
                                                const toolsearch::HybridSettings& hybrid, bool with_vectors,
                                                std::uint64_t generation = 0) {
        if (auto hit = find(fp, items.tools.size()); hit && (!with_vectors || !wants_vectors(*hit, hybrid))) return hit;
        auto t0 = std::chrono::steady_clock::now();
        auto built = build(items, fp, hybrid, with_vectors, generation);
        core::log::info("tool search index built",
                        {{"tools", static_cast<std::int64_t>(items.tools.size())},
                         {"vectors", built->vectors ? built->vectors->model() : std::string("none")},
                         // how many tool texts went to the endpoint (the rest came from the vector cache)
                         {"embedded", static_cast<std::int64_t>(built->vectors ? built->vectors->embedded() : 0)},
                         {"ms", std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()}});
        std::lock_guard lock(mutex_);
        std::erase_if(entries_, [&](const auto& e) { return e->fingerprint == fp && e->names.size() == items.tools.size(); });
        entries_.insert(entries_.begin(), built);
        if (entries_.size() > kEntries) entries_.pop_back();
        return built;
    }

    // A cached index lacks the vectors the settings ask for: none were made with these settings,
    // or embedding failed long enough ago to try again.
    static bool wants_vectors(const Built& b, const toolsearch::HybridSettings& hybrid) {
        if (!hybrid.enabled()) return false;
        if (!(b.hybrid == hybrid)) return true;
        return !b.vectors && std::chrono::steady_clock::now() - b.vectors_failed >= kVectorRetry;
    }

    static std::size_t fingerprint(const Catalog::Items& items, const std::map<std::string, std::string>& instructions) {
        std::size_t h = 0xcbf29ce484222325ull;
        std::hash<std::string_view> hash;
        for (auto* it : items) {
            h = (h ^ hash(it->first)) * 0x100000001b3ull;
            h = (h ^ hash(it->second)) * 0x100000001b3ull;
        }
        for (auto& [server, text] : instructions) {
            h = (h ^ hash(server)) * 0x100000001b3ull;
            h = (h ^ hash(text)) * 0x100000001b3ull;
        }
        return h;
    }

private:
    static constexpr std::size_t kEntries = 4;

    // Without `with_vectors` a hybrid index is keyword-only and wants its vectors at once
    // (vectors_failed stays at the clock's epoch).
    static std::shared_ptr<const Built> build(const ToolItems& items, std::size_t fp,
                                              const toolsearch::HybridSettings& hybrid, bool with_vectors,
                                              std::uint64_t generation) {
        auto b = std::make_shared<Built>();
        b->fingerprint = fp;
        b->hybrid = hybrid;
        b->instructions = items.instructions;
        std::vector<toolsearch::ToolText> texts;
        texts.reserve(items.tools.size());
        for (auto& [name, raw] : items.tools) {
            boost::system::error_code ec;
            auto v = json::parse(raw, ec);
            toolsearch::ToolText t;
            if (!ec && v.is_object()) t = toolsearch::tool_text(v.as_object());
            t.name = name;
            if (auto split = names::split(name))
                if (auto in = items.instructions.find(std::string(split->server)); in != items.instructions.end())
                    t.instructions = in->second;
            texts.push_back(std::move(t));
            b->names.push_back(name);
            b->raw.push_back(raw);
        }
        toolsearch::Options options;
        options.vector_weight = hybrid.vector_weight;
        b->index = toolsearch::Index(texts, options);
        // Without vectors now, a hybrid index wants them at once (as if they failed long ago).
        if (!with_vectors) b->vectors_failed = std::chrono::steady_clock::now() - kVectorRetry;
        if (with_vectors && hybrid.enabled() && !texts.empty()) {
            try {
                // Per batch of tools: 15 s, two attempts (a daemon stopping waits for one batch at most).
                auto* embedder = thread_embedder(hybrid, std::chrono::seconds(15), 2);
                auto vectors = std::make_shared<toolsearch::ToolVectors>(
                    texts, *embedder, [generation] { return g_generation.load() != generation; }, &vector_cache(),
                    vector_space(hybrid, *embedder));
                if (g_generation.load() != generation) return b;
                if (vectors->empty()) throw std::runtime_error("the endpoint gave no vectors, or vectors of differing lengths");
                b->vectors = std::move(vectors);
            } catch (const std::exception& e) {
                b->vectors_failed = std::chrono::steady_clock::now();
                core::log::warn("tool search: embedding the tools failed; keyword search only until it works",
                                {{"error", e.what()}});
            }
        }
        return b;
    }

    std::mutex mutex_;
    std::vector<std::shared_ptr<const Built>> entries_;  // most recently used first
};

}  // namespace search_detail

using search_detail::Built;
using search_detail::IndexCache;
using search_detail::ToolItems;
using search_detail::thread_embedder;
using search_detail::kVectorRetry;

namespace {

struct Args {
    std::string query;
    std::size_t top_k = builtin::kDefaultTopK;
};

std::optional<std::int64_t> integer(const json::value& v) {
    if (v.is_int64()) return v.as_int64();
    if (v.is_uint64()) return v.as_uint64() > 1000000 ? std::int64_t(1000001) : static_cast<std::int64_t>(v.as_uint64());
    if (v.is_double()) {
        double d = v.as_double();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 1e6) return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

// The arguments, or the message of a tool error an agent can act on.
std::variant<Args, std::string> parse_args(const json::object& a) {
    Args out;
    for (auto& [key, value] : a) {
        if (key != "query" && key != "top_k" && key != "limit")
            return "Unknown argument '" + std::string(key) + "': coffer__search_tools takes query and top_k (or limit)";
        (void)value;
    }
    auto* q = a.if_contains("query");
    if (!q || !q->is_string()) return std::string("The argument 'query' is required and must be a string");
    std::string_view text = q->as_string();
    if (text.size() > builtin::kMaxQueryBytes)
        return "The argument 'query' is too long (at most " + std::to_string(builtin::kMaxQueryBytes) + " bytes)";
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return std::string("The argument 'query' must not be empty: describe the tool you are looking for");
    out.query = std::string(text);
    std::optional<std::int64_t> k;
    for (const char* key : {"top_k", "limit"}) {
        auto* v = a.if_contains(key);
        if (!v || v->is_null()) continue;
        auto n = integer(*v);
        if (!n || *n < 1 || *n > builtin::kMaxTopK)
            return "The argument '" + std::string(key) + "' must be an integer from 1 to " + std::to_string(builtin::kMaxTopK);
        if (k && *k != *n) return std::string("The arguments 'top_k' and 'limit' disagree; give one of them");
        k = n;
    }
    if (k) out.top_k = static_cast<std::size_t>(*k);
    return out;
}

std::string tool_error(const std::string& message) { return builtin::text_result(message, true); }

IndexCache& cache() {
    static IndexCache c;
    return c;
}

// The one thread tool-search indexes are built on (builds are rare: once per distinct catalog).
boost::asio::thread_pool& indexing() {
    static boost::asio::thread_pool pool(1);
    return pool;
}

// The first line of `s`, at most `max` bytes of it (utf8::clip).
std::string first_line(std::string_view s, std::size_t max) {
    if (auto nl = s.find('\n'); nl != std::string_view::npos) s = s.substr(0, nl);
    return utf8::clip(s, max);
}

// The thread the tools' vectors are made on: apart from the indexing thread, so that embedding a
// large catalog never delays a keyword index another session waits for.
boost::asio::thread_pool& embedding() {
    static boost::asio::thread_pool pool(1);
    return pool;
}

// The thread a hybrid search's request is embedded on (the endpoint's round trip must not hold
// the network thread).
boost::asio::thread_pool& querying() {
    static boost::asio::thread_pool pool(1);
    return pool;
}

// The ranked tools: keyword alone, or fused with the nearest vectors when the index has them and
// the request's own vector could be made.
std::vector<toolsearch::Hit> rank(const Built& b, const Args& args, const std::vector<float>* query_vector) {
    if (!query_vector || !b.vectors) return b.index.query(args.query, args.top_k);
    return toolsearch::fuse(b.index.query(args.query, toolsearch::kFusionDepth),
                            b.vectors->nearest(*query_vector, toolsearch::kFusionDepth), args.top_k,
                            b.hybrid.vector_weight);
}

// When the tools' vectors are missing (a new catalog, or the endpoint failed a while ago), make
// them on the embedding thread; searches meanwhile use the keyword index. A catalog no longer
// cached by then is skipped.
void retry_vectors(const std::shared_ptr<const Built>& built, const toolsearch::HybridSettings& hybrid) {
    if (!IndexCache::wants_vectors(*built, hybrid) || built->retry_posted.exchange(true)) return;
    boost::asio::post(embedding(), [built, hybrid, generation = search_detail::g_generation.load()] {
        if (search_detail::g_generation.load() != generation || !cache().find(built->fingerprint, built->names.size())) return;
        ToolItems items;
        items.tools.reserve(built->names.size());
        for (std::size_t i = 0; i < built->names.size(); ++i) items.tools.emplace_back(built->names[i], built->raw[i]);
        items.instructions = built->instructions;
        try {
            cache().build_and_keep(items, built->fingerprint, hybrid, true, generation);
        } catch (const std::exception& e) {
            core::log::error("coffer__search_tools could not index the tools", {{"error", e.what()}});
        }
    });
}

std::string search_result(const Built& b, const Args& args, const std::vector<toolsearch::Hit>& hits) {
    const std::size_t searched = b.names.size();
    json::array tools;
    std::string text;
    if (hits.empty()) {
        text = "No tool matches \"" + args.query + "\" (" + std::to_string(searched) + " tools searched).";
    } else {
        text = std::to_string(hits.size()) + (hits.size() == 1 ? " tool matches" : " tools match") + " \"" + args.query +
               "\" (" + std::to_string(searched) + " searched), best first:\n";
    }
    std::size_t rank = 0;
    for (auto& h : hits) {
        boost::system::error_code ec;
        auto v = json::parse(b.raw[h.tool], ec);
        json::object o = !ec && v.is_object() ? std::move(v.as_object()) : json::object{};
        auto* d = o.if_contains("description");
        std::string description = d && d->is_string() ? std::string(d->as_string()) : std::string();
        json::value schema = json::object{{"type", "object"}};
        if (auto* s = o.if_contains("inputSchema"); s && s->is_object()) schema = *s;
        double score = std::round(h.score * 10000.0) / 10000.0;
        // Readable: rank, name, score, description, arguments (required ones marked).
        char shown[32];
        std::snprintf(shown, sizeof shown, "%.2f", score);
        text += "\n" + std::to_string(++rank) + ". " + b.names[h.tool] + " (score " + shown + ")";
        if (!description.empty()) text += "\n   " + first_line(description, 300);
        std::string params;
        if (auto* props = schema.as_object().if_contains("properties"); props && props->is_object()) {
            json::array none;
            auto* req = schema.as_object().if_contains("required");
            auto& required = req && req->is_array() ? req->as_array() : none;
            for (auto& [key, _] : props->as_object()) {
                if (!params.empty()) params += ", ";
                params += key;
                if (std::find(required.begin(), required.end(), json::value(key)) != required.end()) params += '*';
            }
        }
        if (!params.empty()) text += "\n   arguments: " + params + " (* required)";
        tools.push_back(json::object{{"name", b.names[h.tool]},
                                     {"description", std::move(description)},
                                     {"inputSchema", std::move(schema)},
                                     {"score", score}});
    }
    return json::serialize(json::object{
        {"content", json::array{json::object{{"type", "text"}, {"text", std::move(text)}}}},
        {"structuredContent", json::object{{"tools", std::move(tools)}, {"total_searched", searched}}},
        {"isError", false}});
}

}  // namespace

// The index this session's last search used, and what its tool lists were then: while every
// visible provider's cached tools/list is the same one (same link, same fetch time), the next
// search reuses the index without gathering, sorting and fingerprinting the lists again.
struct SearchMemo {
    std::string key;
    std::shared_ptr<const Built> built;
};

std::optional<std::string> Builtins::memo_key(Session& s) {
    auto vis = s.visible();
    auto now = std::chrono::steady_clock::now();
    std::string key;
    for (auto* p : vis.list) {
        auto it = s.links_.find(p->uid);
        if (it == s.links_.end() || it->second->closed() || it->second->failed()) return std::nullopt;
        auto& cache = it->second->lists();
        auto c = cache.find("tools/list");
        if (c == cache.end() || now - c->second.at >= s.env_.config.cache_ttl) return std::nullopt;
        key += p->uid;
        key += '\n';
        key += std::to_string(reinterpret_cast<std::uintptr_t>(it->second.get()));
        key += '@';
        key += std::to_string(c->second.at.time_since_epoch().count());
        key += '\n';
    }
    return key;
}

void Builtins::stopping() {
    std::lock_guard lock(search_detail::g_life_mutex);
    ++search_detail::g_generation;
}

void Builtins::call(Session& s, const std::shared_ptr<Exchange>& ex, json::object params) {
    std::string name;
    if (auto* n = params.if_contains("name"); n && n->is_string()) name = std::string(n->as_string());
    bool reply = name == builtin::kChannelReply && !s.channels().empty();
    if (name != builtin::kSearchTools && !reply) {
        s.end_invocation(ex, curation::outcome::unknown, rpc::code::invalid_params);
        return s.fail(ex, rpc::code::invalid_params, "Unknown tool '" + name + "'");
    }
    json::object arguments;
    if (auto* a = params.if_contains("arguments"); a && !a->is_null()) {
        if (!a->is_object()) {
            s.end_invocation(ex, curation::outcome::error, rpc::code::invalid_params);
            return s.fail(ex, rpc::code::invalid_params, "Invalid params: params.arguments must be an object");
        }
        arguments = a->as_object();
    }
    if (reply) return s.channel_reply(ex, arguments);
    auto parsed = parse_args(arguments);
    if (auto* error = std::get_if<std::string>(&parsed)) {
        s.end_invocation(ex, curation::outcome::tool_error, std::nullopt);
        return s.answer(ex, rpc::result(ex->id, bridge::result(ex->version, "tools/call", tool_error(*error))));
    }
    auto args = std::get<Args>(std::move(parsed));
    auto finish = [ex, args](Session& session, const Built& built, const std::vector<float>* query_vector) {
        std::string body;
        try {
            body = search_result(built, args, rank(built, args, query_vector));
        } catch (const std::exception& e) {
            core::log::error("coffer__search_tools failed", {{"error", e.what()}});
            session.end_invocation(ex, curation::outcome::error, rpc::code::internal_error);
            return session.fail(ex, rpc::code::internal_error, "Tool search failed");
        }
        session.end_invocation(ex, curation::outcome::ok, std::nullopt);
        session.answer(ex, rpc::result(ex->id, bridge::result(ex->version, "tools/call", body)));
    };
    auto respond = [ex, args, finish](Session& session, std::shared_ptr<const Built> built) {
        const auto& hybrid = session.env_.config.tool_search;
        retry_vectors(built, hybrid);
        if (!built->vectors || !hybrid.enabled()) return finish(session, *built, nullptr);
        // Hybrid: the request's vector comes from the endpoint, off the network thread; when the
        // endpoint fails the keyword list answers.
        auto now = std::chrono::steady_clock::now().time_since_epoch().count();
        auto failed = search_detail::g_query_failed.load();
        if (failed && now - failed < std::chrono::steady_clock::duration(kVectorRetry).count())
            return finish(session, *built, nullptr);  // the endpoint failed lately: no waiting on it
        boost::asio::post(querying(), [built, args, hybrid, net = session.env_.net, w = session.weak_from_this(), ex,
                                       finish, generation = search_detail::g_generation.load()] {
            std::optional<std::vector<float>> query_vector;
            if (search_detail::g_generation.load() == generation && !w.expired() && !ex->done) {
                try {
                    auto v = thread_embedder(hybrid, std::chrono::seconds(5), 1)->embed({args.query});
                    if (v.size() == 1) query_vector = std::move(v.front());
                    search_detail::g_query_failed = 0;
                } catch (const std::exception& e) {
                    search_detail::g_query_failed = std::chrono::steady_clock::now().time_since_epoch().count();
                    core::log::warn("tool search: embedding the request failed; keyword results only for a minute",
                                    {{"error", e.what()}});
                }
            }
            search_detail::post_back(net, generation, [w, ex, built, query_vector = std::move(query_vector), finish] {
                auto session = w.lock();
                if (!session || ex->done) return;
                finish(*session, *built, query_vector ? &*query_vector : nullptr);
            });
        });
    };
    if (auto key = memo_key(s); key && s.search_memo_ && s.search_memo_->key == *key) {
        // The same tools; their vectors may have arrived since (retry_vectors rebuilt the entry).
        auto& memo = s.search_memo_->built;
        if (!memo->vectors && s.env_.config.tool_search.enabled())
            if (auto newer = cache().find(memo->fingerprint, memo->names.size())) memo = newer;
        return respond(s, memo);
    }
    Catalog::collect(s, "tools/list", [w = s.weak_from_this(), ex, respond](const Catalog::Items& items) {
        auto session = w.lock();
        if (!session || ex->done) return;
        Catalog::Items own;
        own.reserve(items.size());
        for (auto* it : items)
            if (!builtin::is_builtin(it->first)) own.push_back(it);
        // The servers' instructions (a field of their tools), as their providers' lists carried them.
        std::map<std::string, std::string> instructions;
        for (auto& [uid, link] : session->links_) {
            auto& lists = link->lists();
            if (auto l = lists.find("tools/list"); l != lists.end() && !l->second.instructions.empty())
                instructions[link->server()] = l->second.instructions;
        }
        auto fp = IndexCache::fingerprint(own, instructions);
        auto answer = [ex, respond](Session& session, std::shared_ptr<const Built> built) {
            if (!built) {
                session.end_invocation(ex, curation::outcome::error, rpc::code::internal_error);
                return session.fail(ex, rpc::code::internal_error, "Tool search failed");
            }
            if (auto key = memo_key(session))
                session.search_memo_ = std::make_shared<SearchMemo>(SearchMemo{std::move(*key), built});
            else
                session.search_memo_.reset();
            respond(session, std::move(built));
        };
        if (auto hit = cache().find(fp, own.size())) return answer(*session, std::move(hit));
        // A new catalog: index it on the indexing thread, answer back on the network thread.
        auto owned = std::make_shared<ToolItems>();
        owned->tools.reserve(own.size());
        for (auto* it : own) owned->tools.push_back(*it);
        owned->instructions = std::move(instructions);
        boost::asio::post(indexing(), [owned, fp, hybrid = session->env_.config.tool_search, net = session->env_.net,
                                       w = session->weak_from_this(), ex, answer,
                                       generation = search_detail::g_generation.load()] {
            std::shared_ptr<const Built> built;
            try {
                built = cache().build_and_keep(*owned, fp, hybrid, false);
            } catch (const std::exception& e) {
                core::log::error("coffer__search_tools could not index the tools", {{"error", e.what()}});
            }
            search_detail::post_back(net, generation, [w, ex, answer, built] {
                auto session = w.lock();
                if (!session || ex->done) return;
                answer(*session, built);
            });
        });
    });
}

}  // namespace coffer::mcp
