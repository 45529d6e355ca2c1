// Claims to have been built by another compiler against another attend: the loader must
// refuse it (its C++ layers would not be binary compatible).
#include "attend/plugin_abi.h"

extern "C" ATTEND_PLUGIN_EXPORT const AttendPluginInfo* attend_plugin_info(void) {
  static const AttendPluginInfo info = {ATTEND_PLUGIN_ABI_VERSION, "fingerprint_mismatch", "1.0.0",
                                        "othercc-1.0 otherlib-1 attend-0.0.0"};
  return &info;
}

extern "C" ATTEND_PLUGIN_EXPORT int attend_plugin_register(void*, char*, size_t) { return 0; }
