// Writes the Prometheus text exposition format (version 0.0.4): one HELP and TYPE line per
// family, then its samples, label values escaped as the format requires (\\, \", \n). Families
// must be written whole, one after another; the writer does not sort or merge.
#pragma once

#include "metrics/instruments.hpp"

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::metrics {

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

class Writer {
public:
    // type: counter | gauge | histogram
    void family(std::string_view name, std::string_view type, std::string_view help);
    void sample(std::string_view name, const Labels& labels, double value);
    void sample(std::string_view name, const Labels& labels, std::uint64_t value);
    // name_bucket{…,le=…}, name_sum, name_count for one histogram series.
    template <Writers W>
    void histogram(std::string_view name, const Labels& labels, const BasicDurationHistogram<W>& h) {
        std::array<std::uint64_t, DurationHistogram::kBuckets + 1> counts{};
        for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = h.bucket(i);
        histogram(name, labels, counts, h.sum_seconds());
    }

    const std::string& text() const { return out_; }
    std::string take() { return std::move(out_); }

private:
    void histogram(std::string_view name, const Labels& labels,
                   const std::array<std::uint64_t, DurationHistogram::kBuckets + 1>& counts, double sum);
    void series(std::string_view name, const Labels& labels, std::string_view extra_label = {},
                std::string_view extra_value = {});
    std::string out_;
};

// A label value or HELP text as the format wants it.
std::string escape_label(std::string_view v);

}  // namespace coffer::metrics
