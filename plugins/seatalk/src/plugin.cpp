// The library's one exported symbol: the seatalk channel-adapter kind.
#include "channel.hpp"
#include "config.hpp"

#include "channel_common/kind.hpp"

COFFER_CHANNEL_ADAPTER(coffer::seatalk::SeaTalkChannel, "seatalk", "0.1.0", coffer::seatalk::config_schema(),
                       coffer::seatalk::validate_config)
