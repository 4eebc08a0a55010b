// Aggregation (G-1, G-2, G-8, G-25): a list request fans out to every visible provider (opening
// links lazily), follows each provider's pagination, namespaces every item (rewriting only its
// name or URI member; every other byte is the provider's), caches each provider's list per
// session for the TTL, and answers with the union in a deterministic order, paged by our cursor.
#pragma once

#include "mcp/exchange.hpp"

#include <boost/json/object.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::mcp {

class Session;

class Catalog {
public:
    static void list(Session& session, const std::shared_ptr<Exchange>& ex, const std::string& method,
                     const boost::json::object& params);

    // Every item a list of `method` would hold for this session (upstream items only, no paging):
    // {sort key, raw item} in list order, handed to `done` on the network thread (not called
    // when the session is gone). Used by the built-in tool search.
    using Items = std::vector<const std::pair<std::string, std::string>*>;
    static void collect(Session& session, const std::string& method, std::function<void(const Items&)> done);

    // One provider item namespaced for `server`: {sort key, rewritten raw item}; nothing when the
    // item is malformed or its exposed name would break ^[A-Za-z0-9_-]{1,64}$.
    static std::optional<std::pair<std::string, std::string>> expose(std::string_view method, std::string_view server,
                                                                      std::string_view raw_item);
    // The array member of a list result ("tools", "prompts", "resources", "resourceTemplates").
    static std::string_view items_member(std::string_view method);

    struct Job;  // one list request in flight across providers (catalog.cpp)

private:
    static void run(Session& session, const std::shared_ptr<Job>& job, const std::string& method);
};

}  // namespace coffer::mcp
