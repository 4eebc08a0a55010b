// A plugin's index on its worker thread (see engine.hpp).
#include "engine.hpp"

namespace coffer::knowledge {

sdk::Error to_sdk(const retrieval::Error& e) {
    using C = retrieval::Error::Code;
    coffer_status st = COFFER_E_INTERNAL;
    switch (e.code()) {
        case C::invalid: st = COFFER_E_INVALID; break;
        case C::not_found: st = COFFER_E_NOT_FOUND; break;
        case C::unavailable: st = COFFER_E_UNAVAILABLE; break;
        case C::io:
        case C::internal: st = COFFER_E_INTERNAL; break;
    }
    return sdk::Error(st, e.what());
}

void Engine::start(const std::filesystem::path& index_file) {
    worker_.start([this](const std::string& what) { host_.error("index job failed: " + what); });
    worker_.post([this, index_file] {
        try {
            std::error_code ec;
            std::filesystem::create_directories(index_file.parent_path(), ec);
            index_ = std::make_unique<retrieval::Index>(index_file);
            open_error_.clear();
        } catch (const std::exception& e) {
            open_error_ = e.what();
            host_.error("cannot open the index " + index_file.string() + ": " + open_error_);
        }
    });
}

void Engine::stop() {
    // The job running now ends, the rest are dropped, the thread is joined; only then is the
    // index closed (no other thread can be using it any more).
    worker_.stop();
    index_.reset();
}

bool Engine::post(std::function<void(retrieval::Index&)> job, std::function<void(const std::string&)> on_fail,
                  Access access) {
    return worker_.post([this, job = std::move(job), on_fail = std::move(on_fail)] {
        std::string failure;
        try {
            job(index());
            return;
        } catch (const retrieval::Error& e) {
            failure = e.what();
        } catch (const sdk::Error& e) {
            failure = e.what();
        }
        if (on_fail) on_fail(failure);
        else host_.warn("index job failed: " + failure);
    }, access);
}

retrieval::Index& Engine::index() {
    if (!index_)
        throw sdk::Error(COFFER_E_UNAVAILABLE,
                         "the search index is not open" + (open_error_.empty() ? std::string() : ": " + open_error_));
    return *index_;
}

}  // namespace coffer::knowledge
