#include "mcp/session.hpp"

#include "curation/invocations.hpp"

#include "core/log.hpp"
#include "mcp/builtin_search.hpp"
#include "mcp/names.hpp"
#include "resource/scope.hpp"

#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;

const resource::Provider* Visible::find(std::string_view server) const {
    for (auto* p : list)
        if (p->name == server) return p;
    return nullptr;
}

Session::Session(Env& env, std::string id, Transport transport, Version version, Identity who)
    : env_(env), id_(std::move(id)), transport_(transport), version_(version), who_(std::move(who)),
      initialized_(transport == Transport::stateless), established_(transport == Transport::local),
      last_used_(std::chrono::steady_clock::now()), idle_(env.net),
      streams_(transport == Transport::streamable ? std::make_shared<Streams>() : nullptr) {}

Session::~Session() {
    for (auto& [uid, link] : links_) {
        link->close("session ended");
        if (env_.link_closed) env_.link_closed(uid);
    }
}

Visible Session::visible() const {
    Visible v;
    v.all = env_.providers.snapshot();
    for (auto& p : *v.all) {
        if (!names::addressable_server(p.name) || builtin::reserved_server(p.name)) continue;  // coffer__* is ours
        if (!resource::in_agent_scope(p.scope, env_.config.machine, who_.agent)) continue;
        v.list.push_back(&p);
    }
    return v;
}

std::shared_ptr<Link> Session::link_for(const resource::Provider& p, std::string& error) {
    if (auto it = links_.find(p.uid); it != links_.end()) {
        if (!it->second->closed() && !it->second->failed()) return it->second;
        auto old = it->second;
        links_.erase(it);
        old->close("replaced");
        if (env_.link_closed) env_.link_closed(p.uid);
    }
    // Re-read it: the snapshot may predate a retirement (the instance must not be used then).
    auto current = env_.providers.find(p.uid);
    if (!current) {
        error = "server '" + p.name + "' is not running";
        return nullptr;
    }
    json::object client{{"name", ""}, {"version", ""}};
    if (auto* n = who_.client_info.if_contains("name")) client["name"] = *n;
    if (auto* v = who_.client_info.if_contains("version")) client["version"] = *v;
    // The instances of the same kind this session may also see (by agent scope), so that a kind
    // can answer for all of them in one call (e.g. one search over every visible knowledge base).
    json::array peers;
    for (const auto* q : visible().list)
        if (q->kind == current->kind) peers.push_back(json::object{{"uid", q->uid}, {"name", q->name}});
    auto info = json::serialize(json::object{{"id", id_},
                                             {"peers", std::move(peers)},
                                             {"agent", who_.agent},
                                             {"cwd", who_.cwd},
                                             {"client", std::move(client)},
                                             {"client_capabilities", who_.capabilities},
                                             {"protocol_version", to_string(version_)}});
    auto link = Link::open(*current, info, env_.net, std::weak_ptr<LinkEvents>(shared_from_this()),
                           env_.gate(current->plugin), env_.handoff);
    core::log::debug("mcp provider session opening", {{"session", id_}, {"server", p.name}});
    if (env_.link_opened) env_.link_opened(p.uid);
    links_[p.uid] = link;
    return link;
}

std::shared_ptr<Exchange> Session::track(rpc::Message& m, std::shared_ptr<ReplyChannel> reply,
                                         const RequestContext& ctx) {
    auto ex = std::make_shared<Exchange>();
    ex->id = m.id;
    ex->key = transport_ == Transport::stateless ? "#" + std::to_string(++seq_) : rpc::id_key(m.id);
    ex->method = m.method;
    ex->version = transport_ == Transport::stateless ? ctx.version : version_;
    ex->reply = std::move(reply);
    ex->log_level = ctx.log_level;
    ex->capabilities = transport_ == Transport::stateless ? ctx.capabilities : who_.capabilities;
    ex->param_headers = ctx.param_headers;
    if (exchanges_.count(ex->key)) {
        ex->reply->answer(rpc::error(m.id, rpc::code::invalid_request,
                                     "Invalid Request: a request with this id is already in progress"),
                          transport_ == Transport::stateless ? 400 : 200);
        return nullptr;
    }
    if (auto* p = m.params.if_object())
        if (auto* meta = p->if_contains("_meta"); meta && meta->is_object())
            if (auto* tp = meta->as_object().if_contains("traceparent"); tp && tp->is_string())
                ex->trace_parent = trace::parse(tp->as_string());
    if (auto* p = m.params.if_object())
        if (auto* meta = p->if_contains("_meta"); meta && meta->is_object())
            if (auto* tok = meta->as_object().if_contains("progressToken"); tok && (tok->is_string() || tok->is_number())) {
                ex->progress_key = rpc::id_key(*tok);
                progress_[ex->progress_key] = ex;
            }
    exchanges_[ex->key] = ex;
    // 2026-07-28: closing the response stream is the cancellation (earlier revisions: it is not).
    if (ctx.peer && is_modern(ex->version))
        ctx.peer->on_disconnect([w = weak_from_this(), wex = std::weak_ptr<Exchange>(ex)] {
            auto s = w.lock();
            auto e = wex.lock();
            if (s && e) s->cancel(e);
        });
    return ex;
}

