// The library's one exported symbol: the telegram channel-adapter kind.
#include "channel.hpp"
#include "config.hpp"

#include "channel_common/kind.hpp"

COFFER_CHANNEL_ADAPTER(coffer::telegram::TelegramChannel, "telegram", "0.1.0", coffer::telegram::config_schema(),
                       coffer::telegram::validate_config)
