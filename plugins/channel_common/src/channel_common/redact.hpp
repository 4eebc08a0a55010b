// Secrets out of text: every occurrence of a secret (a bot token that sits in a URL path, an app
// secret) is replaced before the text reaches a log line, a status or an error message.
#pragma once

#include <string>
#include <string_view>

namespace coffer::channel_common {

inline std::string redact(std::string text, std::string_view secret, std::string_view mask = "<redacted>") {
    if (secret.empty()) return text;
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + mask.size()))
        text.replace(at, secret.size(), mask);
    return text;
}

}  // namespace coffer::channel_common
