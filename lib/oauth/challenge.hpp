// WWW-Authenticate challenges (RFC 9110 section 11.6.1, RFC 6750 section 3): what a protected MCP
// server says when it refuses a request — where its protected-resource metadata is (RFC 9728
// `resource_metadata`), which scope it wants, and why (`insufficient_scope`, `invalid_token`).
#pragma once

#include "http_client/fetch.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::oauth {

struct Challenge {
    std::string scheme;                         // lower case: "bearer", "dpop", …
    std::map<std::string, std::string> params;  // names in lower case, values unquoted

    std::optional<std::string> param(const std::string& name) const;
};

// Every challenge of one header value, in order; nothing for a value that cannot be read.
std::vector<Challenge> parse_challenges(std::string_view header);

// The Bearer challenge among header values, if any.
std::optional<Challenge> bearer_challenge(const std::vector<std::string>& header_values);
// The Bearer challenge of a reply's WWW-Authenticate headers, if any.
std::optional<Challenge> bearer_challenge_of(const http_client::Reply& reply);

}  // namespace coffer::oauth
