# augur — the two commands:
#   make demo   the main job (installs dependencies, configures, builds augur-runtime and augur-hil only,
#               then runs the HIL bench end to end:
#               RouDi, augur-runtime on $(CONFIG), replay of the committed scenario, report)
#   make suite  the HIL scenario suite (scenarios generated from seeds with SUMO, one bench each, one table;
#               SUITE_ARGS="--jobs 4 --duration-s 120", docs/hil-bench.md)
#   make test   the whole test suite (installs dependencies, configures, builds, runs every test), then
#               the AddressSanitizer + UBSan job on the `sanitize`-labelled subset (scripts/sanitize),
#               then the aarch64 cross build with its tests under qemu-aarch64 (scripts/cross-build)
# Both use the CMake preset `default` (Release; CUDA backend when nvcc is found, else CPU only).
# Warnings are errors when CI is set (CI=true), as in continuous integration.

PRESET ?= default
WERROR ?= $(if $(CI),ON,OFF)
JOBS ?= $(shell nproc)
BUILD_DIR := build/$(PRESET)
CONFIG ?= config/default.yaml
HIL_OUT ?= $(BUILD_DIR)/hil-demo
HIL_ARGS ?=
SUITE_OUT ?= $(BUILD_DIR)/hil-suite
SUITE_ARGS ?=

.PHONY: demo suite test deps configure build build-demo clean gpu-check

deps:
	scripts/install-deps

configure: deps
	cmake --preset $(PRESET) -DAUGUR_WERROR=$(WERROR)

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

# The two programs the demo and the suite run, and what they link; not the tests or the benchmarks.
build-demo: configure
	cmake --build --preset $(PRESET) -j $(JOBS) --target augur-runtime augur-hil

test: build
	ctest --preset $(PRESET) -j $(JOBS)
	scripts/sanitize --jobs $(JOBS)
	scripts/cross-build --test --jobs $(JOBS)

# augur-hil exits 1 when an acceptance threshold did not hold (printed with the summary); the demo
# fails only when the bench could not run (status >= 2). Thresholds and options: HIL_ARGS="--help".
demo: build-demo
	$(BUILD_DIR)/apps/augur-hil/augur-hil demo --config $(CONFIG) --out $(HIL_OUT) $(HIL_ARGS); \
	status=$$?; if [ $$status -gt 1 ]; then exit $$status; fi

# Exit status 0 when every bench ran (the targets are in the table and JUnit file), 3 when one did not.
suite: build-demo
	$(BUILD_DIR)/apps/augur-hil/augur-hil suite --out $(SUITE_OUT) $(SUITE_ARGS)

gpu-check:
	scripts/gpu-check

clean:
	rm -rf build
