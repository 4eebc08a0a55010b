#include "mcp/tasks.hpp"

#include "mcp/link.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/session.hpp"

#include "core/log.hpp"
#include "curation/invocations.hpp"

#include <boost/json.hpp>

namespace coffer::mcp::tasks {

namespace json = boost::json;

std::string expose(std::string_view server, std::string_view task_id) {
    std::string out(server);
    out.append("__").append(task_id);
    return out;
}

std::optional<std::pair<std::string, std::string>> split(std::string_view exposed) {
    auto at = exposed.find("__");  // server names never contain "__"
    if (at == std::string_view::npos || at == 0 || at + 2 >= exposed.size()) return std::nullopt;
    return std::make_pair(std::string(exposed.substr(0, at)), std::string(exposed.substr(at + 2)));
}

namespace {

void expose_member(json::object& o, std::string_view server) {
    if (auto* id = o.if_contains("taskId"); id && id->is_string()) *id = expose(server, id->as_string());
}

}  // namespace

std::string expose_ids(std::string_view server, std::string_view method, std::string_view raw_result) {
    if (raw_result.find("taskId") == std::string_view::npos) return std::string(raw_result);  // the cheap test
    boost::system::error_code ec;
    auto v = json::parse(raw_result, ec);
    if (ec || !v.is_object()) return std::string(raw_result);
    auto& r = v.as_object();
    if (method == "tools/call") {
        if (auto* t = r.if_contains("task"); t && t->is_object()) expose_member(t->as_object(), server);
    } else if (method == "tasks/get" || method == "tasks/cancel") {
        expose_member(r, server);
    } else if (method == "tasks/list") {
        if (auto* list = r.if_contains("tasks"); list && list->is_array())
            for (auto& t : list->as_array())
                if (t.is_object()) expose_member(t.as_object(), server);
    }
    if (auto* meta = r.if_contains("_meta"); meta && meta->is_object())
        if (auto* rel = meta->as_object().if_contains(kRelatedTaskKey); rel && rel->is_object())
            expose_member(rel->as_object(), server);
    return json::serialize(v);
}

std::optional<std::string> created_task(std::string_view raw_result) {
    auto task = raw::member(raw_result, "task");
    if (!task) return std::nullopt;
    auto id = raw::member(*task, "taskId");
    return id ? raw::decode_string(*id) : std::nullopt;
}

}  // namespace coffer::mcp::tasks

