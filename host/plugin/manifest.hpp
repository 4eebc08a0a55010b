// The sidecar manifest `<name>.plugin.json`, readable without loading the library.
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace coffer::plugin {

struct Manifest {
    std::string name;
    std::string version;
    int abi_major = 0;
    int abi_minor = 0;
    std::filesystem::path library;  // absolute (resolved against the manifest's folder)
    std::vector<std::string> kinds;
    std::filesystem::path path;     // the manifest file itself
};

// Parses and checks a manifest; every problem is reported with the field it concerns.
core::Result<Manifest> parse_manifest(const std::filesystem::path& path);
core::Result<Manifest> parse_manifest_text(const std::string& text, const std::filesystem::path& path);

}  // namespace coffer::plugin
