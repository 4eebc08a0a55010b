// The console's static files (host/console/assets/), compiled into the daemon at build time by
// coffer_embed_assets() (cmake/EmbedAssets.cmake): no file is read at run time, nothing is fetched
// from elsewhere, so the console works offline and cannot be changed behind the daemon's back.
#pragma once

#include <cstddef>
#include <string_view>

namespace coffer::console {

struct Asset {
    std::string_view name;          // "index.html", "app.js" (served under /console/)
    std::string_view content_type;
    std::string_view data;
};

extern const Asset kAssets[];
extern const std::size_t kAssetCount;

}  // namespace coffer::console
