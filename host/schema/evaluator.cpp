#include "schema/evaluator.hpp"

#include "schema/json_compare.hpp"
#include "schema/messages.hpp"
#include "schema/nesting.hpp"
#include "schema/pointer.hpp"
#include "schema/types.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace coffer::schema::detail {

namespace json = boost::json;

namespace {

constexpr std::string_view no_alternative = "does not match any of the allowed alternatives";

// What went wrong, plus what anyOf/oneOf need to pick the alternative the user most likely meant.
struct Issue {
    std::string pointer;
    std::string message;
    unsigned type_mask = 0;                  // a "type" mismatch: the types that were expected
    std::vector<const json::value*> allowed;  // a const/enum mismatch: the values that were allowed
};
using Issues = std::vector<Issue>;

std::string_view view(json::string_view s) { return {s.data(), s.size()}; }

// Unicode code points in a UTF-8 string (Boost.JSON only holds valid UTF-8 from its parser; for
// other bytes this counts every byte that does not continue a sequence).
std::size_t utf8_length(std::string_view s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0U) != 0x80U;
    return n;
}

// Appends a token to the current pointer for the lifetime of the scope.
class PathScope {
public:
    PathScope(std::string& path, std::string_view token) : path_(path), mark_(path.size()) {
        append_token(path_, token);
    }
    PathScope(std::string& path, std::size_t index) : path_(path), mark_(path.size()) {
        append_index(path_, index);
    }
    ~PathScope() { path_.resize(mark_); }
    PathScope(const PathScope&) = delete;
    PathScope& operator=(const PathScope&) = delete;

private:
    std::string& path_;
    std::size_t mark_;
};

class Evaluator {
public:
    explicit Evaluator(const Compiled& compiled) : c_(compiled) {}

    std::vector<Problem> run(const json::value& instance) {
        auto shape = measure(instance, max_nesting_depth);
        if (shape.too_deep_at) {
            return {Problem{std::move(*shape.too_deep_at),
                            "is nested too deeply (more than " + std::to_string(max_nesting_depth) +
                                " levels)"}};
        }
        step_budget_ = base_evaluation_steps + evaluation_steps_per_value * shape.values;
        Issues issues;
        const bool ok = eval(c_.root, instance, issues, false);
        if (abort_) issues.push_back(std::move(*abort_));
        if (!ok && issues.empty()) issues.push_back(Issue{"", "is invalid", 0, {}});  // never silent

        std::vector<Problem> out;
        std::set<std::pair<std::string_view, std::string_view>> seen;
        for (const auto& issue : issues) {
            if (seen.emplace(issue.pointer, issue.message).second) {
                out.push_back(Problem{issue.pointer, issue.message});
            }
        }
        return out;
    }

private:
    // Validates `v` against node `id`, appending issues to `out`. In quick mode it stops at the
    // first issue (used where only valid/invalid matters). Returns whether `v` is valid.
    bool eval(NodeId id, const json::value& v, Issues& out, bool quick) {
        if (!step()) return false;
        if (depth_ >= max_evaluation_depth) {
            abort(path_, "could not be validated: the schema nests too deeply here");
            return false;
        }
        ++depth_;
        struct Leave {
            std::size_t& depth;
            ~Leave() { --depth; }
        } leave{depth_};

        const Node& n = c_.nodes[id];
        const std::size_t before = out.size();
        auto stop = [&] { return abort_.has_value() || (quick && out.size() > before); };

        if (n.reject_all) {
            add(out, "is not allowed");
            return false;
        }
        if (n.types != 0 && !has_type(v, n.types)) {
            out.push_back(Issue{path_, type_message(n.types), n.types, {}});
        }
        if (stop()) return false;
        if (n.const_value != nullptr && !json_equal(v, *n.const_value)) {
            out.push_back(Issue{path_, "must be equal to " + format_value(*n.const_value), 0,
                                {n.const_value}});
        }
        if (stop()) return false;
        if (n.enum_values) check_enum(*n.enum_values, v, out);
        if (stop()) return false;

        if (is_number(v)) {
            check_number(n, v, out);
        } else if (const auto* s = v.if_string()) {
            check_string(n, view(*s), out);
        } else if (const auto* arr = v.if_array()) {
            check_array(n, *arr, out, quick);
        } else if (const auto* obj = v.if_object()) {
            check_object(n, *obj, out, quick);
        }
        if (stop()) return false;

        if (n.ref) eval(*n.ref, v, out, quick);
        if (stop()) return false;
        for (NodeId sub : n.all_of) {
            eval(sub, v, out, quick);
            if (stop()) return false;
        }
        if (!n.any_of.empty()) check_any_of(n.any_of, v, out, quick);
        if (stop()) return false;
        if (!n.one_of.empty()) check_one_of(n.one_of, v, out, quick);
        if (stop()) return false;
        if (n.not_) {
            Issues ignored;
            if (eval(*n.not_, v, ignored, true)) add(out, "must not match the disallowed schema");
        }
        if (stop()) return false;
        if (n.if_ && (n.then_ || n.else_)) {
            Issues ignored;
            const bool holds = eval(*n.if_, v, ignored, true);
            if (abort_) return false;
            if (holds && n.then_) eval(*n.then_, v, out, quick);
            if (!holds && n.else_) eval(*n.else_, v, out, quick);
        }
        return !abort_ && out.size() == before;
    }

