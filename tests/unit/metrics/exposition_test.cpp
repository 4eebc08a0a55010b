#define BOOST_TEST_MODULE unit_metrics
#include <boost/test/unit_test.hpp>

#include "metrics/exposition.hpp"

#include <thread>
#include <vector>

using namespace coffer::metrics;

BOOST_AUTO_TEST_CASE(label_values_are_escaped_as_the_format_requires) {
    Writer w;
    w.family("x_total", "counter", "help with \\ and\nnewline");
    w.sample("x_total", {{"tool", "a\"b\\c\nd"}}, std::uint64_t(3));
    BOOST_TEST(w.text() ==
               "# HELP x_total help with \\\\ and\\nnewline\n# TYPE x_total counter\n"
               "x_total{tool=\"a\\\"b\\\\c\\nd\"} 3\n");
}

BOOST_AUTO_TEST_CASE(a_histogram_is_cumulative_and_its_count_is_the_inf_bucket) {
    DurationHistogram h;
    h.observe(std::chrono::microseconds(500));   // ≤ 1 ms
    h.observe(std::chrono::milliseconds(20));    // ≤ 25 ms
    h.observe(std::chrono::seconds(100));        // +Inf only
    Writer w;
    w.histogram("d", {{"server", "s"}}, h);
    auto t = w.text();
    BOOST_TEST(t.find("d_bucket{server=\"s\",le=\"0.001\"} 1\n") != std::string::npos);
    BOOST_TEST(t.find("d_bucket{server=\"s\",le=\"0.025\"} 2\n") != std::string::npos);
    BOOST_TEST(t.find("d_bucket{server=\"s\",le=\"60\"} 2\n") != std::string::npos);
    BOOST_TEST(t.find("d_bucket{server=\"s\",le=\"+Inf\"} 3\n") != std::string::npos);
    BOOST_TEST(t.find("d_count{server=\"s\"} 3\n") != std::string::npos);
    BOOST_TEST(h.sum_seconds() > 100.0);
}

BOOST_AUTO_TEST_CASE(counters_from_many_threads_lose_nothing) {
    Counter c;
    DurationHistogram h;
    std::vector<std::thread> ts;
    for (int i = 0; i < 4; ++i)
        ts.emplace_back([&] {
            for (int j = 0; j < 100000; ++j) c.add(), h.observe(std::chrono::microseconds(j % 3000));
        });
    for (auto& t : ts) t.join();
    BOOST_TEST(c.value() == 400000u);
    BOOST_TEST(h.count() == 400000u);
}
