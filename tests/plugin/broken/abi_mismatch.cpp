// Claims a plugin ABI version this attend does not have: the loader must refuse it before
// calling anything else.
#include "attend/plugin_abi.h"

extern "C" ATTEND_PLUGIN_EXPORT const AttendPluginInfo* attend_plugin_info(void) {
  static const AttendPluginInfo info = {ATTEND_PLUGIN_ABI_VERSION + 1000u, "abi_mismatch", "1.0.0",
                                        attend_plugin_build_fingerprint()};
  return &info;
}

extern "C" ATTEND_PLUGIN_EXPORT int attend_plugin_register(void*, char*, size_t) { return 0; }
