// coffer::sdk::Host against host_api structs of other sizes: an older host's smaller struct must
// make the newer fields "absent" (no call through them), a newer host's larger struct is fine.
#include <boost/test/unit_test.hpp>

#include <coffer/sdk.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace sdk = coffer::sdk;
namespace json = boost::json;

namespace {

// Records which callbacks were invoked. coffer_host is opaque to plugins; the tests pass a
// pointer to this recorder disguised as one.
struct Calls {
    std::vector<std::string> seen;
};
Calls* calls(coffer_host* h) { return reinterpret_cast<Calls*>(h); }

// A host_api with every v1.0 field filled in.
coffer_host_api full_api() {
    coffer_host_api api{};
    api.struct_size = sizeof(coffer_host_api);
    api.abi_major = COFFER_ABI_MAJOR;
    api.abi_minor = COFFER_ABI_MINOR;
    api.log = [](coffer_host* h, int, coffer_str m) { calls(h)->seen.push_back("log:" + std::string(sdk::to_view(m))); };
    api.reply_json = [](coffer_reply*, coffer_str) {};
    api.reply_error = [](coffer_reply*, coffer_status, coffer_str, coffer_str) {};
    api.emit = [](coffer_host* h, coffer_str t, coffer_str) {
        calls(h)->seen.push_back("emit:" + std::string(sdk::to_view(t)));
        return COFFER_OK;
    };
    api.audit = [](coffer_host* h, coffer_str t, coffer_str, coffer_str) {
        calls(h)->seen.push_back("audit:" + std::string(sdk::to_view(t)));
        return COFFER_E_DENIED;
    };
    api.data_dir = [](coffer_host*) { return sdk::to_cstr("/data"); };
    api.vault_dir = [](coffer_host*) { return sdk::to_cstr("/vault"); };
    return api;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(host_struct_size)

BOOST_AUTO_TEST_CASE(full_struct_offers_everything) {
    Calls c;
    auto api = full_api();
    sdk::Host h(&api, reinterpret_cast<coffer_host*>(&c));
    BOOST_TEST(h.has(&coffer_host_api::log));
    BOOST_TEST(h.has(&coffer_host_api::emit));
    BOOST_TEST(h.has(&coffer_host_api::vault_dir));
    h.info("hello");
    BOOST_TEST(h.emit("t", json::object{}));
    BOOST_TEST(!h.audit("a", "x", json::object{}));  // the host's status is passed on
    BOOST_TEST(h.data_dir() == "/data");
    BOOST_TEST(h.vault_dir() == "/vault");
    BOOST_TEST((c.seen == std::vector<std::string>{"log:hello", "emit:t", "audit:a"}));
    BOOST_TEST(h.api() == &api);
}

BOOST_AUTO_TEST_CASE(smaller_struct_hides_the_fields_it_lacks) {
    // An "older host" whose struct ends just before emit: everything from emit on is absent even
    // though the memory behind it holds valid pointers.
    Calls c;
    auto api = full_api();
    api.struct_size = offsetof(coffer_host_api, emit);
    sdk::Host h(&api, reinterpret_cast<coffer_host*>(&c));
    BOOST_TEST(h.has(&coffer_host_api::log));
    BOOST_TEST(h.has(&coffer_host_api::reply_error));
    BOOST_TEST(!h.has(&coffer_host_api::emit));
    BOOST_TEST(!h.has(&coffer_host_api::audit));
    BOOST_TEST(!h.has(&coffer_host_api::data_dir));
    BOOST_TEST(!h.has(&coffer_host_api::vault_dir));
    h.warn("still logs");
    BOOST_TEST(!h.emit("t", json::object{}));
    BOOST_TEST(!h.audit("a", "x", json::object{}));
    BOOST_TEST(h.data_dir().empty());
    BOOST_TEST(h.vault_dir().empty());
    BOOST_TEST((c.seen == std::vector<std::string>{"log:still logs"}));
}

BOOST_AUTO_TEST_CASE(a_field_cut_in_half_is_absent) {
    auto api = full_api();
    api.struct_size = offsetof(coffer_host_api, vault_dir) + sizeof(void*) / 2;
    sdk::Host h(&api, nullptr);
    BOOST_TEST(h.has(&coffer_host_api::data_dir));
    BOOST_TEST(!h.has(&coffer_host_api::vault_dir));
}

BOOST_AUTO_TEST_CASE(header_only_struct_offers_nothing) {
    Calls c;
    auto api = full_api();
    api.struct_size = offsetof(coffer_host_api, log);
    sdk::Host h(&api, reinterpret_cast<coffer_host*>(&c));
    BOOST_TEST(!h.has(&coffer_host_api::log));
    h.error("dropped");
    BOOST_TEST(c.seen.empty());
}

BOOST_AUTO_TEST_CASE(larger_struct_from_a_newer_host_is_accepted) {
    // A newer host appends fields the plugin does not know; the known prefix is used as is.
    struct Newer {
        coffer_host_api v1;
        void (*appended)(void);
    } newer{full_api(), nullptr};
    newer.v1.struct_size = sizeof(Newer);
    newer.v1.abi_minor = COFFER_ABI_MINOR + 3;
    Calls c;
    sdk::Host h(&newer.v1, reinterpret_cast<coffer_host*>(&c));
    BOOST_TEST(h.has(&coffer_host_api::vault_dir));
    BOOST_TEST(h.vault_dir() == "/vault");
}

BOOST_AUTO_TEST_CASE(credential_resolve_on_a_1_3_host_and_absent_on_a_1_2_host) {
    auto api = full_api();
    api.credential_resolve = [](coffer_host* h, coffer_str ref, void (*sink)(void*, coffer_str), void* ctx) {
        calls(h)->seen.push_back("resolve:" + std::string(sdk::to_view(ref)));
        if (sdk::to_view(ref) != "known") return COFFER_E_NOT_FOUND;
        sink(ctx, sdk::to_cstr("the-value"));
        return COFFER_OK;
    };
    Calls c;
    sdk::Host h(&api, reinterpret_cast<coffer_host*>(&c));
    auto ok = h.resolve_credential("known");
    BOOST_TEST(ok.ok());
    BOOST_TEST(ok.value == "the-value");
    auto missing = h.resolve_credential("other");
    BOOST_TEST(missing.status == COFFER_E_NOT_FOUND);
    BOOST_TEST(missing.value.empty());
    // A 1.2 host's struct ends after child_exited: no call, UNSUPPORTED.
    api.struct_size = offsetof(coffer_host_api, credential_resolve);
    sdk::Host old(&api, reinterpret_cast<coffer_host*>(&c));
    BOOST_TEST(!old.has(&coffer_host_api::credential_resolve));
    BOOST_TEST(old.resolve_credential("known").status == COFFER_E_UNSUPPORTED);
    BOOST_TEST((c.seen == std::vector<std::string>{"resolve:known", "resolve:other"}));
}

BOOST_AUTO_TEST_CASE(null_pointer_in_range_is_absent) {
    auto api = full_api();
    api.emit = nullptr;
    sdk::Host h(&api, nullptr);
    BOOST_TEST(!h.has(&coffer_host_api::emit));
    BOOST_TEST(!h.emit("t", json::object{}));
}

BOOST_AUTO_TEST_CASE(default_host_is_inert) {
    sdk::Host h;
    BOOST_TEST(!h.has(&coffer_host_api::log));
    h.info("nothing happens");
    BOOST_TEST(!h.emit("t", json::object{}));
    BOOST_TEST(h.data_dir().empty());
    BOOST_TEST(h.api() == nullptr);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(strings)

BOOST_AUTO_TEST_CASE(borrowed_strings_round_trip) {
    std::string s = "héllo";
    auto c = sdk::to_cstr(s);
    BOOST_TEST(c.ptr == s.data());
    BOOST_TEST(c.len == s.size());
    BOOST_TEST(sdk::to_view(c) == s);
    std::string with_nul("a\0b", 3);
    BOOST_TEST(sdk::to_view(sdk::to_cstr(with_nul)).size() == 3u);  // not NUL-terminated: length rules
    BOOST_TEST(sdk::to_view(coffer_str{nullptr, 5}).empty());          // null pointer reads as empty
}

BOOST_AUTO_TEST_SUITE_END()
