// The plugin: one channel-adapter kind, "channel_echo". Everything platform-neutral (pairing, the
// owner gate, commands, chunking, the link to the agent) is the host's; this file only declares
// what the toy platform can do and moves lines.
#include "line_protocol.hpp"
#include "server.hpp"

#include <coffer/sdk.hpp>

namespace channel_echo {

namespace json = boost::json;
namespace sdk = coffer::sdk;

class EchoChannel : public sdk::Instance {
public:
    json::object channel_capabilities() override {
        // Short messages on purpose, so that chunking shows.
        return json::object{{"edit", true},         {"typing", true},      {"typing_ttl_ms", 5000},
                            {"max_text", 200},      {"text_units", "codepoints"}, {"markdown", "plain"},
                            {"threads", false},     {"ingress", "stream"}};
    }
    void channel_start(sdk::Channel channel) override {
        std::int64_t port = 0;
        if (auto* p = info().config.if_contains("port"); p && p->is_int64()) port = p->as_int64();
        std::lock_guard<std::mutex> g(mu_);
        server_.reset();
        server_ = std::make_unique<Server>(static_cast<std::uint16_t>(port), channel);
    }
    void channel_stop() override { reset(); }
    void stop() override { reset(); }
    void channel_send(const json::object& r) override { out("SEND " + field(r, "chat") + " " + field(r, "ref") + " " + escape(field(r, "text"))); }
    void channel_edit(const json::object& r) override { out("EDIT " + field(r, "chat") + " " + field(r, "ref") + " " + escape(field(r, "text"))); }
    void channel_typing(const json::object& r) override { out("TYPING " + field(r, "chat")); }
    json::value status() override {
        std::lock_guard<std::mutex> g(mu_);
        if (!server_) return json::object{{"health", "not receiving: stopped"}};
        return json::object{{"health", "receiving"}, {"port", server_->port()}};
    }

private:
    static std::string field(const json::object& o, const char* key) {
        auto* v = o.if_contains(key);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    }
    void out(std::string line) {
        std::lock_guard<std::mutex> g(mu_);
        if (!server_) throw sdk::Error(COFFER_E_UNAVAILABLE, "the channel is not started");
        server_->broadcast(std::move(line));
    }
    void reset() {
        std::lock_guard<std::mutex> g(mu_);
        server_.reset();
    }
    std::mutex mu_;
    std::unique_ptr<Server> server_;
};

class EchoKind : public sdk::Kind {
public:
    std::string name() const override { return "channel_echo"; }
    std::string schema() const override {
        return R"json({"type":"object","additionalProperties":false,"required":["agent"],"properties":{
            "agent":{"type":"string","minLength":1,"description":"the agent its messages go to"},
            "cwd":{"type":"string","description":"the working folder of its conversations"},
            "port":{"type":"integer","minimum":0,"maximum":65535,"description":"TCP port on 127.0.0.1 (0: any free one, shown in status)"}}})json";
    }
    bool is_channel() const override { return true; }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo&) override { return std::make_unique<EchoChannel>(); }
};

class Plugin : public sdk::Plugin {
public:
    Plugin() { add_kind<EchoKind>(); }
};

}  // namespace channel_echo

COFFER_PLUGIN(channel_echo::Plugin, "channel_echo", "1.0.0")
