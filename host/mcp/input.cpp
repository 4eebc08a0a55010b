// Session: the 2026-07-28 multi round-trip bridge (SEP-2322). A provider's server request during a
// modern client's call is answered as InputRequiredResult on that call's own response; the
// provider's call stays open; the client's retry (same request + inputResponses + requestState)
// feeds the answers back and waits for the call's result — or the next question.
#include "mcp/session.hpp"

#include "core/random.hpp"

#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;

// 2026-07-28 (MRTR): the question goes into the answer of the request it belongs to as an
// InputRequiredResult; the provider's call stays open until the client retries with the answers.
void Session::ask_in_result(Link& link, const std::shared_ptr<Exchange>& ex, std::uint64_t token,
                            json::object request) {
    if (!ex->input) {
        ex->input = std::make_shared<InputWait>();
        ex->input->state = core::random_hex(16);
        parked_[ex->input->state] = ex;
    }
    auto& in = *ex->input;
    auto key = link.server() + "-" + std::to_string(token);
    in.keys[key] = token;
    in.at = std::chrono::steady_clock::now();
    std::shared_ptr<Exchange> target = in.waiting ? in.waiting : (!ex->done ? ex : nullptr);
    if (!target) {
        in.queued.emplace_back(key, json::serialize(request));
        return;
    }
    in.waiting.reset();
    json::object r{{"resultType", "input_required"},
                   {"inputRequests", json::object{{key, std::move(request)}}},
                   {"requestState", in.state}};
    if (target == ex) {
        // Answered, but the call lives on: keep the exchange out of the in-flight table.
        answer(ex, rpc::result(ex->id, json::serialize(r)));
    } else {
        target->call = nullptr;
        answer(target, rpc::result(target->id, json::serialize(r)));
    }
}

bool Session::resume(const std::shared_ptr<Exchange>& retry, const json::object& params) {
    auto* st = params.if_contains("requestState");
    if (!st || !st->is_string()) return false;
    auto it = parked_.find(std::string(st->as_string()));
    if (it == parked_.end()) {
        fail(retry, rpc::code::invalid_params, "Invalid params: unknown or expired requestState; send the request again",
             nullptr, 400);
        return true;
    }
    auto orig = it->second;
    auto& in = *orig->input;
    auto link = orig->link.lock();
    if (auto* responses = params.if_contains("inputResponses"); responses && responses->is_object()) {
        for (auto& kv : responses->as_object()) {
            auto k = in.keys.find(std::string(kv.key()));
            if (k == in.keys.end()) continue;
            if (link) link->respond(k->second, json::serialize(kv.value()), {});
            in.keys.erase(k);
        }
    }
    if (in.outcome) {
        auto [result, error] = *in.outcome;
        parked_.erase(it);
        orig->input.reset();
        retry->link = orig->link;
        complete(retry, result, error);
        return true;
    }
    retry->link = orig->link;
    retry->call = orig->call;
    if (!in.queued.empty()) {
        json::object asks;
        for (auto& [key, text] : in.queued) asks[key] = json::parse(text);
        in.queued.clear();
        in.at = std::chrono::steady_clock::now();
        json::object r{{"resultType", "input_required"}, {"inputRequests", std::move(asks)}, {"requestState", in.state}};
        retry->call = nullptr;
        answer(retry, rpc::result(retry->id, json::serialize(r)));
        return true;
    }
    in.waiting = retry;
    return true;
}

}  // namespace coffer::mcp
