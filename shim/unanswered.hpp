// The client's requests the shim has read and not yet answered, counted in bytes: the second
// half of the shim's flow control. The first half stops reading stdin while the client does not
// read its answers (stdout backlog); this half stops reading while the daemon falls behind, so a
// client that writes faster than the daemon answers cannot make the shim hold its whole output
// in memory. Reading stops above `high` bytes and resumes below `low`.
//
// Ids are matched in canonical form (ids.hpp). A request the client cancels stops counting (the
// daemon may never answer it). An id the shim never sees answered keeps counting — the bound is
// generous (tens of MiB) so that only a client far ahead of its daemon meets it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace coffer::shim {

class Unanswered {
public:
    static constexpr std::size_t kHigh = 32u << 20;
    static constexpr std::size_t kLow = 16u << 20;
    explicit Unanswered(std::size_t high = kHigh, std::size_t low = kLow) : high_(high), low_(low) {}

    // A request with this raw id and size was read from the client.
    void read(std::string_view raw_id, std::size_t bytes);
    // The request with this raw id was answered (or cancelled): it stops counting.
    void done(std::string_view raw_id);

    std::size_t bytes() const { return bytes_; }
    bool over_high() const { return bytes_ > high_; }
    bool under_low() const { return bytes_ < low_; }

private:
    std::size_t high_;
    std::size_t low_;
    std::size_t bytes_ = 0;
    std::unordered_map<std::string, std::size_t> by_id_;
};

}  // namespace coffer::shim
