/* split_sweep.h - the synthetic Map of bench/split.c's sweep, shared with
   bench/split_profile.c so that the profile times the very call the sweep
   tables time: k multiply-add pairs per element (the uniform), so that
   T_gpu / T_cpu moves with k; and one call of it timed.  Include after
   skel.h and bench.h in one file. */
SKEL_FUNC(float, sw_f, (float x, int32_t k),
    float a = x, b = 1.0f - x; int j;
    for (j = 0; j < k; ++j) { a = a * 0.999f + b; b = b * 0.998f - a * 0.001f; }
    return a + b;)
SKEL_MAP_EX(sweep_map, sw_f, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(int32_t))

/* Seconds of one call c of sweep_map with plan p, until its result is
   complete where it was computed (a GPU's result waited for, not read
   back); `who` names the program in the message of a failed call, which
   ends it. */
static inline double sweep_call_timed(skel_plan *p, const skel_call *c, const char *who)
{
    double t0;
    skel_set_plan(sweep_map, p);
    t0 = bench_now();
    if (skel_run(sweep_map, c) != SKEL_OK) { fprintf(stderr, "%s: %s\n", who, skel_last_error()); exit(1); }
    if (!_skel_map_valid(c->out, 0)) _skel_tune_sync(c->out);
    return bench_now() - t0;
}
