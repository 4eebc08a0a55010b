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
    std::deque<Entry> dropped;
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

bool Worker::post(Job job, Access access) {
    {
        std::lock_guard<std::mutex> g(mu_);
        if (!started_ || stopping_) return false;
        jobs_.push_back({std::move(job), access});
    }
    cv_.notify_one();
    return true;
}

std::size_t Worker::backlog() const {
    std::lock_guard<std::mutex> g(mu_);
    return jobs_.size();
}

std::size_t Worker::run_reads_ahead() {
    if (!on_worker()) return 0;
    std::size_t ran = 0;
    for (;;) {
        Job job;
        {
            std::lock_guard<std::mutex> g(mu_);
            if (stopping_ || jobs_.empty() || jobs_.front().access != Access::read) return ran;
            job = std::move(jobs_.front().job);
            jobs_.pop_front();
        }
        run(job);
        ++ran;
    }
}

void Worker::run(Job& job) noexcept {
    try {
        job();
    } catch (const std::exception& e) {
        if (on_error_) on_error_(e.what());
    } catch (...) {
        if (on_error_) on_error_("unknown exception in an index job");
    }
}

void Worker::loop() {
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> g(mu_);
            cv_.wait(g, [&] { return stopping_ || !jobs_.empty(); });
            if (stopping_) return;
            job = std::move(jobs_.front().job);
            jobs_.pop_front();
        }
        run(job);
    }
}

}  // namespace coffer::knowledge
