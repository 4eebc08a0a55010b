#include "schema/compiler.hpp"

#include "schema/json_compare.hpp"
#include "schema/pointer.hpp"
#include "schema/types.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <cmath>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace coffer::schema::detail {

namespace json = boost::json;

namespace {

struct Failure {
    std::string pointer;
    std::string message;
};

[[noreturn]] void fail(std::string pointer, std::string message) {
    throw Failure{std::move(pointer), std::move(message)};
}

std::string_view view(json::string_view s) { return {s.data(), s.size()}; }

std::string quoted(std::string_view s) { return json::serialize(json::string_view(s.data(), s.size())); }

// Keywords with validation semantics that this validator does not implement. Ignoring them would
// silently accept data the schema author meant to reject, so compiling fails instead.
bool is_unsupported_keyword(std::string_view key) {
    static constexpr std::string_view names[] = {
        "additionalItems",   "contains",         "minContains",           "maxContains",
        "dependentRequired", "dependentSchemas", "dependencies",          "unevaluatedItems",
        "unevaluatedProperties", "$dynamicRef",  "$recursiveRef",
    };
    for (auto n : names) {
        if (n == key) return true;
    }
    return false;
}

std::uint64_t count_value(const json::value& v, const std::string& where) {
    if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
    if (v.is_uint64()) return v.get_uint64();
    if (v.is_double()) {
        const double d = v.get_double();
        if (d >= 0 && d < 18446744073709551616.0 && std::trunc(d) == d) {
            return static_cast<std::uint64_t>(d);
        }
    }
    fail(where, "must be a non-negative integer");
}

const json::value* number_value(const json::value& v, const std::string& where) {
    if (v.is_bool()) fail(where, "must be a number (the draft-04 boolean form is not supported)");
    if (!is_number(v)) fail(where, "must be a number");
    if (v.is_double() && !std::isfinite(v.get_double())) fail(where, "must be a finite number");
    return &v;
}

std::optional<std::size_t> array_index(std::string_view token) {
    if (token.empty() || token.size() > 18) return std::nullopt;
    if (token.size() > 1 && token.front() == '0') return std::nullopt;
    std::size_t n = 0;
    for (char c : token) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    return n;
}

class Compiler {
public:
    explicit Compiler(Compiled& out) : out_(out) {}

    void run() {
        out_.root = compile_at(out_.document, "");
        resolve_refs();
        check_loops();
    }

private:
    struct PendingRef {
        NodeId from;
        std::string text;  // the $ref string as written
        std::vector<std::string> tokens;
        std::string keyword_pointer;
    };

    Node& node(NodeId id) { return out_.nodes[id]; }

    NodeId compile_at(const json::value& schema, const std::string& where) {
        if (auto it = by_pointer_.find(where); it != by_pointer_.end()) return it->second;
        if (!schema.is_bool() && !schema.is_object()) {
            fail(where, "must be a schema (an object or a boolean)");
        }
        const NodeId id = out_.nodes.size();
        out_.nodes.emplace_back();
        out_.nodes.back().where = where;
        by_pointer_.emplace(where, id);
        if (schema.is_bool()) {
            node(id).reject_all = !schema.get_bool();
            return id;
        }
        for (const auto& member : schema.get_object()) {
            const std::string_view key = view(member.key());
            keyword(id, key, member.value(), child_pointer(where, key));
        }
        return id;
    }

    std::vector<NodeId> schema_list(const json::value& v, const std::string& where) {
        const auto* arr = v.if_array();
        if (arr == nullptr || arr->empty()) fail(where, "must be a non-empty array of schemas");
        std::vector<NodeId> ids;
        ids.reserve(arr->size());
        for (std::size_t i = 0; i < arr->size(); ++i) {
            std::string at = where;
            append_index(at, i);
            ids.push_back(compile_at((*arr)[i], at));
        }
        return ids;
    }

    const json::object& object_of(const json::value& v, const std::string& where, const char* what) {
        const auto* obj = v.if_object();
        if (obj == nullptr) fail(where, std::string("must be an object ") + what);
        return *obj;
    }

    Pattern pattern_of(std::string_view source, const std::string& where) {
        std::string why;
        auto p = compile_pattern(source, why);
        if (!p) fail(where, "is not a valid regular expression " + quoted(source) + ": " + why);
        return std::move(*p);
    }

    void type_keyword(NodeId id, const json::value& v, const std::string& where) {
        unsigned mask = 0;
        auto add = [&](const json::value& name, const std::string& at) {
            if (!name.is_string()) fail(at, "must be a type name");
            const std::string_view s = view(name.get_string());
            const unsigned bit = type_bit_named(s);
            if (bit == 0) {
                fail(at, "unknown type " + quoted(s) +
                             " (expected null, boolean, object, array, number, string or integer)");
            }
            if ((mask & bit) != 0) fail(at, "lists type " + quoted(s) + " twice");
            mask |= bit;
        };
        if (v.is_string()) {
            add(v, where);
        } else if (const auto* arr = v.if_array(); arr != nullptr && !arr->empty()) {
            for (std::size_t i = 0; i < arr->size(); ++i) {
                std::string at = where;
                append_index(at, i);
                add((*arr)[i], at);
            }
        } else {
            fail(where, "must be a type name or a non-empty array of type names");
        }
        node(id).types = mask;
    }

