# Compile options shared by every attend target: warnings, OpenMP, optional sanitizers.
add_library(attend_compile_options INTERFACE)
target_compile_options(attend_compile_options INTERFACE
  -Wall -Wextra -Wno-unused-parameter
  # GCC 12 reports false positives inside Eigen's AVX-512 code and libstdc++'s strings.
  -Wno-maybe-uninitialized -Wno-restrict)
if(ATTEND_NATIVE AND NOT ATTEND_SANITIZE)
  # Tuned to the build machine; benchmarks and kernels use its vector units.
  target_compile_options(attend_compile_options INTERFACE -march=native)
elseif(ATTEND_ARCH AND NOT ATTEND_SANITIZE)
  # A portable build for a chosen CPU generation (docs/performance.md: what each is worth).
  target_compile_options(attend_compile_options INTERFACE -march=${ATTEND_ARCH})
endif()
if(ATTEND_SANITIZE)
  # -O1 -g1, after the build type's flags so they win: AddressSanitizer's recommended level,
  # with line tables for its reports. Half the compile time of -O2 -g.
  target_compile_options(attend_compile_options INTERFACE -O1 -g1
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(attend_compile_options INTERFACE -fsanitize=address,undefined)
endif()
