// Streaming SHA-256 (OpenSSL EVP), hex output: the checksums of the backup manifest.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace coffer::backup {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(const void* data, std::size_t size);
    std::string hex();  // finishes the digest; call once

private:
    struct Ctx;
    std::unique_ptr<Ctx> ctx_;
};

}  // namespace coffer::backup