    void keyword(NodeId id, std::string_view key, const json::value& v, const std::string& kw) {
        if (key == "type") {
            type_keyword(id, v, kw);
        } else if (key == "enum") {
            const auto* arr = v.if_array();
            if (arr == nullptr) fail(kw, "must be an array");
            std::vector<const json::value*> values;
            values.reserve(arr->size());
            for (const auto& item : *arr) values.push_back(&item);
            node(id).enum_values = std::move(values);
        } else if (key == "const") {
            node(id).const_value = &v;
        } else if (key == "properties") {
            for (const auto& member : object_of(v, kw, "mapping property names to schemas")) {
                const std::string_view name = view(member.key());
                const NodeId child = compile_at(member.value(), child_pointer(kw, name));
                node(id).properties.emplace(std::string(name), child);
            }
        } else if (key == "patternProperties") {
            for (const auto& member : object_of(v, kw, "mapping patterns to schemas")) {
                const std::string_view source = view(member.key());
                const std::string at = child_pointer(kw, source);
                Pattern pattern = pattern_of(source, at);
                const NodeId child = compile_at(member.value(), at);
                node(id).pattern_properties.push_back(PatternChild{std::move(pattern), child});
            }
        } else if (key == "additionalProperties") {
            const NodeId child = compile_at(v, kw);
            node(id).additional_properties = child;
        } else if (key == "propertyNames") {
            const NodeId child = compile_at(v, kw);
            node(id).property_names = child;
        } else if (key == "required") {
            const auto* arr = v.if_array();
            if (arr == nullptr) fail(kw, "must be an array of property names");
            std::vector<std::string> names;
            std::unordered_set<std::string_view> seen;
            for (std::size_t i = 0; i < arr->size(); ++i) {
                std::string at = kw;
                append_index(at, i);
                if (!(*arr)[i].is_string()) fail(at, "must be a property name (a string)");
                const std::string_view name = view((*arr)[i].get_string());
                if (!seen.insert(name).second) fail(at, "lists " + quoted(name) + " twice");
                names.emplace_back(name);
            }
            node(id).required = std::move(names);
        } else if (key == "minProperties") {
            node(id).min_properties = count_value(v, kw);
        } else if (key == "maxProperties") {
            node(id).max_properties = count_value(v, kw);
        } else if (key == "items") {
            if (v.is_array()) {
                fail(kw, "must be a single schema (draft 2020-12); use prefixItems for a schema "
                         "per position");
            }
            const NodeId child = compile_at(v, kw);
            node(id).items = child;
        } else if (key == "prefixItems") {
            auto ids = schema_list(v, kw);
            node(id).prefix_items = std::move(ids);
        } else if (key == "minItems") {
            node(id).min_items = count_value(v, kw);
        } else if (key == "maxItems") {
            node(id).max_items = count_value(v, kw);
        } else if (key == "uniqueItems") {
            if (!v.is_bool()) fail(kw, "must be true or false");
            node(id).unique_items = v.get_bool();
        } else if (key == "minLength") {
            node(id).min_length = count_value(v, kw);
        } else if (key == "maxLength") {
            node(id).max_length = count_value(v, kw);
        } else if (key == "pattern") {
            if (!v.is_string()) fail(kw, "must be a string (a regular expression)");
            node(id).pattern = pattern_of(view(v.get_string()), kw);
        } else if (key == "minimum") {
            node(id).minimum = number_value(v, kw);
        } else if (key == "maximum") {
            node(id).maximum = number_value(v, kw);
        } else if (key == "exclusiveMinimum") {
            node(id).exclusive_minimum = number_value(v, kw);
        } else if (key == "exclusiveMaximum") {
            node(id).exclusive_maximum = number_value(v, kw);
        } else if (key == "multipleOf") {
            const json::value* m = number_value(v, kw);
            const json::value zero = 0;
            if (compare_numbers(*m, zero) <= 0) fail(kw, "must be a number greater than 0");
            node(id).multiple_of = m;
        } else if (key == "allOf") {
            auto ids = schema_list(v, kw);
            node(id).all_of = std::move(ids);
        } else if (key == "anyOf") {
            auto ids = schema_list(v, kw);
            node(id).any_of = std::move(ids);
        } else if (key == "oneOf") {
            auto ids = schema_list(v, kw);
            node(id).one_of = std::move(ids);
        } else if (key == "not") {
            const NodeId child = compile_at(v, kw);
            node(id).not_ = child;
        } else if (key == "if") {
            const NodeId child = compile_at(v, kw);
            node(id).if_ = child;
        } else if (key == "then") {
            const NodeId child = compile_at(v, kw);
            node(id).then_ = child;
        } else if (key == "else") {
            const NodeId child = compile_at(v, kw);
            node(id).else_ = child;
        } else if (key == "$ref") {
            if (!v.is_string()) fail(kw, "must be a string");
            const std::string_view text = view(v.get_string());
            std::string why;
            auto tokens = parse_local_ref(text, why);
            if (!tokens) fail(kw, "unsupported reference " + quoted(text) + ": " + why);
            pending_.push_back(PendingRef{id, std::string(text), std::move(*tokens), kw});
        } else if (key == "$defs" || key == "definitions") {
            for (const auto& member : object_of(v, kw, "mapping names to schemas")) {
                compile_at(member.value(), child_pointer(kw, view(member.key())));
            }
        } else if (is_unsupported_keyword(key)) {
            fail(kw, "keyword " + quoted(key) + " is not supported by this validator");
        }
        // Anything else (title, description, default, examples, format, $schema, $id, $comment,
        // vendor extensions, ...) is an annotation: ignored.
    }

