// The OpenAI-compatible embeddings client (see embedder.hpp): request bodies, batching, retries
// with exponential backoff (Retry-After honoured), answer parsing and normalisation. The HTTP
// exchange itself is lib/http_client.
//
// The API key is only ever placed in the Authorization header. Messages carry the status and a
// short piece of the answer body with any copy of the key blanked out (some servers echo it).
#include "retrieval/embedder.hpp"

#include "http_client/fetch.hpp"

#include "retrieval/vector_math.hpp"

#include <coffer/utf8.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <thread>

namespace coffer::retrieval {
namespace json = boost::json;
namespace {

constexpr auto kMaxBackoff = std::chrono::milliseconds(30000);
constexpr std::size_t kMaxBody = 256 * 1024 * 1024;

// `<base_url>/embeddings`; the URL itself is never repeated in an error (it might hold a token).
http_client::Url endpoint(const std::string& base_url) {
    try {
        auto u = http_client::parse_url(base_url);
        while (u.path.size() > 1 && u.path.back() == '/') u.path.pop_back();
        u.path = (u.path == "/" ? "" : u.path) + "/embeddings";
        u.query.clear();
        return u;
    } catch (const http_client::Error& e) {
        throw Error(Error::Code::invalid, std::string("embeddings base_url: ") + e.what());
    }
}
constexpr auto kMaxRetryAfter = std::chrono::milliseconds(60000);

bool retryable(int status) { return status == 408 || status == 429 || status >= 500; }

// Retry-After in seconds (the HTTP-date form is rare for APIs and is ignored).
std::optional<std::chrono::milliseconds> retry_after(const std::string& v) {
    int secs = 0;
    auto r = std::from_chars(v.data(), v.data() + v.size(), secs);
    if (r.ec != std::errc() || secs < 0) return std::nullopt;
    return std::min<std::chrono::milliseconds>(std::chrono::seconds(secs), kMaxRetryAfter);
}

class HttpEmbedder final : public Embedder {
public:
    explicit HttpEmbedder(EmbeddingConfig c) : cfg_(std::move(c)), url_(endpoint(cfg_.base_url)) {
        if (cfg_.model.empty()) throw Error(Error::Code::invalid, "embeddings: no model configured");
        if (cfg_.batch < 1) cfg_.batch = 1;
        if (cfg_.max_attempts < 1) cfg_.max_attempts = 1;
    }

    std::string model_id() const override {
        return cfg_.dimensions > 0 ? cfg_.model + "@" + std::to_string(cfg_.dimensions) : cfg_.model;
    }

    std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) override {
        std::vector<std::vector<float>> out;
        out.reserve(texts.size());
        const auto batch = static_cast<std::size_t>(cfg_.batch);
        for (std::size_t at = 0; at < texts.size(); at += batch) {
            std::vector<std::string> part(texts.begin() + static_cast<std::ptrdiff_t>(at),
                                          texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), at + batch)));
            for (auto& v : embed_batch(part)) out.push_back(std::move(v));
        }
        return out;
    }

