#!/usr/bin/env python3
"""bench/pool_stats.py - a copy of skel.h whose worker pool counts, per
parallel call, how many helpers entered, how long after the call opened
they entered, and how many chunks the caller ran and how many were stolen;
printed to stderr at exit ("EXST ...").  It measured the 6 us entry delay
of bench/results/pool.md ("Mid sizes on 16 threads").

    python3 bench/pool_stats.py build/pstat     # writes build/pstat/skel*.h
    gcc -std=c99 -O3 -march=native -fopenmp -Ibuild/pstat -I. bench/peers.c -o build/peers_stat -ldl -lpthread -lm
    build/peers_stat --threads 16 --kernels saxpy,sum --sizes 16     # one size a process

The counters are plain adds on shared lines: they slow the pool a little
(compare call times with the uninstrumented build, not across builds).
The patch anchors on skel.h's text and stops with an error where it no
longer matches."""
import os, shutil, sys

def patch(s, old, new):
    if old not in s:
        sys.exit("pool_stats.py: skel.h changed, anchor not found: " + old[:60])
    return s.replace(old, new, 1)

def stats(s):
    s = patch(s, "    int cpu;                    /* the CPU the owner ran on when it opened the slot, or -1 */\n",
      "    int cpu;                    /* the CPU the owner ran on when it opened the slot, or -1 */\n    double t_open;\n")
    s = patch(s, "static _SKEL_TLS unsigned _skel_pool_hint;",
      "static struct { uint64_t calls, parts, owner, stolen, enters, enter_ns, call_ns, helped; } _exst;\n"
      "static void _exst_print(void) { double c = _exst.calls ? (double)_exst.calls : 1; fprintf(stderr, \"EXST calls %llu parts/call %.1f owner %.1f stolen %.1f enters %.1f helpers-with-chunks %.1f enter-delay %.2f us call %.2f us\\n\", (unsigned long long)_exst.calls, _exst.parts / c, _exst.owner / c, _exst.stolen / c, _exst.enters / c, _exst.helped / c, _exst.enters ? 1e-3 * _exst.enter_ns / _exst.enters : 0, 1e-3 * _exst.call_ns / c); }\n"
      "static _SKEL_TLS unsigned _skel_pool_hint;")
    s = patch(s, "    pthread_atfork(NULL, NULL, _skel_pool_forked);\n", "    pthread_atfork(NULL, NULL, _skel_pool_forked);\n    atexit(_exst_print);\n")
    s = patch(s, "        ran += here;\n    }\n    return ran;\n}",
      "        ran += here;\n        if (r) __atomic_add_fetch(&_exst.stolen, here, __ATOMIC_RELAXED);\n    }\n"
      "    if (k < 0) __atomic_add_fetch(&_exst.owner, ran, __ATOMIC_RELAXED); else if (ran) __atomic_add_fetch(&_exst.helped, 1, __ATOMIC_RELAXED);\n    return ran;\n}")
    s = patch(s, "            _skel_pool_signal(1);       /* the call wants more helpers: pass the wake-up on */\n",
      "            _skel_pool_signal(1);       /* the call wants more helpers: pass the wake-up on */\n"
      "    __atomic_add_fetch(&_exst.enters, 1, __ATOMIC_RELAXED); __atomic_add_fetch(&_exst.enter_ns, (uint64_t)(1e9 * (_skel_now() - s->t_open)), __ATOMIC_RELAXED);\n")
    s = patch(s, "    __atomic_store_n(&s->done, 0, __ATOMIC_RELAXED);\n    __atomic_store_n(&s->owner_sleeps, 0, __ATOMIC_RELAXED);\n",
      "    __atomic_store_n(&s->done, 0, __ATOMIC_RELAXED);\n    __atomic_store_n(&s->owner_sleeps, 0, __ATOMIC_RELAXED);\n    s->t_open = _skel_now();\n")
    s = patch(s, "    } while (!__atomic_compare_exchange_n(&s->state, &st, nst, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));\n}\n\nvoid _skel_pool_submit",
      "    } while (!__atomic_compare_exchange_n(&s->state, &st, nst, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));\n"
      "    _exst.calls++; _exst.parts += (uint64_t)parts; _exst.call_ns += (uint64_t)(1e9 * (_skel_now() - s->t_open));\n}\n\nvoid _skel_pool_submit")
    return s

if __name__ == "__main__":
    d = sys.argv[1] if len(sys.argv) > 1 else "build/pstat"
    os.makedirs(d, exist_ok=True)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    with open(os.path.join(here, "skel.h")) as f:
        s = stats(f.read())
    with open(os.path.join(d, "skel.h"), "w") as f:
        f.write(s)
    for h in ("skel_cuda.h", "skel_cl.h"):
        shutil.copy(os.path.join(here, h), os.path.join(d, h))
    print("wrote", d)
