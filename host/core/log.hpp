// Structured logging: one JSON object per line in $COFFER_HOME/logs/daemon.log (rotated).
#pragma once

#include <boost/json/object.hpp>

#include <filesystem>
#include <string_view>

namespace coffer::core::log {

enum class Level { debug, info, warn, error };

// Opens logs/daemon.log (5 MiB x 3 files); with `also_stderr` every line is echoed to stderr.
void init(const std::filesystem::path& logs_dir, bool also_stderr);
// Writes {"ts","level","msg",...fields}. Safe from any thread. Never pass secrets.
void write(Level level, std::string_view msg, const boost::json::object& fields = {});
inline void info(std::string_view m, const boost::json::object& f = {}) { write(Level::info, m, f); }
inline void warn(std::string_view m, const boost::json::object& f = {}) { write(Level::warn, m, f); }
inline void error(std::string_view m, const boost::json::object& f = {}) { write(Level::error, m, f); }
inline void debug(std::string_view m, const boost::json::object& f = {}) { write(Level::debug, m, f); }
void flush();
void shutdown();

}  // namespace coffer::core::log
