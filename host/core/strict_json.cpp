// Strict JSON parsing: a boost::json::basic_parser handler that builds the value (as
// boost::json::parser does, on a value_stack) and keeps, per open object, the keys seen so far.
#include "core/strict_json.hpp"

#include "core/utf8.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

namespace coffer::core {

namespace json = boost::json;

namespace {

// RFC 6901: "~" is written "~0" and "/" is written "~1".
void append_token(std::string& pointer, std::string_view token) {
    pointer += '/';
    for (char c : token) {
        if (c == '~') pointer += "~0";
        else if (c == '/') pointer += "~1";
        else pointer += c;
    }
}

class Handler {
public:
    static constexpr std::size_t max_object_size = json::object::max_size();
    static constexpr std::size_t max_array_size = json::array::max_size();
    static constexpr std::size_t max_key_size = json::string::max_size();
    static constexpr std::size_t max_string_size = json::string::max_size();

    json::value_stack st;

    // Set when a key repeats: parsing stops there.
    bool duplicate = false;
    std::string duplicate_key;
    std::string duplicate_pointer;
    // Set when a number overflows a double: parsing stops there.
    bool out_of_range = false;

    bool on_document_begin(json::error_code&) { return true; }
    bool on_document_end(json::error_code&) { return true; }

    bool on_object_begin(json::error_code&) {
        frames_.push_back(Frame{true, 0, {}, {}});
        return true;
    }
    bool on_object_end(std::size_t n, json::error_code&) {
        st.push_object(n);
        frames_.pop_back();
        return value_done();
    }
    bool on_array_begin(json::error_code&) {
        frames_.push_back(Frame{false, 0, {}, {}});
        return true;
    }
    bool on_array_end(std::size_t n, json::error_code&) {
        st.push_array(n);
        frames_.pop_back();
        return value_done();
    }

    bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
        key_.append(s.data(), s.size());
        st.push_chars(s);
        return true;
    }
    bool on_key(json::string_view s, std::size_t, json::error_code& ec) {
        key_.append(s.data(), s.size());
        Frame& f = frames_.back();
        if (!f.keys.insert(key_).second) {
            duplicate = true;
            duplicate_key = key_;
            duplicate_pointer = pointer_to(key_);
            ec = boost::system::errc::make_error_code(boost::system::errc::invalid_argument);
            return false;
        }
        f.key = std::move(key_);
        key_.clear();
        st.push_key(s);
        return true;
    }

    bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
        st.push_chars(s);
        return true;
    }
    bool on_string(json::string_view s, std::size_t, json::error_code&) {
        st.push_string(s);
        return value_done();
    }
    bool on_number_part(json::string_view, json::error_code&) { return true; }
    bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
        st.push_int64(i);
        return value_done();
    }
    bool on_uint64(std::uint64_t u, json::string_view, json::error_code&) {
        st.push_uint64(u);
        return value_done();
    }
    bool on_double(double d, json::string_view, json::error_code& ec) {
        if (!std::isfinite(d)) {
            out_of_range = true;
            ec = boost::system::errc::make_error_code(boost::system::errc::result_out_of_range);
            return false;
        }
        st.push_double(d);
        return value_done();
    }
    bool on_bool(bool b, json::error_code&) {
        st.push_bool(b);
        return value_done();
    }
    bool on_null(json::error_code&) {
        st.push_null();
        return value_done();
    }
    bool on_comment_part(json::string_view, json::error_code&) { return true; }
    bool on_comment(json::string_view, json::error_code&) { return true; }

private:
    struct Frame {
        bool object;
        std::size_t index;                  // array: the position of the value being read
        std::string key;                    // object: the key of the value being read
        std::unordered_set<std::string> keys;  // object: every key so far
    };

    bool value_done() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
        return true;
    }

    // The pointer of member `key` of the innermost open object.
    std::string pointer_to(std::string_view key) const {
        std::string p;
        for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
            const Frame& f = frames_[i];
            if (f.object) append_token(p, f.key);
            else append_token(p, std::to_string(f.index));
        }
        append_token(p, key);
        return p;
    }

    std::vector<Frame> frames_;
    std::string key_;  // the key being read (it may arrive in parts)
};

Error problem(std::string_view reason, std::size_t offset, std::string message, json::object extra = {}) {
    json::object details{{"reason", reason}, {"offset", static_cast<std::int64_t>(offset)}};
    for (auto& kv : extra) details[kv.key()] = kv.value();
    return Error::make(code::bad_request, std::move(message), std::move(details));
}

std::string at_byte(std::size_t offset) { return "at byte " + std::to_string(offset); }

}  // namespace

Result<json::value> parse_strict_json(std::string_view text, std::size_t max_depth) {
    if (auto bad = utf8::first_invalid(text); bad != std::string_view::npos)
        return problem(json_problem::invalid_utf8, bad, "not valid UTF-8 " + at_byte(bad));

    json::parse_options opt;
    opt.max_depth = max_depth;
    json::basic_parser<Handler> parser(opt);
    parser.handler().st.reset();
    json::error_code ec;
    std::size_t used = parser.write_some(false, text.data(), text.size(), ec);
    const Handler& h = parser.handler();
    if (h.duplicate)
        return problem(json_problem::duplicate_key, used,
                       "duplicate key \"" + h.duplicate_key + "\" at " + h.duplicate_pointer + " (byte " +
                           std::to_string(used) + "): each key may appear only once in an object",
                       json::object{{"pointer", h.duplicate_pointer}, {"key", h.duplicate_key}});
    if (h.out_of_range)
        return problem(json_problem::number_out_of_range, used,
                       "number out of range " + at_byte(used) + ": it does not fit in a double");
    if (ec == json::error::too_deep)
        return problem(json_problem::too_deep, used,
                       "nested deeper than " + std::to_string(max_depth) + " levels " + at_byte(used));
    if (ec) return problem(json_problem::syntax, used, "syntax error " + at_byte(used) + ": " + ec.message());
    if (used < text.size())
        return problem(json_problem::syntax, used, "syntax error " + at_byte(used) + ": more data after the JSON value");
    return parser.handler().st.release();
}

}  // namespace coffer::core
