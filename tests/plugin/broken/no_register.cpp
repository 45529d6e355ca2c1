// Reports itself correctly but lacks attend_plugin_register: the loader must refuse it.
#include "attend/plugin_abi.h"

extern "C" ATTEND_PLUGIN_EXPORT const AttendPluginInfo* attend_plugin_info(void) {
  static const AttendPluginInfo info = {ATTEND_PLUGIN_ABI_VERSION, "no_register", "1.0.0",
                                        attend_plugin_build_fingerprint()};
  return &info;
}
