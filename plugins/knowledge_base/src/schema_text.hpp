// The kind's config schema (schemas/knowledge_base.schema.json, embedded at build time).
#pragma once

namespace coffer::plugins::knowledge_base {
extern const char* const kSchemaText;
}
