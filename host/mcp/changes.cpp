// Session: change notifications (G-8, G-9) — a provider's list_changed drops its cached list and
// reaches the client (the GET / SSE stream, or 2026-07-28 subscriptions/listen streams that
// asked for it); resources/updated with the URI prefixed; subscriptions/listen itself.
#include "mcp/names.hpp"
#include "mcp/session.hpp"

#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;

void Session::notify_list_changed(const std::string& method) {
    if (transport_ != Transport::stateless) {
        send(rpc::notification(method, {}));
        return;
    }
    for (auto& [key, l] : listens_) {
        bool wanted = (method == "notifications/tools/list_changed" && l.tools) ||
                      (method == "notifications/prompts/list_changed" && l.prompts) ||
                      (method == "notifications/resources/list_changed" && l.resources);
        if (!wanted) continue;
        json::object p{{"_meta", json::object{{"io.modelcontextprotocol/subscriptionId", l.ex->id}}}};
        l.ex->reply->related(rpc::notification(method, json::serialize(p)));
    }
}

void Session::list_changed(Link& link, const std::string& method) {
    auto& lists = link.lists();
    if (method == "notifications/tools/list_changed") lists.erase("tools/list");
    else if (method == "notifications/prompts/list_changed") lists.erase("prompts/list");
    else lists.erase("resources/list"), lists.erase("resources/templates/list");
    notify_list_changed(method);
}

void Session::resource_updated(Link& link, json::object params) {
    auto* uri = params.if_contains("uri");
    if (!uri || !uri->is_string()) return;
    auto prefixed = names::prefix_uri(link.server(), uri->as_string());
    params["uri"] = prefixed;
    if (transport_ != Transport::stateless) {
        send(rpc::notification("notifications/resources/updated", json::serialize(params)));
        return;
    }
    for (auto& [key, l] : listens_) {
        if (!l.uris.count(prefixed)) continue;
        json::object p = params;
        p["_meta"] = json::object{{"io.modelcontextprotocol/subscriptionId", l.ex->id}};
        l.ex->reply->related(rpc::notification("notifications/resources/updated", json::serialize(p)));
    }
}

void Session::listen(const std::shared_ptr<Exchange>& ex, const json::object& params) {
    auto* n = params.if_contains("notifications");
    if (!n || !n->is_object())
        return fail(ex, rpc::code::invalid_params, "Invalid params: params.notifications is required", nullptr, 400);
    auto& f = n->as_object();
    auto flag = [&](const char* k) {
        auto* v = f.if_contains(k);
        return v && v->is_bool() && v->as_bool();
    };
    Listen l;
    l.ex = ex;
    l.tools = flag("toolsListChanged");
    l.prompts = flag("promptsListChanged");
    l.resources = flag("resourcesListChanged");
    json::object ack;
    if (l.tools) ack["toolsListChanged"] = true;
    if (l.prompts) ack["promptsListChanged"] = true;
    if (l.resources) ack["resourcesListChanged"] = true;
    if (auto* subs = f.if_contains("resourceSubscriptions"); subs && subs->is_array()) {
        json::array accepted;
        auto vis = visible();
        for (auto& u : subs->as_array()) {
            if (!u.is_string()) continue;
            auto split = names::unprefix_uri(u.as_string());
            auto* p = split ? vis.find(split->server) : nullptr;
            if (!p) continue;
            std::string err;
            auto link = link_for(*p, err);
            if (!link) continue;
            link->request("resources/subscribe", json::serialize(json::object{{"uri", split->name}}), {}, {});
            l.uris.insert(std::string(u.as_string()));
            accepted.push_back(u);
        }
        ack["resourceSubscriptions"] = std::move(accepted);
    }
    json::object p{{"_meta", json::object{{"io.modelcontextprotocol/subscriptionId", ex->id}}},
                   {"notifications", std::move(ack)}};
    if (!ex->reply->related(rpc::notification("notifications/subscriptions/acknowledged", json::serialize(p))))
        return fail(ex, rpc::code::invalid_request,
                    "Invalid Request: subscriptions/listen needs an event stream (Accept: text/event-stream)", nullptr,
                    400);
    listens_[ex->key] = std::move(l);
}

}  // namespace coffer::mcp
