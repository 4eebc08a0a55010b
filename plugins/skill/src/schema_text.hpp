// The kind's config schema (schemas/skill.schema.json, embedded at build time).
#pragma once

namespace coffer::plugins::skill {
extern const char* const kSkillSchemaText;
}
