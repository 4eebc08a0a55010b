// A client of channel_echo's toy line protocol: sends MSG lines, reads ACK / SEND / EDIT / TYPING.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace coffer::test {

struct Line {
    std::string verb, chat, ref, text;  // text unescaped
};

class LineClient {
public:
    explicit LineClient(std::uint16_t port);
    ~LineClient();
    void msg(const std::string& id, const std::string& chat, const std::string& sender, const std::string& text);
    // The next line; nothing within the time-out.
    std::optional<Line> next(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Waits for "ACK <id>"; the other lines read meanwhile stay for next(). False on time-out.
    bool wait_ack(const std::string& id, std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Lines up to and including the first of `verb` whose text contains `needle`.
    std::vector<Line> until(const std::string& verb, const std::string& needle = "",
                            std::chrono::milliseconds timeout = std::chrono::seconds(20));

private:
    int fd_ = -1;
    std::optional<Line> read(std::chrono::milliseconds timeout);
    std::string buf_;
    std::deque<Line> stash_;
};

}  // namespace coffer::test
