// What the Forwarder hands the HTTP client for each exchange: a sink that collects the response
// (JSON body or SSE events) and reports back. PostSink: one POST (or a GET resuming its SSE
// stream); GetSink: the session's GET stream; ProbeSink: a status request asking whether the
// daemon is still there. Their bodies are in http_post.cpp, http_get.cpp and liveness.cpp.
#pragma once

#include "shim/forwarder.hpp"
#include "shim/http.hpp"
#include "shim/outbound.hpp"

#include <coffer/sse.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace coffer::shim {

class PostSink : public ResponseSink, public std::enable_shared_from_this<PostSink> {
public:
    PostSink(std::shared_ptr<Forwarder> owner, Outbound m, bool had_session);
    void on_head(const ResponseHead& h) override;
    void on_data(std::string_view bytes) override;
    void on_end(Failure f, const std::string& what) override { owner->post_done(*this, f, what); }

    std::shared_ptr<Forwarder> owner;
    Outbound msg;
    bool had_session;
    std::uint64_t generation;
    ResponseHead head;
    bool sse = false;
    std::string body;
    std::string session_header;
    SseParser parser;
    bool overflow = false;
    bool answered = false;
    bool cancelled = false; // the client cancelled it (stateless era): no error reply
    int resumes = 0;
    std::uint64_t handle = 0;
};

// One finished POST as post_done() and its helpers see it.
struct Forwarder::PostEnd {
    PostSink& s;
    Failure f;
    const std::string& what;
    bool is_request;
    bool internal;  // the shim's own re-initialization
    bool stale;     // the link was lost since it was sent: what it says is about an old session
    bool counted;   // still counted in pending_requests_ (uncount() takes it off once)
};

class GetSink : public ResponseSink {
public:
    GetSink(std::shared_ptr<Forwarder> owner, std::uint64_t serial) : owner(std::move(owner)), serial(serial) {}
    void on_head(const ResponseHead& h) override;
    void on_data(std::string_view bytes) override;
    void on_end(Failure f, const std::string& what) override { owner->get_done(f, what, serial); }

    std::shared_ptr<Forwarder> owner;
    std::uint64_t serial; // which GET stream this is (stop_get() makes older ones irrelevant)
    SseParser parser;
    bool overflow = false;  // an event over the limit: the rest of this stream is dropped
    bool ok = false;
};

class ProbeSink : public ResponseSink {
public:
    explicit ProbeSink(std::shared_ptr<Forwarder> owner) : owner(std::move(owner)), generation(this->owner->generation()) {}
    void on_head(const ResponseHead& h) override { status = h.status; }
    void on_data(std::string_view) override {}
    void on_end(Failure f, const std::string& what) override;

    std::shared_ptr<Forwarder> owner;
    std::uint64_t generation;
    int status = 0;
};

}  // namespace coffer::shim
