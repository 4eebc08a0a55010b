#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace coffer::core {

namespace fs = std::filesystem;

Result<void> write_file_atomic(const fs::path& path, std::string_view content, unsigned mode) {
    auto tmp = path;
    tmp += ".tmp-" + std::to_string(::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) return Error::make(code::internal, "cannot write " + tmp.string() + ": " + std::strerror(errno));
    ::fchmod(fd, mode);
    const char* p = content.data();
    std::size_t left = content.size();
    while (left > 0) {
        auto n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            return Error::make(code::internal, "cannot write " + tmp.string() + ": " + std::strerror(e));
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    ::fsync(fd);
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        return Error::make(code::internal, "cannot replace " + path.string() + ": " + std::strerror(e));
    }
    return {};
}

Result<std::string> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error::make(code::not_found, "cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

Result<void> ensure_private_dir(const fs::path& path) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return Error::make(code::internal, "cannot create " + path.string() + ": " + ec.message());
    ::chmod(path.c_str(), 0700);
    return {};
}

}  // namespace coffer::core
