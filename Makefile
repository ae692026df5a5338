# papcoll — the friendly face of the CMake build.
#   make build   configure and build into build/ (tools in build/bin/)
#   make test    install what is missing, build, run the whole test suite
#   make demo    install what is missing, build, run the demonstration
#   make demo-cluster  the demonstration's sweep on the emulated cluster
BUILD ?= build
JOBS  ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps test demo demo-cluster clean check-mpich example-fft

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
	@scripts/demo.sh $(BUILD)/bin results

# The demo's sweep on the emulated 8-host 1 Gbit/s Ethernet cluster (root).
demo-cluster: deps build
	@scripts/demo-cluster.sh $(BUILD)/bin results-cluster

# The parallel FFT with a master (examples/fft, needs FFTW): native against
# papcoll's scatter/gather; EXAMPLE_ARGS=--cluster on the emulated cluster.
example-fft: deps build
	@scripts/example-fft.sh -b $(BUILD) $(EXAMPLE_ARGS)

# Compiles everything against MPICH 4 (Debian's libmpich-dev) in build-mpich/.
check-mpich:
	@scripts/setup-deps.sh libmpich-dev mpich
	@cmake -S . -B build-mpich -DMPI_C_COMPILER=/usr/bin/mpicc.mpich \
	  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
	@cmake --build build-mpich -j $(JOBS) -- --no-print-directory

clean:
	rm -rf $(BUILD) build-mpich

# Data-parallel training (examples/training, issue 14): native MPI_Allreduce
# against papcoll's algorithms, loss curves checked.  On the emulated
# cluster (root): make example-training TRAINING_ARGS=--cluster
TRAINING_ARGS ?=
.PHONY: example-training
example-training: deps build
	@scripts/example-training.sh --build $(BUILD) $(TRAINING_ARGS)

# The SimGrid SMPI build (issue 16, docs/scale.md): papcoll and the tools
# compiled with smpicc into build-smpi/ (papcoll linked statically into each
# tool); run them with sim/run, e.g. sim/run -n 48 -- papc-bench -c gather ...
SMPI_BUILD ?= build-smpi
.PHONY: smpi
smpi: deps
	@cmake -S . -B $(SMPI_BUILD) -DCMAKE_C_COMPILER=smpicc -DPAPC_SMPI=ON >/dev/null
	@cmake --build $(SMPI_BUILD) -j $(JOBS) -- --no-print-directory
