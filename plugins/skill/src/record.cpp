#include "record.hpp"

#include <coffer/sha256.hpp>

namespace coffer::plugins::skill {

namespace json = boost::json;

std::string tree_hash(const FileMap& files) {
    Sha256 h;
    for (auto& [rel, f] : files) {
        h.update(rel);
        h.update(std::string_view("\0", 1));
        h.update(f.sha256);
        h.update(f.exec ? std::string_view("\0x\n", 3) : std::string_view("\0-\n", 3));
    }
    return h.hex();
}

namespace {

json::object files_json(const FileMap& files) {
    json::object o;
    for (auto& [rel, f] : files)
        o[rel] = json::object{{"sha256", f.sha256},
                              {"size", f.size},
                              {"exec", f.exec},
                              {"sig", json::array{f.stat.mtime_ns, f.stat.ctime_ns, f.stat.ino}}};
    return o;
}

std::string str(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::int64_t num(const json::value& v) {
    if (v.is_int64()) return v.as_int64();
    if (v.is_uint64()) return static_cast<std::int64_t>(v.as_uint64());
    return 0;
}

FileMap files_from(const json::value* v) {
    FileMap out;
    if (!v || !v->is_object()) return out;
    for (auto& kv : v->as_object()) {
        auto* o = kv.value().if_object();
        if (!o) continue;
        FileRecord f;
        f.sha256 = str(*o, "sha256");
        if (auto* s = o->if_contains("size")) f.size = static_cast<std::uint64_t>(num(*s));
        if (auto* e = o->if_contains("exec"); e && e->is_bool()) f.exec = e->as_bool();
        if (auto* s = o->if_contains("sig"); s && s->is_array() && s->as_array().size() == 3) {
            auto& a = s->as_array();
            f.stat.mtime_ns = num(a[0]);
            f.stat.ctime_ns = num(a[1]);
            f.stat.ino = static_cast<std::uint64_t>(num(a[2]));
        }
        f.stat.size = f.size;
        f.stat.exec = f.exec;
        out[std::string(kv.key())] = std::move(f);
    }
    return out;
}

}  // namespace

json::object Record::to_json() const {
    json::object d;
    for (auto& [target, del] : deliveries)
        d[target] = json::object{{"path", del.path},
                                 {"library_hash", del.library_hash},
                                 {"delivered_at", del.delivered_at},
                                 {"files", files_json(del.files)}};
    return json::object{{"version", 1},
                        {"uid", uid},
                        {"name", name},
                        {"source", source},
                        {"imported_at", imported_at},
                        {"library", json::object{{"hash", library_hash}, {"files", files_json(library)}}},
                        {"deliveries", std::move(d)}};
}

std::optional<Record> Record::from_json(const json::value& v) {
    auto* o = v.if_object();
    if (!o) return std::nullopt;
    Record r;
    r.uid = str(*o, "uid");
    r.name = str(*o, "name");
    r.source = str(*o, "source");
    r.imported_at = str(*o, "imported_at");
    if (auto* lib = o->if_contains("library"); lib && lib->is_object()) {
        r.library_hash = str(lib->as_object(), "hash");
        r.library = files_from(lib->as_object().if_contains("files"));
    }
    if (auto* d = o->if_contains("deliveries"); d && d->is_object())
        for (auto& kv : d->as_object()) {
            auto* t = kv.value().if_object();
            if (!t) continue;
            Delivery del;
            del.path = str(*t, "path");
            del.library_hash = str(*t, "library_hash");
            del.delivered_at = str(*t, "delivered_at");
            del.files = files_from(t->if_contains("files"));
            if (!del.path.empty()) r.deliveries[std::string(kv.key())] = std::move(del);
        }
    if (r.uid.empty()) return std::nullopt;
    return r;
}

std::optional<Record> Record::load(const fs::path& file) {
    std::string text;
    try {
        text = fsx::read_file(file, 64ull << 20);
    } catch (...) {
        return std::nullopt;
    }
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec) return std::nullopt;
    return from_json(v);
}

void Record::save(const fs::path& file) const {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    fsx::write_file_atomic(file, json::serialize(to_json()));
}

}  // namespace coffer::plugins::skill
