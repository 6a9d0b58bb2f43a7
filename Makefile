# The two commands: `make demo` and `make test`. Both install what is
# missing, configure Release into build/, build with ccache on all cores.
BUILD ?= build
JOBS ?= $(shell nproc)
AF_WERROR ?= OFF
# Target CPU (-march): x86-64-v3 by default, which runs on any AVX2 host;
# `make test AF_MARCH=native` or x86-64-v2 builds for other widths.
AF_MARCH ?=
CMAKE_FLAGS ?=
SANITIZER_DIR := $(CURDIR)/tests/sanitizers

.PHONY: all deps test-deps configure build demo demo-cluster compare compare-lstm test test-slow test-asan test-tsan bench clean \
  fresh-machine-test package fresh-machine-package-test gpu-pack lint

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DAF_WERROR=$(AF_WERROR) $(if $(AF_MARCH),-DAF_MARCH=$(AF_MARCH)) $(CMAKE_FLAGS) \
	  > $(BUILD).configure.log 2>&1 || \
	  (cat $(BUILD).configure.log; exit 1)
	@grep -E '^-- actorflow' $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The main job: the Deep MNIST CNN, one epoch of Fashion-MNIST, 2 threads;
# prints test accuracy, wall time and examples/s. A fresh logdir each time
# (the trainer resumes from a logdir's latest checkpoint).
DEMO_FLAGS ?= --model cnn --epochs 1 --batch 64 --threads 2
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target fashion_mnist
	@rm -rf $(BUILD)/demo-logdir
	$(BUILD)/bin/fashion_mnist $(DEMO_FLAGS) --logdir $(BUILD)/demo-logdir

# The same CNN trained by a cluster on this machine: 2 ps tasks and 3
# worker processes under `actorflow cluster`, combining gradients with 2
# backup workers (the first of each step's 3 gradients is applied). The
# chief's report (every worker's examples/s and dropped gradients, test
# accuracy) ends the output; each task's log is under build/demo-cluster.
DEMO_CLUSTER_FLAGS ?= --model cnn --epochs 1 --batch 64 --threads 1 --protocol backup:2
demo-cluster: configure
	@cmake --build $(BUILD) -j $(JOBS) --target fashion_mnist actorflow
	@rm -rf $(BUILD)/demo-cluster
	$(BUILD)/bin/actorflow cluster --ps 2 --workers 3 --logdir $(abspath $(BUILD))/demo-cluster -- \
	  $(abspath $(BUILD))/bin/fashion_mnist $(DEMO_CLUSTER_FLAGS) --progress false \
	  --logdir $(abspath $(BUILD))/demo-cluster/train
	@grep -v '^/job' $(BUILD)/demo-cluster/worker-0.log | tail -n 7

# The demo beside PyTorch 1.13 on the same model, batch and threads
# (bench/peers/torch_fmnist.py, bench/peers/README.md; installs python3-torch
# when missing).
PEER ?= bench/peers/torch_fmnist.py
compare: configure
	@AF_PEER_DEPS=1 bash scripts/install-deps.sh
	@cmake --build $(BUILD) -j $(JOBS) --target fashion_mnist
	@rm -rf $(BUILD)/demo-logdir
	/usr/bin/time -f "actorflow peak RSS %M KiB" $(BUILD)/bin/fashion_mnist $(DEMO_FLAGS) --logdir $(BUILD)/demo-logdir --progress false
	@test -f $(PEER) || (echo "compare: no peer script at $(PEER) (set PEER=...)"; exit 1)
	/usr/bin/time -f "pytorch peak RSS %M KiB" /usr/bin/python3 $(PEER) --model cnn --batch 64 --epochs 1 --threads 2

# The LSTM of examples/lstm_fashion_mnist per batch (forward, forward+backward)
# beside PyTorch's nn.LSTM, tuned as bench/peers/README.md says.
compare-lstm: configure
	@AF_PEER_DEPS=1 bash scripts/install-deps.sh
	@cmake --build $(BUILD) -j $(JOBS) --target bench_loop
	$(BUILD)/bin/bench_loop --lstm-only
	OMP_WAIT_POLICY=PASSIVE LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 \
	  /usr/bin/python3 bench/peers/torch_lstm.py --threads 2

# The tests also start a one-node Slurm (tests/integration/slurm_training_test.cc):
# test-deps installs its daemons, which `make demo` does not need. Run in the
# recipe, after the build's own install, so two apt runs never overlap.
test-deps:
	@AF_TEST_DEPS=1 bash scripts/install-deps.sh

