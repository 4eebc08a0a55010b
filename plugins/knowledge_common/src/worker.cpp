// The index worker thread (see worker.hpp).
#include "worker.hpp"

#include <exception>

namespace coffer::knowledge {

Worker::~Worker() { stop(); }

void Worker::start(std::function<void(const std::string&)> on_error) {
    std::lock_guard<std::mutex> g(mu_);
    if (started_) return;
    started_ = true;
    stopping_ = false;
    on_error_ = std::move(on_error);
    thread_ = std::thread([this] { loop(); });
}

void Worker::stop() {
    std::deque<Job> dropped;
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!started_) return;
        stopping_ = true;
        dropped.swap(jobs_);
    }
    cv_.notify_all();
    if (thread_.joinable() && !on_worker()) thread_.join();
    // Destroyed here, outside the lock: their owned calls and promises answer "unavailable".
    dropped.clear();
    std::lock_guard<std::mutex> g(mu_);
    started_ = false;
}

bool Worker::post(Job job) {
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!started_ || stopping_) return false;
        jobs_.push_back(std::move(job));
    }
    cv_.notify_one();
    return true;
}

std::size_t Worker::backlog() const {
    std::lock_guard<std::mutex> g(mu_);
    return jobs_.size();
}

void Worker::loop() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> g(mu_);
            cv_.wait(g, [&] { return stopping_ || !jobs_.empty(); });
            if (stopping_) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        try {
            job();
        } catch (const std::exception& e) {
            if (on_error_) on_error_(e.what());
        } catch (...) {
            if (on_error_) on_error_("unknown exception in an index job");
        }
    }
}

}  // namespace coffer::knowledge