namespace coffer::mcp {

namespace json = boost::json;

void Session::route_task(const std::shared_ptr<Exchange>& ex, const std::string& method, const json::object& params) {
    if (method == "tasks/list") return list_tasks(ex);
    auto* id = params.if_contains("taskId");
    if (!id || !id->is_string()) return fail(ex, rpc::code::invalid_params, "Invalid params: params.taskId is required");
    // Only tasks created through this session: the upstream sees one client (Coffer, with one
    // credential), so it cannot keep another session's tasks apart from this one's.
    auto split = tasks::split(id->as_string());
    auto vis = visible();
    auto* p = split && tasks_.count(std::string(id->as_string())) ? vis.find(split->first) : nullptr;
    if (!p)
        return fail(ex, rpc::code::invalid_params,
                    "Unknown task '" + std::string(id->as_string()) + "': no task of that id was created in this session");
    std::string error;
    auto link = link_for(*p, error);
    if (!link) return fail(ex, rpc::code::internal_error, "Server '" + p->name + "' is unavailable: " + error);
    ex->link = link;
    ex->task = Exchange::TaskUse::by_id;
    json::object forwarded = params;
    forwarded["taskId"] = split->second;
    send(ex, *link, method, json::serialize(forwarded));
}

// Every upstream this session created tasks on is asked; the union of this session's tasks is
// answered (an upstream that fails adds nothing).
void Session::list_tasks(const std::shared_ptr<Exchange>& ex) {
    struct Gather {
        std::size_t waiting = 0;
        json::array tasks;
    };
    auto g = std::make_shared<Gather>();
    auto vis = visible();
    std::vector<std::pair<std::shared_ptr<Link>, std::string>> asked;
    std::set<std::string> servers;
    for (auto& t : tasks_)
        if (auto s = tasks::split(t)) servers.insert(s->first);
    for (auto& [uid, link] : links_) {
        bool shown = false;
        for (auto* p : vis.list) shown |= p->uid == uid;
        if (shown && servers.count(link->server())) asked.emplace_back(link, link->server());
    }
    g->waiting = asked.size();
    auto finish = [w = weak_from_this(), ex, g] {
        auto self = w.lock();
        if (!self || ex->done) return;
        self->answer(ex, rpc::result(ex->id, json::serialize(json::object{{"tasks", std::move(g->tasks)}})));
    };
    if (asked.empty()) return finish();
    for (auto& [link, server] : asked)
        link->request("tasks/list", "{}", ex,
                      [g, finish, server = server, w = weak_from_this()](std::string result, std::string error) {
                          auto self = w.lock();
                          if (self && error.empty()) {
                              boost::system::error_code ec;
                              auto v = json::parse(tasks::expose_ids(server, "tasks/list", result), ec);
                              if (!ec && v.is_object())
                                  if (auto* list = v.as_object().if_contains("tasks"); list && list->is_array())
                                      for (auto& t : list->as_array()) {
                                          auto* id = t.is_object() ? t.as_object().if_contains("taskId") : nullptr;
                                          if (id && id->is_string() && self->tasks_.count(std::string(id->as_string())))
                                              g->tasks.push_back(t);
                                      }
                          }
                          if (--g->waiting == 0) finish();
                      });
}

// A tools/call that created a task: exposed to a client that asked for it; for a client that did
// not (the gateway asked, the tool requires tasks), the task's result is fetched and answered
// as the call's. True when the exchange goes on.
bool Session::task_created(const std::shared_ptr<Exchange>& ex, const std::string& result) {
    if (ex->task != Exchange::TaskUse::emulated || !raw::member(result, "task")) return false;
    auto link = ex->link.lock();
    auto id = tasks::created_task(result);
    if (!link || !id) {
        end_invocation(ex, curation::outcome::error, rpc::code::internal_error);
        fail(ex, rpc::code::internal_error, "Server '" + (link ? link->server() : std::string()) +
                                                "' answered with a task that has no id");
        return true;
    }
    ex->upstream_task = *id;
    if (ex->done || ex->cancelled) {  // the client left meanwhile: the task is not wanted
        cancel_upstream_task(ex);
        return true;
    }
    ex->task = Exchange::TaskUse::emulated_result;
    core::log::debug("mcp call runs as a task for a client without tasks", {{"session", id_}, {"server", link->server()}});
    send(ex, *link, "tasks/result", json::serialize(json::object{{"taskId", *id}}));
    return true;
}

void Session::remember_task(const std::string& server, const std::string& result) {
    auto id = tasks::created_task(result);
    if (!id) return;
    constexpr std::size_t kMaxRemembered = 10000;
    if (tasks_.size() >= kMaxRemembered) tasks_.erase(tasks_.begin());
    tasks_.insert(tasks::expose(server, *id));
}

void Session::cancel_upstream_task(const std::shared_ptr<Exchange>& ex) {
    if (ex->upstream_task.empty()) return;
    auto id = std::move(ex->upstream_task);
    ex->upstream_task.clear();
    if (auto link = ex->link.lock())
        link->request("tasks/cancel", json::serialize(json::object{{"taskId", id}}), {}, [](std::string, std::string) {});
}

void Session::task_status(Link& link, json::object params) {
    auto* id = params.if_contains("taskId");
    if (!id || !id->is_string()) return;
    auto exposed = tasks::expose(link.server(), id->as_string());
    if (!tasks_.count(exposed)) return;  // not a task this session's client created (one run for a plain call)
    *id = exposed;
    to_client(nullptr, rpc::notification("notifications/tasks/status", json::serialize(params)));
}

}  // namespace coffer::mcp
