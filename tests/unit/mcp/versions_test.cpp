#include <boost/test/unit_test.hpp>

#include "mcp/versions.hpp"

using namespace coffer::mcp;

BOOST_AUTO_TEST_CASE(negotiates_legacy_versions) {
    BOOST_TEST((negotiate("2024-11-05") == Version::v2024_11_05));
    BOOST_TEST((negotiate("2025-03-26") == Version::v2025_03_26));
    BOOST_TEST((negotiate("2025-06-18") == Version::v2025_06_18));
    BOOST_TEST((negotiate("2025-11-25") == Version::v2025_11_25));
    // Unknown or stateless versions asked through initialize get our latest handshake version.
    BOOST_TEST((negotiate("2099-01-01") == Version::v2025_11_25));
    BOOST_TEST((negotiate("2026-07-28") == Version::v2025_11_25));
    BOOST_TEST((negotiate("") == Version::v2025_11_25));
}

BOOST_AUTO_TEST_CASE(version_facts) {
    BOOST_TEST(supported_versions().front() == "2026-07-28");
    BOOST_TEST(supported_versions().size() == 5u);
    for (auto s : supported_versions()) BOOST_TEST(to_string(*parse_version(s)) == s);
    BOOST_TEST(!parse_version("2025-11-26"));
    BOOST_TEST(is_modern(Version::v2026_07_28));
    BOOST_TEST(!is_modern(Version::v2025_11_25));
    BOOST_TEST(allows_batch(Version::v2025_03_26));
    BOOST_TEST(!allows_batch(Version::v2024_11_05));
    BOOST_TEST(!allows_batch(Version::v2025_06_18));
    BOOST_TEST(!has_completions(Version::v2024_11_05));
}
