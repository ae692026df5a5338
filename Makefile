# papcoll — the friendly face of the CMake build.
#   make build   configure and build into build/ (tools in build/bin/)
#   make test    install what is missing, build, run the whole test suite
#   make demo    install what is missing, build, run the demonstration
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps test demo clean check-mpich

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null

build: $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

test: deps build
	@cd $(BUILD) && ctest --output-on-failure -j 1 --timeout 600

demo: deps build
	@scripts/demo.sh $(BUILD)/bin

# Compiles everything against MPICH 4 (Debian's libmpich-dev) in build-mpich/.
check-mpich:
	@scripts/setup-deps.sh libmpich-dev mpich
	@cmake -S . -B build-mpich -DMPI_C_COMPILER=/usr/bin/mpicc.mpich \
	  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
	@cmake --build build-mpich -j $(JOBS) -- --no-print-directory

clean:
	rm -rf $(BUILD) build-mpich
