#include "support.hpp"

#include "process.hpp"

#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

namespace mcps_test {

std::string upstream_path() { return COFFER_TEST_UPSTREAM; }

std::string stdio_config(const std::vector<std::string>& args, const std::string& extra) {
    json::array a;
    for (auto& s : args) a.push_back(json::value(s));
    json::object o{{"command", upstream_path()}, {"args", a}};
    if (!extra.empty()) {
        auto more = json::parse(extra);
        for (auto& [k, v] : more.as_object()) o[k] = v;
    }
    return json::serialize(o);
}

std::string http_config(const std::string& url, const std::string& extra) {
    json::object o{{"url", url}};
    if (!extra.empty()) {
        auto more = json::parse(extra);
        for (auto& [k, v] : more.as_object()) o[k] = v;
    }
    return json::serialize(o);
}

AsyncCall::AsyncCall(Session& s, std::string_view method, std::string_view params) : call_(std::make_unique<coffer_call>()) {
    coffer_reply r;
    auto st = s.provider->request(s.state, call_.get(), coffer::testing::cstr(method), coffer::testing::cstr(params), &r);
    if (st != COFFER_OK) {
        was_refused_ = true;
        refused_.status = st;
        refused_.message = r.message;
    }
}

AsyncCall::~AsyncCall() {
    if (was_refused_) return;
    std::unique_lock<std::mutex> g(call_->mu);
    if (!call_->cv.wait_for(g, std::chrono::seconds(5), [&] { return call_->done; })) {
        g.release();
        (void)call_.release();
    }
}

bool AsyncCall::done() {
    std::lock_guard<std::mutex> g(call_->mu);
    return call_->done;
}

Result AsyncCall::wait(std::chrono::milliseconds timeout) {
    if (was_refused_) return refused_;
    std::unique_lock<std::mutex> g(call_->mu);
    if (!call_->cv.wait_for(g, timeout, [&] { return call_->done; })) throw std::runtime_error("call timed out in the test");
    Result out;
    out.status = call_->error.empty() ? COFFER_OK : COFFER_E_UNAVAILABLE;
    out.json = call_->result;
    out.details = call_->error;
    return out;
}

std::string tool(const std::string& name, const std::string& args_json, const std::string& meta_json) {
    std::string p = R"({"name":)" + json::serialize(json::string(name)) + R"(,"arguments":)" + args_json;
    if (!meta_json.empty()) p += R"(,"_meta":)" + meta_json;
    return p + "}";
}

std::string text_of(const std::string& result_json) {
    boost::system::error_code ec;
    auto v = json::parse(result_json, ec);
    if (ec) return "<not json: " + result_json + ">";
    try {
        return std::string(v.at("content").at(0).at("text").as_string());
    } catch (...) {
        return "<no text: " + result_json + ">";
    }
}

std::string error_message(const std::string& e) {
    boost::system::error_code ec;
    auto v = json::parse(e, ec);
    if (ec || !v.is_object() || !v.as_object().contains("message")) return "";
    return std::string(v.at("message").as_string());
}

std::string error_reason(const std::string& e) {
    boost::system::error_code ec;
    auto v = json::parse(e, ec);
    if (ec) return "";
    try {
        return std::string(v.at("data").at("reason").as_string());
    } catch (...) {
        return "";
    }
}

long long error_code(const std::string& e) {
    boost::system::error_code ec;
    auto v = json::parse(e, ec);
    if (ec) return 0;
    try {
        return v.at("code").as_int64();
    } catch (...) {
        return 0;
    }
}

std::vector<std::string> notifications(Session& s) {
    std::lock_guard<std::mutex> g(s.session->mu);
    return s.session->notifications;
}

std::vector<json::value> notifications_of(Session& s, std::string_view method) {
    std::vector<json::value> out;
    for (auto& n : notifications(s)) {
        boost::system::error_code ec;
        auto v = json::parse(n, ec);
        if (ec || !v.is_object()) continue;
        auto* m = v.as_object().if_contains("method");
        if (m && m->is_string() && m->get_string() == method) out.push_back(std::move(v));
    }
    return out;
}

std::vector<coffer_session::Req> server_requests(Session& s) {
    std::lock_guard<std::mutex> g(s.session->mu);
    return s.session->requests;
}

bool pid_gone(long pid) { return !coffer::test::pid_alive(static_cast<pid_t>(pid)); }

json::object status_of(FakeHost& host, coffer_instance* inst) {
    auto r = host.status(inst);
    return json::parse(r.json).as_object();
}

HttpUpstream::HttpUpstream(bool legacy, std::vector<std::string> extra_args) : legacy_(legacy) {
    log_ = (dir_ / "upstream.log").string();
    std::vector<std::string> argv{upstream_path(), "--http", "0"};
    if (legacy) argv.push_back("--legacy-sse");
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    pid_ = coffer::test::spawn(argv, {}, log_);
    eventually(
        [&] {
            std::ifstream in(log_);
            std::string word;
            unsigned port = 0;
            if (in >> word >> port && word == "PORT") port_ = static_cast<unsigned short>(port);
            return port_ != 0;
        },
        std::chrono::seconds(10));
    if (!port_) throw std::runtime_error("coffer-test-upstream --http did not report its port");
}

HttpUpstream::~HttpUpstream() {
    if (pid_ > 0) {
        ::kill(static_cast<pid_t>(pid_), SIGKILL);
        coffer::test::wait_pid(static_cast<pid_t>(pid_), std::chrono::seconds(5));
    }
}

std::string HttpUpstream::log() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string HttpUpstream::url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + (legacy_ ? "/sse" : "/mcp");
}

}  // namespace mcps_test
