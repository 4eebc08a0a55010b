// The kind's config schema (schemas/memory.schema.json, embedded at build time).
#pragma once

namespace coffer::plugins::memory {
extern const char* const kSchemaText;
}
