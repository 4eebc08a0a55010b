// Fact files (see fact.hpp).
#include "fact.hpp"

#include "project.hpp"

#include <random>

namespace coffer::plugins::memory {

namespace {

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> parse_tags(std::string_view v) {
    std::vector<std::string> out;
    auto t = trim(v);
    if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
    std::size_t at = 0;
    while (at <= t.size()) {
        auto comma = t.find(',', at);
        auto part = trim(std::string_view(t).substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (!part.empty()) out.push_back(part);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return out;
}

}  // namespace

std::string new_id() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", static_cast<unsigned>(rng() & 0xffffffffu));
    return buf;
}

bool valid_id(std::string_view id) {
    if (id.size() != 8) return false;
    for (char c : id)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string file_name(const Fact& f) {
    auto words = slug(f.text, 48);
    return (words.empty() ? std::string("fact") : words) + "-" + f.id + ".md";
}

std::string id_from_name(std::string_view name) {
    if (name.size() < 12 || name.substr(name.size() - 3) != ".md") return {};
    auto id = name.substr(name.size() - 11, 8);
    if (name[name.size() - 12] != '-' || !valid_id(id)) return {};
    return std::string(id);
}

std::string tag_problem(std::string_view tag) {
    if (tag.empty() || tag.size() > kMaxTagBytes) return "a tag has 1 to 32 characters";
    for (char c : tag)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
            return "a tag may contain only letters, digits, '.', '_' and '-': '" + std::string(tag) + "'";
    return {};
}

std::string one_line(std::string_view s) {
    std::string out;
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) out += c;
    out = trim(out);
    if (out.size() > 200) out.resize(200);
    return out;
}

std::string render(const Fact& f) {
    std::string tags;
    for (auto& t : f.tags) tags += (tags.empty() ? "" : ", ") + t;
    std::string out = "---\nid: " + f.id + "\ncreated: " + f.created + "\nupdated: " + f.updated + "\ntags: [" + tags + "]\n";
    if (!f.source.empty()) out += "source: " + one_line(f.source) + "\n";
    if (!f.project.empty()) out += "project: " + one_line(f.project) + "\n";
    out += "---\n" + f.text;
    if (out.back() != '\n') out += '\n';
    return out;
}

Fact parse(std::string_view text) {
    Fact f;
    if (text.substr(0, 4) != "---\n") {
        f.text = trim(text);
        return f;
    }
    auto end = text.find("\n---", 3);
    if (end == std::string_view::npos) {
        f.text = trim(text);
        return f;
    }
    auto head = text.substr(4, end - 4 + 1);
    auto body_at = text.find('\n', end + 4);
    f.text = body_at == std::string_view::npos ? std::string() : trim(text.substr(body_at + 1));
    std::size_t at = 0;
    while (at < head.size()) {
        auto nl = head.find('\n', at);
        auto line = head.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
        at = nl == std::string_view::npos ? head.size() : nl + 1;
        auto colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        auto key = trim(line.substr(0, colon));
        auto value = trim(line.substr(colon + 1));
        if (key == "id") f.id = value;
        else if (key == "created") f.created = value;
        else if (key == "updated") f.updated = value;
        else if (key == "tags") f.tags = parse_tags(value);
        else if (key == "source") f.source = value;
        else if (key == "project") f.project = value;
    }
    return f;
}

}  // namespace coffer::plugins::memory
