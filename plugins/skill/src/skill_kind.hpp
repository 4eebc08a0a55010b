// The `skill` kind. A resource skill:<name> is a folder in the library ($COFFER_HOME/skills/<name>/)
// delivered, while enabled, into the configured agents' skill folders.
//
// Config: {"source": "<absolute path of a folder or .zip/.tar.gz>", "targets": ["claude_code","codex"]}
//   source   where to import from. On create the skill is imported from it; on a config change
//            that names a different source it is re-imported (action `reimport` re-reads the same
//            one). Without it, create adopts an existing library folder of that name.
//   targets  agents to deliver to (default: all).
// Resource actions: reimport, deliver, verify. Kind actions: verify {repair, deep}, inspect {source, name}.
#pragma once

#include "importer.hpp"

#include <coffer/sdk.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace coffer::plugins::skill {

namespace json = boost::json;
namespace sdk = coffer::sdk;
namespace fs = std::filesystem;

class SkillInstance;

class SkillKind : public sdk::Kind {
public:
    explicit SkillKind(const sdk::Host& host) : host_(host) {}

    // Resolves the folders from the host (called from the plugin's init) and clears leftovers.
    void init();

    std::string name() const override { return "skill"; }
    std::string schema() const override;
    std::vector<sdk::ActionInfo> actions() const override;
    std::vector<sdk::ActionInfo> kind_actions() const override;
    void validate(const json::object& config, sdk::Validation& v) override;
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override;
    json::value kind_action(std::string_view name, const json::object& args) override;

    // For instances.
    const sdk::Host& host() const noexcept { return host_; }
    const Library& library() const { return *library_; }
    fs::path record_path(const std::string& uid) const { return records_ / (uid + ".json"); }
    void attach(SkillInstance* inst);
    void detach(SkillInstance* inst);
    // Completes every disable whose removal was deferred (see SkillInstance::stop).
    void flush_pending();
    // Removes what a skill named `name` with another uid than `uid` left behind: its deliveries,
    // its record and (with `library`) its library folder. Called when a skill of that name is
    // created: the host allows one resource per kind and name, so such a record belongs to a
    // resource that no longer exists — deleted, or never committed, by a daemon that was killed
    // between its database transaction and the plugin's files (the host commits a delete before
    // the plugin removes the files, and a create after the plugin imported them).
    void forget_leftovers(const std::string& name, const std::string& uid, bool library);

private:
    json::value verify_all(bool repair, bool deep);
    json::value inspect(const json::object& args);

    const sdk::Host& host_;
    std::optional<Library> library_;
    fs::path records_;
    std::map<std::string, SkillInstance*> live_;  // by uid
};

// Turns import issues into one COFFER_E_INVALID error whose details carry a JSON pointer per
// issue: `source_pointer` for the source, `name_pointer` for the name.
[[noreturn]] void refuse(const std::string& what, const std::vector<Issue>& issues, const std::string& source_pointer,
                         const std::string& name_pointer);

}  // namespace coffer::plugins::skill
