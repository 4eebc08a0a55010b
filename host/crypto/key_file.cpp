#include "crypto/key_file.hpp"

#include <coffer/atomic_file.hpp>
#include <openssl/crypto.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace coffer::crypto {

namespace {

core::Error io_error(const std::string& what, const std::filesystem::path& p, int err) {
    return core::Error::make(core::code::internal, what + " " + p.string() + ": " + std::strerror(err));
}

bool write_all(int fd, const std::string& s) {
    const char* p = s.data();
    std::size_t left = s.size();
    while (left > 0) {
        auto n = ::write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

core::Result<LoadedKey> load_key_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT) return LoadedKey{};
        return io_error("cannot open", path, errno);
    }
    LoadedKey out;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && (st.st_mode & 077) != 0) {
        ::fchmod(fd, 0600);
        out.loosened = true;
    }
    std::string text;
    char buf[256];
    for (;;) {
        auto n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            ::close(fd);
            return io_error("cannot read", path, e);
        }
        if (n == 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > 4096) break;
    }
    OPENSSL_cleanse(buf, sizeof buf);
    ::close(fd);
    std::size_t end = text.size();
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
    auto key = FernetKey::parse(std::string_view(text).substr(0, end));
    OPENSSL_cleanse(text.data(), text.size());
    if (!key)
        return core::Error::make(core::code::internal,
                                 "MasterKeyInvalid: " + path.string() +
                                     " does not hold a Fernet key (the URL-safe base64 text of 32 bytes)");
    out.key = std::move(key).value();
    return out;
}

core::Result<FernetKey> create_key_file(const std::filesystem::path& path) {
    auto key = FernetKey::generate();
    std::string text = key.encoded() + "\n";
    // Named like write_file_atomic's temporaries, so a daemon killed before the link() below
    // leaves one that the next start removes (remove_stale_atomic_temporaries).
    auto tmp = coffer::atomic_temporary_for(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return io_error("cannot create", tmp, errno);
    ::fchmod(fd, 0600);
    bool ok = write_all(fd, text) && ::fsync(fd) == 0;
    int e = errno;
    ::close(fd);
    OPENSSL_cleanse(text.data(), text.size());
    if (!ok) {
        ::unlink(tmp.c_str());
        return io_error("cannot write", tmp, e);
    }
    if (::link(tmp.c_str(), path.c_str()) != 0) {
        e = errno;
        ::unlink(tmp.c_str());
        if (e == EEXIST)
            return core::Error::make(core::code::conflict, path.string() + " already exists; it is never overwritten");
        return io_error("cannot create", path, e);
    }
    ::unlink(tmp.c_str());
    // Make the new directory entry durable too.
    int dfd = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    return key;
}

}  // namespace coffer::crypto