    void resolve_refs() {
        while (!pending_.empty()) {
            PendingRef ref = std::move(pending_.back());
            pending_.pop_back();
            const json::value* target = &out_.document;
            std::string canonical;
            for (const auto& token : ref.tokens) {
                if (const auto* obj = target->if_object()) {
                    target = obj->if_contains(token);
                } else if (const auto* arr = target->if_array()) {
                    const auto index = array_index(token);
                    target = index && *index < arr->size() ? &(*arr)[*index] : nullptr;
                } else {
                    target = nullptr;
                }
                if (target == nullptr) {
                    fail(ref.keyword_pointer, "reference " + quoted(ref.text) + " points to nothing");
                }
                append_token(canonical, token);
            }
            if (!target->is_object() && !target->is_bool()) {
                fail(ref.keyword_pointer,
                     "reference " + quoted(ref.text) + " does not point to a schema");
            }
            const NodeId resolved = compile_at(*target, canonical);
            node(ref.from).ref = resolved;
        }
    }

    // Edges along which evaluation stays on the same instance value. A cycle of them means
    // evaluation would never terminate, so such schemas are rejected here. (Iterative DFS: a long
    // chain of $refs must not exhaust the stack.)
    static std::vector<NodeId> same_instance_edges(const Node& n) {
        std::vector<NodeId> out;
        if (n.ref) out.push_back(*n.ref);
        out.insert(out.end(), n.all_of.begin(), n.all_of.end());
        out.insert(out.end(), n.any_of.begin(), n.any_of.end());
        out.insert(out.end(), n.one_of.begin(), n.one_of.end());
        for (const auto& e : {n.not_, n.if_, n.then_, n.else_}) {
            if (e) out.push_back(*e);
        }
        return out;
    }

    void check_loops() const {
        const auto& nodes = out_.nodes;
        enum : unsigned char { unseen, active, finished };
        std::vector<unsigned char> state(nodes.size(), unseen);
        struct Frame {
            NodeId id;
            std::vector<NodeId> next;
            std::size_t i = 0;
        };
        std::vector<Frame> stack;
        for (NodeId start = 0; start < nodes.size(); ++start) {
            if (state[start] != unseen) continue;
            state[start] = active;
            stack.push_back(Frame{start, same_instance_edges(nodes[start])});
            while (!stack.empty()) {
                Frame& top = stack.back();
                if (top.i == top.next.size()) {
                    state[top.id] = finished;
                    stack.pop_back();
                    continue;
                }
                const NodeId from = top.id;
                const NodeId to = top.next[top.i++];
                if (state[to] == active) {
                    const Node& n = nodes[from];
                    const std::string at = n.ref == to ? child_pointer(n.where, "$ref") : n.where;
                    const std::string target = nodes[to].where.empty() ? "the root schema"
                                                                        : nodes[to].where;
                    fail(at, "forms a $ref loop back to " + target +
                                 " that never descends into the instance");
                }
                if (state[to] == unseen) {
                    state[to] = active;
                    stack.push_back(Frame{to, same_instance_edges(nodes[to])});
                }
            }
        }
    }

    Compiled& out_;
    std::unordered_map<std::string, NodeId> by_pointer_;
    std::vector<PendingRef> pending_;
};

}  // namespace

std::optional<CompileError> compile_schema(Compiled& out) {
    try {
        Compiler(out).run();
    } catch (Failure& f) {
        out.nodes.clear();
        return CompileError{std::move(f.pointer), std::move(f.message)};
    }
    return std::nullopt;
}

}  // namespace coffer::schema::detail
