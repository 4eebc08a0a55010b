// The web console's HTTP side (docs/console-and-metrics.md): its pages under /console/ (an open
// api::Mount — the static files hold no data), the login that trades a one-time code for a
// session cookie, the session check that lets that cookie stand in for the API token on /api/v1
// (same-origin requests only; state changes need the CSRF token), and the REST route `coffer open`
// uses to get a code.
#pragma once

#include "api/api.hpp"
#include "console/sessions.hpp"

namespace coffer::console {

// "/", "/console", "/console/…": pages, /console/login, /console/session, /console/logout.
api::Mount console_mount(Sessions& sessions);
// For api::Api::accept_sessions.
api::SessionChecker session_checker(Sessions& sessions);
// POST /api/v1/console/codes → 201 {code, login_path, expires_in_s}.
void add_console_routes(api::Api& api, Sessions& sessions);

}  // namespace coffer::console
