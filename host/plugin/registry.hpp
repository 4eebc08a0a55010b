// The plugin registry: discovers manifests in plugin folders, loads plugins, indexes kinds.
#pragma once

#include "plugin/plugin.hpp"

#include <boost/json/array.hpp>

#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

namespace coffer::plugin {

class Registry {
public:
    explicit Registry(HostServices services) : services_(std::move(services)) {}
    ~Registry();

    // Loads every plugin found in `dirs` (in order; the first plugin to claim a name or kind wins).
    void discover(const std::vector<std::filesystem::path>& dirs);

    Kind* find_kind(std::string_view name) const;
    std::vector<Kind*> kinds() const;  // sorted by name
    const std::vector<std::unique_ptr<Plugin>>& plugins() const { return plugins_; }

    boost::json::array describe_plugins() const;  // for GET /api/v1/plugins
    boost::json::array describe_kinds() const;    // for GET /api/v1/kinds

    void shutdown();  // calls each loaded plugin's shutdown once

private:
    void add_refused(const std::filesystem::path& file, std::string name, std::string why);

    HostServices services_;
    std::vector<std::unique_ptr<Plugin>> plugins_;
    bool shut_ = false;
};

}  // namespace coffer::plugin
