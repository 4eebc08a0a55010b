#include "stdio_child.hpp"

#include "json_check.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace coffer::test {

namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

StdioChild::StdioChild(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::filesystem::path& err_file) {
    auto c = spawn_piped(argv, env, err_file);
    if (c.pid <= 0) throw std::runtime_error("cannot start " + (argv.empty() ? std::string("?") : argv[0]));
    pid_ = c.pid;
    in_ = c.in;
    out_ = c.out;
}

StdioChild::~StdioChild() {
    close_stdin();
    if (pid_ > 0 && wait(3s) == -2) {
        ::kill(pid_, SIGKILL);
        wait(3s);
    }
    if (out_ >= 0) ::close(out_);
}

void StdioChild::send(const std::string& line) {
    std::string l = line + "\n";
    std::size_t off = 0;
    while (off < l.size()) {
        ssize_t n = ::write(in_, l.data() + off, l.size() - off);
        if (n <= 0) throw std::runtime_error("the child's stdin is closed");
        off += static_cast<std::size_t>(n);
    }
}

void StdioChild::close_stdin() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
}

std::size_t StdioChild::send_until_stalled(const std::string& data, std::chrono::milliseconds stall) {
    int fl = ::fcntl(in_, F_GETFL);
    ::fcntl(in_, F_SETFL, fl | O_NONBLOCK);
    std::size_t off = 0;
    while (off < data.size()) {
        ssize_t n = ::write(in_, data.data() + off, data.size() - off);
        if (n > 0) {
            off += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno != EAGAIN) break;
        pollfd p{in_, POLLOUT, 0};
        if (::poll(&p, 1, static_cast<int>(stall.count())) == 0) break;
    }
    ::fcntl(in_, F_SETFL, fl);
    return off;
}

std::optional<std::string> StdioChild::line(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (true) {
        if (auto nl = buf_.find('\n'); nl != std::string::npos) {
            std::string l = buf_.substr(0, nl);
            buf_.erase(0, nl + 1);
            return l;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return std::nullopt;
        pollfd p{out_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        char chunk[65536];
        ssize_t n = ::read(out_, chunk, sizeof chunk);
        if (n <= 0) {
            eof_ = true;
            return std::nullopt;
        }
        buf_.append(chunk, static_cast<std::size_t>(n));
    }
}

std::optional<json::value> StdioChild::response(int id, std::chrono::milliseconds timeout, std::vector<json::value>* seen) {
    auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
        auto l = line(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
        if (!l) return std::nullopt;
        auto v = parse(*l);
        if (!v.is_object()) throw std::runtime_error("stdout line is not a JSON object: " + *l);
        auto& o = v.get_object();
        if (o.contains("id") && o["id"].is_int64() && o["id"].get_int64() == id && (o.contains("result") || o.contains("error")))
            return v;
        if (seen) seen->push_back(v);
    }
    return std::nullopt;
}

int StdioChild::wait(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return exit_;
    int rc = wait_pid(pid_, timeout);
    if (rc != -2) {
        exit_ = rc;
        pid_ = -1;
    }
    return rc;
}

}  // namespace coffer::test
