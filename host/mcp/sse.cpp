#include "mcp/sse.hpp"

namespace coffer::mcp::sse {

std::string event(std::string_view data, std::string_view name, std::string_view id) {
    std::string out;
    out.reserve(data.size() + name.size() + id.size() + 32);
    if (!id.empty()) out.append("id: ").append(id).append("\n");
    if (!name.empty()) out.append("event: ").append(name).append("\n");
    std::size_t i = 0;
    for (;;) {
        auto nl = data.find_first_of("\r\n", i);
        auto line = data.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
        out.append("data: ").append(line).append("\n");
        if (nl == std::string_view::npos) break;
        i = nl + 1;
        if (data[nl] == '\r' && i < data.size() && data[i] == '\n') ++i;
        if (i >= data.size()) break;
    }
    out.append("\n");
    return out;
}

}  // namespace coffer::mcp::sse
