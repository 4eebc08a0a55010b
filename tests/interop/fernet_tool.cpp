// coffer-fernet-tool: Coffer's own Fernet code (host/crypto) on the command line, for the
// interoperability test (test/fernet_interop.test.mjs) that checks it against fernet.js.
//
//   coffer-fernet-tool keygen                      print a new key
//   coffer-fernet-tool encrypt KEY                 stdin plaintext → token (current time, random IV)
//   coffer-fernet-tool decrypt KEY [TTL_SECONDS]   stdin token → plaintext; exit 1 with the reason
//   coffer-fernet-tool stored-token VAULT REF      the token stored for REF in VAULT/coffer.db
#include "crypto/fernet.hpp"

#include <sqlite3.h>

#include <iostream>
#include <iterator>
#include <string>

using namespace coffer::crypto;

namespace {

std::string read_stdin() { return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()); }

int usage() {
    std::cerr << "usage: coffer-fernet-tool keygen | encrypt KEY | decrypt KEY [TTL] | stored-token VAULT REF\n";
    return 2;
}

int stored_token(const std::string& vault, const std::string& ref) {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2((vault + "/coffer.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        std::cerr << "cannot open " << vault << "/coffer.db\n";
        sqlite3_close(db);
        return 1;
    }
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT token FROM credentials WHERE ref = ?", -1, &st, nullptr);
    sqlite3_bind_text(st, 1, ref.c_str(), -1, SQLITE_TRANSIENT);
    int rc = 1;
    if (sqlite3_step(st) == SQLITE_ROW) {
        std::cout << reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        rc = 0;
    } else {
        std::cerr << "no credential " << ref << "\n";
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage();
    std::string cmd = argv[1];
    if (cmd == "keygen" && argc == 2) {
        std::cout << FernetKey::generate().encoded();
        return 0;
    }
    if (cmd == "stored-token" && argc == 4) return stored_token(argv[2], argv[3]);
    if ((cmd != "encrypt" && cmd != "decrypt") || argc < 3) return usage();
    auto key = FernetKey::parse(argv[2]);
    if (!key) {
        std::cerr << key.error().message << "\n";
        return 1;
    }
    auto input = read_stdin();
    if (cmd == "encrypt") {
        std::cout << fernet_encrypt(*key, input);
        return 0;
    }
    FernetVerify verify;
    if (argc >= 4) verify.ttl_s = std::stoull(argv[3]);
    auto plain = fernet_decrypt(*key, input, verify);
    if (!plain) {
        std::cerr << plain.error().message << "\n";
        return 1;
    }
    std::cout << *plain;
    return 0;
}
