// A blocking TCP connection to 127.0.0.1 for the test clients.
#pragma once

#include <cstdint>

namespace coffer::test {

// A connected socket (TCP_NODELAY, close-on-exec), or -1. A positive `recv_timeout_s` bounds
// every read.
int connect_loopback(std::uint16_t port, int recv_timeout_s = 0);

}  // namespace coffer::test
