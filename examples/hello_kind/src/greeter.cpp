#include "greeter.hpp"

#include <array>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

namespace hello {

namespace {

// The JSON Schema of a greeter's config. The daemon validates every config against it before the
// plugin sees it, so validate() and create() can rely on types, enums and bounds.
constexpr const char* kSchema = R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "greeter",
  "description": "Says hello to whoever asks, in one language.",
  "type": "object",
  "properties": {
    "language": {
      "type": "string",
      "enum": ["en", "fr", "de", "es", "ja"],
      "description": "Language of the greeting."
    },
    "greeting": {
      "type": "string",
      "minLength": 1,
      "maxLength": 40,
      "pattern": "^\\S(.*\\S)?$",
      "description": "Replaces the language's greeting word (\"Howdy\"); one line, no outer spaces."
    },
    "punctuation": {
      "type": "string",
      "enum": ["!", ".", "?"],
      "description": "Ends the greeting. Default \"!\"."
    },
    "repeat": {
      "type": "integer",
      "minimum": 1,
      "maximum": 5,
      "description": "How many times the greeting word is said. Default 1."
    },
    "shout": {
      "type": "boolean",
      "description": "Upper-case the whole greeting. Default false."
    }
  },
  "required": ["language"],
  "additionalProperties": false
})json";

struct Language {
    std::string_view code, word;
};
constexpr std::array<Language, 5> kLanguages{{
    {"en", "Hello"}, {"fr", "Bonjour"}, {"de", "Hallo"}, {"es", "Hola"}, {"ja", "こんにちは"},
}};

std::string upper_ascii(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    return s;
}

std::string string_or(const json::object& o, std::string_view key, std::string fallback) {
    if (auto* v = o.if_contains(key); v && v->is_string()) return std::string(v->as_string());
    return fallback;
}

}  // namespace

// ---- Style ---------------------------------------------------------------------------------

Style Style::from(const json::object& config) {
    Style s;
    s.language = string_or(config, "language", "en");
    s.greeting = string_or(config, "greeting", std::string(default_greeting(s.language)));
    s.punctuation = string_or(config, "punctuation", "!");
    if (auto* r = config.if_contains("repeat"); r && r->is_int64()) s.repeat = r->as_int64();
    if (auto* b = config.if_contains("shout"); b && b->is_bool()) s.shout = b->as_bool();
    return s;
}

std::string_view default_greeting(std::string_view language) {
    for (auto& l : kLanguages)
        if (l.code == language) return l.word;
    return {};
}

std::size_t utf8_length(std::string_view text) {
    std::size_t n = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80) ++n;  // count every byte that is not a continuation byte
    return n;
}

std::string render(const Style& style, std::string_view who) {
    std::string words;
    for (std::int64_t i = 0; i < style.repeat; ++i) {
        if (i) words += ' ';
        words += style.greeting;
    }
    std::string out;
    if (style.language == "ja") {
        out = words + "、" + std::string(who) + "さん" + style.punctuation;
    } else if (style.language == "es" && style.punctuation != ".") {
        // Spanish opens exclamations and questions too: "¡Hola, Ada!", "¿Hola, Ada?"
        out = (style.punctuation == "!" ? "¡" : "¿") + words + ", " + std::string(who) + style.punctuation;
    } else {
        out = words + ", " + std::string(who) + style.punctuation;
    }
    return style.shout ? upper_ascii(std::move(out)) : out;
}

// ---- GreeterKind ---------------------------------------------------------------------------

std::string GreeterKind::schema() const { return kSchema; }

std::vector<sdk::ActionInfo> GreeterKind::actions() const {
    return {
        {"greet", "Greet someone. Args: {\"who\": \"name\"} (1-64 characters, optional)."},
        {"reset", "Reset the greeting counter to zero."},
        {"remind", "Greet someone later, from the host's event loop. Args: {\"who\": \"name\", \"after_ms\": 0-600000}."},
    };
}

// Rules the schema cannot express: they relate two fields to each other. Each problem names the
// field to change as a JSON pointer into the config.
void GreeterKind::validate(const json::object& config, sdk::Validation& v) {
    Style s = Style::from(config);

    if (s.shout && s.language == "ja")
        v.fail("/shout", "language \"ja\" has no letter case; shout must be false");

    std::size_t run = utf8_length(s.greeting) * static_cast<std::size_t>(s.repeat) +
                      static_cast<std::size_t>(s.repeat - 1);
    if (run > kMaxGreetingRun)
        v.fail("/repeat", "\"" + s.greeting + "\" said " + std::to_string(s.repeat) + " times is " +
                              std::to_string(run) + " characters, more than " + std::to_string(kMaxGreetingRun) +
                              "; lower /repeat or shorten /greeting");
}

