/* split_sweep.h - the synthetic Map of bench/split.c's sweep, shared with
   bench/split_profile.c so that the profile times the very call the sweep
   tables time: k multiply-add pairs per element (the uniform), so that
   T_gpu / T_cpu moves with k.  Include after skel.h in one file. */
SKEL_FUNC(float, sw_f, (float x, int32_t k),
    float a = x, b = 1.0f - x; int j;
    for (j = 0; j < k; ++j) { a = a * 0.999f + b; b = b * 0.998f - a * 0.001f; }
    return a + b;)
SKEL_MAP_EX(sweep_map, sw_f, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(int32_t))
