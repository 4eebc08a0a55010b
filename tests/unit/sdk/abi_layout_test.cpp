// The C and the C++ compiler must agree on every struct of abi.h, and a kind written in C must
// be drivable by the (C++) fake host.
#include <boost/test/unit_test.hpp>

#include <coffer/abi.h>
#include <coffer/testing.hpp>

#include <cstddef>
#include <map>
#include <string>

extern "C" {
struct coffer_c_layout_entry {
    const char* name;
    size_t value;
};
const coffer_c_layout_entry* coffer_c_layout(size_t* count);
const coffer_plugin* coffer_c_sample_plugin(void);
coffer_plugin_entry_fn coffer_c_sample_entry(void);
}

#define ENTRY(expr) {#expr, (expr)}

BOOST_AUTO_TEST_SUITE(abi_layout)

BOOST_AUTO_TEST_CASE(c_and_cxx_agree_on_layout) {
    const std::map<std::string, size_t> cxx = {
        ENTRY(sizeof(coffer_str)),
        ENTRY(offsetof(coffer_str, len)),
        ENTRY(sizeof(coffer_status)),
        ENTRY(sizeof(coffer_host_api)),
        ENTRY(offsetof(coffer_host_api, abi_major)),
        ENTRY(offsetof(coffer_host_api, abi_minor)),
        ENTRY(offsetof(coffer_host_api, log)),
        ENTRY(offsetof(coffer_host_api, reply_json)),
        ENTRY(offsetof(coffer_host_api, reply_error)),
        ENTRY(offsetof(coffer_host_api, emit)),
        ENTRY(offsetof(coffer_host_api, audit)),
        ENTRY(offsetof(coffer_host_api, data_dir)),
        ENTRY(offsetof(coffer_host_api, vault_dir)),
        ENTRY(offsetof(coffer_host_api, child_exited)),
        ENTRY(offsetof(coffer_host_api, credential_resolve)),
        ENTRY(offsetof(coffer_host_api, turn_event)),
        ENTRY(offsetof(coffer_host_api, channel_inbound)),
        ENTRY(offsetof(coffer_host_api, credential_store)),
        ENTRY(sizeof(coffer_kind)),
        ENTRY(offsetof(coffer_kind, name)),
        ENTRY(offsetof(coffer_kind, schema_json)),
        ENTRY(offsetof(coffer_kind, actions_json)),
        ENTRY(offsetof(coffer_kind, kind_data)),
        ENTRY(offsetof(coffer_kind, validate)),
        ENTRY(offsetof(coffer_kind, create)),
        ENTRY(offsetof(coffer_kind, update)),
        ENTRY(offsetof(coffer_kind, start)),
        ENTRY(offsetof(coffer_kind, stop)),
        ENTRY(offsetof(coffer_kind, status)),
        ENTRY(offsetof(coffer_kind, action)),
        ENTRY(offsetof(coffer_kind, remove)),
        ENTRY(offsetof(coffer_kind, destroy)),
        ENTRY(sizeof(coffer_mcp_provider)),
        ENTRY(offsetof(coffer_mcp_provider, open)),
        ENTRY(offsetof(coffer_mcp_provider, request)),
        ENTRY(offsetof(coffer_mcp_provider, cancel)),
        ENTRY(offsetof(coffer_mcp_provider, respond)),
        ENTRY(offsetof(coffer_mcp_provider, close)),
        ENTRY(offsetof(coffer_mcp_provider, notify)),
        ENTRY(sizeof(coffer_agent_driver)),
        ENTRY(offsetof(coffer_agent_driver, start_turn)),
        ENTRY(offsetof(coffer_agent_driver, interrupt)),
        ENTRY(offsetof(coffer_kind, agent)),
        ENTRY(sizeof(coffer_channel_adapter)),
        ENTRY(offsetof(coffer_channel_adapter, capabilities)),
        ENTRY(offsetof(coffer_channel_adapter, start)),
        ENTRY(offsetof(coffer_channel_adapter, stop)),
        ENTRY(offsetof(coffer_channel_adapter, send)),
        ENTRY(offsetof(coffer_channel_adapter, edit)),
        ENTRY(offsetof(coffer_channel_adapter, typing)),
        ENTRY(offsetof(coffer_kind, channel)),
        ENTRY(offsetof(coffer_kind, rescope)),
        ENTRY(sizeof(coffer_plugin)),
        ENTRY(offsetof(coffer_plugin, abi_major)),
        ENTRY(offsetof(coffer_plugin, abi_minor)),
        ENTRY(offsetof(coffer_plugin, min_host_minor)),
        ENTRY(offsetof(coffer_plugin, reserved0)),
        ENTRY(offsetof(coffer_plugin, name)),
        ENTRY(offsetof(coffer_plugin, version)),
        ENTRY(offsetof(coffer_plugin, init)),
        ENTRY(offsetof(coffer_plugin, shutdown)),
        ENTRY(offsetof(coffer_plugin, kind_count)),
        ENTRY(offsetof(coffer_plugin, kinds)),
    };
    size_t n = 0;
    const coffer_c_layout_entry* c = coffer_c_layout(&n);
    BOOST_REQUIRE(n == cxx.size());
    for (size_t i = 0; i < n; ++i) {
        auto it = cxx.find(c[i].name);
        BOOST_REQUIRE_MESSAGE(it != cxx.end(), "C reports an unknown entry " << c[i].name);
        BOOST_TEST(c[i].value == it->second, c[i].name << ": C says " << c[i].value << ", C++ says " << it->second);
    }
}

