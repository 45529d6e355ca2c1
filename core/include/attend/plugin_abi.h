/* attend plugin ABI: the two C-linkage symbols a plugin shared library exports, and the build
 * fingerprint that the plugin and the loader each compute with their own compiler.
 *
 * A plugin exports
 *   const AttendPluginInfo* attend_plugin_info(void);
 *       its ABI version, name, version and build fingerprint (static storage);
 *   int attend_plugin_register(void* registry, char* error, size_t error_size);
 *       adds its layers to `registry` (an attend::Registry*); returns 0 on success, else
 *       non-zero with a one-line reason in `error` (exceptions must not cross this boundary).
 * C++ plugins write both with ATTEND_PLUGIN (<attend/core/plugin.hpp>). The loader
 * (<attend/core/plugin_loader.hpp>) refuses a library whose ABI version or fingerprint differs
 * from its own: layers are C++ classes, so a plugin must be built by the same compiler and
 * standard library against the same attend. */
#ifndef ATTEND_PLUGIN_ABI_H
#define ATTEND_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
/* Any libstdc++ / libc++ header defines the standard library's version macros. */
#include <cstddef>
#endif

#include "attend/version.h"

/** Version of this header's structures and symbols; bumped on any incompatible change. */
#define ATTEND_PLUGIN_ABI_VERSION 1u

/** Names of the two exported symbols. */
#define ATTEND_PLUGIN_INFO_SYMBOL "attend_plugin_info"
#define ATTEND_PLUGIN_REGISTER_SYMBOL "attend_plugin_register"

#define ATTEND_PLUGIN_STR_(x) #x
#define ATTEND_PLUGIN_STR(x) ATTEND_PLUGIN_STR_(x)

/** Compiler id and major.minor version. */
#if defined(__clang__)
#define ATTEND_PLUGIN_COMPILER \
  "clang-" ATTEND_PLUGIN_STR(__clang_major__) "." ATTEND_PLUGIN_STR(__clang_minor__)
#elif defined(__GNUC__)
#define ATTEND_PLUGIN_COMPILER \
  "gcc-" ATTEND_PLUGIN_STR(__GNUC__) "." ATTEND_PLUGIN_STR(__GNUC_MINOR__)
#else
#define ATTEND_PLUGIN_COMPILER "unknown-compiler"
#endif

/** Standard library and its ABI (libstdc++'s dual std::string ABI, libc++'s ABI version). */
#if defined(__GLIBCXX__)
#define ATTEND_PLUGIN_STDLIB                          \
  "libstdc++-" ATTEND_PLUGIN_STR(__GLIBCXX__) "-cxx11abi-" \
      ATTEND_PLUGIN_STR(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define ATTEND_PLUGIN_STDLIB \
  "libc++-" ATTEND_PLUGIN_STR(_LIBCPP_VERSION) "-abi-" ATTEND_PLUGIN_STR(_LIBCPP_ABI_VERSION)
#else
#define ATTEND_PLUGIN_STDLIB "no-cxx-stdlib"
#endif

/** "compiler stdlib attend-x.y.z", for example "gcc-12.2 libstdc++-20230528-cxx11abi-1 attend-0.1.0". */
#define ATTEND_PLUGIN_FINGERPRINT \
  ATTEND_PLUGIN_COMPILER " " ATTEND_PLUGIN_STDLIB " attend-" ATTEND_VERSION_STRING

#ifdef __cplusplus
extern "C" {
#endif

/** What a plugin says about itself. Every string has static storage duration. */
typedef struct AttendPluginInfo {
  uint32_t abi_version;    /**< ATTEND_PLUGIN_ABI_VERSION of the header the plugin was built with */
  const char* name;        /**< the plugin's name, e.g. "agnn" */
  const char* version;     /**< the plugin's own version, e.g. "1.0.0" */
  const char* fingerprint; /**< attend_plugin_build_fingerprint() as the plugin was compiled */
} AttendPluginInfo;

/** Signature of attend_plugin_info. */
typedef const AttendPluginInfo* (*AttendPluginInfoFn)(void);
/** Signature of attend_plugin_register; `registry` is an attend::Registry*. */
typedef int (*AttendPluginRegisterFn)(void* registry, char* error, size_t error_size);

/** The build fingerprint of the code that calls this (inline, so each side computes its own). */
static inline const char* attend_plugin_build_fingerprint(void) { return ATTEND_PLUGIN_FINGERPRINT; }

#ifdef __cplusplus
}
#endif

/** Marks a plugin's two entry points as exported even under -fvisibility=hidden. */
#if defined(__GNUC__)
#define ATTEND_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define ATTEND_PLUGIN_EXPORT
#endif

#endif /* ATTEND_PLUGIN_ABI_H */
