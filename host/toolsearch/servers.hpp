// Which server a request names. Users name the service they mean ("drop the events table in
// mongo", "who is in my Notion workspace"), and a tool of that server should then come before a
// tool of another server that merely shares a word with the request. A namespaced tool
// ("mongodb__count") belongs to the server before its "__"; the server's name is tokenized like
// any text, and a request names the server when one of its words equals a word of that name or
// shares a prefix of at least kMinPrefix letters with it ("mongo" → "mongodb", "kube" →
// "kubernetes"); two adjacent request words may also spell the name together ("desktop
// commander" → "desktopcommander").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::toolsearch {

class Servers {
public:
    static constexpr std::size_t kMinPrefix = 4;
    static constexpr std::uint32_t kNone = UINT32_MAX;

    // Registers the tool's server (from its namespaced name); call once per tool, in order.
    void add_tool(std::string_view namespaced_name);

    // The servers the request's terms (tokenized) name, as a flag per server.
    std::vector<bool> named(const std::vector<std::string>& terms) const;

    // The tool's server, or kNone for a tool without a "server__" prefix.
    std::uint32_t server_of(std::size_t tool) const { return tool < tool_server_.size() ? tool_server_[tool] : kNone; }
    std::size_t count() const { return names_.size(); }

private:
    void mark(std::string_view candidate, std::vector<bool>& out) const;

    std::vector<std::string> names_;                              // by server id
    std::vector<std::pair<std::string, std::uint32_t>> words_;    // (word of a name, server), sorted
    std::vector<std::uint32_t> tool_server_;
};

}  // namespace coffer::toolsearch