void Session::untrack(const std::shared_ptr<Exchange>& ex) {
    if (auto it = exchanges_.find(ex->key); it != exchanges_.end() && it->second == ex) exchanges_.erase(it);
    if (!ex->progress_key.empty())
        if (auto it = progress_.find(ex->progress_key); it != progress_.end() && it->second.lock() == ex)
            progress_.erase(it);
    listens_.erase(ex->key);
}

void Session::handle(rpc::Message m, std::shared_ptr<ReplyChannel> reply, RequestContext ctx) {
    if (closed_) {
        if (reply) reply->answer(rpc::error(m.id, rpc::code::server_error, "the session has ended"), 404);
        return;
    }
    if (heard_) established_ = true;  // a second message
    heard_ = true;
    touch();
    switch (m.kind) {
        case rpc::Kind::request:
            if (auto ex = track(m, std::move(reply), ctx)) on_request(ex, m, ctx);
            return;
        case rpc::Kind::notification: return on_notification(m);
        case rpc::Kind::response:
        case rpc::Kind::error_response: return on_response(m);
    }
}

namespace {
// Collects the answers of a batch into one array.
struct BatchState {
    std::size_t waiting = 1;  // one hold, released once every element was dispatched
    std::vector<std::string> answers;
    std::function<void(std::string, int)> done;
    void add(std::string a) {
        answers.push_back(std::move(a));
        release();
    }
    void release() {
        if (--waiting) return;
        if (answers.empty()) return done("", 202);
        std::string body = "[";
        for (std::size_t i = 0; i < answers.size(); ++i) body += (i ? "," : "") + answers[i];
        done(body + "]", 200);
    }
};

class BatchReply final : public ReplyChannel {
public:
    explicit BatchReply(std::shared_ptr<BatchState> s) : s_(std::move(s)) {}
    bool related(const std::string&) override { return false; }
    void answer(const std::string& message, int) override {
        if (!answered_) answered_ = true, s_->add(message);
    }
    void drop() override {
        if (!answered_) answered_ = true, s_->release();
    }

private:
    std::shared_ptr<BatchState> s_;
    bool answered_ = false;
};
}  // namespace

void Session::handle_batch(std::vector<rpc::Entry> entries, std::function<void(std::string, int)> done,
                           RequestContext ctx) {
    auto state = std::make_shared<BatchState>();
    state->done = std::move(done);
    for (auto& e : entries) {
        if (e.error) {
            state->answers.push_back(rpc::error(e.error->id, e.error->code, e.error->message));
            continue;
        }
        if (e.message->kind == rpc::Kind::request && e.message->method == "initialize") {
            state->answers.push_back(rpc::error(e.message->id, rpc::code::invalid_request,
                                                "Invalid Request: initialize must not be part of a batch"));
            continue;
        }
        bool request = e.message->kind == rpc::Kind::request;
        if (request) ++state->waiting;
        handle(std::move(*e.message), request ? std::make_shared<BatchReply>(state) : nullptr, ctx);
    }
    state->release();
}

bool Session::has_stream() const { return stream_ && stream_->connected(); }

void Session::attach_stream(std::shared_ptr<http::Stream> stream, Framing framing) {
    if (stream_) stream_->end();  // a resume of it gets its tail, then ends
    stream_ = streams_ && framing == Framing::sse ? streams_->open() : std::make_shared<EventStream>(0, framing);
    stream_->connect(std::move(stream));
}

void Session::detach_stream(const std::shared_ptr<http::Stream>& stream) {
    if (stream_) stream_->disconnect(stream);
}

