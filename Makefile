# skel - plain GNU make.  `make help` lists the targets.
CC      ?= cc
OPT     ?= -O2 -g
# the benches' optimisation (CI checks that they build, at -O1)
BENCH_OPT ?= -O3 -march=native
WARN    := -std=c99 -Wall -Wextra -Werror -pedantic
OMP     ?= -fopenmp
LIBS    := -ldl -lpthread -lm
CFLAGS_ALL = $(OPT) $(WARN) $(OMP) -I. $(CFLAGS)
BUILD   ?= build
# test, test-asan: processes at once, each running every SHARDS-th test (test/shards.sh)
SHARDS  ?= 1
HEADERS := skel.h skel_cuda.h skel_cl.h
PREFIX  ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^\#define SKEL_VERSION "\(.*\)"/\1/p' skel.h)

EXAMPLES := $(patsubst examples/%.c,$(BUILD)/%,$(wildcard examples/*.c))
TOOLS    := $(patsubst tools/%.c,$(BUILD)/%,$(wildcard tools/*.c))
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench_%,$(wildcard bench/*.c))
TEST_SRC := $(wildcard test/*.c)

.PHONY: all test test-asan test-tsan bench demo install uninstall clean help
all: $(EXAMPLES) $(TOOLS)                       ## build examples and tools

$(BUILD)/%: examples/%.c $(HEADERS) | $(BUILD)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIBS)
$(BUILD)/%: tools/%.c $(HEADERS) | $(BUILD)
	$(CC) $(CFLAGS_ALL) $< -o $@ $(LIBS)
$(BUILD)/bench_%: bench/%.c $(HEADERS) bench/bench.h bench/bench_skel.h bench/split_sweep.h | $(BUILD)
	$(CC) $(OPT) $(BENCH_OPT) $(WARN) -Wno-pass-failed $(OMP) -I. $(CFLAGS) $< -o $@ $(LIBS)
# bench_peers against the C++ libraries that are installed (each .cpp says
# how to install its library); built with gcc and g++, one OpenMP runtime
PEERS_CC  ?= gcc
PEERS_CXX ?= g++
comma      := ,
TBB_INC    ?= /usr/include
TBB_LIBDIR ?=
TBB_H      := $(wildcard $(TBB_INC)/oneapi/tbb.h)
THRUST_INC ?= $(firstword $(wildcard /usr/local/cuda/include/cccl /usr/local/cuda/include))
THRUST_H   := $(if $(THRUST_INC),$(wildcard $(THRUST_INC)/thrust/version.h))
KOKKOS_H   := $(wildcard /usr/include/trilinos/Kokkos_Core.hpp)
PEERS_CPP  := $(if $(TBB_H),bench/peers_tbb.cpp) $(if $(THRUST_H),bench/peers_thrust.cpp) \
              $(if $(KOKKOS_H),bench/peers_kokkos.cpp)
PEERS_DEF  := $(if $(TBB_H),-DPEERS_TBB) $(if $(THRUST_H),-DPEERS_THRUST) $(if $(KOKKOS_H),-DPEERS_KOKKOS)
PEERS_LIB  := $(if $(TBB_H),$(if $(TBB_LIBDIR),-L$(TBB_LIBDIR) -Wl$(comma)-rpath$(comma)$(TBB_LIBDIR)) -ltbb) \
              $(if $(KOKKOS_H),-ltrilinos_kokkoscore)
PEERS_FLAGS = $(BENCH_OPT) -ffp-contract=fast -fopenmp -Wall -Wextra -Werror -I. -I$(TBB_INC) \
              $(if $(THRUST_H),-I$(THRUST_INC) -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP) \
              $(if $(KOKKOS_H),-I/usr/include/trilinos)
PEERS_OBJ  := $(BUILD)/peers.o $(patsubst bench/%.cpp,$(BUILD)/%.o,$(PEERS_CPP))
$(BUILD)/bench_peers: $(PEERS_OBJ)
	$(PEERS_CXX) -fopenmp $(PEERS_OBJ) -o $@ $(PEERS_LIB) $(LIBS)
$(BUILD)/peers.o: bench/peers.c bench/peers.h $(HEADERS) bench/bench.h bench/bench_skel.h | $(BUILD)
	$(PEERS_CC) -std=c99 -pedantic $(PEERS_FLAGS) $(PEERS_DEF) -c $< -o $@
$(BUILD)/peers_%.o: bench/peers_%.cpp bench/peers.h | $(BUILD)
	$(PEERS_CXX) -std=c++17 $(PEERS_FLAGS) -c $< -o $@
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
	sh test/shards.sh $(SHARDS) $(BUILD)/skel_tests
# intercept_tls_get_addr=0: up to GCC 13 / LLVM 16 the sanitizer runtime's
# __tls_get_addr interceptor takes a dynamic TLS block (OpenMP's, PoCL's) that a
# malloc happens to place at offset 16 of a page for a pre-2.25 glibc header and
# reads the words before it; LeakSanitizer's tracer then dies at exit with
# "Tracer caught signal 11" after every test passed (an intermittent CI failure).
test-asan: $(TOOLS) $(BUILD)/asan/skel_tests    ## the tests under AddressSanitizer + UBSan
	ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:intercept_tls_get_addr=0 LSAN_OPTIONS=suppressions=test/lsan.supp:print_suppressions=0 \
	    sh test/shards.sh $(SHARDS) $(BUILD)/asan/skel_tests
TSAN_TESTS := pool fast_path stream reduce_add_f reduce_cols_f scan_inclusive_f overlap_matrix_cols_f tasks_ place_binding trace_ forms_eight_threads split_
test-tsan: $(BUILD)/tsan/skel_tests             ## the pool and the concurrency tests under ThreadSanitizer
	for f in $(TSAN_TESTS); do SKEL_TEST_BACKENDS=seq,pool TSAN_OPTIONS=halt_on_error=1 \
	    $(BUILD)/tsan/skel_tests $$f || exit 1; done
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(BUILD)/tsan/skel_tests threads
bench: $(BENCHES)                               ## build the benchmarks
demo: all                                       ## build and run the demo
	$(BUILD)/demo
install: $(TOOLS)                               ## headers, skel_plan, skel.pc under $(DESTDIR)$(PREFIX)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(HEADERS) $(DESTDIR)$(PREFIX)/include
	install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' skel.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/skel.pc
uninstall:                                      ## remove what install put there
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/,$(HEADERS)) $(DESTDIR)$(PREFIX)/lib/pkgconfig/skel.pc \
	    $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(TOOLS)))
$(BUILD):
	@mkdir -p $(BUILD)
clean:                                          ## remove build outputs
	rm -rf $(BUILD)
help:                                           ## list the targets
	@grep -E '^[a-z-]+:.*##' Makefile | sed -E 's/:.*## /\t/'
