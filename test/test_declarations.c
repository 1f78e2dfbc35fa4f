/* Declarations: a uniform of any C scalar type works on every backend; a
   declaration that cannot work does not compile, and the compiler's
   message says what to write instead (a uniform struct not declared with
   SKEL_STRUCT, an element type of two tokens or none of the fixed-width
   ones or a struct without SKEL_STRUCT, a Map with fewer result pointers
   than SKEL_OUTS has types, a view parameter of another type than
   SKEL_VIEWS declares).  The negative cases compile a small file with the C compiler
   ($CC, else cc) from the repository root. */
#define _POSIX_C_SOURCE 200809L   /* mkdtemp, popen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

/* ---- a uniform of every C scalar type ---- */
SKEL_FUNC(float, d_int, (float a, int u), return a * (float)u;)
SKEL_FUNC(float, d_uns, (float a, unsigned u), return a + (float)u;)
SKEL_FUNC(float, d_chr, (float a, char u), return a - (float)u;)
SKEL_FUNC(float, d_sht, (float a, short u), return a * (float)u + 1;)
SKEL_FUNC(float, d_lng, (float a, long u), return a + (float)(u % 1000);)
SKEL_FUNC(float, d_dbl, (float a, double u), return a * (float)u;)
SKEL_FUNC(float, d_i8, (float a, int8_t u), return a - (float)u;)
SKEL_FUNC(float, d_ix, (float a, skel_index u), return a + (float)(u % 7);)
SKEL_MAP_EX(d_mint, d_int, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(int))
SKEL_MAP_EX(d_muns, d_uns, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(unsigned))
SKEL_MAP_EX(d_mchr, d_chr, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(char))
SKEL_MAP_EX(d_msht, d_sht, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(short))
SKEL_MAP_EX(d_mlng, d_lng, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(long))
SKEL_MAP_EX(d_mdbl, d_dbl, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(double))
SKEL_MAP_EX(d_mi8, d_i8, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(int8_t))
SKEL_MAP_EX(d_mix, d_ix, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(skel_index))

SKEL_TEST(declarations_a_uniform_of_every_c_scalar_type_runs_on_every_variant)
{
    int ui = 3;
    unsigned uu = 7;
    char uc = 2;
    short us = -2;
    long ul = 123456789L;
    double ud = 0.5;
    int8_t u8 = -5;
    skel_index ux = 40;
    struct { skel_skeleton *sk; const void *u; } cases[8];
    skel_vec *a = st_fvec(1001, 3), *o = NULL;
    int vi, k;
    cases[0].sk = d_mint; cases[0].u = &ui;
    cases[1].sk = d_muns; cases[1].u = &uu;
    cases[2].sk = d_mchr; cases[2].u = &uc;
    cases[3].sk = d_msht; cases[3].u = &us;
    cases[4].sk = d_mlng; cases[4].u = &ul;
    cases[5].sk = d_mdbl; cases[5].u = &ud;
    cases[6].sk = d_mi8; cases[6].u = &u8;
    cases[7].sk = d_mix; cases[7].u = &ux;
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, 1001));
    for (vi = 0; vi < st_variant_count(); ++vi)
        for (k = 0; k < 8; ++k) {
            skel_call c;
            const float *x, *r;
            size_t i;
            int rc;
            st_context("%s, uniform %s", st_variant_get(vi)->label, cases[k].sk->uniform_type);
            st_use_variant(cases[k].sk, vi);
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.out = o; c.uniform = cases[k].u;
            rc = skel_run(cases[k].sk, &c);
            if (rc == SKEL_EUNSUPPORTED && k == 5) continue;   /* a GPU without double */
            ST_OK(rc);
            x = (const float *)skel_read(a);
            r = (const float *)skel_read(o);
            for (i = 0; i < 1001; ++i) {
                float want = k == 0 ? x[i] * 3 : k == 1 ? x[i] + 7 : k == 2 ? x[i] - 2 : k == 3 ? x[i] * -2 + 1
                           : k == 4 ? x[i] + 789 : k == 5 ? x[i] * 0.5f : k == 6 ? x[i] + 5 : x[i] + 5;
                if (r[i] != want) ST_FAIL("element %zu: %g, want %g", i, r[i], want);
            }
            ST_OK(skel_set_plan(cases[k].sk, NULL));
        }
    skel_free(a);
    skel_free(o);
}

/* ---- declarations that must not compile, and what the compiler says ---- */
/* compile code (after #include "skel.h") with the C compiler; 1 when it
   compiled; its messages in out */