    void check_enum(const std::vector<const json::value*>& values, const json::value& v,
                    Issues& out) {
        for (const auto* allowed : values) {
            if (json_equal(v, *allowed)) return;
        }
        out.push_back(Issue{path_, enum_message(values), 0, values});
    }

    void check_number(const Node& n, const json::value& v, Issues& out) {
        if (n.minimum && compare_numbers(v, *n.minimum) < 0) {
            add(out, "must be at least " + format_number(*n.minimum));
        }
        if (n.exclusive_minimum && compare_numbers(v, *n.exclusive_minimum) <= 0) {
            add(out, "must be greater than " + format_number(*n.exclusive_minimum));
        }
        if (n.maximum && compare_numbers(v, *n.maximum) > 0) {
            add(out, "must be at most " + format_number(*n.maximum));
        }
        if (n.exclusive_maximum && compare_numbers(v, *n.exclusive_maximum) >= 0) {
            add(out, "must be less than " + format_number(*n.exclusive_maximum));
        }
        if (n.multiple_of && !is_multiple_of(v, *n.multiple_of)) {
            add(out, "must be a multiple of " + format_number(*n.multiple_of));
        }
    }

    void check_string(const Node& n, std::string_view s, Issues& out) {
        if (n.min_length || n.max_length) {
            const std::size_t length = utf8_length(s);
            if (n.min_length && length < *n.min_length) {
                add(out, "must be at least " + count_of(*n.min_length, "character", "characters"));
            }
            if (n.max_length && length > *n.max_length) {
                add(out, "must be at most " + count_of(*n.max_length, "character", "characters"));
            }
        }
        if (n.pattern) {
            const auto matched = pattern_matches(*n.pattern, s);
            if (!matched) {
                add(out, "could not be checked against pattern " + n.pattern->source +
                             " (the value is too complex for this pattern)");
            } else if (!*matched) {
                add(out, "must match pattern " + n.pattern->source);
            }
        }
    }

    void check_array(const Node& n, const json::array& arr, Issues& out, bool quick) {
        const std::size_t before = out.size();
        auto stop = [&] { return abort_.has_value() || (quick && out.size() > before); };
        if (n.min_items && arr.size() < *n.min_items) {
            add(out, "must have at least " + count_of(*n.min_items, "item", "items"));
        }
        if (n.max_items && arr.size() > *n.max_items) {
            add(out, "must have at most " + count_of(*n.max_items, "item", "items"));
        }
        if (stop()) return;
        if (n.unique_items) check_unique(arr, out);
        if (stop()) return;

        const std::size_t prefix = n.prefix_items.size();
        const bool no_more = n.items && c_.nodes[*n.items].reject_all;
        if (no_more && arr.size() > prefix) {
            add(out, "must have at most " + count_of(prefix, "item", "items"));
            if (stop()) return;
        }
        const std::size_t checked = (n.items && !no_more) ? arr.size() : std::min(prefix, arr.size());
        for (std::size_t i = 0; i < checked; ++i) {
            PathScope scope(path_, i);
            eval(i < prefix ? n.prefix_items[i] : *n.items, arr[i], out, quick);
            if (stop()) return;
        }
    }

