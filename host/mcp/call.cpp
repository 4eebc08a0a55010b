#include "mcp/call.hpp"

#include "mcp/link.hpp"

#include <boost/asio/post.hpp>

namespace coffer::mcp {

Call::Call(boost::asio::any_io_executor net, coffer::Handoff::Sender to_net, std::weak_ptr<Link> link,
           std::weak_ptr<Exchange> exchange, Done done)
    : net_(std::move(net)), to_net_(std::move(to_net)), link_(std::move(link)), exchange_(std::move(exchange)),
      on_done_(std::move(done)), handle_(plugin::register_call(this)) {}

Call::~Call() { plugin::retire(handle_); }

void Call::complete(std::string_view result, std::string_view error) noexcept {
    if (done_.exchange(true)) return;  // a second completion is ignored (ABI: exactly once)
    try {
        auto fn = [c = this, r = std::string(result), e = std::string(error)]() mutable {
            deliver(c, std::move(r), std::move(e));
        };
        // A provider thread hands it over with one wake-up; the network thread itself (a provider
        // that completes inside `request`) just queues it behind what it is doing.
        if (to_net_ && !to_net_.on_target_thread()) to_net_.post(std::move(fn));
        else boost::asio::post(net_, std::move(fn));
    } catch (...) {
    }
}

bool Call::abandon(std::string error_json) {
    if (done_.exchange(true)) return false;
    boost::asio::post(net_, [c = this, e = std::move(error_json)]() mutable { deliver(c, {}, std::move(e)); });
    return true;
}

void Call::deliver(Call* call, std::string result, std::string error) {
    plugin::retire(call->handle_);  // from here on the plugin's handle reaches nothing
    std::unique_ptr<Call> own(call);
    if (auto link = own->link_.lock()) link->forget(own->handle_);
    if (!own->on_done_) return;
    try {
        own->on_done_(std::move(result), std::move(error));
    } catch (...) {
    }
}

}  // namespace coffer::mcp
