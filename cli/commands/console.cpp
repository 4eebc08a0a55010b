// coffer open — the web console. Asks the daemon (with the API token, starting the daemon if
// needed) for a one-time login code, prints the login URL and, where a graphical session and
// xdg-open exist, opens it. The browser trades the code for an HttpOnly, SameSite=Strict session
// cookie; the API token itself never leaves this process. The URL is handed to the browser
// through a 0600 file in the vault (console-login.html, a redirect), not on xdg-open's command
// line, which other local users could read in /proc before the browser redeems the code.
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"

#include "client/url.hpp"

#include <coffer/atomic_file.hpp>
#include <coffer/child_process.hpp>

#include <boost/json/object.hpp>

#include <unistd.h>

#include <cstdlib>
#include <ostream>

namespace coffer::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

bool has_display() {
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY"})
        if (const char* s = std::getenv(v); s && *s) return true;
    return false;
}

// Starts xdg-open on a 0600 redirect page in the vault; "" when started, else why not.
std::string open_browser(const fs::path& vault, const std::string& url) {
    if (!has_display()) return "no graphical session (DISPLAY / WAYLAND_DISPLAY unset)";
    const char* path = std::getenv("PATH");
    auto xdg = child::resolve("xdg-open", path ? path : "/usr/bin:/bin");
    if (xdg.path.empty()) return "xdg-open was not found";
    fs::path page = vault / "console-login.html";
    std::string html = "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">"
                       "<meta http-equiv=\"refresh\" content=\"0; url=" + url + "\"><title>Coffer</title>"
                       "<p>Opening the Coffer console…</p>\n";
    if (auto err = coffer::write_file_atomic(page, html, 0600); !err.empty()) return err;
    std::string error;
    auto c = child::spawn(xdg.path, {"xdg-open", page.string()}, child::environment({}), "", error);
    if (!c) return error;
    ::close(c->out);  // not read: xdg-open's output is not ours to show
    ::close(c->err);
    return {};
}

int open(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("POST", client::api_path({"console", "codes"}));
    if (reply.outcome != client::ApiReply::Outcome::ok) return ctx.report(reply);
    auto* info = ctx.daemon_info();
    const auto& body = reply.body().as_object();
    std::string url = "http://127.0.0.1:" + std::to_string(info ? info->port : 0) +
                      std::string(body.at("login_path").as_string());
    std::string not_opened = inv.flag("no-browser") ? "--no-browser" : open_browser(ctx.vault(), url);
    if (ctx.json()) {
        ctx.print_json(json::object{{"url", url},
                                    {"expires_in_s", body.at("expires_in_s")},
                                    {"opened", not_opened.empty()},
                                    {"not_opened", not_opened.empty() ? json::value(nullptr) : json::value(not_opened)}});
        return exit_code::ok;
    }
    ctx.out() << url << '\n';
    if (not_opened.empty()) ctx.err() << "opened in your browser; the link works once, within "
                                      << text_field(reply.body(), "expires_in_s") << " s\n";
    else ctx.err() << "open this link in a browser on this machine (it works once, within "
                   << text_field(reply.body(), "expires_in_s") << " s)\n";
    return exit_code::ok;
}

}  // namespace

void register_console_commands(Registry& r) {
    r.add_group({"open", "open the web console in a browser (a one-time login link)"});
    r.add({"open", "", "[--no-browser]", "print a one-time login link to the web console and open it in a browser",
           {{"no-browser", "", "only print the link"}}, 0, 0, open});
}

}  // namespace coffer::cli
