#include "mcp/jsonrpc.hpp"

#include "core/json_numbers.hpp"
#include "core/utf8.hpp"

#include <boost/json.hpp>

namespace coffer::mcp::rpc {

namespace json = boost::json;

namespace {

bool valid_id(const json::value& id) { return id.is_string() || id.is_int64() || id.is_uint64(); }


Entry fail(int c, std::string message, json::value id = nullptr) {
    Entry e;
    e.error = Error{c, std::move(message), std::move(id)};
    return e;
}

}  // namespace

Entry classify(json::value& v) {
    auto* o = v.if_object();
    if (!o) return fail(code::invalid_request, "Invalid Request: a JSON-RPC message must be an object");
    json::value id = nullptr;
    auto* idp = o->if_contains("id");
    if (idp) {
        if (!valid_id(*idp) && !idp->is_null())
            return fail(code::invalid_request, "Invalid Request: id must be a string or an integer");
        id = *idp;
    }
    auto* ver = o->if_contains("jsonrpc");
    if (!ver || !ver->is_string() || ver->as_string() != "2.0")
        return fail(code::invalid_request, "Invalid Request: \"jsonrpc\" must be \"2.0\"", valid_id(id) ? id : nullptr);

    Message m;
    if (auto* method = o->if_contains("method")) {
        if (!method->is_string() || method->as_string().empty())
            return fail(code::invalid_request, "Invalid Request: method must be a non-empty string", id);
        m.method = std::string(method->as_string());
        if (idp && idp->is_null())
            return fail(code::invalid_request, "Invalid Request: a request id must not be null");
        m.kind = idp ? Kind::request : Kind::notification;
        m.id = id;
        if (auto* params = o->if_contains("params")) {
            if (!params->is_object())
                return fail(code::invalid_params, "Invalid params: params must be an object", id);
            m.params = std::move(*params);  // the parsed message is not used after this
        }
        return Entry{std::move(m), std::nullopt};
    }
    auto* res = o->if_contains("result");
    auto* err = o->if_contains("error");
    if (res && !err && valid_id(id)) {
        m.kind = Kind::response;
        m.id = id;
        m.result = std::move(*res);
        return Entry{std::move(m), std::nullopt};
    }
    if (err && !res && err->is_object() && idp) {
        m.kind = Kind::error_response;
        m.id = id;
        m.error = std::move(*err);
        return Entry{std::move(m), std::nullopt};
    }
    return fail(code::invalid_request, "Invalid Request: not a request, notification or response", id);
}

Parsed parse(std::string_view body) {
    Parsed out;
    if (body.size() > kMaxMessageBytes) {
        out.error = Error{code::invalid_request, "Invalid Request: the message exceeds the 4 MiB limit", nullptr};
        return out;
    }
    if (core::utf8::first_invalid(body) != std::string_view::npos) {
        out.error = Error{code::parse_error, "Parse error: the message is not valid UTF-8", nullptr};
        return out;
    }
    json::parse_options opt;
    opt.max_depth = kMaxDepth;
    boost::system::error_code ec;
    auto v = json::parse(body, ec, {}, opt);
    if (ec) {
        out.error = Error{code::parse_error, "Parse error: " + ec.message(), nullptr};
        return out;
    }
    // A number beyond a double would be re-serialized for upstreams as `Infinity`, which no peer
    // can parse: refused where it arrives (recursion bounded by kMaxDepth).
    if (core::has_non_finite(v)) {
        out.error = Error{code::parse_error, "Parse error: a number is too large for a double", nullptr};
        return out;
    }
    if (auto* a = v.if_array()) {
        out.batch = true;
        if (a->empty()) {
            out.error = Error{code::invalid_request, "Invalid Request: an empty batch", nullptr};
            return out;
        }
        for (auto& item : *a) out.entries.push_back(classify(item));
        return out;
    }
    if (!v.is_object()) {
        out.error = Error{code::invalid_request, "Invalid Request: a JSON-RPC message must be an object", nullptr};
        return out;
    }
    out.entries.push_back(classify(v));
    return out;
}

std::string id_key(const json::value& id) { return json::serialize(id); }

namespace {
// {"jsonrpc":"2.0","id":<id>,"<member>":<raw>}, with `raw` spliced in unchanged.
std::string response(const json::value& id, std::string_view member, std::string_view raw) {
    std::string id_text = json::serialize(id);
    std::string out;
    out.reserve(32 + id_text.size() + member.size() + raw.size());
    out += "{\"jsonrpc\":\"2.0\",\"id\":";
    out += id_text;
    out += ",\"";
    out += member;
    out += "\":";
    out += raw;
    out += '}';
    return out;
}

// `out` (an open object ready for a member) + "method":…[,"params":<raw>]}
std::string with_method(std::string out, std::string_view method, std::string_view raw_params) {
    out += "\"method\":";
    out += json::serialize(json::string(method));
    if (!raw_params.empty()) {
        out += ",\"params\":";
        out += raw_params;
    }
    out += '}';
    return out;
}
}  // namespace

std::string result(const json::value& id, std::string_view raw) { return response(id, "result", raw); }

std::string error(const json::value& id, int c, std::string_view message, const json::value& data) {
    json::object e{{"code", c}, {"message", message}};
    if (!data.is_null()) e["data"] = data;
    return error_raw(id, json::serialize(e));
}

std::string error_raw(const json::value& id, std::string_view raw) { return response(id, "error", raw); }

std::string request(const json::value& id, std::string_view method, std::string_view raw_params) {
    std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
    out += json::serialize(id);
    out += ',';
    return with_method(std::move(out), method, raw_params);
}

std::string notification(std::string_view method, std::string_view raw_params) {
    return with_method("{\"jsonrpc\":\"2.0\",", method, raw_params);
}

}  // namespace coffer::mcp::rpc
