// Bounds on what an import may contain. A skill is a small folder of text and a few scripts or
// assets; these limits stop a hostile or mistaken source (an archive bomb, a home directory given
// by accident) long before it fills the disk.
#pragma once

#include <cstddef>
#include <cstdint>

namespace coffer::plugins::skill {

inline constexpr std::size_t kMaxFiles = 5000;                        // files in one skill
inline constexpr std::uint64_t kMaxTotalBytes = 100ull * 1024 * 1024;  // all files together
inline constexpr std::uint64_t kMaxFileBytes = 50ull * 1024 * 1024;    // one file
inline constexpr std::size_t kMaxDepth = 32;                          // folder nesting
inline constexpr std::size_t kMaxPathBytes = 1024;                    // one relative path
inline constexpr std::size_t kMaxArchiveEntries = 20000;              // entries read from an archive
inline constexpr std::uint64_t kMaxSkillMdBytes = 1024 * 1024;        // SKILL.md itself
inline constexpr std::size_t kMaxFrontmatterBytes = 64 * 1024;        // its YAML frontmatter
inline constexpr std::size_t kMaxYamlDepth = 16;                      // nesting inside the frontmatter

}  // namespace coffer::plugins::skill
