// Request framing rules (see framing.hpp). Pure functions over the received fields: no Beast here.
#include "http/framing.hpp"

#include <charconv>
#include <cstdint>

namespace coffer::http {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return true;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// The comma-separated elements of a field value, trimmed; empty elements are kept so that
// "chunked," is not mistaken for "chunked".
std::vector<std::string_view> elements(std::string_view value) {
    std::vector<std::string_view> out;
    for (;;) {
        auto comma = value.find(',');
        out.push_back(trim(value.substr(0, comma)));
        if (comma == std::string_view::npos) return out;
        value.remove_prefix(comma + 1);
    }
}

std::optional<std::uint64_t> length_value(std::string_view s) {
    std::uint64_t v = 0;
    if (s.empty()) return std::nullopt;
    for (char c : s)
        if (c < '0' || c > '9') return std::nullopt;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string quoted(std::string_view s) {
    constexpr std::size_t kShown = 64;
    std::string out = "'";
    out += s.substr(0, kShown);
    if (s.size() > kShown) out += "…";
    return out + "'";
}

}  // namespace

std::optional<std::string> framing_error(const Head& head) {
    int hosts = 0, origins = 0, encodings = 0;
    std::vector<std::string_view> coding;  // every Transfer-Encoding element, all fields in order
    std::string_view raw_coding;
    std::optional<std::uint64_t> length;
    for (auto& [name, value] : head.fields) {
        if (iequals(name, "host")) {
            ++hosts;
        } else if (iequals(name, "origin")) {
            ++origins;
        } else if (iequals(name, "transfer-encoding")) {
            ++encodings;
            raw_coding = value;
            for (auto e : elements(value)) coding.push_back(e);
        } else if (iequals(name, "content-length")) {
            for (auto e : elements(value)) {
                auto v = length_value(e);
                if (!v) return "invalid Content-Length " + quoted(value) + "; send one decimal length";
                if (length && *length != *v)
                    return std::string("conflicting Content-Length values; send exactly one");
                length = v;
            }
        }
    }
    if (hosts > 1) return std::string("more than one Host header; send exactly one");
    if (origins > 1) return std::string("more than one Origin header; send at most one");
    if (encodings == 0) return std::nullopt;
    if (head.version < 11)
        return std::string("Transfer-Encoding is not part of HTTP/1.0; send the body with Content-Length");
    if (length)
        return std::string("a request may not carry both Transfer-Encoding and Content-Length; send one of them");
    if (coding.size() != 1 || !iequals(coding.front(), "chunked"))
        return "unsupported Transfer-Encoding " + (encodings == 1 ? quoted(raw_coding) : std::string("(several fields)")) +
               "; only 'chunked' is accepted";
    return std::nullopt;
}

}  // namespace coffer::http
