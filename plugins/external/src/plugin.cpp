// The library's one exported symbol: the `external` channel-adapter kind (an adapter process
// speaking JSON lines over stdio).
#include "channel.hpp"
#include "config.hpp"

#include "channel_common/kind.hpp"

COFFER_CHANNEL_ADAPTER(coffer::external::ExternalChannel, "external", "0.1.0", coffer::external::config_schema(),
                       coffer::external::validate_config)
