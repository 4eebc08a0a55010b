// coffer/credref.hpp: the credential-reference rule the host's store and the plugins share.
#define BOOST_TEST_MODULE sdk_credref
#include <boost/test/unit_test.hpp>

#include <coffer/credref.hpp>

#include <string>

namespace credref = coffer::credref;

BOOST_AUTO_TEST_CASE(the_prefix_and_the_ref) {
    BOOST_TEST(credref::is_credref("credref:github.token"));
    BOOST_TEST(!credref::is_credref("credref"));
    BOOST_TEST(!credref::is_credref("Credref:x"));
    BOOST_TEST(credref::ref_of("credref:github.token") == "github.token");
    BOOST_TEST(credref::ref_of("plain") == "plain");
}

BOOST_AUTO_TEST_CASE(one_name_rule) {
    for (std::string ok : {std::string("a"), std::string("GitHub_token-2.prod"), std::string("0abc"), std::string(64, 'x')})
        BOOST_TEST(credref::ref_problem(ok).empty(), ok);
    BOOST_TEST(credref::ref_problem("") == "a credential reference must not be empty");
    BOOST_TEST(credref::ref_problem(std::string(65, 'x')).find("at most 64") != std::string::npos);
    BOOST_TEST(credref::ref_problem(".hidden").find("start with a letter or a digit") != std::string::npos);
    BOOST_TEST(credref::ref_problem("-x").find("start with") != std::string::npos);
    for (std::string bad : {"a b", "a/b", "a:b", "caf\xc3\xa9", "a\nb"})
        BOOST_TEST(credref::ref_problem(bad).find("only letters, digits") != std::string::npos, bad);
}
