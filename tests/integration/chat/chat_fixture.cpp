#include "chat_fixture.hpp"

#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace coffer::test {

namespace json = boost::json;

Subscriber::Subscriber(Daemon& d, const std::string& conversation, const std::string& last_event_id) {
    std::map<std::string, std::string> h{{"X-Coffer-Token", d.token()}, {"Host", "127.0.0.1"}};
    if (!last_event_id.empty()) h["Last-Event-ID"] = last_event_id;
    s_ = std::make_unique<HttpStream>(d.port(), "GET", "/api/v1/conversations/" + conversation + "/events", "", h);
    BOOST_REQUIRE(s_->read_head());
    BOOST_REQUIRE_EQUAL(s_->status(), 200);
    BOOST_REQUIRE(s_->is_event_stream());
}

std::optional<Received> Subscriber::next(std::chrono::milliseconds timeout) {
    auto e = s_->next_event(timeout);
    if (!e) return std::nullopt;
    Received r{e->event, e->id, {}};
    boost::system::error_code ec;
    auto v = json::parse(e->data, ec);
    BOOST_REQUIRE_MESSAGE(!ec && v.is_object(), "event data is a JSON object: " << e->data);
    r.data = v.as_object();
    BOOST_TEST(std::string(r.data.at("type").as_string()) == r.type);
    return r;
}

std::vector<Received> Subscriber::until(const std::string& type, std::chrono::milliseconds timeout) {
    std::vector<Received> out;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        auto e = next(left);
        if (!e) break;
        out.push_back(*e);
        if (e->type == type) return out;
    }
    BOOST_FAIL("no '" + type + "' event within the time-out (" + std::to_string(out.size()) + " events before)");
    return out;
}

ChatFixture::ChatFixture() : StartedDaemon({}, {{"COFFER_CHAT_HEARTBEAT_MS", "200"}}) {
    std::filesystem::create_directories(workdir());
}

json::value ChatFixture::req(const std::string& method, const std::string& target, const std::string& body, int expect) {
    int status = 0;
    auto v = d.call_json(method, target, body, &status);
    BOOST_TEST(status == expect, method << " " << target << " -> " << status << " " << json::serialize(v));
    return v;
}

void ChatFixture::add_agent(const std::string& name, const std::string& driver, const std::string& extra_config) {
    json::object config{{"command", COFFER_FAKE_AGENT}, {"env", json::object{{"FAKE_AGENT_LOG", log_path()}}}};
    if (!extra_config.empty()) {
        auto extra = json::parse(extra_config);
        for (auto& kv : extra.as_object()) config[kv.key()] = kv.value();
    }
    req("POST", "/api/v1/agents",
        json::serialize(json::object{{"name", name}, {"driver", driver}, {"config", std::move(config)}}), 201);
}

std::string ChatFixture::new_conversation(const std::string& agent) {
    auto v = req("POST", "/api/v1/conversations",
                 json::serialize(json::object{{"agent", agent}, {"cwd", workdir()}}), 201);
    return std::string(v.at("conversation").at("id").as_string());
}

json::object ChatFixture::send(const std::string& conversation, const std::string& text, int expect) {
    auto v = req("POST", "/api/v1/conversations/" + conversation + "/messages",
                 json::serialize(json::object{{"text", text}}), expect);
    return v.is_object() ? v.as_object() : json::object{};
}

json::object ChatFixture::show(const std::string& conversation) {
    return req("GET", "/api/v1/conversations/" + conversation, "", 200).at("conversation").as_object();
}

std::vector<json::object> ChatFixture::runs() const {
    std::vector<json::object> out;
    std::ifstream in(log_path());
    std::string line;
    while (std::getline(in, line))
        if (!line.empty()) out.push_back(json::parse(line).as_object());
    return out;
}

// No live member: kill(-pgid, 0) finds none, or every member /proc lists is a zombie (exited;
// its reaper, whoever adopted it, may not have collected it yet).
bool group_gone(long long pgid) {
    if (::kill(-static_cast<pid_t>(pgid), 0) != 0 && errno == ESRCH) return true;
    for (auto& e : std::filesystem::directory_iterator("/proc")) {
        std::ifstream in(e.path() / "stat");
        std::string line;
        if (!std::getline(in, line)) continue;
        auto close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 2));
        std::string state;
        long long ppid = 0, pgrp = 0;
        rest >> state >> ppid >> pgrp;
        if (pgrp == pgid && state != "Z" && state != "X") return false;
    }
    return true;
}

}  // namespace coffer::test
