#include "json_span.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <cstdint>

namespace coffer::mcp_server {

namespace {

class Scanner {
public:
    explicit Scanner(std::string_view t) : t_(t) {}

    bool eof() const { return i_ >= t_.size(); }
    char peek() const { return eof() ? '\0' : t_[i_]; }
    std::size_t pos() const { return i_; }

    void ws() {
        while (!eof() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
    }
    bool eat(char c) {
        ws();
        if (peek() != c) return false;
        ++i_;
        return true;
    }

    // A string at the cursor; its unescaped value goes to *out (when given).
    bool string(std::string* out) {
        if (peek() != '"') return false;
        ++i_;
        while (!eof()) {
            char c = t_[i_++];
            if (c == '"') return true;
            if (c != '\\') {
                if (out) out->push_back(c);
                continue;
            }
            if (eof()) return false;
            char e = t_[i_++];
            if (!out) {
                if (e == 'u') i_ += 4;
                continue;
            }
            switch (e) {
                case '"': out->push_back('"'); break;
                case '\\': out->push_back('\\'); break;
                case '/': out->push_back('/'); break;
                case 'b': out->push_back('\b'); break;
                case 'f': out->push_back('\f'); break;
                case 'n': out->push_back('\n'); break;
                case 'r': out->push_back('\r'); break;
                case 't': out->push_back('\t'); break;
                case 'u': {
                    std::uint32_t cp = 0;
                    if (!hex4(cp)) return false;
                    if (cp >= 0xD800 && cp <= 0xDBFF && i_ + 1 < t_.size() && t_[i_] == '\\' && t_[i_ + 1] == 'u') {
                        std::size_t save = i_;
                        i_ += 2;
                        std::uint32_t lo = 0;
                        if (hex4(lo) && lo >= 0xDC00 && lo <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        else i_ = save;
                    }
                    utf8(cp, *out);
                    break;
                }
                default: return false;
            }
        }
        return false;
    }

    // Skips one value at the cursor.
    bool value() {
        ws();
        char c = peek();
        if (c == '"') return string(nullptr);
        if (c == '{' || c == '[') {
            int depth = 0;
            while (!eof()) {
                char d = t_[i_];
                if (d == '"') {
                    if (!string(nullptr)) return false;
                    continue;
                }
                ++i_;
                if (d == '{' || d == '[') ++depth;
                else if (d == '}' || d == ']') {
                    if (--depth == 0) return true;
                }
            }
            return false;
        }
        std::size_t start = i_;
        while (!eof()) {
            char d = t_[i_];
            if (d == ',' || d == '}' || d == ']' || d == ' ' || d == '\t' || d == '\n' || d == '\r') break;
            ++i_;
        }
        return i_ > start;
    }

private:
    bool hex4(std::uint32_t& cp) {
        if (i_ + 4 > t_.size()) return false;
        for (int k = 0; k < 4; ++k) {
            char h = t_[i_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= static_cast<std::uint32_t>(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= static_cast<std::uint32_t>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= static_cast<std::uint32_t>(h - 'A' + 10);
            else return false;
        }
        return true;
    }
    static void utf8(std::uint32_t cp, std::string& out) {
        if (cp < 0x80) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
    }

    std::string_view t_;
    std::size_t i_ = 0;
};

}  // namespace

namespace {

// A Boost.JSON handler that accepts everything and builds nothing: validation only.
struct NullHandler {
    using ec = boost::system::error_code;
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);
    bool on_document_begin(ec&) { return true; }
    bool on_document_end(ec&) { return true; }
    bool on_object_begin(ec&) { return true; }
    bool on_object_end(std::size_t, ec&) { return true; }
    bool on_array_begin(ec&) { return true; }
    bool on_array_end(std::size_t, ec&) { return true; }
    bool on_key_part(std::string_view, std::size_t, ec&) { return true; }
    bool on_key(std::string_view, std::size_t, ec&) { return true; }
    bool on_string_part(std::string_view, std::size_t, ec&) { return true; }
    bool on_string(std::string_view, std::size_t, ec&) { return true; }
    bool on_number_part(std::string_view, ec&) { return true; }
    bool on_int64(std::int64_t, std::string_view, ec&) { return true; }
    bool on_uint64(std::uint64_t, std::string_view, ec&) { return true; }
    bool on_double(double, std::string_view, ec&) { return true; }
    bool on_bool(bool, ec&) { return true; }
    bool on_null(ec&) { return true; }
    bool on_comment_part(std::string_view, ec&) { return true; }
    bool on_comment(std::string_view, ec&) { return true; }
};

}  // namespace

bool valid_json(std::string_view text) {
    boost::json::basic_parser<NullHandler> p{boost::json::parse_options{}};
    boost::system::error_code ec;
    auto n = p.write_some(false, text.data(), text.size(), ec);
    return !ec && n == text.size() && p.done();
}

std::optional<std::string_view> member_span(std::string_view text, std::string_view key) {
    Scanner s(text);
    if (!s.eat('{')) return std::nullopt;
    s.ws();
    if (s.peek() == '}') return std::nullopt;
    std::string k;
    for (;;) {
        s.ws();
        k.clear();
        if (!s.string(&k)) return std::nullopt;
        if (!s.eat(':')) return std::nullopt;
        s.ws();
        std::size_t start = s.pos();
        if (!s.value()) return std::nullopt;
        if (k == key) return text.substr(start, s.pos() - start);
        if (s.eat(',')) continue;
        return std::nullopt;  // '}' or malformed: not found
    }
}

std::optional<std::vector<std::string_view>> array_elements(std::string_view text) {
    Scanner s(text);
    if (!s.eat('[')) return std::nullopt;
    std::vector<std::string_view> out;
    s.ws();
    if (s.peek() == ']') return out;
    for (;;) {
        s.ws();
        std::size_t start = s.pos();
        if (!s.value()) return std::nullopt;
        out.push_back(text.substr(start, s.pos() - start));
        if (s.eat(',')) continue;
        if (s.eat(']')) return out;
        return std::nullopt;
    }
}

std::string splice(std::string_view text, std::string_view span, std::string_view replacement) {
    auto begin = static_cast<std::size_t>(span.data() - text.data());
    std::string out;
    out.reserve(text.size() - span.size() + replacement.size());
    out.append(text.substr(0, begin)).append(replacement).append(text.substr(begin + span.size()));
    return out;
}

}  // namespace coffer::mcp_server
