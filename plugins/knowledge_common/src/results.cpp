// Search answers as JSON and as text (see results.hpp).
#include "results.hpp"

#include <cmath>
#include <cstdio>

namespace coffer::knowledge {

namespace {

std::string label_of(const retrieval::Hit& h, const HitLabel& label) { return label ? label(h) : h.collection; }


}  // namespace

json::object hit_json(const retrieval::Hit& h, const HitLabel& label) {
    return json::object{{"kb", label_of(h, label)},
                        {"path", h.path},
                        {"heading", h.heading},
                        {"lines", json::array{h.line_from, h.line_to}},
                        {"score", h.score},
                        {"engine", h.engine},
                        {"snippet", h.snippet}};
}

json::object answer_json(const retrieval::Answer& a, const HitLabel& label) {
    json::array results;
    for (auto& h : a.hits) results.push_back(hit_json(h, label));
    json::object out{{"results", std::move(results)}, {"degraded", a.degraded}};
    if (a.degraded && !a.degraded_reason.empty()) out["degraded_reason"] = a.degraded_reason;
    return out;
}

std::string answer_text(const retrieval::Answer& a, std::string_view query, bool show_kb, const HitLabel& label,
                        std::string_view read_hint) {
    std::string text;
    if (a.degraded)
        text += "Note: " + (a.degraded_reason.empty() ? std::string("vector search is not available") : a.degraded_reason) +
                "; these are keyword results.\n";
    if (a.hits.empty()) return text + "No results for \"" + std::string(query) + "\".";
    text += std::to_string(a.hits.size()) + (a.hits.size() == 1 ? " result" : " results") + " for \"" +
            std::string(query) + "\", best first:\n";
    int rank = 0;
    for (auto& h : a.hits) {
        char score[32];
        std::snprintf(score, sizeof score, "%.3g", h.score);
        text += "\n" + std::to_string(++rank) + ". ";
        if (show_kb) text += "[" + label_of(h, label) + "] ";
        text += h.path + " lines " + std::to_string(h.line_from) + "-" + std::to_string(h.line_to);
        if (!h.heading.empty()) text += " (" + h.heading + ")";
        text += " [" + h.engine + " " + score + "]\n";
        if (!h.snippet.empty()) text += "   " + h.snippet + "\n";
    }
    if (!read_hint.empty()) text += "\n" + std::string(read_hint);
    return text;
}

}  // namespace coffer::knowledge
