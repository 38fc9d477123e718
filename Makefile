# augur — the two commands:
#   make demo   the main job (installs dependencies, configures, builds, runs it)
#   make test   the whole test suite (installs dependencies, configures, builds, runs every test),
#               then the aarch64 cross build with its tests under qemu-aarch64 (scripts/cross-build)
# Both use the CMake preset `default` (Release; CUDA backend when nvcc is found, else CPU only).
# Warnings are errors when CI is set (CI=true), as in continuous integration.

PRESET ?= default
WERROR ?= $(if $(CI),ON,OFF)
JOBS ?= $(shell nproc)
BUILD_DIR := build/$(PRESET)
CONFIG ?= config/default.yaml
# Self-contained run: RouDi inside the runtime, 25 cycles (5 s); drop both to serve iox-roudi until Ctrl-C.
DEMO_ARGS ?= --embedded-roudi --cycles 25

.PHONY: demo test deps configure build clean gpu-check

deps:
	scripts/install-deps

configure: deps
	cmake --preset $(PRESET) -DAUGUR_WERROR=$(WERROR)

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

test: build
	ctest --preset $(PRESET) -j $(JOBS)
	scripts/cross-build --test --jobs $(JOBS)

demo: build
	$(BUILD_DIR)/apps/augur-runtime/augur-runtime --config $(CONFIG) $(DEMO_ARGS)

gpu-check:
	scripts/gpu-check

clean:
	rm -rf build
