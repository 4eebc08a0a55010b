// A plugin's index and the worker thread that owns it. The Index (retrieval/index.hpp) is opened
// on the worker, used only there, and closed there; everything else reaches it by posting a job.
// retrieval::Error thrown by a job becomes sdk::Error with the matching status, so a hook that
// waits on a job (run) reports it like any plugin error.
#pragma once

#include "worker.hpp"

#include "retrieval/index.hpp"

#include <coffer/sdk.hpp>

#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <type_traits>

namespace coffer::knowledge {

namespace sdk = coffer::sdk;

// The sdk::Error for a retrieval::Error (invalid → INVALID, not_found → NOT_FOUND, unavailable →
// UNAVAILABLE, io/internal → INTERNAL).
sdk::Error to_sdk(const retrieval::Error& e);

class Engine {
public:
    using Access = Worker::Access;

    explicit Engine(const sdk::Host& host) : host_(host) {}
    ~Engine() { stop(); }

    // Starts the worker and opens (creating) the index file on it. A file that cannot be opened
    // is logged; every later job then fails with UNAVAILABLE naming why.
    void start(const std::filesystem::path& index_file);
    // Lets the running job finish, drops the queued ones, joins the worker, closes the index.
    void stop();

    // Queues `job`; false when stopping. What it throws (or the index not being open) goes to
    // `on_fail` when given, else to the log (a background job has no one to answer).
    // A read (Access::read: searches, reads, statistics) may run at a long sync's batch
    // boundaries instead of after it (let_reads_in).
    bool post(std::function<void(retrieval::Index&)> job, std::function<void(const std::string&)> on_fail = {},
              Access access = Access::write);

    // From inside a job, at a point where the index is consistent (a sync between batches): runs
    // the reads queued at the front, so a search does not wait for a whole bulk index.
    void let_reads_in() { worker_.run_reads_ahead(); }

    // Runs `f(index)` on the worker and waits for it (from a plugin hook, never from the worker).
    // Returns what f returns; rethrows what it throws (retrieval errors as sdk::Error).
    template <typename F>
    auto run(F&& f, Access access = Access::write) -> std::invoke_result_t<F, retrieval::Index&> {
        using R = std::invoke_result_t<F, retrieval::Index&>;
        if (worker_.on_worker()) throw sdk::Error(COFFER_E_INTERNAL, "index job waited on from the index worker");
        auto promise = std::make_shared<std::promise<R>>();
        auto future = promise->get_future();
        bool queued = worker_.post([this, promise, fn = std::forward<F>(f)]() mutable {
            try {
                if constexpr (std::is_void_v<R>) {
                    fn(index());
                    promise->set_value();
                } else {
                    promise->set_value(fn(index()));
                }
            } catch (const retrieval::Error& e) {
                promise->set_exception(std::make_exception_ptr(to_sdk(e)));
            } catch (...) {
                promise->set_exception(std::current_exception());
            }
        }, access);
        if (!queued) throw sdk::Error(COFFER_E_UNAVAILABLE, "the index is shutting down");
        try {
            return future.get();
        } catch (const std::future_error&) {  // dropped unrun by stop()
            throw sdk::Error(COFFER_E_UNAVAILABLE, "the index is shutting down");
        }
    }

    // The index, on the worker only; throws UNAVAILABLE when it could not be opened.
    retrieval::Index& index();
    const sdk::Host& host() const noexcept { return host_; }
    std::size_t backlog() const { return worker_.backlog(); }

private:
    const sdk::Host& host_;
    Worker worker_;
    std::unique_ptr<retrieval::Index> index_;  // worker thread only
    std::string open_error_;                   // worker thread only
};

}  // namespace coffer::knowledge
