#include "telegram_channel.hpp"

#include "eventually.hpp"

#include <boost/test/unit_test.hpp>

namespace coffer::test {

namespace json = boost::json;
using namespace std::chrono_literals;

TelegramChannel::TelegramChannel(const std::function<json::object(const std::filesystem::path& dir)>& config)
    : ChannelFixture({}, "tg") {
    req("POST", "/api/v1/credentials", json::serialize(json::object{{"ref", "tg-bot"}, {"value", kToken}}), 201);
    auto c = config(dir.path());
    c["token"] = "credref:tg-bot";
    c["api_base"] = bot.base_url();
    req("POST", "/api/v1/channels", json::serialize(json::object{{"name", "tg"}, {"adapter", "telegram"}, {"config", c}}), 201);
    BOOST_TEST_REQUIRE(eventually([&] { return health() == "receiving"; }, 10s), "health: " << health());
}

std::string TelegramChannel::health() { return std::string(status().at("health").as_string()); }

std::int64_t TelegramChannel::say(const std::string& from, const std::string& text, const std::string& chat) {
    auto id = bot.inject_text(from, text, chat);
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return bot.confirmed_offset() > id; }, 15s), "update " << id << " never confirmed");
    return id;
}

std::size_t TelegramChannel::count_to(const std::string& chat, const std::string& needle) {
    std::size_t n = 0;
    for (auto& m : bot.messages(chat)) n += m.visible.find(needle) != std::string::npos;
    return n;
}

void TelegramChannel::pair_owner() {
    auto code = pair();
    say(kOwner, code);
    BOOST_TEST_REQUIRE(bot.wait_until([&] { return count_to(kOwner, "Paired") > 0; }, 15s));
}

}  // namespace coffer::test
