/* skel_trace - sum up and draw a trace that SKEL_TRACE=file recorded.

       skel_trace [--svg OUT] [--from US] [--to US] FILE

   Prints a summary: the run's span; per lane (a CPU worker, a GPU worker,
   a stream stage's worker, a waiting thread) its tasks, busy time and busy
   share of the span; per place the tasks and their time; per link the
   bytes copied, copies and rate; how the tasks were placed (by a
   performance model, to calibrate a place, by the policy's rule alone) and
   how many failed or were not run.  --svg also draws the timeline, a Gantt
   chart with a row per lane: tasks and stages coloured by place, copies
   as thin bars under them, waits grey (hover for names and times).
   --from / --to limit the picture to a window (microseconds).  The file
   format is in skel.h ("trace").  Exit status: 0 ok, 1 unreadable or bad
   file, 2 bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP 16
#define MAXL 1024
enum { MODEL = 1, FALLBACK = 2, CALIBRATE = 4, FAILED = 8, NOTRUN = 16 };

typedef struct ev {
    int lane, place, from, flags;
    char kind;
    double t0, t1;
    unsigned long long bytes;
    char name[48];
} ev;

static char places[MAXP][48], lanes[MAXL][48];
static int nlanes;
static ev *evs;
static size_t nev, cap;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skel_trace [--svg OUT] [--from US] [--to US] FILE\n"
            "\n"
            "Sum up a trace recorded with SKEL_TRACE=FILE (see skel.h, trace): busy share\n"
            "per worker, time per place, bytes per link, tasks placed by model or by rule.\n"
            "  --svg OUT   also draw the timeline (a row per worker) to OUT\n"
            "  --from US, --to US   draw only this window (microseconds from the start)\n"
            "exit status: 0 ok, 1 bad or unreadable file, 2 bad usage\n");
}

static int load(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    int lineno = 0, header = 0;
    if (!f) { fprintf(stderr, "skel_trace: cannot open %s\n", path); return 1; }
    while (fgets(line, sizeof line, f)) {
        int id, n = 0;
        ++lineno;
        line[strcspn(line, "\n")] = 0;
        if (lineno == 1) { header = strcmp(line, "skeltrace 1") == 0; if (!header) break; continue; }
        if (sscanf(line, "place %d %n", &id, &n) == 1 && n && id >= 0 && id < MAXP) {
            snprintf(places[id], sizeof places[id], "%s", line + n);
        } else if (sscanf(line, "lane %d %n", &id, &n) == 1 && n && id >= 0 && id < MAXL) {
            snprintf(lanes[id], sizeof lanes[id], "%s", line + n);
            if (id >= nlanes) nlanes = id + 1;
        } else if (strncmp(line, "ev ", 3) == 0) {
            ev e;
            memset(&e, 0, sizeof e);
            if (sscanf(line, "ev %d %c %d %d %lf %lf %llu %d %n", &e.lane, &e.kind, &e.place, &e.from, &e.t0, &e.t1, &e.bytes,
                       &e.flags, &n) != 8 || !n || e.lane < 0 || e.lane >= MAXL || e.place < -1 || e.place >= MAXP ||
                e.from < -1 || e.from >= MAXP || e.t1 < e.t0) {
                fprintf(stderr, "skel_trace: %s:%d: bad event\n", path, lineno);
                fclose(f);
                return 1;
            }
            snprintf(e.name, sizeof e.name, "%s", line + n);
            if (nev == cap) {
                ev *q = (ev *)realloc(evs, (cap = cap ? 2 * cap : 1024) * sizeof *q);
                if (!q) { fclose(f); fprintf(stderr, "skel_trace: out of memory\n"); return 1; }
                evs = q;
            }
            evs[nev++] = e;
        } else if (strncmp(line, "dropped ", 8) == 0) {
            fprintf(stderr, "skel_trace: note: the trace %s\n", line);
        } else if (line[0]) {
            fprintf(stderr, "skel_trace: %s:%d: unknown line\n", path, lineno);
            fclose(f);
            return 1;
        }
    }
    fclose(f);
    if (!header) { fprintf(stderr, "skel_trace: %s is not a skel trace (no \"skeltrace 1\" line)\n", path); return 1; }
    return 0;
}

static const char *pname(int p) { return p >= 0 && p < MAXP && places[p][0] ? places[p] : "?"; }

static void summary(void)
{
    double lo = 0, hi = 0, span, busy[MAXL] = { 0 }, ptime[MAXP] = { 0 }, ltime[MAXP][MAXP] = { { 0 } };
    unsigned long long bytes[MAXP][MAXP] = { { 0 } }, copies[MAXP][MAXP] = { { 0 } };
    long tasks[MAXL] = { 0 }, ptasks[MAXP] = { 0 }, model = 0, cal = 0, rule = 0, failed = 0, notrun = 0, ntask = 0, stages = 0;
    size_t i;
    int a, b;
    for (i = 0; i < nev; ++i) {
        if (i == 0 || evs[i].t0 < lo) lo = evs[i].t0;
        if (i == 0 || evs[i].t1 > hi) hi = evs[i].t1;
    }
    span = hi - lo;
    for (i = 0; i < nev; ++i) {
        const ev *e = &evs[i];
        double d = e->t1 - e->t0;
        if (e->kind == 'T' || e->kind == 'S') {
            busy[e->lane] += d;
            tasks[e->lane]++;
            if (e->place >= 0) { ptime[e->place] += d; ptasks[e->place]++; }
            if (e->kind == 'S') { stages++; continue; }
            ntask++;
            if (e->flags & NOTRUN) notrun++;
            else if (e->flags & FAILED) failed++;
            if (e->flags & MODEL) model++;
            else if (e->flags & CALIBRATE) cal++;
            else rule++;
        } else if (e->kind == 'C' && e->from >= 0 && e->place >= 0) {
            bytes[e->from][e->place] += e->bytes;
            copies[e->from][e->place]++;
            ltime[e->from][e->place] += d;
        }
    }
    printf("span: %.3f ms (%zu events, %d lanes)\n", span / 1e3, nev, nlanes);
    printf("lanes (busy = time in tasks and stages; copies run inside them):\n");
    for (a = 0; a < nlanes; ++a)
        if (tasks[a] || busy[a] > 0)
            printf("  %-28s %7ld tasks %11.3f ms busy %6.1f%%\n", lanes[a][0] ? lanes[a] : "?", tasks[a], busy[a] / 1e3,
                   span > 0 ? 100 * busy[a] / span : 0);
    printf("places:\n");
    for (a = 0; a < MAXP; ++a)
        if (ptasks[a]) printf("  %-12s %7ld tasks %11.3f ms\n", pname(a), ptasks[a], ptime[a] / 1e3);
    printf("links (bytes copied):\n");
    for (a = 0; a < MAXP; ++a)
        for (b = 0; b < MAXP; ++b)
            if (copies[a][b])
                printf("  %-10s -> %-10s %14llu bytes in %6llu copies, %9.3f ms, %7.2f GB/s\n", pname(a), pname(b), bytes[a][b],
                       copies[a][b], ltime[a][b] / 1e3, ltime[a][b] > 0 ? bytes[a][b] / ltime[a][b] / 1e3 : 0);
    printf("tasks: %ld (placed by a model %ld, to calibrate %ld, by rule %ld; failed %ld, not run %ld)", ntask, model, cal, rule,
           failed, notrun);
    if (stages) printf("; stage runs: %ld", stages);
    printf("\n");
}

static void xml(FILE *f, const char *s)
{
    for (; *s; ++s) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else fputc(*s, f);
    }
}

static int svg(const char *path, double from, double to)
{
    static const char *colour[] = { "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f" };
    const double W = 1200, L = 170, R = 20, T = 40, RH = 22;
    double lo = 0, hi = 0, sx;
    int used[MAXL] = { 0 }, row[MAXL], nrows = 0, a, tick;
    size_t i;
    FILE *f = fopen(path, "w");
    if (!f) { fprintf(stderr, "skel_trace: cannot create %s\n", path); return 1; }
    for (i = 0; i < nev; ++i) {
        if (i == 0 || evs[i].t0 < lo) lo = evs[i].t0;
        if (i == 0 || evs[i].t1 > hi) hi = evs[i].t1;
        used[evs[i].lane] = 1;
    }
    if (from >= 0) lo = from;
    if (to >= 0) hi = to;
    if (hi <= lo) hi = lo + 1;
    for (a = 0; a < nlanes; ++a) row[a] = used[a] ? nrows++ : -1;
    sx = (W - L - R) / (hi - lo);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            W, T + RH * nrows + 50);
    fprintf(f, "<text x=\"%.0f\" y=\"16\" font-size=\"13\">skel trace: %.3f ms, a row per worker; tasks coloured by place, copies below them</text>\n",
            L, (hi - lo) / 1e3);
    for (a = 0; a < nlanes; ++a)
        if (row[a] >= 0) {
            fprintf(f, "<text x=\"4\" y=\"%.0f\">", T + RH * row[a] + 14);
            xml(f, lanes[a][0] ? lanes[a] : "?");
            fprintf(f, "</text><line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#eee\"/>\n", L, W - R,
                    T + RH * (row[a] + 1) - 1, T + RH * (row[a] + 1) - 1);
        }
    for (tick = 0; tick <= 10; ++tick) {
        double x = L + (W - L - R) * tick / 10.0;
        fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"#ccc\"/><text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%.3g ms</text>\n",
                x, x, T - 4, T + RH * nrows, x, T + RH * nrows + 14, (lo + (hi - lo) * tick / 10.0) / 1e3);
    }
    for (i = 0; i < nev; ++i) {
        const ev *e = &evs[i];
        double x0 = e->t0 < lo ? lo : e->t0, x1 = e->t1 > hi ? hi : e->t1, y = T + RH * row[e->lane], w;
        const char *fill;
        if (x1 < lo || x0 > hi || row[e->lane] < 0) continue;
        w = (x1 - x0) * sx;
        if (w < 0.5) w = 0.5;
        if (e->kind == 'C') { y += RH - 7; fill = "#333"; }
        else if (e->kind == 'W') fill = "#ccc";
        else fill = e->flags & (FAILED | NOTRUN) ? "#000" : colour[(e->place < 0 ? 0 : e->place) % 8];
        fprintf(f, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"%s><title>", L + (x0 - lo) * sx, y + 2, w,
                e->kind == 'C' ? 4.0 : RH - 8.0, fill, e->kind == 'T' || e->kind == 'S' ? " stroke=\"#fff\" stroke-width=\"0.3\"" : "");
        xml(f, e->name);
        if (e->kind == 'C') fprintf(f, ": %llu bytes %s -> %s", e->bytes, pname(e->from), pname(e->place));
        else fprintf(f, " at %s%s%s", pname(e->place), e->flags & MODEL ? " (model)" : e->flags & CALIBRATE ? " (calibrating)" : "",
                     e->flags & FAILED ? " FAILED" : e->flags & NOTRUN ? " NOT RUN" : "");
        fprintf(f, ", %.1f..%.1f us</title></rect>\n", e->t0, e->t1);
    }
    for (a = 0; a < MAXP; ++a)
        if (places[a][0]) {
            fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">", L + 110.0 * a,
                    T + RH * nrows + 24, colour[a % 8], L + 110.0 * a + 14, T + RH * nrows + 33);
            xml(f, places[a]);
            fprintf(f, "</text>\n");
        }
    fprintf(f, "</svg>\n");
    return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL;
    double from = -1, to = -1;
    int i;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) { usage(stdout); return 0; }
        else if (strcmp(argv[i], "--svg") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = atof(argv[++i]);
        else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc) to = atof(argv[++i]);
        else if (argv[i][0] == '-' && argv[i][1]) { fprintf(stderr, "skel_trace: unknown option %s\n", argv[i]); usage(stderr); return 2; }
        else if (!file) file = argv[i];
        else { fprintf(stderr, "skel_trace: one file at a time\n"); return 2; }
    }
    if (!file) { usage(stderr); return 2; }
    if (load(file)) return 1;
    summary();
    if (out && svg(out, from, to)) return 1;
    free(evs);
    return 0;
}
