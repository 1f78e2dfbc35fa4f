#!/usr/bin/env python3
"""bench/pool_stats.py - a copy of skel.h whose worker pool counts, per
parallel call, how many helpers entered, how long after the call opened
they entered, and how many chunks the caller ran and how many were stolen;
printed to stderr at exit ("EXST ...").  It measured the 6 us entry delay
of bench/results/pool.md ("Mid sizes on 16 threads").

    python3 bench/pool_stats.py build/pstat     # writes build/pstat/skel*.h
    gcc -std=c99 -O3 -march=native -fopenmp -Ibuild/pstat -I. bench/peers.c -o build/peers_stat -ldl -lpthread -lm
    build/peers_stat --threads 16 --kernels saxpy,sum --sizes 16     # one size a process

    python3 bench/pool_stats.py --per-conf build/pconf
    gcc -std=c99 -O3 -march=native -ffp-contract=fast -fopenmp -DEVAL_POOL_STATS -Ibuild/pconf -Ibench \
        bench/eval2d.c -o build/eval2d_pconf -ldl -lpthread -lm
    EVAL_AT=17,2550 EVAL_DUMP=1 build/eval2d_pconf --only moment --points 2

--per-conf: the counters per configuration of bench/eval2d.c (its
_exst_conf: 0 the tuned plan, then the dump's variants in order; the timed
calls only): calls, chunks, the caller's chunks, helpers that entered,
workers asleep when the call opened, the last helper's delay and the
call's time, means a call ("EXST conf ..." at exit).  It measured the
wake-up chain that stopped with a short call (bench/results/pool.md).

The counters are plain adds on shared lines: they slow the pool a little
(compare call times with the uninstrumented build, not across builds).
The patch anchors on skel.h's text and stops with an error where it no
longer matches."""
import os, shutil, sys

# Where the counters go in skel.h: each anchor's text must occur once.
ANCHOR = {
    "slot": "    int cpu;                    /* the CPU the owner ran on when it opened the slot, or -1 */\n",
    "globals": "static _SKEL_TLS unsigned _skel_pool_hint;",
    "atfork": "    pthread_atfork(NULL, NULL, _skel_pool_forked);\n",
    "entered": "            _skel_pool_signal(1);       /* the call wants more helpers: pass the wake-up on */\n",
    "open": "    __atomic_store_n(&s->done, 0, __ATOMIC_RELAXED);\n    __atomic_store_n(&s->owner_sleeps, 0, __ATOMIC_RELAXED);\n",
    "publish": "    _skel_pool_publish((int)helpers);\n    t0 = _skel_now();\n",
    "owner ran": "    mine = _skel_slot_work(s, -1);\n",
    "range ran": "        ran += here;\n",
    "work ends": "    return ran;\n}",
    "closed": "    } while (!__atomic_compare_exchange_n(&s->state, &st, nst, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));\n",
}

def insert(s, where, key, code):
    """code before or after anchor `key` (its first occurrence)."""
    old = ANCHOR[key]
    if old not in s:
        sys.exit("pool_stats.py: skel.h changed, anchor not found: " + old[:60])
    return s.replace(old, code + old if where == "before" else old + code, 1)

def apply(s, edits):
    for where, key, code in edits:
        s = insert(s, where, key, code)
    return s

PRINT_ALL = ("static void _exst_print(void) { double c = _exst.calls ? (double)_exst.calls : 1; fprintf(stderr, \"EXST calls %llu parts/call %.1f owner %.1f stolen %.1f enters %.1f helpers-with-chunks %.1f enter-delay %.2f us call %.2f us\\n\", (unsigned long long)_exst.calls, _exst.parts / c, _exst.owner / c, _exst.stolen / c, _exst.enters / c, _exst.helped / c, _exst.enters ? 1e-3 * _exst.enter_ns / _exst.enters : 0, 1e-3 * _exst.call_ns / c); }\n")
PRINT_CONF = ("static void _exst_print(void) { int i; for (i = 0; i < 64; ++i) if (_exst[i].calls > 0) { double c = _exst[i].calls; fprintf(stderr, \"EXST conf %d calls %.0f parts %.1f owner %.1f enters %.1f sleepers-at-open %.1f max-enter-delay %.1f us call %.1f us; calls over 35 us %.0f\\n\", i, c, _exst[i].parts / c, _exst[i].owner / c, _exst[i].enters / c, _exst[i].sleepers / c, 1e6 * _exst[i].maxd / c, 1e6 * _exst[i].call / c, _exst[i].slow); } }\n")

