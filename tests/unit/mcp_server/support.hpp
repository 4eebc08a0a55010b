// Helpers for the mcp_server tests: a fake host with the plugin loaded, configs that run
// coffer-test-upstream, asynchronous calls, and process checks.
#pragma once

#include <coffer/testing.hpp>

#include "eventually.hpp"
#include "json_check.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

extern "C" const coffer_plugin* coffer_plugin_entry_v1(uint16_t, uint16_t);

namespace mcps_test {

namespace json = boost::json;
using coffer::testing::FakeHost;
using coffer::testing::Result;
using Session = FakeHost::McpSession;

std::string upstream_path();
// A stdio config running coffer-test-upstream with `args`, plus extra members (JSON object text).
std::string stdio_config(const std::vector<std::string>& args = {}, const std::string& extra = "");
std::string http_config(const std::string& url, const std::string& extra = "");

// A call in flight, for tests that need several at once or cancel one.
class AsyncCall {
public:
    AsyncCall(Session& s, std::string_view method, std::string_view params);
    // A call the provider never completed is leaked rather than freed under it.
    ~AsyncCall();
    // Waits for completion; throws on time-out.
    Result wait(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    bool done();
    coffer_call* handle() { return call_.get(); }

private:
    std::unique_ptr<coffer_call> call_;
    Result refused_;
    bool was_refused_ = false;
};

// tools/call params text.
std::string tool(const std::string& name, const std::string& args_json = "{}", const std::string& meta_json = "");
// The first text content of a tools/call result.
std::string text_of(const std::string& result_json);
// The message / data.reason of a JSON-RPC error text.
std::string error_message(const std::string& error_json);
std::string error_reason(const std::string& error_json);
long long error_code(const std::string& error_json);

std::vector<std::string> notifications(Session& s);
// The notifications the session received with JSON-RPC method `method`, parsed.
std::vector<json::value> notifications_of(Session& s, std::string_view method);
std::vector<coffer_session::Req> server_requests(Session& s);

using coffer::test::eventually;  // tests/support/eventually.hpp
// The process is gone (or a zombie nobody reaps).
bool pid_gone(long pid);

json::object status_of(FakeHost& host, coffer_instance* inst);

// coffer-test-upstream --http in the background; stopped with the object.
class HttpUpstream {
public:
    // `extra_args` go to coffer-test-upstream too (e.g. --require-header NAME=SHA256).
    explicit HttpUpstream(bool legacy = false, std::vector<std::string> extra_args = {});
    ~HttpUpstream();
    unsigned short port() const { return port_; }
    std::string url() const;
    std::string log() const;  // what it wrote to stdout and stderr so far

private:
    long pid_ = -1;
    unsigned short port_ = 0;
    bool legacy_;
    coffer::test::TempDir dir_{"mcps-http"};
    std::string log_;
};

}  // namespace mcps_test
