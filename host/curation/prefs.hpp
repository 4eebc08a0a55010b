// The user's capability preferences in memory (G-20…G-22): per server, per type, by capability
// name. Readers (the gateway, on the network thread) take an immutable snapshot of one server;
// writers copy that server's table and publish the copy, so a read never waits for a write.
#pragma once

#include "curation/types.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::curation {

// How a preference came about: the server's auto_enable_new policy when the capability was first
// seen, or a user's choice.
inline constexpr std::string_view kOriginPolicy = "policy";
inline constexpr std::string_view kOriginUser = "user";

struct Entry {
    bool enabled = true;
    std::string origin;            // kOriginPolicy or kOriginUser
    std::int64_t first_seen_ms = 0;  // 0: set by the user before any listing showed it
    std::int64_t updated_ms = 0;
};

// One server's preferences; immutable once published.
struct ServerPrefs {
    std::array<std::map<std::string, Entry, std::less<>>, kTypeCount> by_type;
    const Entry* find(Type t, std::string_view name) const;
    // Known: its flag. Never seen: the server's policy decides.
    bool enabled(Type t, std::string_view name, bool auto_enable) const;
};

struct Row {
    std::string server;
    Type type = Type::tool;
    std::string name;
    Entry entry;
};

class Prefs {
public:
    // Null when the server has no preference at all.
    std::shared_ptr<const ServerPrefs> server(const std::string& name) const;
    bool enabled(const std::string& server, Type t, std::string_view name, bool auto_enable) const;
    // Adds every name not yet known with the policy's decision; returns those names.
    std::vector<std::string> observe(const std::string& server, Type t, const std::vector<std::string>& names,
                                     bool auto_enable, std::int64_t now_ms);
    void put(const Row& row);  // overwrites
    void load(const std::vector<Row>& rows);

private:
    mutable std::mutex mu_;
    std::map<std::string, std::shared_ptr<const ServerPrefs>, std::less<>> servers_;
};

}  // namespace coffer::curation
