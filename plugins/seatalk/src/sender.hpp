// Replies and typing, one call at a time in the host's order, on the channel's loop:
// single_chat / group_chat with {"tag":"text","text":{"format":1,"content"},"thread_id"?} inside
// "message", and single_chat_typing / group_chat_typing (7003, a group too large for typing, is
// not a failure). A failed reply is counted and logged with SeaTalk's x-rid.
#pragma once

#include "client.hpp"
#include "state.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include <deque>
#include <functional>
#include <memory>

namespace coffer::seatalk {

struct SendJob {
    bool typing = false;
    std::string chat, text, thread;
};

class Sender {
public:
    Sender(boost::asio::io_context& io, std::shared_ptr<Client> client, std::shared_ptr<SeaTalkState> state,
           std::function<void(const std::string&)> warn);
    void push(SendJob job);  // loop thread
    static boost::asio::awaitable<void> run(std::shared_ptr<Sender> self);

private:
    std::shared_ptr<Client> client_;
    std::shared_ptr<SeaTalkState> state_;
    std::function<void(const std::string&)> warn_;
    boost::asio::steady_timer wake_;
    std::deque<SendJob> queue_;
};

}  // namespace coffer::seatalk
