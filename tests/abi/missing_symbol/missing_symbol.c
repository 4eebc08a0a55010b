/* ABI case missing_symbol: BREAKS the entry point. The library loads fine and even exports an
 * entry-like function, but under the unversioned name "coffer_plugin_entry" instead of
 * COFFER_PLUGIN_ENTRY_SYMBOL ("coffer_plugin_entry_v1"). Its manifest is valid.
 * Expected: refused, "missing entry symbol coffer_plugin_entry_v1". */
#include <coffer/abi.h>

COFFER_EXPORT const coffer_plugin* coffer_plugin_entry(uint16_t host_major, uint16_t host_minor);
COFFER_EXPORT const coffer_plugin* coffer_plugin_entry(uint16_t host_major, uint16_t host_minor) {
    (void)host_major, (void)host_minor;
    return NULL;
}
