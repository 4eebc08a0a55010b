// The CLI's `coffer mcp add --stdio "CMD ARGS"` splitting (docs/cli.md, "Splitting --stdio").
#include <boost/test/unit_test.hpp>

#include "commands/mcp.hpp"

#include <stdexcept>

using coffer::cli::split_command_line;
using V = std::vector<std::string>;

BOOST_AUTO_TEST_CASE(splits_like_a_shell_without_expansions) {
    BOOST_TEST((split_command_line("npx -y @modelcontextprotocol/server-everything") ==
                V{"npx", "-y", "@modelcontextprotocol/server-everything"}));
    BOOST_TEST((split_command_line("  node\t server.js \n") == V{"node", "server.js"}));
    BOOST_TEST((split_command_line("fs '/home/me/My Notes' /tmp") == V{"fs", "/home/me/My Notes", "/tmp"}));
    BOOST_TEST((split_command_line(R"(a "b \"c\" \\ \d" e)") == V{"a", R"(b "c" \ \d)", "e"}));
    BOOST_TEST((split_command_line(R"(a\ b c\"d)") == V{"a b", "c\"d"}));
    BOOST_TEST((split_command_line(R"(--dir="My Notes"x'y')") == V{"--dir=My Notesxy"}));
    BOOST_TEST((split_command_line("cmd '' \"\"") == V{"cmd", "", ""}));
    BOOST_TEST((split_command_line("echo $HOME ~ *.txt | wc ; x > y") ==
                V{"echo", "$HOME", "~", "*.txt", "|", "wc", ";", "x", ">", "y"}));
    BOOST_TEST((split_command_line("'it''s'") == V{"its"}));
    BOOST_TEST(split_command_line("").empty());
    BOOST_TEST(split_command_line("   ").empty());
}

BOOST_AUTO_TEST_CASE(refuses_what_a_shell_would_refuse) {
    BOOST_CHECK_THROW(split_command_line("npx 'open"), std::invalid_argument);
    BOOST_CHECK_THROW(split_command_line("npx \"open"), std::invalid_argument);
    BOOST_CHECK_THROW(split_command_line("npx \"a\\\""), std::invalid_argument);
    BOOST_CHECK_THROW(split_command_line("npx trailing\\"), std::invalid_argument);
}