private:
    std::string scrub(std::string text) const {
        if (!cfg_.api_key.empty())
            for (std::size_t at; (at = text.find(cfg_.api_key)) != std::string::npos;)
                text.replace(at, cfg_.api_key.size(), "***");
        return text;
    }

    std::string where() const {
        return url_.origin();
    }

    std::string request_body(const std::vector<std::string>& texts) const {
        json::object o;
        o["model"] = cfg_.model;
        json::array input;
        for (const auto& t : texts) input.emplace_back(utf8::valid(t) ? t : utf8::escape_invalid(t));
        o["input"] = std::move(input);
        if (cfg_.dimensions > 0) o["dimensions"] = cfg_.dimensions;
        return json::serialize(o);
    }

    std::vector<std::vector<float>> embed_batch(const std::vector<std::string>& texts) {
        http_client::Request req;
        req.method = "POST";
        req.url = url_;
        req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
        if (!cfg_.api_key.empty()) req.headers.emplace_back("Authorization", "Bearer " + cfg_.api_key);
        req.body = request_body(texts);
        std::string last;
        auto wait = cfg_.backoff;
        for (int attempt = 1; attempt <= cfg_.max_attempts; ++attempt) {
            std::optional<std::chrono::milliseconds> hinted;
            try {
                auto r = client_.fetch(req, cfg_.timeout, kMaxBody);
                if (r.status == 200) return parse(r.body, texts.size());
                last = "HTTP " + std::to_string(r.status) + body_excerpt(r.body);
                if (!retryable(r.status)) break;
                hinted = retry_after(r.header("Retry-After").value_or(""));
            } catch (const http_client::Error& e) {
                last = std::string("embeddings endpoint ") + e.what();
            }
            if (attempt == cfg_.max_attempts) break;
            std::this_thread::sleep_for(hinted ? *hinted : wait);
            wait = std::min(wait * 2, kMaxBackoff);
        }
        throw Error(Error::Code::unavailable, scrub("embeddings endpoint " + where() + " failed: " + last));
    }

    std::string body_excerpt(const std::string& body) const {
        if (body.empty()) return "";
        std::string b = utf8::escape_invalid(body.substr(0, 200));
        std::replace(b.begin(), b.end(), '\n', ' ');
        return ": " + scrub(b);
    }

    // {"data":[{"index":i,"embedding":[…]}, …]} → vectors in index order, normalised.
    std::vector<std::vector<float>> parse(const std::string& body, std::size_t expected) {
        auto bad = [](const std::string& why) { return Error(Error::Code::invalid, "embeddings answer: " + why); };
        boost::system::error_code ec;
        auto v = json::parse(body, ec);
        const json::array* data = nullptr;
        if (!ec && v.is_object())
            if (auto* d = v.as_object().if_contains("data"); d && d->is_array()) data = &d->as_array();
        if (!data) throw bad("not JSON with a \"data\" array");
        if (data->size() != expected)
            throw bad(std::to_string(data->size()) + " embeddings for " + std::to_string(expected) + " texts");
        std::vector<std::vector<float>> out(expected);
        for (std::size_t pos = 0; pos < data->size(); ++pos) {
            const auto& item = (*data)[pos];
            const json::object* o = item.if_object();
            const json::value* emb = o ? o->if_contains("embedding") : nullptr;
            if (!emb || !emb->is_array()) throw bad("an item without an \"embedding\" array");
            std::size_t index = pos;
            if (auto* ix = o->if_contains("index")) {
                if (!ix->is_int64() || ix->as_int64() < 0 || static_cast<std::size_t>(ix->as_int64()) >= expected)
                    throw bad("an index out of range");
                index = static_cast<std::size_t>(ix->as_int64());
            }
            if (!out[index].empty()) throw bad("index " + std::to_string(index) + " twice");
            out[index] = to_floats(emb->as_array(), bad);
        }
        for (auto& vec : out) {
            if (cfg_.dimensions > 0 && vec.size() != static_cast<std::size_t>(cfg_.dimensions))
                throw bad(std::to_string(vec.size()) + " dimensions, " + std::to_string(cfg_.dimensions) + " asked for");
            if (dim_ == 0) dim_ = vec.size();
            if (vec.size() != dim_)
                throw bad(std::to_string(vec.size()) + " dimensions where earlier vectors had " + std::to_string(dim_));
            if (!normalise(vec)) throw bad("a zero or non-finite vector");
        }
        return out;
    }

    template <typename Bad>
    static std::vector<float> to_floats(const json::array& a, Bad bad) {
        if (a.empty()) throw bad("an empty embedding");
        std::vector<float> v;
        v.reserve(a.size());
        for (const auto& x : a) {
            if (!x.is_number()) throw bad("a non-number in an embedding");
            v.push_back(static_cast<float>(x.to_number<double>()));
        }
        return v;
    }

    EmbeddingConfig cfg_;
    http_client::Url url_;
    http_client::Client client_;
    std::size_t dim_ = 0;  // the dimension of the first answer; every later one must match
};

}  // namespace

std::unique_ptr<Embedder> make_http_embedder(EmbeddingConfig config) {
    return std::make_unique<HttpEmbedder>(std::move(config));
}

}  // namespace coffer::retrieval
