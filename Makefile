# The two commands: `make demo` and `make test`. Both install what is
# missing, configure Release into build/, build with ccache on all cores.
BUILD ?= build
JOBS ?= $(shell nproc)
AF_WERROR ?= OFF
CMAKE_FLAGS ?=

.PHONY: all deps configure build demo test test-asan bench clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DAF_WERROR=$(AF_WERROR) $(CMAKE_FLAGS) > $(BUILD).configure.log 2>&1 || \
	  (cat $(BUILD).configure.log; exit 1)
	@grep -E '^-- actorflow' $(BUILD).configure.log || true

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/actorflow inspect tests/data/tf2onnx_fc_layers_frozen.pb

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# AddressSanitizer + UndefinedBehaviorSanitizer over the whole suite.
test-asan:
	@$(MAKE) --no-print-directory test BUILD=build-asan \
	  CMAKE_FLAGS="-DAF_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"

bench: build
	@for b in $(BUILD)/bin/bench_*; do $$b; done

clean:
	rm -rf $(BUILD) build-asan *.configure.log
