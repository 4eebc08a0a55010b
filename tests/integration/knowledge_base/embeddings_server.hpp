// Test support: a stand-in for an OpenAI-compatible embeddings endpoint (POST /v1/embeddings) on
// a free loopback port. Its vectors are deterministic bags of words (each word, and each CJK
// character, hashed into one of 64 dimensions, then L2-normalised), so texts sharing words are
// near each other and a test can predict what vector search ranks first. It records the
// Authorization header it was sent, how many requests it answered, and every text it embedded.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace coffer::test {

class EmbeddingsServer {
public:
    EmbeddingsServer();
    ~EmbeddingsServer();
    EmbeddingsServer(const EmbeddingsServer&) = delete;
    EmbeddingsServer& operator=(const EmbeddingsServer&) = delete;

    std::uint16_t port() const { return port_; }
    std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
    std::string last_authorization() const;
    int requests() const { return requests_.load(); }
    std::vector<std::string> inputs() const;  // every text embedded so far, in order

    static std::vector<float> vector_of(const std::string& text);

private:
    void loop();
    void serve(int fd);

    int listen_fd_ = -1;
    int wake_[2] = {-1, -1};
    std::uint16_t port_ = 0;
    std::thread thread_;
    mutable std::mutex mu_;
    std::string authorization_;
    std::vector<std::string> inputs_;
    std::atomic<int> requests_{0};
};

}  // namespace coffer::test
