// coffer-mcp-shim: the stdio MCP server that MCP clients launch (see docs/mcp-gateway.md).
#include "shim/options.hpp"
#include "shim/run.hpp"
#include "vault/home.hpp"

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#ifndef COFFER_VERSION
#define COFFER_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
    coffer::shim::Options options;
    try {
        options = coffer::shim::parse_options(args);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "coffer-mcp-shim: %s\n\n%s", e.what(), coffer::shim::usage_text().c_str());
        return 2;
    }
    // --help and --version print to stderr: stdout belongs to the MCP protocol.
    if (options.help) {
        std::fputs(coffer::shim::usage_text().c_str(), stderr);
        return 0;
    }
    if (options.version) {
        std::fprintf(stderr, "coffer-mcp-shim %s\n", COFFER_VERSION);
        return 0;
    }
    // The vault (--home, else $COFFER_HOME, else ~/.coffer), resolved as the daemon and CLI do.
    auto home = coffer::vault::resolve_home(options.home);
    if (!home) {
        std::fprintf(stderr, "coffer-mcp-shim: %s\n", home.error().message.c_str());
        return 1;
    }
    options.home = home->string();
    return coffer::shim::run(options);
}
