// Aggregated lists: the fan-out to every visible provider under one deadline, their pages, the
// per-session cache, late lists kept and announced, and the merged, paged answer (catalog.hpp).
#include "mcp/catalog.hpp"

#include "core/log.hpp"
#include "curation/curation.hpp"
#include "mcp/curate.hpp"
#include "mcp/builtin_search.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/session.hpp"

#include <coffer/mcp_instructions.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <functional>

namespace coffer::mcp {

namespace json = boost::json;

namespace {

constexpr int kMaxProviderPages = 100;
constexpr std::string_view kCursorPrefix = "coffer:";

using Job = Catalog::Job;

std::optional<std::size_t> parse_cursor(const json::object& params) {
    auto* c = params.if_contains("cursor");
    if (!c || c->is_null()) return 0;
    if (!c->is_string()) return std::nullopt;
    std::string_view s = c->as_string();
    if (s.substr(0, kCursorPrefix.size()) != kCursorPrefix) return std::nullopt;
    s.remove_prefix(kCursorPrefix.size());
    if (s.empty() || s.size() > 9) return std::nullopt;
    std::size_t n = 0;
    for (char ch : s) {
        if (ch < '0' || ch > '9') return std::nullopt;
        n = n * 10 + static_cast<std::size_t>(ch - '0');
    }
    return n;
}

}  // namespace

struct Catalog::Job : std::enable_shared_from_this<Catalog::Job> {
    std::weak_ptr<Session> session;
    std::shared_ptr<Exchange> ex;
    std::string method;
    std::size_t offset = 0;
    std::vector<std::vector<std::pair<std::string, std::string>>> per;  // per visible provider, in name order
    std::vector<char> listed;                                           // per provider: its answer is in `per`
    std::vector<std::string> instructions;                              // per provider (tools/list)
    std::size_t pending = 0, failed = 0;
    bool finished = false;
    std::unique_ptr<boost::asio::steady_timer> timer;  // the deadline every provider's listing has
    std::size_t page_size = 0;
    long long ttl_ms = 0;
    std::function<void(const std::string& result_body)> respond;
    Visible vis;                                  // the providers, by index as in `per`
    curation::Curation* curator = nullptr;        // hides disabled capabilities (G-20)
    std::function<void(const Catalog::Items&)> collect;  // instead of respond: the whole list
    std::function<void()> announce;  // a provider left out listed late: tell the client to list again
};

std::string_view Catalog::items_member(std::string_view method) {
    if (method == "tools/list") return "tools";
    if (method == "prompts/list") return "prompts";
    if (method == "resources/list") return "resources";
    return "resourceTemplates";
}

std::optional<std::pair<std::string, std::string>> Catalog::expose(std::string_view method, std::string_view server,
                                                                    std::string_view raw_item) {
    bool named = method == "tools/list" || method == "prompts/list";
    std::string_view field = named ? "name" : method == "resources/list" ? "uri" : "uriTemplate";
    auto value = raw::member(raw_item, field);
    if (!value) return std::nullopt;
    auto original = raw::decode_string(*value);
    if (!original || original->empty()) return std::nullopt;
    std::string exposed = named ? names::join(server, *original) : names::prefix_uri(server, *original);
    if (named && !names::valid_exposed(exposed)) return std::nullopt;
    auto rewritten = raw::replace_member(raw_item, field, raw::quote(exposed));
    if (!rewritten) return std::nullopt;
    return std::make_pair(std::move(exposed), std::move(*rewritten));
}

namespace {

// Which providers an answer leaves out for being slow, logged once per answer.
void log_left_out(const Job& job) {
    std::string names;
    std::size_t slow = 0;
    for (std::size_t i = 0; i < job.per.size(); ++i) {
        if (job.listed[i]) continue;
        if (++slow <= 10) names += (names.empty() ? "" : ", ") + job.vis.list[i]->name;
    }
    if (slow > 10) names += ", …";
    if (slow || job.failed)
        core::log::warn("mcp list answered without some servers",
                        {{"method", job.method},
                         {"too_slow", static_cast<std::int64_t>(slow - std::min(slow, job.failed))},
                         {"failed", static_cast<std::int64_t>(job.failed)},
                         {"servers", names}});
}

void finish(const std::shared_ptr<Job>& job) {
    if (job->finished) return;
    job->finished = true;
    if (job->timer) job->timer->cancel();
    // Providers still listing are not cancelled: what they answer later is cached and announced
    // (a cold start may take longer than any client should wait for a list).
    if (job->pending || job->failed) log_left_out(*job);
    auto session = job->session.lock();
    if (!session || session->closed()) return;

    std::vector<const std::pair<std::string, std::string>*> all;
    for (std::size_t i = 0; i < job->per.size(); ++i) {
        curate::Filter shown(job->curator, job->method, *job->vis.list[i]);
        for (auto& it : job->per[i])
            if (shown.keep(it.first)) all.push_back(&it);
    }
    std::stable_sort(all.begin(), all.end(), [](auto* a, auto* b) { return a->first < b->first; });
    all.erase(std::unique(all.begin(), all.end(), [](auto* a, auto* b) { return a->first == b->first; }), all.end());
    if (job->collect) return job->collect(all);
    if (job->method == "tools/list") builtin::add_tools(all, !session->channels().empty());  // coffer__* (G-24), in name order

    std::size_t page = job->page_size ? job->page_size : all.size();
    std::size_t begin = std::min(job->offset, all.size());
    std::size_t end = std::min(all.size(), begin + page);
    std::string body = "{";
    if (is_modern(job->ex->version))
        body += "\"resultType\":\"complete\",\"ttlMs\":" + std::to_string(job->ttl_ms) +
                ",\"cacheScope\":\"private\",";
    body += "\"";
    body += Catalog::items_member(job->method);
    body += "\":[";
    for (std::size_t i = begin; i < end; ++i) {
        if (i > begin) body += ',';
        body += all[i]->second;
    }
    body += ']';
    if (end < all.size()) body += ",\"nextCursor\":\"" + std::string(kCursorPrefix) + std::to_string(end) + "\"";
    body += '}';
    job->respond(body);
}

void provider_done(const std::shared_ptr<Job>& job) {
    if (job->pending > 0 && --job->pending == 0) finish(job);
}

void fetch(const std::shared_ptr<Job>& job, std::size_t index, const std::shared_ptr<Link>& link,
           const std::string& cursor, int page) {
    std::string params = cursor.empty() ? "{}" : json::serialize(json::object{{"cursor", cursor}});
    link->request(job->method, params, {}, [job, index, wl = std::weak_ptr<Link>(link), page](
                                               std::string result, std::string error) {
        auto link = wl.lock();
        if (!link) return provider_done(job);
        auto& items = job->per[index];
        if (!error.empty() || !raw::is_object(result)) {
            // Not cached: the next list asks again (the provider paces its own retries).
            core::log::debug("mcp provider list failed", {{"server", link->server()}, {"method", job->method},
                                                          {"error", error.empty() ? std::string("malformed") : error}});
            if (!job->finished) ++job->failed;
            return provider_done(job);
        }
        if (job->method == "tools/list")
            if (auto text = mcp_instructions::read(result); text && !text->empty()) job->instructions[index] = std::move(*text);
        std::vector<std::string_view> raw_items;
        auto arr = raw::member(result, Catalog::items_member(job->method));
        if (arr && raw::items(*arr, raw_items)) {
            for (auto item : raw_items) {
                if (auto e = Catalog::expose(job->method, link->server(), item)) items.push_back(std::move(*e));
                else
                    core::log::warn("mcp item left out (malformed, or its namespaced name is invalid)",
                                    {{"server", link->server()}, {"method", job->method}});
            }
        }
        auto next = raw::member(result, "nextCursor");
        auto cursor = next ? raw::decode_string(*next) : std::nullopt;
        if (cursor && !cursor->empty() && page + 1 < kMaxProviderPages)
            return fetch(job, index, link, *cursor, page + 1);
        curate::observe(job->curator, job->method, *job->vis.list[index], items);
        link->lists()[job->method] = Link::CachedList{items, std::chrono::steady_clock::now(), job->instructions[index]};
        if (job->finished) {  // too late for that answer: kept for the next one
            core::log::info("mcp late list kept", {{"server", link->server()}, {"method", job->method}});
            if (job->announce) job->announce();
            return;
        }
        job->listed[index] = 1;
        provider_done(job);
    });
}

}  // namespace

void Catalog::list(Session& s, const std::shared_ptr<Exchange>& ex, const std::string& method,
                   const json::object& params) {
    auto offset = parse_cursor(params);
    if (!offset) return s.fail(ex, rpc::code::invalid_params, "Invalid params: unknown cursor");
    auto job = std::make_shared<Job>();
    job->ex = ex;
    job->offset = *offset;
    job->page_size = s.env_.config.page_size;
    job->ttl_ms = static_cast<long long>(s.env_.config.cache_ttl.count());
    job->respond = [w = s.weak_from_this(), ex](const std::string& body) {
        if (auto session = w.lock()) session->answer(ex, rpc::result(ex->id, body));
    };
    // Late providers of one answer are announced together: once per turn of the network thread.
    auto queued = std::make_shared<bool>(false);
    job->announce = [w = s.weak_from_this(), net = s.env_.net, queued, method] {
        if (*queued) return;
        *queued = true;
        boost::asio::post(net, [w, queued, method] {
            *queued = false;
            auto session = w.lock();
            if (!session || session->closed()) return;
            session->notify_list_changed(method == "tools/list"     ? "notifications/tools/list_changed"
                                         : method == "prompts/list" ? "notifications/prompts/list_changed"
                                                                    : "notifications/resources/list_changed");
        });
    };
    run(s, job, method);
}

void Catalog::collect(Session& s, const std::string& method, std::function<void(const Items&)> done) {
    auto job = std::make_shared<Job>();
    job->collect = std::move(done);
    run(s, job, method);
}

void Catalog::run(Session& s, const std::shared_ptr<Job>& job, const std::string& method) {
    job->session = s.weak_from_this();
    job->method = method;
    job->vis = s.visible();
    job->curator = s.env_.curator;
    auto& vis = job->vis;
    job->per.resize(vis.list.size());
    job->listed.assign(vis.list.size(), 0);
    job->instructions.assign(vis.list.size(), std::string());
    auto now = std::chrono::steady_clock::now();
    std::vector<std::pair<std::size_t, std::shared_ptr<Link>>> to_fetch;
    for (std::size_t i = 0; i < vis.list.size(); ++i) {
        std::string error;
        auto link = s.link_for(*vis.list[i], error);
        if (!link) {  // gone since the snapshot; the others still answer
            ++job->failed;
            continue;
        }
        auto& cache = link->lists();
        if (auto it = cache.find(method); it != cache.end() && now - it->second.at < s.env_.config.cache_ttl) {
            job->per[i] = it->second.items;
            job->listed[i] = 1;
            continue;
        }
        to_fetch.emplace_back(i, link);
    }
    if (to_fetch.empty()) return finish(job);
    job->pending = to_fetch.size();
    job->timer = std::make_unique<boost::asio::steady_timer>(s.env_.net, s.env_.config.list_timeout);
    job->timer->async_wait([w = std::weak_ptr<Job>(job)](boost::system::error_code ec) {
        if (ec) return;
        if (auto j = w.lock()) finish(j);
    });
    // Servers that have listed before (curation has seen their capabilities) are asked first: a
    // plugin starts only so many upstreams at once, and those known to work should not wait
    // behind hundreds that may be broken.
    if (job->curator)
        std::stable_partition(to_fetch.begin(), to_fetch.end(), [&](const auto& f) {
            return job->curator->server(vis.list[f.first]->name) != nullptr;
        });
    for (auto& [i, link] : to_fetch) fetch(job, i, link, {}, 0);
}

}  // namespace coffer::mcp
