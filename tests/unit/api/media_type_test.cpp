// REST request bodies must be JSON (host/api/media_type.hpp).
#include <boost/test/unit_test.hpp>

#include "api/media_type.hpp"

using coffer::api::is_json_media_type;

BOOST_AUTO_TEST_SUITE(media_type)

BOOST_AUTO_TEST_CASE(json_with_or_without_parameters) {
    for (auto t : {"application/json", "Application/JSON", "application/json; charset=utf-8",
                   "application/json;charset=UTF-8", " application/json ", "application/json ; charset=utf-8"})
        BOOST_TEST(is_json_media_type(t), t);
}

BOOST_AUTO_TEST_CASE(anything_else) {
    for (auto t : {"", "text/plain", "text/json", "application/jsonx", "application/json-patch+json",
                   "application/x-www-form-urlencoded", "multipart/form-data", "application/*", "*/*",
                   "application/ json", "application/json,text/plain"})
        BOOST_TEST(!is_json_media_type(t), t);
}

BOOST_AUTO_TEST_SUITE_END()
