/* skel_plan - print a skel plan file, or the scheduler's performance
   models, as text, JSON or SVG.

       skel_plan [--text | --json | --svg] [-o OUT] FILE
       skel_plan --models [--text | --json | --svg] [-o OUT] [FILE] [--dir DIR]
       skel_plan --path ID [--dir DIR]

   The text shows the tuning configuration, the machine fingerprint, the
   variant table, every measured point (R + F per variant), the dispatch
   tree (each node's box, corner winners, split point or winner), and the
   size ranges (2-D: regions) each variant gets.  --json holds the same.
   --svg draws the ranges as a bar (1-D) or the regions as a map of boxes
   (2-D), coloured by winning variant.  --models shows a models file
   (default: the one programs in this folder keep, skel.models) as
   starpu_perfmodel_display and _plot do: the transfer model of each link,
   and per instance and place the median time per call at each size;
   --svg draws time against size per place, one chart per instance.  Given
   a plan file, --models shows its measured times the same way (the best
   variant of each place).  A truncated, corrupted or future-version file
   is refused with the reason; exit status 1. */
#define _POSIX_C_SOURCE 200809L
#define SKEL_IMPLEMENTATION
#include "skel.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: skel_plan [--text | --json | --svg] [-o OUT] FILE\n"
            "       skel_plan --models [--text | --json | --svg] [-o OUT] [FILE] [--dir DIR]\n"
            "       skel_plan --path ID [--dir DIR]\n"
            "\n"
            "Print a plan file that skel_tune wrote (see skel.h, PLAN FILES).\n"
            "  --text     configuration, machine, variants, points, tree, ranges (default)\n"
            "  --json     the same as JSON\n"
            "  --svg      the ranges (1-D) or regions (2-D) coloured by winning variant\n"
            "  -o OUT     write to OUT instead of standard output\n"
            "  --models   the scheduler's performance models: transfer links, and per\n"
            "             instance and place the time per call at each size (SVG: time\n"
            "             against size); FILE defaults to this folder's skel.models, and\n"
            "             a plan FILE shows its measured times per place\n"
            "  --path ID  print where a program in this folder keeps plan ID\n"
            "             (SKEL_PLAN_DIR or --dir override)\n"
            "exit status: 0 ok, 1 bad or unreadable file, 2 bad usage\n");
}

int main(int argc, char **argv)
{
    int i, format = SKEL_DUMP_TEXT, rc, models = 0;
    const char *file = NULL, *out = NULL, *id = NULL, *dir = NULL;
    skel_plan *p;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) { usage(stdout); return 0; }
        else if (strcmp(argv[i], "--text") == 0) format = SKEL_DUMP_TEXT;
        else if (strcmp(argv[i], "--json") == 0) format = SKEL_DUMP_JSON;
        else if (strcmp(argv[i], "--svg") == 0) format = SKEL_DUMP_SVG;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "--path") == 0 && i + 1 < argc) id = argv[++i];
        else if (strcmp(argv[i], "--models") == 0) models = 1;
        else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) dir = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "skel_plan: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!file) file = argv[i];
        else { fprintf(stderr, "skel_plan: one file at a time\n"); return 2; }
    }
    if (id) {
        char path[4200];
        if (skel_plan_path(id, dir, path, sizeof path) != SKEL_OK) {
            fprintf(stderr, "skel_plan: %s\n", skel_last_error());
            return 2;
        }
        printf("%s\n", path);
        return 0;
    }
    if (models) {
        char path[4200];
        if (!file && skel_models_path(dir, path, sizeof path) != SKEL_OK) {
            fprintf(stderr, "skel_plan: %s\n", skel_last_error());
            return 2;
        }
        if (skel_models_dump(file ? file : path, format, out) != SKEL_OK) {
            fprintf(stderr, "skel_plan: %s\n", skel_last_error());
            return 1;
        }
        return 0;
    }
    if (!file) { usage(stderr); return 2; }
    if ((rc = skel_plan_load(&p, file)) != SKEL_OK) {
        fprintf(stderr, "skel_plan: %s: refused: %s\n", file, skel_last_error());
        return 1;
    }
    rc = skel_plan_dump(p, format, out);
    skel_plan_free(p);
    if (rc != SKEL_OK) { fprintf(stderr, "skel_plan: %s\n", skel_last_error()); return 1; }
    return 0;
}
