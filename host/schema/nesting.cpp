#include "schema/nesting.hpp"

#include "schema/pointer.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

namespace coffer::schema::detail {

namespace {

class Walker {
public:
    explicit Walker(std::size_t limit) : limit_(limit) {}

    // False once a too-deep value was found (its pointer is left in path_).
    bool walk(const boost::json::value& v, std::size_t depth) {
        if (depth > limit_) return false;
        ++values_;
        const std::size_t mark = path_.size();
        if (const auto* arr = v.if_array()) {
            for (std::size_t i = 0; i < arr->size(); ++i) {
                append_index(path_, i);
                if (!walk((*arr)[i], depth + 1)) return false;
                path_.resize(mark);
            }
        } else if (const auto* obj = v.if_object()) {
            for (const auto& member : *obj) {
                const auto key = member.key();
                append_token(path_, std::string_view(key.data(), key.size()));
                if (!walk(member.value(), depth + 1)) return false;
                path_.resize(mark);
            }
        }
        return true;
    }

    Shape result(bool ok) {
        Shape s;
        s.values = values_;
        if (!ok) s.too_deep_at = std::move(path_);
        return s;
    }

private:
    std::size_t limit_;
    std::size_t values_ = 0;
    std::string path_;
};

}  // namespace

Shape measure(const boost::json::value& v, std::size_t limit) {
    Walker w(limit);
    const bool ok = w.walk(v, 0);
    return w.result(ok);
}

}  // namespace coffer::schema::detail
