// JSON from the command line, parsed strictly (core/strict_json.hpp).
#include "app/json_input.hpp"

#include "app/args.hpp"

#include "core/strict_json.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace coffer::cli {
namespace json = boost::json;

json::value parse_json_argument(std::string_view text, std::string_view what,
                                const std::string& group) {
    // Strict, as the daemon reads it: a key given twice is refused here, before anything is sent.
    auto v = core::parse_strict_json(text);
    if (!v) throw UsageError("invalid JSON in " + std::string(what) + ": " + v.error().message, group);
    return std::move(v).value();
}

namespace {

std::string read_file(const std::string& path, const std::string& group) {
    if (path == "-") {
        return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read --config-file " + path + ": " + std::strerror(errno), group);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

std::optional<json::value> config_argument(const Invocation& inv) {
    auto inline_config = inv.value("config");
    auto file = inv.value("config-file");
    if (inline_config && file)
        throw UsageError("give either --config or --config-file, not both", inv.group);
    if (inline_config) return parse_json_argument(*inline_config, "--config", inv.group);
    if (file) {
        std::string text = read_file(*file, inv.group);
        return parse_json_argument(text, "--config-file " + *file, inv.group);
    }
    return std::nullopt;
}

}  // namespace coffer::cli
