# attend: two commands do everything on a fresh Debian 12 machine.
#   make demo   install dependencies, build, run the main job on data/
#   make test   install dependencies, build, run the test suite
#   make bench  also install the reference (PyTorch on OpenBLAS), run benchmarks/compare.py
BUILD     ?= build
JOBS      ?= $(shell nproc)
CMAKE_ARGS ?=
# make builds for this machine's CPU (-march=native); NATIVE=OFF builds what a plain CMake
# configure builds, a portable library for install and packaging (docs/performance.md).
NATIVE    ?= ON

.PHONY: all bootstrap build demo test test-sanitize bench clean

all: build

bootstrap:
	@scripts/bootstrap

$(BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DATTEND_NATIVE=$(NATIVE) $(CMAKE_ARGS)

build: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	scripts/demo $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow

# AddressSanitizer + UndefinedBehaviorSanitizer build of the test suite at -O1 -g1 (any UBSan
# report is fatal; LeakSanitizer is on). Nothing is suppressed and no ASAN_OPTIONS are needed: with
# GCC 12 and libgomp on Debian 12 the OpenMP runtime reports no leaks or errors. The install
# test builds its consumer with the same -fsanitize flags (an instrumented libattend_core.so
# needs the sanitizer runtimes loaded first).
test-sanitize: bootstrap
	cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTEND_SANITIZE=ON -DATTEND_BUILD_BENCHMARKS=OFF $(CMAKE_ARGS)
	cmake --build build-sanitize -j $(JOBS)
	cd build-sanitize && ctest --output-on-failure -j $(JOBS) -LE slow

# The side-by-side benchmark (docs/performance.md); run it on a quiet machine. About 25
# minutes on 2 cores; BENCH_ARGS=--quick for a two-minute subset.
BENCH_ARGS ?=
bench: build
	@scripts/bootstrap --bench
	mkdir -p $(BUILD)/bench
	python3 benchmarks/compare.py --threads 2 --build $(BUILD) --json $(BUILD)/bench/compare.json $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) build-sanitize