static int try_compile(const char *code, char *out, size_t size)
{
    char dir[] = "/tmp/skel_decl_XXXXXX", path[256], cmd[800];
    const char *cc = getenv("CC");
    size_t got;
    FILE *f;
    int rc;
    if (!cc || !*cc) cc = "cc";
    ST_CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/decl.c", dir);
    ST_CHECK((f = fopen(path, "w")) != NULL);
    fprintf(f, "#include <stdint.h>\n#include \"skel.h\"\n%s", code);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s -std=c99 -fsyntax-only -I. %s 2>&1", cc, path);
    ST_CHECK((f = popen(cmd, "r")) != NULL);
    got = fread(out, 1, size - 1, f);
    out[got] = 0;
    rc = pclose(f);
    remove(path);
    rmdir(dir);
    return rc == 0;
}

SKEL_TEST(declarations_that_cannot_work_do_not_compile_and_say_what_to_write)
{
    static const struct { const char *code, *says; } cases[] = {
        { "typedef struct { float k; } plain;\n"              /* a uniform struct without SKEL_STRUCT */
          "SKEL_FUNC(float, f, (float a, plain u), return a * u.k;)\n"
          "SKEL_MAP_EX(m, f, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(plain))\n",
          "SKEL_UNIFORM_type_must_be_a_C_scalar_or_declared_with_SKEL_STRUCT__plain" },
        { "SKEL_FUNC(unsigned int, f, (unsigned int a), return a + 1;)\n"  /* two tokens */
          "SKEL_MAP(m, f, unsigned int, 1)\n",
          "SKEL_element_type_must_be_a_fixed_width_scalar_or_declared_with_SKEL_STRUCT__unsigned" },
        { "SKEL_FUNC(int, g, (int a, int b), return a + b;)\n"             /* not a fixed-width name */
          "SKEL_REDUCE(r, g, int)\n",
          "SKEL_element_type_must_be_a_fixed_width_scalar_or_declared_with_SKEL_STRUCT__int" },
        { "typedef struct { float x; } plain;\n"                  /* an element struct without SKEL_STRUCT */
          "SKEL_FUNC(plain, f, (plain a), return a;)\n"
          "SKEL_MAP(m, f, plain, 1)\n",
          "SKEL_element_type_must_be_a_fixed_width_scalar_or_declared_with_SKEL_STRUCT__plain" },
        { "SKEL_FUNC(void, f, (float a, float *x), *x = a;)\n"      /* fewer result pointers than SKEL_OUTS */
          "SKEL_MAP_X(m, f, SKEL_OUTS(float, float), SKEL_INS(float), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)\n",
          "too many arguments" },
        { "SKEL_FUNC(float, f, (float a, skel_view_double w), return a + (float)w.data[0];)\n" /* a view of another type */
          "SKEL_MAP_X(m, f, SKEL_OUTS(float), SKEL_INS(float), SKEL_NO_INDEX, SKEL_VIEWS(float), SKEL_NO_UNIFORM)\n",
          "incompatible type" },
    };
    static const char ok[] = "SKEL_STRUCT(lin, float k; float d;)\n"  /* the spellings that do work */
        "SKEL_FUNC(float, f, (float a, lin u), return a * u.k + u.d;)\n"
        "SKEL_MAP_EX(m, f, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(lin))\n"
        "SKEL_FUNC(uint32_t, g, (uint32_t a, unsigned u), return a + u;)\n"
        "SKEL_MAP_EX(n, g, uint32_t, uint32_t, 1, SKEL_NO_INDEX, SKEL_UNIFORM(unsigned))\n";
    char out[8192], cmd[300];
    const char *cc = getenv("CC");
    size_t k;
    if (access("skel.h", R_OK) != 0) ST_SKIP("not run from the repository root");
    snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", cc && *cc ? cc : "cc");
    if (system(cmd) != 0) ST_SKIP("no C compiler");
    if (!try_compile(ok, out, sizeof out)) ST_FAIL("the working spellings did not compile:\n%s", out);
    for (k = 0; k < sizeof cases / sizeof *cases; ++k) {
        if (try_compile(cases[k].code, out, sizeof out)) ST_FAIL("case %zu compiled:\n%s", k, cases[k].code);
        if (!strstr(out, cases[k].says)) ST_FAIL("case %zu: the compiler does not say %s:\n%s", k, cases[k].says, out);
    }
}
