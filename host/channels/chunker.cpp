#include "channels/chunker.hpp"

#include <coffer/utf8.hpp>

#include <algorithm>

namespace coffer::channels {

namespace {

// The length of the character at s[at] in bytes (1 for a byte that is not UTF-8) and in units.
std::pair<std::size_t, std::size_t> step(std::string_view s, std::size_t at, Units u) {
    auto n = utf8::sequence_length(s, at);
    if (n == 0) return {1, 1};
    if (u == Units::bytes) return {n, n};
    if (u == Units::utf16) return {n, n == 4 ? 2u : 1u};
    return {n, 1};
}

// "```" or "~~~" (or longer) when the line opens or closes a fenced block; empty otherwise.
std::string fence_marker(std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && i < 3 && line[i] == ' ') ++i;
    if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return {};
    char c = line[i];
    std::size_t j = i;
    while (j < line.size() && line[j] == c) ++j;
    if (j - i < 3) return {};
    return std::string(j - i, c);
}

class Splitter {
public:
    Splitter(std::size_t max, Units u) : max_(std::max<std::size_t>(max, 64)), u_(u) {}

    void line(std::string_view l) {
        auto marker = fence_marker(l);
        bool opens = !marker.empty() && fence_.empty();
        bool closes = !marker.empty() && !fence_.empty() && marker.size() >= fence_marker_.size() &&
                      marker[0] == fence_marker_[0];
        for (;;) {
            bool open_after = opens || (!fence_.empty() && !closes);
            std::string marker_after = opens ? marker : fence_marker_;
            std::size_t reserve = open_after ? measure("\n" + marker_after + "\n", u_) : 0;
            auto units = measure(l, u_);
            if (units_ + units + reserve <= max_) {
                append(l, units);
                if (opens) fence_ = std::string(l) + (l.empty() || l.back() != '\n' ? "\n" : ""), fence_marker_ = marker;
                if (closes) fence_.clear(), fence_marker_.clear();
                if (fence_.empty() && (l == "\n" || l.empty())) breaks_.push_back(cur_.size());
                return;
            }
            if (units_ <= header_units_) {
                // Nothing but a reopened fence in this chunk and still too long: cut the line.
                auto room = max_ > units_ + reserve ? max_ - units_ - reserve : 1;
                auto cut = prefix(l, room);
                append(l.substr(0, cut), measure(l.substr(0, cut), u_));
                l.remove_prefix(cut);
                flush(false);
                continue;
            }
            flush(true);
        }
    }

    std::vector<std::string> finish() {
        if (units_ > header_units_ || out_.empty()) flush(false);
        std::vector<std::string> kept;
        for (auto& c : out_) {
            while (!c.empty() && (c.back() == '\n' || c.back() == ' ')) c.pop_back();
            if (!c.empty()) kept.push_back(std::move(c));
        }
        return kept;
    }

private:
    void append(std::string_view s, std::size_t units) {
        cur_ += s;
        units_ += units;
    }

    // Bytes of the longest prefix of `l` within `room` units, ending after a space when one is in
    // its second half; at least one character.
    std::size_t prefix(std::string_view l, std::size_t room) {
        std::size_t at = 0, used = 0, space = 0;
        while (at < l.size()) {
            auto [bytes, units] = step(l, at, u_);
            if (used + units > room) break;
            at += bytes;
            used += units;
            if (l[at - 1] == ' ') space = at;
        }
        if (at == 0) at = step(l, 0, u_).first;
        if (space > at / 2 && at < l.size()) at = space;
        return at;
    }

    void flush(bool prefer_paragraph) {
        std::string carry;
        if (prefer_paragraph && fence_.empty() && !breaks_.empty() && breaks_.back() >= cur_.size() / 2 &&
            breaks_.back() < cur_.size()) {
            carry = cur_.substr(breaks_.back());
            cur_.resize(breaks_.back());
        }
        if (!fence_.empty()) {
            if (!cur_.empty() && cur_.back() != '\n') cur_ += '\n';
            cur_ += fence_marker_ + "\n";
        }
        out_.push_back(std::move(cur_));
        cur_ = fence_;  // reopen the block (with its language) in the next message
        units_ = header_units_ = measure(cur_, u_);
        breaks_.clear();
        if (!carry.empty()) append(carry, measure(carry, u_));
    }

    std::size_t max_;
    Units u_;
    std::string cur_;
    std::size_t units_ = 0, header_units_ = 0;
    std::string fence_, fence_marker_;  // the open block's first line and marker
    std::vector<std::size_t> breaks_;   // byte offsets in cur_ just after a blank line outside a block
    std::vector<std::string> out_;
};

}  // namespace

Units units_from(std::string_view name) {
    if (name == "utf16") return Units::utf16;
    if (name == "bytes") return Units::bytes;
    return Units::codepoints;
}

std::size_t measure(std::string_view s, Units u) {
    if (u == Units::bytes) return s.size();
    std::size_t n = 0;
    for (std::size_t at = 0; at < s.size();) {
        auto [bytes, units] = step(s, at, u);
        at += bytes;
        n += units;
    }
    return n;
}

std::vector<std::string> chunk(std::string_view text, std::size_t max_units, Units u) {
    if (measure(text, u) <= std::max<std::size_t>(max_units, 64)) return {std::string(text)};
    Splitter s(max_units, u);
    while (!text.empty()) {
        auto nl = text.find('\n');
        auto len = nl == std::string_view::npos ? text.size() : nl + 1;
        s.line(text.substr(0, len));
        text.remove_prefix(len);
    }
    return s.finish();
}

}  // namespace coffer::channels
