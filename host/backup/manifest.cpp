#include "backup/manifest.hpp"

#include "backup/errors.hpp"
#include "backup/layout.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>

namespace coffer::backup {

namespace json = boost::json;

core::Error io_error(const std::string& what, const std::string& path, int err) {
    return error(core::code::internal, reason::io, what + " " + path + ": " + std::strerror(err),
                 json::object{{"path", path}});
}

std::string_view type_name(Entry::Type t) {
    switch (t) {
        case Entry::Type::file: return "file";
        case Entry::Type::dir: return "dir";
        case Entry::Type::symlink: return "symlink";
    }
    return "file";
}

std::string mode_text(unsigned mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", mode & 0777u);
    return buf;
}

bool is_clean_relative_path(std::string_view p) {
    if (p.empty() || p.size() > 4096 || p.front() == '/' || p.find('\0') != std::string_view::npos) return false;
    std::size_t start = 0;
    for (;;) {
        auto end = p.find('/', start);
        auto part = p.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (part.empty() || part == "." || part == "..") return false;
        if (end == std::string_view::npos) return true;
        start = end + 1;
    }
}

json::object Manifest::to_json() const {
    json::array list;
    for (auto& e : entries) {
        json::object o{{"path", e.path}, {"type", type_name(e.type)}, {"mode", mode_text(e.mode)}};
        if (e.type == Entry::Type::file) {
            o["size"] = e.size;
            o["sha256"] = e.sha256;
        }
        if (e.type == Entry::Type::symlink) o["target"] = e.target;
        list.push_back(std::move(o));
    }
    return json::object{{"format", kFormatName},
                        {"format_version", format_version},
                        {"coffer_version", coffer_version},
                        {"schema_version", schema_version},
                        {"created_at", created_at},
                        {"source_vault", source_vault},
                        {"master_key", master_key},
                        {"entries", std::move(list)}};
}

const Entry* Manifest::find(std::string_view path) const {
    auto it = std::lower_bound(entries.begin(), entries.end(), path,
                               [](const Entry& e, std::string_view p) { return e.path < p; });
    return it != entries.end() && it->path == path ? &*it : nullptr;
}

namespace {

core::Error invalid(std::string message, std::string path = {}) {
    json::object extra;
    if (!path.empty()) extra["path"] = path;
    return error(core::code::bad_request, reason::manifest_invalid, "the backup manifest is invalid: " + message,
                 std::move(extra));
}

const json::value* member(const json::object& o, std::string_view key) { return o.if_contains(key); }

core::Result<std::string> text(const json::object& o, std::string_view key, const std::string& where) {
    auto* v = member(o, key);
    if (!v || !v->is_string()) return invalid(where + "\"" + std::string(key) + "\" must be a string");
    return std::string(v->as_string());
}

core::Result<std::int64_t> integer(const json::object& o, std::string_view key, const std::string& where) {
    auto* v = member(o, key);
    if (v && v->is_int64()) return v->as_int64();
    if (v && v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(INT64_MAX))
        return static_cast<std::int64_t>(v->as_uint64());
    return invalid(where + "\"" + std::string(key) + "\" must be an integer");
}

core::Result<unsigned> parse_mode(const std::string& s, const std::string& path) {
    if (s.size() != 4 || s[0] != '0' || s.find_first_not_of("01234567") != std::string::npos)
        return invalid("mode of \"" + path + "\" must be four octal digits like \"0644\"", path);
    return static_cast<unsigned>(std::stoul(s, nullptr, 8));
}

bool is_hex64(const std::string& s) {
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

core::Result<Entry> parse_entry(const json::value& v, std::size_t index) {
    std::string where = "entries[" + std::to_string(index) + "]: ";
    auto* o = v.if_object();
    if (!o) return invalid(where + "must be an object");
    Entry e;
    auto path = text(*o, "path", where);
    if (!path) return path.error();
    e.path = *path;
    if (!is_clean_relative_path(e.path))
        return invalid(where + "path \"" + e.path + "\" must be relative, without empty, \".\" or \"..\" parts", e.path);
    auto type = text(*o, "type", where);
    if (!type) return type.error();
    if (*type == "file")
        e.type = Entry::Type::file;
    else if (*type == "dir")
        e.type = Entry::Type::dir;
    else if (*type == "symlink")
        e.type = Entry::Type::symlink;
    else
        return invalid(where + "type must be \"file\", \"dir\" or \"symlink\"", e.path);
    auto mode = text(*o, "mode", where);
    if (!mode) return mode.error();
    auto m = parse_mode(*mode, e.path);
    if (!m) return m.error();
    e.mode = *m;
    if (e.type == Entry::Type::file) {
        auto size = integer(*o, "size", where);
        if (!size) return size.error();
        if (*size < 0) return invalid(where + "size must not be negative", e.path);
        e.size = static_cast<std::uint64_t>(*size);
        auto sum = text(*o, "sha256", where);
        if (!sum) return sum.error();
        if (!is_hex64(*sum)) return invalid(where + "sha256 must be 64 lower-case hex digits", e.path);
        e.sha256 = *sum;
    }
    if (e.type == Entry::Type::symlink) {
        auto target = text(*o, "target", where);
        if (!target) return target.error();
        if (target->empty() || target->find('\0') != std::string::npos)
            return invalid(where + "symlink target must be a non-empty string", e.path);
        e.target = *target;
    }
    return e;
}

// The rules a restore relies on, over the whole list.
core::Result<void> check_entries(const std::vector<Entry>& entries, bool master_key) {
    std::map<std::string_view, Entry::Type> by_path;
    for (auto& e : entries)
        if (!by_path.emplace(e.path, e.type).second) return invalid("\"" + e.path + "\" is listed twice", e.path);
    bool has_db = false, has_key = false;
    for (auto& e : entries) {
        auto slash = e.path.find('/');
        std::string_view top = std::string_view(e.path).substr(0, slash);
        if (top == kDatabase || top == kMasterKey) {
            if (slash != std::string::npos || e.type != Entry::Type::file)
                return invalid("\"" + std::string(top) + "\" must be a plain file at the top", e.path);
            (top == kDatabase ? has_db : has_key) = true;
        } else if (is_reserved_entry(top)) {
            return invalid("\"" + e.path + "\" is daemon runtime state or a reserved name; a backup never holds it",
                           e.path);
        }
        // Every parent must be a listed folder: nothing is ever written through a symlink or file.
        for (auto pos = e.path.find('/'); pos != std::string::npos; pos = e.path.find('/', pos + 1)) {
            auto parent = std::string_view(e.path).substr(0, pos);
            auto it = by_path.find(parent);
            if (it == by_path.end() || it->second != Entry::Type::dir)
                return invalid("the parent \"" + std::string(parent) + "\" of \"" + e.path + "\" is not a listed folder",
                               e.path);
        }
    }
    if (!has_db) return invalid("it lists no coffer.db");
    if (has_key != master_key) return invalid("\"master_key\" does not match whether master.key is listed");
    return {};
}

}  // namespace

core::Result<Manifest> Manifest::from_json(const json::value& v) {
    auto* o = v.if_object();
    if (!o) return invalid("it is not a JSON object");
    auto format = text(*o, "format", "");
    if (!format) return format.error();
    if (*format != kFormatName) return invalid("\"format\" is not \"coffer-backup\"");
    Manifest m;
    auto fv = integer(*o, "format_version", "");
    if (!fv) return fv.error();
    if (*fv < 1) return invalid("\"format_version\" must be at least 1");
    if (*fv > kFormatVersion)
        return error(core::code::unsupported, reason::format_too_new,
                     "the backup uses format version " + std::to_string(*fv) + ", newer than this coffer understands (" +
                         std::to_string(kFormatVersion) + "); restore it with the coffer version that made it or newer",
                     json::object{{"format_version", *fv}, {"supported", kFormatVersion}});
    m.format_version = static_cast<int>(*fv);
    for (auto [key, out] : {std::pair{"coffer_version", &m.coffer_version}, std::pair{"created_at", &m.created_at},
                            std::pair{"source_vault", &m.source_vault}}) {
        auto t = text(*o, key, "");
        if (!t) return t.error();
        *out = *t;
    }
    auto sv = integer(*o, "schema_version", "");
    if (!sv) return sv.error();
    if (*sv < 0 || *sv > 1'000'000) return invalid("\"schema_version\" is out of range");
    m.schema_version = static_cast<int>(*sv);
    auto* key = member(*o, "master_key");
    if (!key || !key->is_bool()) return invalid("\"master_key\" must be true or false");
    m.master_key = key->as_bool();
    auto* list = member(*o, "entries");
    if (!list || !list->is_array()) return invalid("\"entries\" must be an array");
    std::size_t i = 0;
    for (auto& item : list->as_array()) {
        auto e = parse_entry(item, i++);
        if (!e) return e.error();
        m.entries.push_back(std::move(e).value());
    }
    std::sort(m.entries.begin(), m.entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
    if (auto r = check_entries(m.entries, m.master_key); !r) return r.error();
    return m;
}

}  // namespace coffer::backup
