// Capability curation (G-20…G-22): what the gateway asks (any thread, from memory) and what the
// REST routes change (service thread, SQLite first). A capability a provider lists for the first
// time gets its server's auto_enable_new decision at once in memory; the row and its audit event
// are written on the service thread right after.
#pragma once

#include "curation/prefs.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::curation {

class Curation {
public:
    Curation(store::Database& db, boost::asio::any_io_executor service);

    core::Result<void> load();  // service thread, at start

    // Any thread.
    std::shared_ptr<const ServerPrefs> server(const std::string& name) const { return prefs_.server(name); }
    bool enabled(const std::string& server, Type t, std::string_view name, bool auto_enable) const {
        return prefs_.enabled(server, t, name, auto_enable);
    }
    // The names a provider listed just now; the never-seen ones are decided and recorded.
    void observe(const std::string& server, Type t, const std::vector<std::string>& names, bool auto_enable);

    // Service thread: a user's choice. Returns the stored entry.
    core::Result<Entry> set(const std::string& server, Type t, const std::string& name, bool enabled,
                            std::string_view actor);
    // Called after every user change (any thread may receive it): the gateway tells its clients.
    void on_change(std::function<void(Type)> fn) { changed_ = std::move(fn); }

private:
    store::Database& db_;
    boost::asio::any_io_executor service_;
    Prefs prefs_;
    std::function<void(Type)> changed_;
};

}  // namespace coffer::curation
