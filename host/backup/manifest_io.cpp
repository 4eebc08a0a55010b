#include "backup/manifest_io.hpp"

#include "backup/errors.hpp"
#include "backup/layout.hpp"
#include "core/files.hpp"

#include <boost/json.hpp>

namespace coffer::backup {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {
constexpr std::size_t kMaxManifestBytes = 256u << 20;
}

core::Result<void> write_manifest(const fs::path& dir, const Manifest& m) {
    auto doc = m.to_json();
    auto entries = std::move(doc["entries"].as_array());
    doc.erase("entries");
    // Readable by people too: the header fields, then one entry per line.
    std::string text = json::serialize(doc);
    text.pop_back();  // the closing brace
    text += ",\"entries\":[\n";
    for (std::size_t i = 0; i < entries.size(); ++i)
        text += "  " + json::serialize(entries[i]) + (i + 1 < entries.size() ? ",\n" : "\n");
    text += "]}\n";
    return core::write_file_atomic(dir / kManifest, text, 0600);
}

core::Result<Manifest> read_manifest(const fs::path& dir) {
    auto path = dir / kManifest;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return error(core::code::not_found, reason::manifest_missing,
                     path.string() + " does not exist, so " + dir.string() +
                         " is not a complete coffer backup (the manifest is written last)",
                     json::object{{"path", path.string()}});
    auto size = fs::file_size(path, ec);
    if (ec || size > kMaxManifestBytes)
        return error(core::code::bad_request, reason::manifest_invalid, "the backup manifest " + path.string() +
                                                                            " cannot be read or is too large");
    auto text = core::read_file(path);
    if (!text) return error(core::code::bad_request, reason::manifest_invalid, "cannot read " + path.string());
    json::parse_options opt;
    opt.max_depth = 16;
    boost::system::error_code jec;
    auto v = json::parse(*text, jec, {}, opt);
    if (jec)
        return error(core::code::bad_request, reason::manifest_invalid,
                     "the backup manifest " + path.string() + " is not valid JSON: " + jec.message());
    return Manifest::from_json(v);
}

}  // namespace coffer::backup