    void check_unique(const json::array& arr, Issues& out) {
        std::unordered_multimap<std::size_t, std::size_t> seen;
        seen.reserve(arr.size());
        for (std::size_t j = 0; j < arr.size(); ++j) {
            const std::size_t h = json_hash(arr[j]);
            const auto [first, last] = seen.equal_range(h);
            for (auto it = first; it != last; ++it) {
                if (!step()) return;  // many equal hashes: bound the pairwise comparisons
                if (json_equal(arr[it->second], arr[j])) {
                    add(out, "must not contain duplicate items (items " +
                                 std::to_string(it->second) + " and " + std::to_string(j) +
                                 " are equal)");
                    return;
                }
            }
            seen.emplace(h, j);
        }
    }

    void check_object(const Node& n, const json::object& obj, Issues& out, bool quick) {
        const std::size_t before = out.size();
        auto stop = [&] { return abort_.has_value() || (quick && out.size() > before); };
        if (n.min_properties && obj.size() < *n.min_properties) {
            add(out, "must have at least " + count_of(*n.min_properties, "property", "properties"));
        }
        if (n.max_properties && obj.size() > *n.max_properties) {
            add(out, "must have at most " + count_of(*n.max_properties, "property", "properties"));
        }
        if (stop()) return;
        for (const auto& name : n.required) {
            if (!obj.contains(name)) {
                out.push_back(Issue{child_pointer(path_, name), "is required", 0, {}});
                if (stop()) return;
            }
        }
        const bool per_member = !n.properties.empty() || !n.pattern_properties.empty() ||
                                n.additional_properties || n.property_names;
        if (!per_member) return;

        for (const auto& member : obj) {
            const std::string_view key = view(member.key());
            PathScope scope(path_, key);
            if (n.property_names) check_property_name(*n.property_names, key, out, quick);
            if (stop()) return;

            bool declared = false;
            if (auto it = n.properties.find(key); it != n.properties.end()) {
                declared = true;
                eval(it->second, member.value(), out, quick);
                if (stop()) return;
            }
            for (const auto& pp : n.pattern_properties) {
                const auto matched = pattern_matches(pp.pattern, key);
                if (!matched) {
                    add(out, "has a name that could not be checked against pattern " +
                                 pp.pattern.source + " (the name is too complex for this pattern)");
                } else if (*matched) {
                    declared = true;
                    eval(pp.node, member.value(), out, quick);
                }
                if (stop()) return;
            }
            if (!declared && n.additional_properties) {
                if (c_.nodes[*n.additional_properties].reject_all) {
                    add(out, "is not allowed (unknown property)");
                } else {
                    eval(*n.additional_properties, member.value(), out, quick);
                }
                if (stop()) return;
            }
        }
    }

    // propertyNames: the name is validated as a string; problems point at the member.
    void check_property_name(NodeId id, std::string_view key, Issues& out, bool quick) {
        const json::value name = json::string(key);
        Issues found;
        eval(id, name, found, quick);
        for (auto& issue : found) {
            out.push_back(Issue{path_, "property name " + issue.message, 0, {}});
        }
    }

    void check_any_of(const std::vector<NodeId>& branches, const json::value& v, Issues& out,
                      bool quick) {
        std::vector<Issues> failures;
        for (NodeId b : branches) {
            Issues found;
            if (eval(b, v, found, quick)) return;
            if (abort_) return;
            failures.push_back(std::move(found));
        }
        report_no_match(failures, out, quick);
    }

    void check_one_of(const std::vector<NodeId>& branches, const json::value& v, Issues& out,
                      bool quick) {
        std::vector<std::string> matched;
        std::vector<Issues> failures;
        for (std::size_t i = 0; i < branches.size(); ++i) {
            Issues found;
            if (eval(branches[i], v, found, quick)) {
                matched.push_back(std::to_string(i + 1));
            } else {
                if (abort_) return;
                failures.push_back(std::move(found));
            }
        }
        if (matched.size() == 1) return;
        if (matched.size() > 1) {
            add(out, "must match exactly one of the allowed alternatives, but matches "
                     "alternatives " + join_and(matched));
            return;
        }
        report_no_match(failures, out, quick);
    }

