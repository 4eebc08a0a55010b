// SeaTalk callback events → the host's inbound envelopes. A direct message
// (message_from_bot_subscriber) is the text at event.message.text.content from the sender's
// employee_code (the chat: replies go there) and seatalk_id (the sender); a group @mention
// (new_mentioned_message_received_from_group_chat) has its text at message.text.plain_text and
// its chat in group_id. thread_id rides along. Other events carry nothing for the host.
#pragma once

#include <boost/json.hpp>

#include <optional>

namespace coffer::seatalk {

std::optional<boost::json::object> to_envelope(const boost::json::object& body);

}  // namespace coffer::seatalk
