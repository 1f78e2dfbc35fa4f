/* fuzz_plan.c - libFuzzer harness for the plan file loader (not part of
   `make test`).

       clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
             test/fuzz/fuzz_plan.c -o build/fuzz_plan -ldl -lpthread -lm
       mkdir -p build/fuzz_corpus && cp test/golden/plan1d.plan test/golden/plan2d.plan build/fuzz_corpus/
       build/fuzz_plan -max_total_time=300 build/fuzz_corpus

   Most inputs get their checksum fixed first (the last 8 bytes become the
   FNV-1a of the rest), so the fuzzer reaches the structural checks behind
   it instead of stopping at the checksum.  A plan the loader accepts must
   answer lookups, dump in every format, and survive save + load. */
#define _POSIX_C_SOURCE 200809L
#define SKEL_IMPLEMENTATION
#include "skel.h"

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *buf = (unsigned char *)malloc(size + 1);
    skel_plan *p, *q;
    char why[256];
    size_t i;
    if (!buf) return 0;
    memcpy(buf, data, size);
    if (size >= 40 && (size % 8) != 7) {    /* leave some inputs' checksums alone */
        uint64_t h = _skel_fnv1a(buf, size - 8, _SKEL_FNV_SEED);
        for (i = 0; i < 8; ++i) buf[size - 8 + i] = (unsigned char)(h >> (8 * i));
    }
    if (_skel_plan_parse(buf, size, &p, why, sizeof why) == SKEL_OK) {
        _skel_tree *t = p->tree;
        size_t pt[2];
        skel_variant v;
        _skel_buf b;
        char (*labels)[64] = (char (*)[64])malloc((size_t)t->nvar * sizeof *labels);
        int k;
        if (!devnull) devnull = fopen("/dev/null", "w");
        for (k = 0; k < 64; ++k) {
            pt[0] = (size_t)(t->conf.lower[0] + (t->conf.upper[0] - t->conf.lower[0]) * (uint64_t)k / 63);
            pt[1] = (size_t)(t->conf.dims == 2 ? t->conf.upper[1] - (t->conf.upper[1] - t->conf.lower[1]) * (uint64_t)k / 63 : 1);
            skel_plan_lookup_point(p, pt, t->conf.dims, &v);
            pt[0] = (size_t)k * 977;
            skel_plan_lookup_point(p, pt, t->conf.dims, &v);
        }
        if (labels) {
            for (k = 0; k < t->nvar; ++k) _skel_pvar_label(&t->vars[k], labels[k], sizeof labels[k]);
            _skel_dump_text(devnull, t, labels);
            _skel_dump_json(devnull, t, labels);
            _skel_dump_svg(devnull, t, labels);
            free(labels);
        }
        if (_skel_tree_serialize(t, &b) == SKEL_OK) {
            if (_skel_plan_parse(b.p, b.len, &q, why, sizeof why) != SKEL_OK) abort();   /* round trip */
            skel_plan_free(q);
            free(b.p);
        }
        skel_plan_free(p);
    }
    free(buf);
    return 0;
}
