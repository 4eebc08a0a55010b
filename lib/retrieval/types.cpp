// Modes by name (see types.hpp).
#include "retrieval/types.hpp"

namespace coffer::retrieval {

const char* to_string(Mode m) noexcept {
    switch (m) {
        case Mode::grep: return "grep";
        case Mode::keyword: return "keyword";
        case Mode::vector: return "vector";
        case Mode::hybrid: return "hybrid";
    }
    return "keyword";
}

std::optional<Mode> parse_mode(std::string_view t) noexcept {
    if (t == "grep") return Mode::grep;
    if (t == "keyword") return Mode::keyword;
    if (t == "vector") return Mode::vector;
    if (t == "hybrid") return Mode::hybrid;
    return std::nullopt;
}

}  // namespace coffer::retrieval