test: build
	@AF_TEST_DEPS=1 bash scripts/install-deps.sh
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE slow $(CTEST_ARGS)

# The slow tests (a tensor over 4 GiB between processes: ~9 GiB of memory).
test-slow: build
	@cd $(BUILD) && ctest --output-on-failure -L slow $(CTEST_ARGS)

# AddressSanitizer + UndefinedBehaviorSanitizer over the whole suite.
# Suppressions (each with its reason) live in tests/sanitizers/.
test-asan:
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1 \
	 LSAN_OPTIONS=suppressions=$(SANITIZER_DIR)/lsan.supp:print_suppressions=0 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(SANITIZER_DIR)/ubsan.supp \
	 $(MAKE) --no-print-directory test BUILD=build-asan \
	  CMAKE_FLAGS="-DAF_SANITIZE=address -DCMAKE_BUILD_TYPE=RelWithDebInfo"

# ThreadSanitizer over every suite but the whole-program integration tests
# (the unit, runtime, actors and queue, client and distributed suites).
test-tsan:
	@TSAN_OPTIONS=suppressions=$(SANITIZER_DIR)/tsan.supp:halt_on_error=0:second_deadlock_stack=1:history_size=4 \
	 $(MAKE) --no-print-directory test BUILD=build-tsan CTEST_ARGS="-E test_integration" \
	  CMAKE_FLAGS="-DAF_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo"

# `make test` in a clean Debian 12 root from a fresh clone (root; see the
# script): the proof that a new user's machine needs nothing by hand.
fresh-machine-test:
	@bash scripts/fresh-machine-test.sh test

# The Debian package of the libraries, headers, CMake and pkg-config
# packages and the `actorflow` tool (cmake/ActorflowPackage.cmake):
# $(BUILD)/package/actorflow_<version>_amd64.deb.
package: configure
	@cmake --build $(BUILD) -j $(JOBS) --target actorflow af_client af_kernels af_core_ops
	@cd $(BUILD) && cpack --config CPackConfig.cmake > cpack.log 2>&1 || (cat cpack.log; exit 1)
	@ls $(BUILD)/package/actorflow_*.deb

# That package installed with apt-get in a clean Debian 12 root (root; see
# the script), and examples/consumer built and run against it there.
fresh-machine-package-test: package
	@bash scripts/fresh-machine-package-test.sh $(BUILD)/package

bench: build
	@for b in $(BUILD)/bin/bench_*; do $$b; done

# clang-format (.clang-format) and clang-tidy -p $(BUILD) (.clang-tidy) over
# the C/C++ files changed since the merge base with origin/main (without
# one, since HEAD~1; uncommitted and new files included); LINT_ALL=1 checks
# every file, LINT_BASE=<rev> the changes since <rev>. Non-zero on any
# finding. clang-tidy reads $(BUILD)'s compile commands: `make build` first.
# The rules are in scripts/lint.sh.
lint:
	@BUILD=$(BUILD) JOBS=$(JOBS) bash scripts/lint.sh

# The GPU machine's kit (bench/gpu/run.sh runs it there): the binaries its
# script runs, stripped, the shared libraries a bare CUDA machine lacks
# (../shared/gpu/pack-libs.sh's rule) and the Fashion-MNIST files, in one
# compressed file under .gpu-carry/ (git-ignored) to carry over.
GPU_BINS := test_gpu bench_gpu_kernels bench_train_step fashion_mnist
gpu-pack: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(GPU_BINS)
	@rm -rf .gpu-carry && mkdir -p .gpu-carry/kit/bin .gpu-carry/kit/lib .gpu-carry/kit/data
	@for b in $(GPU_BINS); do strip -o .gpu-carry/kit/bin/$$b $(BUILD)/bin/$$b; done
	@ldd $(addprefix $(BUILD)/bin/,$(GPU_BINS)) | awk '/=> \//{print $$3}' | sort -u | \
	  grep -Ev '/(libc|libm|libdl|librt|libpthread|libgcc_s|libstdc\+\+|ld-linux)[.-]|/usr/local/cuda|libcuda\.so|libnvidia' | \
	  xargs -r -I{} cp -L {} .gpu-carry/kit/lib/
	@cp /usr/share/datasets/fashion-mnist/*.gz .gpu-carry/kit/data/
	@tar -cJf .gpu-carry/pack.tar.xz -C .gpu-carry/kit . && rm -rf .gpu-carry/kit
	@ls -la .gpu-carry

clean:
	rm -rf $(BUILD) build-asan build-tsan *.configure.log
