// The one thread that touches a plugin's retrieval::Index (the Index is not thread-safe): a FIFO
// of jobs. Plugin hooks and MCP requests never wait on the index themselves: they post a job, and
// the job answers (an McpCall, a promise) when it ran. Jobs run in the order they were posted, so
// a search posted after a write sees the write.
//
// A long job (a bulk sync) may let the reads queued behind it run at its safe points
// (run_reads_ahead): only the reads at the front of the queue, so a read never overtakes a write
// posted before it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace coffer::knowledge {

class Worker {
public:
    using Job = std::function<void()>;
    // What a job does to the index: a read (search, read, stats) may run inside a long job's safe
    // point; a write never does.
    enum class Access { write, read };

    Worker() = default;
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Starts the thread. `on_error` hears what a job threw (jobs should not, but nothing is lost).
    void start(std::function<void(const std::string&)> on_error);
    // Runs the job already running to its end, then destroys the queued ones unrun (a job that
    // owns an McpCall answers its client with an error from the call's destructor) and joins.
    void stop();
    // False once stopping: the job was not queued (and is destroyed by the caller).
    bool post(Job job, Access access = Access::write);
    // From the worker thread, inside a running job at a point where the index is consistent and
    // no transaction is open: runs the read jobs at the front of the queue, up to the first write.
    // Returns how many ran.
    std::size_t run_reads_ahead();
    // Jobs queued and not yet started.
    std::size_t backlog() const;
    // True when called from the worker thread itself (waiting on a job from there would deadlock).
    bool on_worker() const noexcept { return std::this_thread::get_id() == thread_.get_id(); }

private:
    struct Entry {
        Job job;
        Access access;
    };
    void loop();
    void run(Job& job) noexcept;

    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Entry> jobs_;
    bool stopping_ = false;
    bool started_ = false;
    std::function<void(const std::string&)> on_error_;
    std::thread thread_;
};

}  // namespace coffer::knowledge
