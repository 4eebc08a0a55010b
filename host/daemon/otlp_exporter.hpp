// Optional export of the gateway's spans over OTLP/HTTP with JSON encoding (the OpenTelemetry
// protocol's `POST <endpoint>/v1/traces`), when $COFFER_OTLP_ENDPOINT names a collector
// (http:// only: a collector on this machine or a trusted network). Spans are batched on the
// network thread (one request per second, or per 512 spans; one request in flight), sent with
// plain Asio sockets, and dropped — counted, logged once a minute — when the collector is down or
// more than 4,096 wait. Exporting never slows a call: the sink only appends to a vector.
#pragma once

#include "core/result.hpp"
#include "mcp/trace_context.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace coffer::daemon {

class OtlpExporter : public std::enable_shared_from_this<OtlpExporter> {
public:
    // `endpoint`: http://host[:port][/path]; spans go to <path>/v1/traces unless it already ends so.
    static core::Result<std::shared_ptr<OtlpExporter>> create(boost::asio::io_context& net, const std::string& endpoint,
                                                              std::string service_version);
    mcp::trace::SpanSink sink();  // for Gateway::export_spans
    void stop();                  // network thread: sends nothing more

    std::uint64_t exported() const { return exported_; }
    std::uint64_t dropped() const { return dropped_; }

    OtlpExporter(boost::asio::io_context& net, std::string host, std::string port, std::string path, std::string version);

private:
    void add(mcp::trace::Finished span);
    void schedule();
    void flush();
    std::string body(const std::vector<mcp::trace::Finished>& spans) const;

    boost::asio::io_context& net_;
    std::string host_, port_, path_, version_;
    boost::asio::steady_timer timer_;
    std::vector<mcp::trace::Finished> pending_;
    bool scheduled_ = false, in_flight_ = false, stopped_ = false;
    std::uint64_t exported_ = 0, dropped_ = 0;
    std::chrono::steady_clock::time_point last_warning_{};
};

}  // namespace coffer::daemon
