#define BOOST_TEST_MODULE mcp_server
#include <boost/test/unit_test.hpp>
