// Telegram updates → the host's inbound envelopes. Only text messages become envelopes (groups
// and private chats alike; the host's gate decides); everything else is skipped, and its offset
// is committed like a delivered one. Ids stay decimal text end to end (chat ids exceed 32 bits).
#pragma once

#include <boost/json.hpp>

#include <cstdint>
#include <optional>

namespace coffer::telegram {

namespace json = boost::json;

struct Update {
    std::int64_t update_id = 0;
    std::optional<json::object> envelope;  // nullopt: nothing for the host
};

// nullopt when `v` is not an update at all (no integer update_id).
std::optional<Update> read_update(const json::value& v);

}  // namespace coffer::telegram
