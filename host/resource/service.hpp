// The resource framework (R-1…R-8): every lifecycle operation validates, writes the change and
// its audit event in one transaction, then drives the plugin instance. Not thread-safe: the
// daemon calls it from its single service thread.
#pragma once

#include "plugin/registry.hpp"
#include "resource/instances.hpp"
#include "resource/model.hpp"
#include "store/database.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace coffer::resource {

class Service {
public:
    Service(store::Database& db, plugin::Registry& registry, std::string machine);

    // Creates live instances for stored resources (at start).
    void start_all();
    void stop_all();

    core::Result<boost::json::object> create(const boost::json::value& body, Actor actor);
    core::Result<boost::json::array> list(std::optional<std::string> kind, bool include_out_of_scope);
    // The same list as the JSON text of {"resources": list}, written straight from the store
    // (the REST listing: a thousand resources without parsing and re-serializing their configs).
    core::Result<std::string> list_document(std::optional<std::string> kind, bool include_out_of_scope);
    core::Result<boost::json::object> show(const std::string& kind, const std::string& name);
    core::Result<boost::json::object> update(const std::string& kind, const std::string& name,
                                             const boost::json::value& body, Actor actor);
    core::Result<boost::json::object> set_enabled(const std::string& kind, const std::string& name, bool enabled,
                                                  Actor actor);
    core::Result<boost::json::object> remove(const std::string& kind, const std::string& name, Actor actor);
    core::Result<boost::json::value> action(const std::string& kind, const std::string& name, const std::string& action,
                                            const boost::json::value& args, Actor actor);

    // A kind-level action (not tied to one resource), e.g. skill verify.
    core::Result<boost::json::value> kind_action(const std::string& kind, const std::string& action,
                                                 const boost::json::value& args, Actor actor);

    const std::string& machine() const { return machine_; }
    // The started instances that contribute to the MCP gateway (thread-safe).
    Providers& providers() { return instances_.providers(); }
    // The started instances that are agents (thread-safe).
    Agents& agents() { return instances_.agents(); }
    // The started instances that are channel adapters (ABI 1.6).
    Channels& channels() { return instances_.channels(); }

private:
    core::Result<Resource> load(const std::string& kind, const std::string& name);
    core::Result<plugin::Kind*> kind_of(const std::string& kind);
    core::Result<void> validate_config(plugin::Kind& kind, const boost::json::object& config);
    bool in_scope(const Resource& r) const;
    // How a listing shows a resource with this scope: left out (nullopt), or listed and whether it
    // is in this machine's scope (false is shown as "in_scope": false).
    std::optional<bool> listed(const boost::json::array& scope, bool include_out_of_scope) const;

    store::Database& db_;
    plugin::Registry& registry_;
    std::string machine_;
    Instances instances_;
};

}  // namespace coffer::resource
