// Test support: a stand-in for an OpenAI-compatible embeddings endpoint on 127.0.0.1 (a real
// socket, the real wire format): POST /v1/embeddings {"model","input":[…]} answered with
// {"data":[{"index","embedding"}]} from bag_of_words (in reverse order, to check the client
// sorts by index). Scripted failures first (e.g. one 429 with Retry-After, or a 500 storm), and
// a record of every request.
#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace coffer::test {

class EmbeddingServer {
public:
    struct Failure {
        int status;
        std::string retry_after;  // sent when non-empty
        std::string body;
    };
    struct Request {
        std::string authorization;
        std::string model;
        std::size_t inputs = 0;
        int dimensions = 0;
    };

    explicit EmbeddingServer(int dim = 64);
    ~EmbeddingServer();

    std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
    void fail_next(Failure f);         // answered before any success, in order
    void fail_always(Failure f);       // every request, until cleared
    void clear_failures();
    void set_dimension(int dim);
    std::vector<Request> requests();
    std::size_t request_count();

private:
    void serve();
    void answer(int fd);

    int listen_fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::mutex mu_;
    std::deque<Failure> next_;
    std::optional<Failure> always_;
    std::vector<Request> seen_;
    int dim_;
    std::thread thread_;
};

}  // namespace coffer::test
