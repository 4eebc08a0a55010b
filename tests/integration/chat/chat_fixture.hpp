// Test support for the chat tests: a daemon with an agent whose CLI is coffer-fake-agent, a
// conversation, SSE subscribers, and the fake agent's run log (pid, process group, argv).
#pragma once

#include "daemon_fixture.hpp"
#include "http_stream.hpp"

#include <boost/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace coffer::test {

struct Received {
    std::string type, id;
    boost::json::object data;
};

// One subscriber to a conversation's events.
class Subscriber {
public:
    Subscriber(Daemon& d, const std::string& conversation, const std::string& last_event_id = "");
    // The next event (the initial "state" included); nothing on time-out.
    std::optional<Received> next(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Events up to and including the first of `type` (optionally with data.status == status).
    std::vector<Received> until(const std::string& type, std::chrono::milliseconds timeout = std::chrono::seconds(15));

private:
    std::unique_ptr<HttpStream> s_;
};

struct ChatFixture : StartedDaemon {
    ChatFixture();
    boost::json::value req(const std::string& method, const std::string& target, const std::string& body, int expect);
    // An agent named `name` of `driver` running the fake agent, which logs to log_path().
    void add_agent(const std::string& name, const std::string& driver = "claude_code", const std::string& extra_config = "");
    std::string new_conversation(const std::string& agent);
    boost::json::object send(const std::string& conversation, const std::string& text, int expect = 202);
    boost::json::object show(const std::string& conversation);
    // The fake agent's runs, one object each (pid, pgid, grandchild, cwd, argv).
    std::vector<boost::json::object> runs() const;
    std::string log_path() const { return (dir.path() / "agent-runs.jsonl").string(); }
    std::string workdir() const { return (dir.path() / "work").string(); }
};

// True when no process of the group is left.
bool group_gone(long long pgid);

}  // namespace coffer::test
