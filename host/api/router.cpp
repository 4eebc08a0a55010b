#include "api/router.hpp"

namespace coffer::api {

std::vector<std::string> split_path(const std::string& path) {
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < path.size()) {
        while (i < path.size() && path[i] == '/') ++i;
        auto j = path.find('/', i);
        if (j == std::string::npos) j = path.size();
        if (j > i) out.push_back(path.substr(i, j - i));
        i = j;
    }
    return out;
}

void Router::add(std::string method, std::string pattern, RouteFn fn) {
    add_async(std::move(method), std::move(pattern),
              [fn = std::move(fn)](const http::Request& r, const Params& p, Done done) { done(fn(r, p)); });
}

void Router::add_async(std::string method, std::string pattern, AsyncRouteFn fn) {
    routes_.push_back(Route{std::move(method), split_path(pattern), std::move(fn)});
}

const AsyncRouteFn* Router::match(const std::string& method, const std::string& path, Params& params,
                             bool& path_known) const {
    auto segs = split_path(path);
    path_known = false;
    for (auto& r : routes_) {
        if (r.segments.size() != segs.size()) continue;
        Params p;
        bool ok = true;
        for (std::size_t i = 0; i < segs.size() && ok; ++i) {
            auto& pat = r.segments[i];
            if (pat.size() > 2 && pat.front() == '{' && pat.back() == '}') p[pat.substr(1, pat.size() - 2)] = segs[i];
            else ok = pat == segs[i];
        }
        if (!ok) continue;
        path_known = true;
        if (r.method != method) continue;
        params = std::move(p);
        return &r.fn;
    }
    return nullptr;
}

}  // namespace coffer::api
