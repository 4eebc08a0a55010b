// coffer-callback's spool (ADR 0039): SeaTalk gets its 200 only once the verified event is in a
// file of the spool folder (written atomically and fsync-ed); the file goes when the adapter
// reports that the host keeps the message durably ({"type":"done","spool":NAME} on stdin). What
// is left — coffer-callback or the daemon died between the 200 and the host's inbox — is handed
// over again, oldest first, by the next coffer-callback before it listens; the host drops an
// event it already has by its event id.
#pragma once

#include <boost/json/object.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coffer::callback {

class Spool {
public:
    explicit Spool(std::filesystem::path dir) : dir_(std::move(dir)) {}

    // Creates the folder (0700) and removes temporaries a killed writer left; "" or why not.
    std::string open();
    // Keeps `event`; its name, or nullopt with `error` set.
    std::optional<std::string> put(const boost::json::object& event, std::string& error);
    // The host has it: the file goes. A name that is not one of ours is ignored (false).
    bool done(const std::string& name);
    // Every kept event, oldest first (a file that does not parse is set aside as *.bad).
    std::vector<std::pair<std::string, boost::json::object>> pending();

    static bool valid_name(const std::string& name);

private:
    std::filesystem::path dir_;
    std::uint64_t seq_ = 0;
};

}  // namespace coffer::callback
