// The Prometheus text format writer (see exposition.hpp).
#include "metrics/exposition.hpp"

#include <cmath>
#include <charconv>

namespace coffer::metrics {

namespace {
// Label values escape \\, \" and newlines; HELP text the same but quotes.
std::string escape(std::string_view v, bool quotes) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"' && quotes) out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}
}  // namespace

std::string escape_label(std::string_view v) { return escape(v, true); }

namespace {
std::string format_double(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);  // the shortest text that reads back as v
    return std::string(buf, r.ptr);
}
std::string escape_help(std::string_view v) { return escape(v, false); }
}  // namespace

void Writer::family(std::string_view name, std::string_view type, std::string_view help) {
    out_ += "# HELP ";
    out_ += name;
    out_ += ' ';
    out_ += escape_help(help);
    out_ += "\n# TYPE ";
    out_ += name;
    out_ += ' ';
    out_ += type;
    out_ += '\n';
}

void Writer::series(std::string_view name, const Labels& labels, std::string_view extra_label,
                    std::string_view extra_value) {
    out_ += name;
    if (labels.empty() && extra_label.empty()) return;
    out_ += '{';
    bool first = true;
    auto put = [&](std::string_view k, std::string_view v) {
        if (!first) out_ += ',';
        first = false;
        out_ += k;
        out_ += "=\"";
        out_ += escape_label(v);
        out_ += '"';
    };
    for (auto& [k, v] : labels) put(k, v);
    if (!extra_label.empty()) put(extra_label, extra_value);
    out_ += '}';
}

void Writer::sample(std::string_view name, const Labels& labels, double value) {
    series(name, labels);
    out_ += ' ';
    out_ += format_double(value);
    out_ += '\n';
}

void Writer::sample(std::string_view name, const Labels& labels, std::uint64_t value) {
    series(name, labels);
    out_ += ' ';
    out_ += std::to_string(value);
    out_ += '\n';
}

void Writer::histogram(std::string_view name, const Labels& labels,
                       const std::array<std::uint64_t, DurationHistogram::kBuckets + 1>& counts, double sum) {
    std::string bucket = std::string(name) + "_bucket";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        cumulative += counts[i];
        std::string le = i < DurationHistogram::kBuckets ? format_double(kDurationBounds[i]) : "+Inf";
        series(bucket, labels, "le", le);
        out_ += ' ';
        out_ += std::to_string(cumulative);
        out_ += '\n';
    }
    sample(std::string(name) + "_sum", labels, sum);
    // _count equals the +Inf bucket (read once above), so the series is consistent in itself.
    sample(std::string(name) + "_count", labels, cumulative);
}

}  // namespace coffer::metrics