    bool is_direct_child(std::string_view pointer) const {
        return pointer.size() > path_.size() + 1 && pointer.substr(0, path_.size()) == path_ &&
               pointer[path_.size()] == '/' &&
               pointer.find('/', path_.size() + 1) == std::string_view::npos;
    }

    // No alternative matched. Explain it by the alternative the user evidently meant when that is
    // clear (the others fail on the value's type or on a const/enum "discriminator" member),
    // otherwise by what every alternative agrees on, otherwise generically.
    void report_no_match(std::vector<Issues>& branches, Issues& out, bool quick) {
        if (quick || branches.empty()) {
            add(out, std::string(no_alternative));
            return;
        }
        std::vector<std::size_t> meant;
        unsigned expected_types = 0;
        bool all_wrong_type = true;
        bool all_wrong_value = true;
        std::optional<std::string> value_pointer;
        std::vector<const json::value*> allowed_values;
        for (std::size_t i = 0; i < branches.size(); ++i) {
            bool wrong_type = false;
            const Issue* wrong_value = nullptr;
            for (const auto& issue : branches[i]) {
                if (issue.type_mask != 0 && issue.pointer == path_) {
                    wrong_type = true;
                    expected_types |= issue.type_mask;
                }
                if (!issue.allowed.empty() && wrong_value == nullptr &&
                    (issue.pointer == path_ || is_direct_child(issue.pointer))) {
                    wrong_value = &issue;
                }
            }
            all_wrong_type = all_wrong_type && wrong_type;
            if (wrong_value == nullptr || (value_pointer && *value_pointer != wrong_value->pointer)) {
                all_wrong_value = false;
            } else if (all_wrong_value) {
                value_pointer = wrong_value->pointer;
                for (const auto* candidate : wrong_value->allowed) {
                    bool known = false;
                    for (const auto* have : allowed_values) known = known || json_equal(*have, *candidate);
                    if (!known) allowed_values.push_back(candidate);
                }
            }
            if (!wrong_type && wrong_value == nullptr) meant.push_back(i);
        }

        if (meant.size() == 1) {
            for (auto& issue : branches[meant.front()]) out.push_back(std::move(issue));
            return;
        }
        if (meant.empty() && all_wrong_type) {
            out.push_back(Issue{path_, type_message(expected_types), expected_types, {}});
            return;
        }
        if (meant.empty() && all_wrong_value && value_pointer) {
            out.push_back(Issue{*value_pointer, enum_message(allowed_values), 0, allowed_values});
            return;
        }
        if (meant.size() > 1) {
            // Problems every plausible alternative reports are problems whichever one was meant.
            std::vector<Issue> common;
            for (const auto& issue : branches[meant.front()]) {
                bool everywhere = true;
                for (std::size_t k = 1; k < meant.size() && everywhere; ++k) {
                    bool found = false;
                    for (const auto& other : branches[meant[k]]) {
                        found = found || (other.pointer == issue.pointer && other.message == issue.message);
                    }
                    everywhere = found;
                }
                if (everywhere) common.push_back(issue);
            }
            if (!common.empty()) {
                for (auto& issue : common) out.push_back(std::move(issue));
                return;
            }
        }
        add(out, std::string(no_alternative));
    }

    void add(Issues& out, std::string message) {
        out.push_back(Issue{path_, std::move(message), 0, {}});
    }

    // Counts one unit of work; false once the budget is spent (validation then stops).
    bool step() {
        if (abort_) return false;
        if (++steps_ > step_budget_) {
            abort("", "is too complex to validate against this schema (work limit reached)");
            return false;
        }
        return true;
    }

    void abort(std::string pointer, std::string message) {
        if (!abort_) abort_ = Issue{std::move(pointer), std::move(message), 0, {}};
    }

    const Compiled& c_;
    std::string path_;
    std::size_t depth_ = 0;
    std::size_t steps_ = 0;
    std::size_t step_budget_ = base_evaluation_steps;
    std::optional<Issue> abort_;
};

}  // namespace

std::vector<Problem> evaluate(const Compiled& compiled, const json::value& instance) {
    return Evaluator(compiled).run(instance);
}

}  // namespace coffer::schema::detail
