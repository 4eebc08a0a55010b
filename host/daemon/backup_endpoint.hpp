// POST /api/v1/backup (SPEC D-7; docs/rest-api.md): the running daemon writes a backup folder.
//
// The request arrives on the network thread. The first phase of the backup (destination
// checks, the pinned database snapshot, the file trees) runs on the service thread, where every
// lifecycle change and plugin action runs, so trees and snapshot agree. The database pages are
// then copied on a worker thread from that snapshot while the daemon keeps serving and writing;
// the response is sent when the manifest is written. One backup at a time.
#pragma once

#include "api/api.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

namespace coffer::daemon {

class BackupEndpoint {
public:
    BackupEndpoint(std::filesystem::path vault, boost::asio::any_io_executor service, store::Database& db,
                   std::string version);
    ~BackupEndpoint();  // cancels a running copy and waits for it

    api::Mount mount();
    void cancel();  // the daemon is stopping: a running copy ends as cancelled

private:
    void handle(http::Request&& req, http::Respond respond);

    std::filesystem::path vault_;
    boost::asio::any_io_executor service_;
    store::Database& db_;
    std::string version_;
    std::atomic<bool> busy_{false};
    std::atomic<bool> cancelled_{false};
    std::mutex worker_mu_;
    std::thread worker_;
};

}  // namespace coffer::daemon
