// The bundled `skill` plugin: one library, one kind. Name and version must equal skill.plugin.json.
#include "skill_kind.hpp"

namespace coffer::plugins::skill {

class SkillPlugin : public sdk::Plugin {
public:
    SkillPlugin() : kind_(add_kind<SkillKind>(host())) {}
    void init(const json::value&) override { kind_.init(); }

private:
    SkillKind& kind_;
};

}  // namespace coffer::plugins::skill

COFFER_PLUGIN(coffer::plugins::skill::SkillPlugin, "skill", "1.0.0")