BOOST_AUTO_TEST_CASE(struct_size_is_the_first_field_everywhere) {
    BOOST_TEST(offsetof(coffer_host_api, struct_size) == 0u);
    BOOST_TEST(offsetof(coffer_kind, struct_size) == 0u);
    BOOST_TEST(offsetof(coffer_plugin, struct_size) == 0u);
    BOOST_TEST(offsetof(coffer_mcp_provider, struct_size) == 0u);
}

BOOST_AUTO_TEST_CASE(minor_4_appends_notify_after_close) {
    // 1.4 only appended: a 1.3 table (ending at close) is a prefix of the 1.4 one.
    BOOST_TEST(offsetof(coffer_mcp_provider, notify) == offsetof(coffer_mcp_provider, close) + sizeof(void (*)(void*)));
    BOOST_TEST(sizeof(coffer_mcp_provider) == offsetof(coffer_mcp_provider, notify) + sizeof(void (*)(void*)));
}

BOOST_AUTO_TEST_CASE(minor_5_appends_the_agent_driver) {
    // 1.5 only appended: turn_event after credential_resolve, agent after mcp.
    BOOST_TEST(offsetof(coffer_host_api, turn_event) == offsetof(coffer_host_api, credential_resolve) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_host_api, channel_inbound) == offsetof(coffer_host_api, turn_event) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_kind, agent) == offsetof(coffer_kind, mcp) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_kind, channel) == offsetof(coffer_kind, agent) + sizeof(void*));
}

BOOST_AUTO_TEST_CASE(minor_6_appends_the_channel_adapter) {
    // 1.6 only appended: channel_inbound after turn_event, channel after agent.
    BOOST_TEST(offsetof(coffer_host_api, credential_store) == offsetof(coffer_host_api, channel_inbound) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_kind, rescope) == offsetof(coffer_kind, channel) + sizeof(void*));
}

BOOST_AUTO_TEST_CASE(minor_7_appends_rescope) {
    // 1.7 only appended: rescope after channel.
    BOOST_TEST(sizeof(coffer_kind) == offsetof(coffer_kind, rescope) + sizeof(void*));
}

BOOST_AUTO_TEST_CASE(minor_8_appends_credential_store) {
    // 1.8 only appended: credential_store after channel_inbound.
    BOOST_TEST(offsetof(coffer_host_api, loop_watch) == offsetof(coffer_host_api, credential_store) + sizeof(void*));
}

BOOST_AUTO_TEST_CASE(minor_9_appends_the_lent_loop) {
    // 1.9 only appended: the five loop functions after credential_store, in this order.
    BOOST_TEST(offsetof(coffer_host_api, loop_timer) == offsetof(coffer_host_api, loop_watch) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_host_api, loop_defer) == offsetof(coffer_host_api, loop_timer) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_host_api, loop_cancel) == offsetof(coffer_host_api, loop_defer) + sizeof(void*));
    BOOST_TEST(offsetof(coffer_host_api, loop_in_loop) == offsetof(coffer_host_api, loop_cancel) + sizeof(void*));
    BOOST_TEST(sizeof(coffer_host_api) == offsetof(coffer_host_api, loop_in_loop) + sizeof(void*));
    BOOST_TEST(COFFER_ABI_MINOR == 9);
}

BOOST_AUTO_TEST_CASE(a_c_plugin_is_drivable_by_the_fake_host) {
    coffer_plugin_entry_fn entry = coffer_c_sample_entry();
    BOOST_TEST(entry(2, 0) == nullptr);
    BOOST_TEST(entry(1, 0) == coffer_c_sample_plugin());
    coffer::testing::FakeHost host(entry);
    BOOST_TEST(host.plugin().kind_count == 1u);
    BOOST_TEST(host.validate("c_sample", "{}").ok());
    auto* i = host.create("c_sample", "c1", "{}");
    BOOST_TEST(host.action(i, "ping").ok());
    BOOST_TEST(host.action(i, "pong").status == COFFER_E_UNSUPPORTED);
    BOOST_TEST(host.status(i).ok());  // optional hook absent: the fake host treats it as a no-op
}

BOOST_AUTO_TEST_SUITE_END()
