// The shim's diagnostics on stderr (stdout belongs to the MCP protocol): warnings always, notes
// only with --verbose, every line prefixed with the program's name.
#pragma once

#include <cstdio>
#include <string>

namespace coffer::shim {

class Log {
public:
    explicit Log(bool verbose) : verbose_(verbose) {}
    void note(const std::string& m) const {
        if (verbose_) write(m);
    }
    void warn(const std::string& m) const { write(m); }
    bool verbose() const { return verbose_; }

    static void write(const std::string& m) {
        std::string line = "coffer-mcp-shim: " + m + "\n";
        std::fwrite(line.data(), 1, line.size(), stderr);
    }

private:
    bool verbose_;
};

}  // namespace coffer::shim
