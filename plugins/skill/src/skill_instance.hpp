// One skill resource: its manifest record, its library copy and its deliveries.
//
// Disabling defers removal: the ABI calls stop() both when a resource is disabled and when the
// daemon shuts down, and delivered skills must stay in the agents' folders while the daemon is
// not running. So stop() only marks the delivery for removal; the next call into the plugin —
// status() right after a disable, remove() on delete, any other hook — completes it, while
// destroy() right after stop() (shutdown) leaves the files. A disabled skill found still
// delivered at the next start is cleaned up in create.
#pragma once

#include "delivery.hpp"
#include "drift.hpp"
#include "record.hpp"

#include <coffer/sdk.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace coffer::plugins::skill {

namespace json = boost::json;
namespace sdk = coffer::sdk;

class SkillKind;

class SkillInstance : public sdk::Instance {
public:
    // Loads the skill's record, or imports it (from config.source, or by adopting the library
    // folder) when the resource is new. Throws sdk::Error on refusal, having written nothing.
    SkillInstance(SkillKind& kind, const sdk::ResourceInfo& resource);
    ~SkillInstance() override;

    void update(const json::object& config) override;
    void rescope() override;
    void start() override;
    void stop() override;
    json::value status() override;
    json::value action(std::string_view name, const json::object& args) override;
    void remove() override;

    const std::string& skill_name() const noexcept { return name_; }
    const std::string& uid() const noexcept { return uid_; }
    bool stop_pending() const noexcept { return stop_pending_; }
    void complete_stop();
    // One skill's entry of the verify report; repairs what it can when `repair`.
    json::object verify(bool repair, bool deep);
    // Names this skill occupies in each target's folder (delivered, or configured while enabled).
    void occupied(std::map<std::string, std::set<std::string>>& by_target) const;

private:
    std::vector<std::string> targets() const;
    std::string config_source(const json::object& config) const;
    // At start: the record names another source than the resource (see the .cpp).
    void reimport_uncommitted(const std::string& source);
    void import_from(const std::string& source, bool replace, const std::string& source_pointer,
                     const std::string& name_pointer);
    // Picks up edits of the library copy: returns false (with `problems`) when it is missing or invalid.
    bool refresh_library(std::vector<std::string>& problems, bool* changed = nullptr);
    // Delivers to every configured target and removes deliveries from targets no longer configured.
    void deliver_all(const char* why);
    // deliver() to `target`'s `dest`, a first delivery recorded before it is put in place.
    DeliverResult deliver_recorded(const std::string& target, const fs::path& root, const fs::path& dest);
    void undeliver_all(const char* why);
    std::string it_delivered_hash(const std::string& target) const;
    json::object target_entry(const std::string& target, bool deep, TargetDrift* drift_out, bool with_extra = true);
    void save();

    SkillKind& kind_;
    std::string uid_, name_;
    Record rec_;
    bool started_ = false;
    bool library_fresh_ = false;  // just imported/checked in this call: start() need not look again
    bool stop_pending_ = false;
    std::map<std::string, std::string> conflicts_;  // target → why
    std::map<std::string, std::string> errors_;     // target → last delivery error
};

}  // namespace coffer::plugins::skill