std::unique_ptr<sdk::Instance> GreeterKind::create(const sdk::ResourceInfo& resource) {
    return std::make_unique<GreeterInstance>(host_, settings_, resource);
}

// ---- GreeterInstance -----------------------------------------------------------------------

GreeterInstance::GreeterInstance(const sdk::Host& host, const Settings& settings, const sdk::ResourceInfo& resource)
    : host_(host), settings_(settings), enabled_(resource.enabled) {
    // The host passes the data dir of this plugin; one small state file per resource keeps the
    // counter across daemon restarts. The uid (not the name) is the stable key.
    if (auto dir = host_.data_dir(); !dir.empty() && !resource.uid.empty())
        state_file_ = std::filesystem::path(dir) / "greeter" / (resource.uid + ".json");
    load();
}

json::value GreeterInstance::status() {
    return json::object{
        {"health", enabled_ ? "ok" : "disabled"},
        {"enabled", enabled_},
        {"language", Style::from(info_.config).language},
        {"greetings_sent", sent_},
        {"last_greeted", last_greeted_.empty() ? json::value(nullptr) : json::value(last_greeted_)},
        {"reminders_pending", reminders_.pending()},
        {"reminders_sent", reminders_.sent()},
    };
}

json::value GreeterInstance::action(std::string_view name, const json::object& args) {
    if (name == "greet") return greet(args);
    if (name == "reset") return reset();
    if (name == "remind") return remind(args);
    return Instance::action(name, args);  // COFFER_E_UNSUPPORTED "unknown action: …"
}

json::value GreeterInstance::greet(const json::object& args) {
    // Arguments are not schema-checked by the host: check them here, with pointers into args.
    sdk::Validation v;
    std::string who = settings_.default_who;
    for (auto& [key, value] : args) {
        if (key != "who") v.fail("/" + std::string(key), "unknown argument; greet takes only \"who\"");
    }
    if (auto* w = args.if_contains("who")) {
        if (!w->is_string()) {
            v.fail("/who", "must be a string");
        } else {
            who = std::string(w->as_string());
            auto n = utf8_length(who);
            if (n == 0 || n > kMaxWhoLength)
                v.fail("/who", "must be 1 to " + std::to_string(kMaxWhoLength) + " characters");
        }
    }
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "invalid arguments for greet", json::object{{"errors", v.errors()}});

    if (!enabled_)
        throw sdk::Error(COFFER_E_UNAVAILABLE, "greeter \"" + info_.name + "\" is disabled; enable it to greet");

    Style style = Style::from(info_.config);
    std::string message = render(style, who);
    ++sent_;
    last_greeted_ = who;
    save();
    host_.emit("greeter.greeted", json::object{{"resource", info_.name}, {"who", who}, {"count", sent_}});
    return json::object{{"message", message}, {"language", style.language}, {"count", sent_}};
}

json::value GreeterInstance::reset() {
    auto previous = sent_;
    sent_ = 0;
    last_greeted_.clear();
    save();
    host_.info("greeter \"" + info_.name + "\" counter reset from " + std::to_string(previous));
    return json::object{{"greetings_sent", 0}, {"previous", previous}};
}

json::value GreeterInstance::remind(const json::object& args) {
    sdk::Validation v;
    std::string who = settings_.default_who;
    std::int64_t after_ms = 0;
    for (auto& [key, value] : args)
        if (key != "who" && key != "after_ms")
            v.fail("/" + std::string(key), "unknown argument; remind takes \"who\" and \"after_ms\"");
    if (auto* w = args.if_contains("who")) {
        if (!w->is_string() || utf8_length(w->as_string()) == 0 || utf8_length(w->as_string()) > kMaxWhoLength)
            v.fail("/who", "must be a string of 1 to " + std::to_string(kMaxWhoLength) + " characters");
        else
            who = std::string(w->as_string());
    }
    if (auto* a = args.if_contains("after_ms")) {
        if (!a->is_int64() || a->as_int64() < 0 || a->as_int64() > kMaxRemindDelayMs)
            v.fail("/after_ms", "must be an integer from 0 to " + std::to_string(kMaxRemindDelayMs));
        else
            after_ms = a->as_int64();
    }
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "invalid arguments for remind", json::object{{"errors", v.errors()}});
    if (!enabled_)
        throw sdk::Error(COFFER_E_UNAVAILABLE, "greeter \"" + info_.name + "\" is disabled; enable it to greet");
    if (!host_.has_loop())
        throw sdk::Error(COFFER_E_UNSUPPORTED, "this host lends plugins no event loop (ABI 1.9 or newer is needed)");
    if (!reminders_.schedule(info_.name, who, render(Style::from(info_.config), who), after_ms))
        throw sdk::Error(COFFER_E_UNAVAILABLE, "the host did not schedule the reminder");
    return json::object{{"scheduled", true}, {"after_ms", after_ms}};
}