bool Session::send(const std::string& message) {
    if (!stream_ || stream_->ended()) return false;
    bool live = stream_->connected();
    if (live || stream_->resumable()) stream_->send(message);
    return live;
}

Resumption Session::resumption() const {
    if (!streams_) return {};
    return Resumption{streams_, version_ >= Version::v2025_11_25};
}

void Session::keepalive() {
    if (has_stream()) stream_->comment();
    for (auto& [key, l] : listens_)
        if (l.ex && l.ex->reply) l.ex->reply->related({});  // an empty message is a keep-alive comment
    auto now = std::chrono::steady_clock::now();
    for (auto it = parked_.begin(); it != parked_.end();) {
        auto& ex = it->second;
        if (!ex->input->waiting && now - ex->input->at > env_.config.input_ttl) {
            core::log::info("mcp input_required expired", {{"session", id_}, {"method", ex->method}});
            if (auto link = ex->link.lock(); link && ex->call) link->cancel(ex->call);
            it = parked_.erase(it);
        } else {
            ++it;
        }
    }
}

void Session::arm_idle() {
    idle_.expires_after(established_ ? env_.config.idle_timeout : env_.config.session_grace);
    idle_.async_wait([w = weak_from_this()](boost::system::error_code ec) {
        if (ec) return;
        auto self = w.lock();
        if (!self || self->closed_) return;
        if (!self->exchanges_.empty()) return self->arm_idle();  // calls in flight keep it alive
        if (!self->established_) {
            core::log::info("mcp session unused after initialize; closing", {{"session", self->id_}});
            return self->close("nothing followed initialize within the grace period");
        }
        core::log::info("mcp session idle; closing", {{"session", self->id_}});
        self->close("idle timeout");
    });
}

void Session::touch() {
    if (closed_) return;
    last_used_ = std::chrono::steady_clock::now();
    arm_idle();
}

void Session::establish() {
    established_ = true;
    touch();
}

bool Session::evictable() const { return !closed_ && exchanges_.empty() && parked_.empty() && !has_stream(); }

void Session::close(std::string_view reason) {
    if (closed_) return;
    auto self = shared_from_this();
    closed_ = true;
    idle_.cancel();
    channel_tap_.reset();  // the channel core keeps what arrives from now on for the next listener
    auto exchanges = std::move(exchanges_);
    exchanges_.clear();
    for (auto& [key, ex] : exchanges) {
        end_invocation(ex, curation::outcome::cancelled, std::nullopt);  // in flight when the session ended
        if (ex->done) continue;
        ex->done = true;
        if (listens_.count(key)) {  // 2026-07-28: a graceful end of the subscription
            json::object r{{"resultType", "complete"},
                           {"_meta", json::object{{"io.modelcontextprotocol/subscriptionId", ex->id}}}};
            ex->reply->answer(rpc::result(ex->id, json::serialize(r)));
        } else {
            ex->reply->answer(rpc::error(ex->id, rpc::code::server_error, "the session ended: " + std::string(reason)));
        }
    }
    listens_.clear();
    parked_.clear();
    outbound_.clear();
    progress_.clear();
    auto links = std::move(links_);
    links_.clear();
    for (auto& [uid, link] : links) {
        link->close(reason);
        if (env_.link_closed) env_.link_closed(uid);
    }
    if (stream_) stream_->end();
    stream_.reset();
    if (streams_) streams_->clear();
    core::log::info("mcp session closed", {{"session", id_}, {"reason", reason}});
    if (env_.closed) env_.closed(id_);
}

void Session::close_provider(const std::string& uid, std::string_view reason) {
    auto it = links_.find(uid);
    if (it == links_.end()) return;
    auto link = it->second;
    links_.erase(it);
    for (auto o = outbound_.begin(); o != outbound_.end();)
        o = o->second.link.lock() == link ? outbound_.erase(o) : std::next(o);
    link->close(reason);
    if (env_.link_closed) env_.link_closed(uid);
}

void Session::invalidate(bool tell_client) {
    for (auto& [uid, link] : links_) link->lists().clear();
    if (tell_client) tell_lists_changed();
}

void Session::tell_lists_changed() {
    if (closed_ || !initialized_) return;
    for (auto* m : {"notifications/tools/list_changed", "notifications/prompts/list_changed",
                    "notifications/resources/list_changed"})
        notify_list_changed(m);
}

}  // namespace coffer::mcp
