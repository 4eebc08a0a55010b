// SHA-256, hex-encoded: the content hash in the delivery manifest.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace coffer::plugins::skill {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(const void* data, std::size_t size);
    void update(std::string_view s) { update(s.data(), s.size()); }
    std::string hex();  // finishes; call once

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

std::string sha256_hex(std::string_view data);

}  // namespace coffer::plugins::skill
