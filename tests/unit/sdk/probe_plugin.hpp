// A plugin compiled into the SDK unit test. Every hook can be made to misbehave on request so the
// tests can check what the wrapper turns it into at the C boundary.
#pragma once

#include <coffer/abi.h>

#include <atomic>

extern "C" const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor);

namespace probe {

// Counters the tests read: instances alive, lifecycle calls seen, plugin init/shutdown calls.
struct Counters {
    std::atomic<int> live{0}, created{0}, destroyed{0};
    std::atomic<int> starts{0}, stops{0}, removes{0};
    std::atomic<int> inits{0}, shutdowns{0};
};
Counters& counters();

}  // namespace probe
