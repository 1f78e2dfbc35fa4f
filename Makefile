# skel - plain GNU make.  `make help` lists the targets.
CC      ?= cc
OPT     ?= -O2 -g
WARN    := -std=c99 -Wall -Wextra -Werror -pedantic
OMP     ?= -fopenmp
LIBS    := -ldl -lpthread -lm
CFLAGS_ALL = $(OPT) $(WARN) $(OMP) -I. $(CFLAGS)
BUILD   ?= build
HEADERS := skel.h skel_cuda.h skel_cl.h

EXAMPLES := $(patsubst examples/%.c,$(BUILD)/%,$(wildcard examples/*.c))
TOOLS    := $(patsubst tools/%.c,$(BUILD)/%,$(wildcard tools/*.c))
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench_%,$(wildcard bench/*.c))
TEST_SRC := $(wildcard test/*.c)

.PHONY: all test test-asan test-tsan bench demo clean help
all: $(EXAMPLES) $(TOOLS)                       ## build examples and tools

$(BUILD)/%: examples/%.c $(HEADERS) | $(BUILD)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIBS)
$(BUILD)/%: tools/%.c $(HEADERS) | $(BUILD)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIBS)
$(BUILD)/bench_%: bench/%.c $(HEADERS) bench/bench.h bench/bench_skel.h | $(BUILD)
	$(CC) $(OPT) -O3 -march=native $(WARN) -Wno-pass-failed $(OMP) -I. $(CFLAGS) $< -o $@ $(LIBS)
$(BUILD)/skel_tests: $(TEST_SRC) test/skel_test.h $(HEADERS) | $(BUILD)
	$(CC) $(CFLAGS_ALL) $(TEST_SRC) -o $@ $(LIBS)
$(BUILD)/asan/skel_tests: $(TEST_SRC) test/skel_test.h $(HEADERS)
	@mkdir -p $(BUILD)/asan
	$(CC) -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	    -fno-omit-frame-pointer $(WARN) $(OMP) -I. $(CFLAGS) $(TEST_SRC) -o $@ $(LIBS)

# ThreadSanitizer: without OpenMP (GNU OpenMP's runtime is not instrumented,
# so its barriers would read as races); seq, the pool and OpenCL run.
$(BUILD)/tsan/skel_tests: $(TEST_SRC) test/skel_test.h $(HEADERS)
	@mkdir -p $(BUILD)/tsan
	$(CC) -O1 -g -fsanitize=thread -fno-omit-frame-pointer $(WARN) -I. $(CFLAGS) $(TEST_SRC) -o $@ $(LIBS)

test: $(TOOLS) $(BUILD)/skel_tests              ## build and run the tests
	$(BUILD)/skel_tests
test-asan: $(TOOLS) $(BUILD)/asan/skel_tests    ## the tests under AddressSanitizer + UBSan
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 LSAN_OPTIONS=suppressions=test/lsan.supp:print_suppressions=0 \
	    $(BUILD)/asan/skel_tests
TSAN_TESTS := pool reduce_add_f reduce_cols_f scan_inclusive_f overlap_matrix_cols_f
test-tsan: $(BUILD)/tsan/skel_tests             ## the pool and the concurrency tests under ThreadSanitizer
	for f in $(TSAN_TESTS); do SKEL_TEST_BACKENDS=seq,pool TSAN_OPTIONS=halt_on_error=1 \
	    $(BUILD)/tsan/skel_tests $$f || exit 1; done
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(BUILD)/tsan/skel_tests threads
bench: $(BENCHES)                               ## build the benchmarks
demo: all                                       ## build and run the demo
	$(BUILD)/demo
$(BUILD):
	@mkdir -p $(BUILD)
clean:                                          ## remove build outputs
	rm -rf $(BUILD)
help:                                           ## list the targets
	@grep -E '^[a-z-]+:.*##' Makefile | sed -E 's/:.*## /\t/'
