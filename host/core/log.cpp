// Structured logging: one JSON object per line into logs/daemon.log (rotated, private).
#include "core/log.hpp"

#include "vault/layout.hpp"  // header-only: the log file's name

#include "core/clock.hpp"

#include <boost/json/serialize.hpp>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <mutex>

namespace coffer::core::log {

namespace {
std::mutex g_mu;
std::shared_ptr<spdlog::logger> g_logger;

const char* level_name(Level l) {
    switch (l) {
        case Level::debug: return "debug";
        case Level::info: return "info";
        case Level::warn: return "warn";
        case Level::error: return "error";
    }
    return "info";
}
}  // namespace

void init(const std::filesystem::path& logs_dir, bool also_stderr) {
    std::lock_guard<std::mutex> g(g_mu);
    std::filesystem::create_directories(logs_dir);
    std::vector<spdlog::sink_ptr> sinks;
    // Each log file private (0600) as soon as it is opened, the rotated ones included: it records
    // what agents called and with which arguments.
    spdlog::file_event_handlers events;
    events.after_open = [](const spdlog::filename_t&, std::FILE* file) { ::fchmod(::fileno(file), 0600); };
    sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>((logs_dir / vault::kDaemonLog).string(),
                                                                           5 * 1024 * 1024, 3, false, events));
    if (also_stderr) sinks.push_back(std::make_shared<spdlog::sinks::stderr_sink_mt>());
    g_logger = std::make_shared<spdlog::logger>("coffer", sinks.begin(), sinks.end());
    g_logger->set_pattern("%v");
    g_logger->set_level(spdlog::level::debug);
    g_logger->flush_on(spdlog::level::info);
}

void write(Level level, std::string_view msg, const boost::json::object& fields) {
    std::shared_ptr<spdlog::logger> lg;
    {
        std::lock_guard<std::mutex> g(g_mu);
        lg = g_logger;
    }
    boost::json::object line;
    line["ts"] = now_iso();
    line["level"] = level_name(level);
    line["msg"] = msg;
    for (auto& kv : fields) line[kv.key()] = kv.value();
    auto text = boost::json::serialize(line);
    if (!lg) {
        std::fprintf(stderr, "%s\n", text.c_str());
        return;
    }
    lg->info(text);
}

void flush() {
    std::lock_guard<std::mutex> g(g_mu);
    if (g_logger) g_logger->flush();
}

void shutdown() {
    std::lock_guard<std::mutex> g(g_mu);
    if (g_logger) g_logger->flush();
    g_logger.reset();
}

}  // namespace coffer::core::log
