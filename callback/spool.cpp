#include "spool.hpp"

#include <coffer/atomic_file.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace coffer::callback {

namespace fs = std::filesystem;
namespace json = boost::json;

std::string Spool::open() {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    if (ec) return "cannot create the spool folder " + dir_.string() + ": " + ec.message();
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace, ec);
    remove_stale_atomic_temporaries(dir_);
    return {};
}

bool Spool::valid_name(const std::string& name) {
    // "<13 digits>-<6 digits>.json", nothing else (no path can be named through it).
    if (name.size() != 25 || name.compare(20, 5, ".json") != 0 || name[13] != '-') return false;
    for (std::size_t i = 0; i < 20; ++i)
        if (i != 13 && (name[i] < '0' || name[i] > '9')) return false;
    return true;
}

std::optional<std::string> Spool::put(const json::object& event, std::string& error) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    char name[32];
    std::snprintf(name, sizeof name, "%013lld-%06llu.json", static_cast<long long>(ms),
                  static_cast<unsigned long long>(++seq_ % 1000000));
    if (auto why = write_file_atomic(dir_ / name, json::serialize(event)); !why.empty()) {
        error = why;
        return std::nullopt;
    }
    return std::string(name);
}

bool Spool::done(const std::string& name) {
    if (!valid_name(name)) return false;
    std::error_code ec;
    return fs::remove(dir_ / name, ec);
}

std::vector<std::pair<std::string, json::object>> Spool::pending() {
    std::vector<std::string> names;
    std::error_code ec;
    for (auto& e : fs::directory_iterator(dir_, ec)) {
        auto n = e.path().filename().string();
        if (valid_name(n) && e.is_regular_file(ec)) names.push_back(n);
    }
    std::sort(names.begin(), names.end());
    std::vector<std::pair<std::string, json::object>> out;
    for (auto& n : names) {
        std::ifstream in(dir_ / n, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        boost::system::error_code pe;
        auto v = json::parse(ss.str(), pe);
        if (pe || !v.is_object()) {
            fs::rename(dir_ / n, dir_ / (n + ".bad"), ec);
            continue;
        }
        out.emplace_back(n, std::move(v.as_object()));
    }
    return out;
}

}  // namespace coffer::callback
