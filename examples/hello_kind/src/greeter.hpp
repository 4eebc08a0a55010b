// The "greeter" kind: a resource that says hello to whoever asks, in its configured language.
//
// Config (see kSchema in greeter.cpp):
//   {"language": "en|fr|de|es|ja", "greeting": "Howdy", "punctuation": "!", "repeat": 1..5, "shout": false}
// Actions:
//   greet {"who": "Ada"}  → {"message": "Hello, Ada!", "language": "en", "count": 1}
//   reset {}              → {"greetings_sent": 0, "previous": N}
//   remind {"who": "Ada", "after_ms": 500} → {"scheduled": true, "after_ms": 500}; the greeting is
//                           sent later, on the host's event loop (ABI 1.9), as the event
//                           greeter.reminded — a timer, or a deferred call when after_ms is 0
// Status: {"health": "ok"|"disabled", "enabled", "language", "greetings_sent", "last_greeted",
//          "reminders_pending", "reminders_sent"}
#pragma once

#include <coffer/sdk.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hello {

namespace json = boost::json;
namespace sdk = coffer::sdk;

// The longest rendered greeting word run (greeting × repeat), in characters.
inline constexpr std::size_t kMaxGreetingRun = 60;
// Bounds of the greet action's "who" argument, in characters.
inline constexpr std::size_t kMaxWhoLength = 64;
// The longest delay of the remind action, in milliseconds.
inline constexpr std::int64_t kMaxRemindDelayMs = 600000;

// A greeter's config with defaults applied. Assumes the config already passed the schema.
struct Style {
    std::string language = "en";
    std::string greeting;  // the word itself, e.g. "Hello" (the language's default when not set)
    std::string punctuation = "!";
    std::int64_t repeat = 1;
    bool shout = false;

    static Style from(const json::object& config);
};

// The default greeting word of a language ("en" → "Hello"); empty for an unknown language.
std::string_view default_greeting(std::string_view language);
// Number of Unicode code points in UTF-8 text (what JSON Schema's maxLength counts).
std::size_t utf8_length(std::string_view text);
// "Hello, Ada!", "Hello Hello, Ada!", "こんにちは、Adaさん!", "HELLO, ADA!" …
std::string render(const Style& style, std::string_view who);

// Plugin-wide settings from the host config's section for this plugin (init()).
struct Settings {
    std::string default_who = "world";
};

class GreeterKind : public sdk::Kind {
public:
    // Both references outlive the kind: they are members of the plugin object that owns it.
    GreeterKind(const sdk::Host& host, const Settings& settings) : host_(host), settings_(settings) {}

    std::string name() const override { return "greeter"; }
    std::string schema() const override;
    std::vector<sdk::ActionInfo> actions() const override;
    void validate(const json::object& config, sdk::Validation& v) override;
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override;

private:
    const sdk::Host& host_;
    const Settings& settings_;
};

// Greetings scheduled on the host's loop. The loop's callbacks run on the host's network thread,
// while hooks run on another: everything here is under one lock. Each pending reminder is owned
// by the map until its callback takes it out (or cancel() drops it).
class Reminders {
public:
    explicit Reminders(const sdk::Host& host) : host_(host) {}
    ~Reminders() { cancel(); }
    // Schedules `message` for `who` after `delay_ms` (0: a deferred call). False when the host
    // lends no loop or refused.
    bool schedule(std::string resource, std::string who, std::string message, std::int64_t delay_ms);
    // Ends every pending reminder; none fires after this returns.
    void cancel();
    std::int64_t pending() const;
    std::int64_t sent() const;

private:
    struct Pending {
        Reminders* owner;
        std::string resource, who, message;
    };
    static void fire(void* ctx);

    const sdk::Host& host_;
    mutable std::mutex mu_;
    std::map<Pending*, std::uint64_t> pending_;  // → the loop's id
    std::int64_t sent_ = 0;
};

class GreeterInstance : public sdk::Instance {
public:
    GreeterInstance(const sdk::Host& host, const Settings& settings, const sdk::ResourceInfo& resource);

    void start() override { enabled_ = true; }
    void stop() override {
        enabled_ = false;
        reminders_.cancel();
    }
    json::value status() override;
    json::value action(std::string_view name, const json::object& args) override;
    void remove() override;

private:
    json::value greet(const json::object& args);
    json::value reset();
    json::value remind(const json::object& args);
    void load();
    void save() const;

    const sdk::Host& host_;
    const Settings& settings_;
    bool enabled_;
    std::int64_t sent_ = 0;
    std::string last_greeted_;
    std::filesystem::path state_file_;  // <data_dir>/greeter/<uid>.json; empty without a data dir
    Reminders reminders_{host_};         // last member: cancelled before the others go
};

}  // namespace hello