def stats(s):
    return apply(s, [
        ("after", "slot", "    double t_open;\n"),
        ("before", "globals", "static struct { uint64_t calls, parts, owner, stolen, enters, enter_ns, call_ns, helped; } _exst;\n" + PRINT_ALL),
        ("after", "atfork", "    atexit(_exst_print);\n"),
        ("after", "range ran", "        if (r) __atomic_add_fetch(&_exst.stolen, here, __ATOMIC_RELAXED);\n"),
        ("before", "work ends", "    if (k < 0) __atomic_add_fetch(&_exst.owner, ran, __ATOMIC_RELAXED); else if (ran) __atomic_add_fetch(&_exst.helped, 1, __ATOMIC_RELAXED);\n"),
        ("after", "entered", "    __atomic_add_fetch(&_exst.enters, 1, __ATOMIC_RELAXED); __atomic_add_fetch(&_exst.enter_ns, (uint64_t)(1e9 * (_skel_now() - s->t_open)), __ATOMIC_RELAXED);\n"),
        ("after", "open", "    s->t_open = _skel_now();\n"),
        ("after", "closed", "    _exst.calls++; _exst.parts += (uint64_t)parts; _exst.call_ns += (uint64_t)(1e9 * (_skel_now() - s->t_open));\n"),
    ])

def per_conf(s):
    return apply(s, [
        ("after", "slot", "    double t_open, x_maxd; int x_enters;\n"),
        ("before", "globals", "int _exst_conf = -1;\nstatic struct { double calls, parts, owner, enters, sleepers, maxd, call, slow; } _exst[64];\n" + PRINT_CONF),
        ("after", "atfork", "    atexit(_exst_print);\n"),
        ("after", "entered", "    { double d = _skel_now() - s->t_open; __atomic_add_fetch(&s->x_enters, 1, __ATOMIC_RELAXED); if (d > s->x_maxd) s->x_maxd = d; }\n"),
        ("after", "open", "    s->t_open = _skel_now(); s->x_maxd = 0; __atomic_store_n(&s->x_enters, 0, __ATOMIC_RELAXED);\n"),
        ("before", "publish", "    { int xs = __atomic_load_n(&_skel_pool.sleepers, __ATOMIC_RELAXED); if (_exst_conf >= 0) _exst[_exst_conf].sleepers += xs; }\n"),
        ("after", "owner ran", "    if (_exst_conf >= 0) _exst[_exst_conf].owner += (double)mine;\n"),
        ("after", "closed", "    if (_exst_conf >= 0) { double c = _skel_now() - s->t_open; _exst[_exst_conf].calls++; _exst[_exst_conf].parts += parts; _exst[_exst_conf].enters += __atomic_load_n(&s->x_enters, __ATOMIC_RELAXED); _exst[_exst_conf].maxd += s->x_maxd; _exst[_exst_conf].call += c; _exst[_exst_conf].slow += c > 35e-6; }\n"),
    ])

if __name__ == "__main__":
    args = sys.argv[1:]
    conf = "--per-conf" in args
    args = [a for a in args if a != "--per-conf"]
    d = args[0] if args else "build/pstat"
    os.makedirs(d, exist_ok=True)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with open(os.path.join(here, "skel.h")) as f:
        s = per_conf(f.read()) if conf else stats(f.read())
    with open(os.path.join(d, "skel.h"), "w") as f:
        f.write(s)
    for h in ("skel_cuda.h", "skel_cl.h"):
        shutil.copy(os.path.join(here, h), os.path.join(d, h))
    print("wrote", d)
