// Unanswered: bytes of client requests read and not yet answered, by canonical id.
#include "shim/unanswered.hpp"

#include "shim/ids.hpp"

namespace coffer::shim {

void Unanswered::read(std::string_view raw_id, std::size_t bytes) {
    if (raw_id.empty()) return;
    auto& held = by_id_[canonical_id(raw_id)];
    bytes_ += bytes;
    held += bytes;
}

void Unanswered::done(std::string_view raw_id) {
    if (raw_id.empty() || by_id_.empty()) return;
    auto it = by_id_.find(canonical_id(raw_id));
    if (it == by_id_.end()) return;
    bytes_ -= it->second;
    by_id_.erase(it);
}

}  // namespace coffer::shim
