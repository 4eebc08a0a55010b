// A started daemon with the bundled telegram adapter against the Bot API stand-in
// (tests/telegram_standin): the bot token stored as credref:tg-bot, the channel "tg" created with
// the derived fixture's config (plus token and api_base) and receiving. Shared by the telegram
// and claude/channel tests.
#pragma once

#include "channel_fixture.hpp"
#include "standin.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>

namespace coffer::test {

struct TelegramChannel : ChannelFixture {
    static constexpr const char* kToken = "7712345678:AAHs3cr3t-T0ken_value-Zx9";
    static constexpr const char* kOwner = "5000000001";  // beyond 32 bits
    static constexpr const char* kStranger = "666";

    telegram_standin::Standin bot{kToken};

    // `config` gets the fixture's temporary folder and gives the adapter config without the token.
    explicit TelegramChannel(const std::function<boost::json::object(const std::filesystem::path& dir)>& config);

    std::string health();
    // A user writes to the bot; returns once the adapter confirmed the update to Telegram (the
    // host has it durably: the offset moves only after its ack).
    std::int64_t say(const std::string& from, const std::string& text, const std::string& chat = "");
    // How many messages the bot sent to `chat` show `needle`.
    std::size_t count_to(const std::string& chat, const std::string& needle);
    // Pairs kOwner through a code sent to the bot.
    void pair_owner();
};

}  // namespace coffer::test