// ---- Reminders -----------------------------------------------------------------------------

bool Reminders::schedule(std::string resource, std::string who, std::string message, std::int64_t delay_ms) {
    auto* p = new Pending{this, std::move(resource), std::move(who), std::move(message)};
    std::lock_guard<std::mutex> g(mu_);  // held across the call: the callback cannot run before it is listed
    auto id = delay_ms == 0 ? host_.loop_defer(&Reminders::fire, p)
                            : host_.loop_timer(static_cast<std::uint64_t>(delay_ms), &Reminders::fire, p);
    if (!id) {
        delete p;
        return false;
    }
    pending_.emplace(p, id);
    return true;
}

// On the host's loop thread.
void Reminders::fire(void* ctx) {
    auto* p = static_cast<Pending*>(ctx);
    auto* self = p->owner;
    std::int64_t count = 0;
    {
        std::lock_guard<std::mutex> g(self->mu_);
        if (!self->pending_.erase(p)) return;  // cancel() owns it
        count = ++self->sent_;
    }
    self->host_.emit("greeter.reminded",
                     json::object{{"resource", p->resource}, {"who", p->who}, {"message", p->message}, {"count", count}});
    self->host_.info("greeter \"" + p->resource + "\" reminded " + p->who + ": " + p->message);
    delete p;
}

void Reminders::cancel() {
    std::map<Pending*, std::uint64_t> all;
    {
        std::lock_guard<std::mutex> g(mu_);
        all = pending_;
    }
    // Not under the lock: loop_cancel waits for a callback that is running, which takes it.
    for (auto& [p, id] : all) host_.loop_cancel(id);
    // Whatever is still listed never ran and never will.
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [p, id] : pending_) delete p;
    pending_.clear();
}

std::int64_t Reminders::pending() const {
    std::lock_guard<std::mutex> g(mu_);
    return static_cast<std::int64_t>(pending_.size());
}

std::int64_t Reminders::sent() const {
    std::lock_guard<std::mutex> g(mu_);
    return sent_;
}

void GreeterInstance::remove() {
    // The resource is gone for good: drop its state file too.
    if (state_file_.empty()) return;
    std::error_code ec;
    std::filesystem::remove(state_file_, ec);
}

void GreeterInstance::load() {
    if (state_file_.empty()) return;
    std::ifstream in(state_file_);
    if (!in) return;  // first run
    std::stringstream text;
    text << in.rdbuf();
    boost::system::error_code ec;
    auto v = json::parse(text.str(), ec);
    if (ec || !v.is_object()) {
        host_.warn("greeter state file " + state_file_.string() + " is unreadable; starting from zero");
        return;
    }
    if (auto* n = v.as_object().if_contains("greetings_sent"); n && n->is_int64()) sent_ = n->as_int64();
    last_greeted_ = string_or(v.as_object(), "last_greeted", "");
}

void GreeterInstance::save() const {
    if (state_file_.empty()) return;
    // Write a temp file and rename it over the old one, so a crash never leaves half a file.
    std::error_code ec;
    std::filesystem::create_directories(state_file_.parent_path(), ec);
    auto tmp = state_file_;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << json::serialize(json::object{{"greetings_sent", sent_}, {"last_greeted", last_greeted_}});
        if (!out) {
            host_.warn("cannot write " + tmp.string() + "; the greeting count is kept in memory only");
            return;
        }
    }
    std::filesystem::rename(tmp, state_file_, ec);
    if (ec) host_.warn("cannot replace " + state_file_.string() + ": " + ec.message());
}

}  // namespace hello
