/* skel.h - skeleton programming for CPUs and GPUs, one header, C99.

   skel runs a data-parallel computation written once as a *skeleton* (Map,
   Reduce, MapReduce, Scan, MapOverlap, MapArray) parameterised by a small
   user function, on one core, on all cores through OpenMP, or on a GPU
   through skel_cuda.h / skel_cl.h.  It picks the backend per call from an
   execution plan (a manual one, or one the tuner learned) and keeps data
   where it was last written, copying only when a different memory space
   needs it.

   USE
       In exactly one .c file:
           #define SKEL_IMPLEMENTATION
           #include "skel.h"
       elsewhere just #include "skel.h".  Include skel.h before any system
       header in the implementation file (it asks for POSIX; on Linux for
       _GNU_SOURCE, whose CPU affinity calls the pool uses), or build with
       -D_GNU_SOURCE (Linux) or -D_POSIX_C_SOURCE=200809L.  With
       _POSIX_C_SOURCE alone on Linux, or system headers first, everything
       works, but the pool counts the machine's CPUs rather than the
       process's, cannot pin (SKEL_PIN) and cannot keep its workers off
       their caller's CPU (see "pool" below).  Build with -fopenmp for the "omp"
       backend (without it the backend is simply absent); link -ldl -lpthread -lm.
       Installed (make install): pkg-config --cflags --libs skel.

   EXAMPLE (dot product)
       SKEL_FUNC(float, mult, (float a, float b), return a * b;)
       SKEL_FUNC_COMMUTATIVE(float, add, (float a, float b), return a + b;)
       SKEL_MAPREDUCE(dot, mult, add, float, 2)

       int main(void) {
           skel_vec *x, *y; float r;
           skel_vec_new_fill(&x, SKEL_FLOAT, 1000, &(float){2});
           skel_vec_new_fill(&y, SKEL_FLOAT, 1000, &(float){3});
           if (skel_mapreduce2(dot, x, y, &r) != SKEL_OK)
               fprintf(stderr, "dot: %s\n", skel_last_error());
           printf("%g\n", r);              // 6000
           skel_free(x); skel_free(y);
       }

   USER FUNCTIONS
       SKEL_FUNC(ret, name, (params), body...) defines `static inline ret
       name(params) { body }` for the CPU backends (the compiler inlines it
       into the loop skel generates for each skeleton instance) and keeps
       the same text as a string for the GPU backends.  The body must be
       plain C that also compiles as CUDA and OpenCL C: no library calls
       other than math functions, no globals.  Parameters come in this
       order ([..] when the instance declares it):
           Map:                  [index] a0 .. a(k-1) [views] [uniform] [&outputs]
           MapReduce map:        [index] a0 .. a(k-1) [views] [uniform]
           Reduce / Scan:        (A a, A b)   - must be associative
       SKEL_FUNC_COMMUTATIVE(ret, name, (params), body...) is SKEL_FUNC for
       a reduction operator that is also commutative (a + b, a * b, min,
       max, &, |): Reduce and MapReduce may then combine it in any order,
       which is what makes them fast on the CPU (SEMANTICS).
           MapOverlap 1D:        [index] (const T *a) [views] [uniform] [&outputs]
                                 reads a[-d] .. a[d]
           MapOverlap 2D:        [index] (const T *a, skel_index stride [, const T *w]) [views] [uniform]
                                 reads a[i*stride + j], |i| <= dR, |j| <= dC;
                                 w (weighted form) is the weight matrix
                                 centred like a, row stride 2*dC+1.  The CPU
                                 backends call it for a row of outputs in
                                 one loop (stride fixed, the window's offsets
                                 loop-invariant), so the compiler vectorises
                                 across outputs; stride is not always the
                                 matrix's row length (edge blocks read a
                                 padded copy): index with it, never with cols
           MapOverlap 3D:        [index] (const T *a, skel_index rstride, skel_index pstride) [views] [uniform]
                                 reads a[p*pstride + i*rstride + j],
                                 |p| <= dD, |i| <= dR, |j| <= dC
           MapArray:             [index] (const T *v, T e) [views] [uniform]   may read any v[k]
           MapPairs (and the map of MapPairsReduce):
                                 [index] r0 .. (row operands) c0 .. (column operands) [views] [uniform]
       index: `skel_index i` (SKEL_INDEX: the element's flat index),
       `skel_index row, skel_index col` (SKEL_INDEX2D; a MapPairs result's
       row and column) or `skel_index plane, skel_index row, skel_index
       col` (SKEL_INDEX3D, 3-D containers).  A uniform argument is a
       scalar or small struct passed by value to every element call:
       SKEL_UNIFORM(type) takes any C scalar named by one token (char,
       signed, unsigned, short, int, long, float, double, int8_t ..
       uint64_t, skel_index; typedef a longer name as one of these) or a
       struct declared with SKEL_STRUCT, so the GPU backends get its
       definition too.  Any other type does not compile, and the compiler
       names SKEL_UNIFORM_type_must_be_a_C_scalar_or_declared_with_
       SKEL_STRUCT__<type> as undeclared.  (long is 64 bits in OpenCL:
       where the host's long is not, use int64_t.)
       Several outputs: a Map or 1-D MapOverlap declared with SKEL_OUTS of
       2..4 types gets a pointer to each result after every other argument
       (`void f(float a, float *sum, int32_t *count)`), returns void, and
       the call names the output containers in call.outs[0..k-1] (each of
       the shape of the first).  With one output the function returns it.

   TYPES
       Element types are float, double, int32_t, uint32_t, int64_t,
       uint64_t, int8_t, uint8_t, int16_t, uint16_t (those single tokens),
       and structs declared with SKEL_STRUCT(name, fields...) (at most 128
       bytes), which also serve as uniforms.  Other spellings (int,
       unsigned int, long, a struct declared without SKEL_STRUCT) do not
       compile: the compiler names SKEL_element_type_must_be_a_fixed_
       width_scalar_or_declared_with_SKEL_STRUCT__<type> as undeclared.  SKEL_TYPE(T) is the skel_type
       of any of them for the container constructors
       (skel_vec_new(&v, SKEL_TYPE(body), n)); the built-in ones also have
       their enum names (SKEL_FLOAT ...).  Containers of structs are arrays
       of structs on every backend: a GPU gets the definition with the
       kernels, and its compiler checks that it lays the struct out in the
       host's size and alignment (a kernel that does not compile names
       skel_size_of_<name> / skel_alignment_of_<name>).  A struct declared
       with the same name but other fields in two files is two types.
       Reductions of structs combine them with the user's function, in
       index order like every reduction.  SKEL_REDUCE_EX accumulates
       scalars in a wider type (float data, double sum; uint8_t pixels,
       int32_t sum): each element is converted by a C cast first.

   VIEWS (read-only whole containers in an element function)
       An instance declared with SKEL_VIEWS(T0 [, T1 ..]) (1..4 types) gets,
       after its element arguments, one `skel_view_T` per view:
           typedef struct { const T *data; skel_index size, rows, cols, depth; } skel_view_T;
       (a vector is 1 x 1 x n, a matrix 1 x rows x cols), for the
       containers the call names in call.views[0..k-1], of any shape and
       size.  Read them with SKEL_AT(v, i), SKEL_AT2(v, row, col) or
       SKEL_AT3(v, plane, row, col) (or v.data[i]); valid indices are
       0 .. size-1.  Compiled with SKEL_DEBUG defined, SKEL_AT checks them on
       the CPU backends: a call that reads outside a view returns SKEL_EINVAL
       (the outputs hold what it computed; element 0 was read instead);
       with SKEL_DEBUG=1 in the environment the GPU kernels clamp such reads
       into the view.  A view may be an input too, never an output.  Views
       move like inputs: a call copies them only to a memory space that
       lacks their newest data.

   SKELETON INSTANCES (each defines `static skel_skeleton name[1]`)
       SKEL_MAP(name, func, T, nin)                       r[i] = func(a0[i]..)
       SKEL_MAP_EX(name, func, Tout, Tin, nin, index, uniform)
       SKEL_MAP_INDEX(name, func, Tout, index, uniform)    the index alone, no inputs
       SKEL_MAP_X(name, func, outs, ins, index, views, uniform)
       SKEL_REDUCE(name, func, T)
       SKEL_REDUCE_EX(name, func, Tacc, Tin)              accumulate Tin elements as Tacc
       SKEL_MAPREDUCE(name, mapfunc, redfunc, T, nin)
       SKEL_MAPREDUCE_EX(name, mapfunc, redfunc, Tout, Tin, nin, index, uniform)
       SKEL_MAPREDUCE_INDEX(name, mapfunc, redfunc, Tout, index, uniform)
       SKEL_MAPREDUCE_X(name, mapfunc, redfunc, Tacc, ins, index, views, uniform)
       SKEL_SCAN(name, func, T)
       SKEL_OVERLAP(name, func, T, d)                     1D and separable 2D
       SKEL_OVERLAP_EX(name, func, T, d, uniform)
       SKEL_OVERLAP_X(name, func, outs, T, d, index, views, uniform)
       SKEL_OVERLAP2D(name, func, T, dR, dC)              non-separable 2D
       SKEL_OVERLAP2D_EX(name, func, T, dR, dC, weighted, uniform)
       SKEL_OVERLAP2D_X(name, func, T, dR, dC, weighted, index, views, uniform)
       SKEL_CONV2D(name, T, dR, dC)                       weighted sum, no user function
                                                          (GPU: register-tiled, see 2D CONVOLUTION)
       SKEL_OVERLAP3D(name, func, T, dD, dR, dC)          non-separable 3D
       SKEL_OVERLAP3D_X(name, func, T, dD, dR, dC, index, views, uniform)
       SKEL_MAPARRAY(name, func, T)
       SKEL_MAPARRAY_EX(name, func, T, uniform)
       SKEL_MAPARRAY_X(name, func, T, index, views, uniform)
       SKEL_MAPPAIRS(name, func, Tout, rows, cols)        r[i][j] = func(rows..[i], cols..[j])
       SKEL_MAPPAIRS_X(name, func, Tout, rows, cols, index, views, uniform)
       SKEL_MAPPAIRSREDUCE(name, mapfunc, redfunc, Tacc, rows, cols)
       SKEL_MAPPAIRSREDUCE_X(name, mapfunc, redfunc, Tacc, rows, cols, index, views, uniform)
       outs:    SKEL_OUTS(T0 [, T1 ..])                   1..4 output types
       ins, rows, cols: SKEL_INS(T0 [, T1 ..]) or SKEL_NO_INS   input types, in order
       views:   SKEL_VIEWS(T0 [, T1 ..]) or SKEL_NO_VIEWS
       index:   SKEL_NO_INDEX, SKEL_INDEX, SKEL_INDEX2D, SKEL_INDEX3D
       uniform: SKEL_NO_UNIFORM, SKEL_UNIFORM(type)
       weighted: SKEL_WEIGHTED, SKEL_UNWEIGHTED
       nin is 1..4 (0 with an index: the function computes from the index
       alone; SKEL_MAP_INDEX / SKEL_MAPREDUCE_INDEX name no input type
       then).  MapPairs: call.in[] holds the row operands (one length R),
       then the column operands (one length C); call.out is an R x C
       matrix.  MapPairsReduce reduces each row (call.direction SKEL_ROWS,
       call.out of R) or each column (SKEL_COLS, call.out of C) without
       making the matrix; both sides need operands.  MapOverlap3D takes a
       3-D container (skel_ten_new) and the three edge policies.

   SEMANTICS (thesis ch. 3, Dastgeer 2011)
       Reduce/MapReduce/Scan need an associative operator.  skel assumes
       it is commutative only when it was declared with
       SKEL_FUNC_COMMUTATIVE; otherwise partial results are combined in
       index order (an operator such as "first", "last", a matrix product
       or function composition stays correct).  Integer results are exact
       either way; floating-point results may differ from a sequential
       left-to-right loop by rounding, because the CPU backends sum
       contiguous blocks separately before combining.  A commutative
       operator is reduced on the CPU in interleaved lanes, as a
       vectorising compiler reduces `#pragma omp simd reduction` loops:
       lane k (of 32 for 4-byte, 16 for 8-byte types) folds elements
       k, k+32, k+64, ... of a block, and the lanes are then combined
       pairwise; this runs 2-4 times faster than the ordered tree.  The
       rounding error is of the same order as the ordered sum's (each
       lane is a sum of n/32 terms, combined in a tree), but the bits
       differ from it.  Either way a result depends only on the size and
       on the variant (the backend and its thread count decide the
       blocks), never on timing or on the data's address (on data that
       fits in L1 the lanes' loads start at a 64-byte boundary, the lanes
       rotated to match): the same call on the same variant gives the same
       bits.  Declaring a non-commutative operator commutative gives wrong
       results.  GPU backends keep their own ordered reduction, but for a
       MapReduce whose accumulator is a struct or wider than its elements
       (Pearson's sums): there a commutative operator lets each work-item
       fold elements a grid's stride apart straight from memory and the
       groups' values combine once, without staging tiles to keep index
       order (H100, Pearson's sums of two float vectors against the
       device copy: NVIDIA's OpenCL 0.87-0.97 at 2^26-2^28 elements,
       ordered 0.73-0.83; CUDA 0.92-0.96, ordered 0.89-0.95; but CUDA at
       2^24 0.74, ordered 0.78: bench/results/forms.md).  The result's
       bits depend on the device and the variant, as on the CPU, never on
       timing.
       Reducing an empty container is an error (SKEL_EEMPTY): there is no
       identity to return.  A Scan given call.init starts from it: inclusive
       r[i] = init + a[0] + .. + a[i], exclusive r[0] = init (exclusive
       requires it).  A MapReduce with no inputs (an index-only map)
       reduces the indices 0 .. call.count-1, or those of the grid
       call.rows x call.cols (row i / cols, column i % cols), which a
       SKEL_INDEX2D function needs (call.count alone: SKEL_EINVAL, where
       it used to sum with every row index 0).  A whole Reduce/MapReduce
       writes call.result, or, given call.out (a 1-element vector)
       instead, leaves the value there, where it was computed.  MapOverlap
       reads outside the data through the edge policy: SKEL_EDGE_CONSTANT
       (the call's edge_value, default 0), SKEL_EDGE_CYCLIC (wrap around)
       or SKEL_EDGE_DUPLICATE (nearest element); the overlap may not exceed
       the length it runs along.  Map and Scan may write in place (out ==
       input); MapOverlap and MapArray may too (skel copies the input
       first).  Different containers that wrap overlapping memory may be
       inputs of one call together, but not an input and its output
       (SKEL_EINVAL: the call would read what it already wrote; an
       in-place call passes one container as both).  A call on empty data
       (no element, however many rows or columns) returns SKEL_OK at once,
       a whole reduction of it SKEL_EEMPTY.  A call that fails, out of
       memory included, changes no container and no result, on every
       backend: every buffer it needs is allocated before it writes.
       GPU calls return before their work is done: every call whose result
       stays on the GPU (Map, MapArray, Scan, MapOverlap, row / column
       Reduce, and a whole Reduce/MapReduce into call.out) returns once its
       kernels are queued; only a whole Reduce/MapReduce into call.result
       waits, for its value.  CPU calls return when they are done.
       skel_read(out) waits for out and copies it home; skel_wait(out)
       waits without copying (to time GPU work, or before handing its
       memory to other code), skel_wait_all() waits for every call.

   THREADS
       Any number of threads may call skel at the same time, sharing
       skeleton instances, plans and input containers.  What must not be
       shared:
       - A container a call writes (its out, a container in place) belongs
         to that call until it returns: no other thread may read, write or
         free it meanwhile.  Containers only read (inputs, skel_read) may be
         read by any number of threads at once, also while that copies
         them from a GPU.  skel_write, skel_flush and skel_free write.
       - A plan attached to an instance is read by every call of it:
         skel_set_plan (and skel_tune, which attaches its plan) may run
         while other threads call the instance, and each call uses the
         plan it found, but a plan may only be changed (skel_plan_add) or
         freed once it is detached and no call that found it still runs.
       - skel_set_log: set it before the threads start; the sink is then
         called from any thread.  skel_last_error() is per thread.
       Calls on one GPU take turns (one queue per device); CPU calls run
       side by side.  test/test_threads.c calls every skeleton from 8
       threads at once; `make test-tsan` runs it under ThreadSanitizer.

   STREAMS (seed 001: Goli, McCall; Comp, Pipeline and Farm)
       A stream runs a tree of nodes over items that a source gives one
       at a time (the user's pointers) and hands each result to a sink:
           skel_stream *s;
           skel_stream_new(&s);
           int r = skel_stream_stage(s, &(skel_stage_desc){ .name = "r", .cpu = read_image });
           int p = skel_stream_stage(s, &(skel_stage_desc){ .name = "p", .cpu = filter,
                                                            .gpu = filter });
           int root = skel_stream_pipeline(s, 2, (int[]){
               skel_stream_farm(s, r, &(skel_farm_desc){ .cpu_workers = 8 }),
               skel_stream_farm(s, p, &(skel_farm_desc){ .gpu_workers = 2 }) });
           rc = skel_stream_run(s, root, &(skel_stream_desc){ .source = next_file,
                                      .sink = save, .user = &job, .ordered = 1 });
           skel_stream_dump(s, SKEL_DUMP_TEXT, NULL);   // times, utilisation, queues
           skel_stream_free(s);
       Nodes (seed 001 writes them p, r | p, r . p, Farm(r)):
         stage     a function from an item to an item (*out comes preset
                   to the item), run by a CPU worker; `gpu`: the one a
                   GPU worker runs instead
         pipeline  its parts work at once on successive items, joined by
                   queues of desc.queue items (default 4)
         comp      its parts one after the other on each item: stages in
                   one worker, no queue between them; a part that is not
                   made of stages is joined by a one-item queue (in
                   Farm(r) . p, p takes each item as the farm gives it)
         farm      cpu_workers + gpu_workers copies of its node (both 0:
                   one CPU copy per CPU); each item goes to a copy that
                   is free (on demand; of several, the one fastest so
                   far); `ordered`: items leave it in the order they
                   came in (desc.ordered orders every farm: the sink
                   then sees the source's order).
                   A GPU copy owns a GPU place (`gpus`, in turn): its
                   stages' gpu functions run with the thread's skeleton
                   calls bound there; the stages without one run theirs
                   on the host.  A lone stage on a GPU is a farm of one
                   GPU worker.
       Any tree of them, but no farm inside a farm (one farm with more
       copies does the same).  Seed 001's configurations of depth 2 (r.p,
       r|p, Farm(r)|p, r|Farm(p), Farm(r)|Farm(p), Farm(r|p), Farm(r.p),
       Farm(r).Farm(p), Farm(r).p, r.Farm(p)) are tested.
       Streams are not built on tasks (TASKS), as DESIGN.md first had
       them: a task per item and stage would cost a task's 3-8 us (bench/
       results/tasks.md) where a stage run costs 0.1-2.2 us, so a stream
       schedules its own workers on pool threads.
       Workers are not threads.  A run has desc.threads threads (default:
       one per worker, the source's and sink's included), the caller's
       and pool tasks; each one takes whichever worker can work next (an
       item waiting, room behind it), nearest the sink first, and runs it
       on one item.  So any number of threads runs any stream, one alone
       too, and no thread blocks on a full or empty queue: a worker is
       only started with room for its result.  A CPU worker's skeleton
       calls run on the host (its stages' threads bound there), a GPU
       worker's on its GPU; one thread at a time drives a worker.  The
       run's other threads hold pool workers while it lasts, so it
       reserves them: the pool grows by as many (other calls keep their
       workers), and nothing in the run waits for one of them.
       Failures: a stage, the source or the sink returns a negative
       status.  The run then takes nothing more, lets the workers
       running finish their item, hands every item that did not reach
       the sink to desc.drop (on the calling thread, after the other
       threads stopped), calls each stage's fini for the workers whose
       `local` is set, and returns that status; skel_last_error says
       which stage, worker, place and item.  The sink owns every item
       it is given.  skel_stream_stop (any thread) ends a run cleanly:
       the source is asked for nothing more, and what it gave reaches the
       sink.
       Measurements of the last run (what seed 001's mapper needs), by
       the skel_stream_*_stats_get functions and skel_stream_dump (text,
       JSON): per node its items, busy seconds, service time (seconds
       between items out: its first item in to its last out, over the
       items), the service time the paper's cost models (eq. 2-4) give
       from its measured stage times (a comp sums its parts, a pipeline
       takes its slowest, a farm its copies in parallel), and its
       workers' utilisation (busy share of the run: mean, sd, min, max);
       per worker its stage, farm copy, place, items, busy seconds and
       utilisation; per queue its capacity, items through it, mean
       occupancy over time and the most it held.  With SKEL_TRACE set,
       every stage run on an item is a stage event of the thread that
       ran it.
   PLACES AND COHERENCE
       A memory space is where a copy of a container can live: the host,
       each GPU device.  A place is a memory space with the backend that
       computes there (the host with seq, omp and the other CPU backends;
       "cuda:0", "opencl:0", ...).  A container records, per index range,
       which spaces hold its newest data (its map: [0, n) cut into
       segments, each with a set of spaces).  A call reads the ranges it
       needs in the space where it runs: only the parts of them that space
       lacks are copied, from a space that has them (device to device
       through the host).  A call's write of a range leaves that range
       valid in the writing space only; other copies of it go stale (they
       stay allocated and are refreshed range by range when next read).
       skel_read makes the whole container valid on the host, copying only
       the ranges the host lacks; skel_write and skel_flush leave it valid
       on the host alone.  skel_traffic_get counts the bytes and copies
       moved between each pair of spaces.
       THE INVARIANT: (a) the segments partition [0, n); (b) every segment
       is valid in at least one space; (c) every space a segment names
       holds the newest value of each of its elements (the value of the
       last completed write).  Proof sketch, by induction over the
       operations (each runs under the container's lock):
       - a new container: one segment on the host, which holds the values;
       - a read of [lo, hi) in s copies each part that s lacks from a space
         that has it (which holds the newest values by (c)) and only then
         adds s to that part: (b) and (c) hold; device to device goes
         through the host, adding the host the same way first;
       - a write of [lo, hi) in s is recorded after the call stored every
         element of the range in s: the range's set becomes {s}, non-empty
         (b) and newest (c); every other space is dropped from it, so no
         stale copy is named; elements outside the range keep their sets;
       - cutting a segment in two or merging equal neighbours changes no
         element's set; a call that fails records nothing, and calls fail
         before they write (allocations, kernels, room in the maps come
         first; only a device fault while kernels run, asynchronously,
         escapes this).
       By (b) every element is valid somewhere; by (c) and the read rule,
       a read of any range in any space sees the newest data.

   SPLIT CALLS
       A split variant runs one call over several places at the same time:
           skel_variant v = { .backend = "split", .parts = {
               { .backend = "pool", .share = 0.3 },
               { .backend = "cuda", .share = 0.7 } } };
       The call's work is cut into contiguous parts in the parts' order,
       at the (normalised) shares: elements for Map, MapArray (by in[1]
       and out), whole Reduce/MapReduce, vector Scans and vector
       MapOverlaps; rows for row and column Reduces, matrix Scans, matrix
       MapOverlaps (every direction) and MapOverlap2D.  A part reads only
       its own range of each input, plus the rows or elements its stencil
       reaches into other parts (the halo, wrapping round for a cyclic
       edge), all of MapArray's in[0] and all of every view; it writes
       only its range of each output (several outputs: the same range of
       each, each recorded in its own map), which stays where it was
       computed: a chain of calls with
       the same split moves only halos, and skel_read (or a call elsewhere)
       fetches only what it lacks.  GPU parts are queued from the calling
       thread (each uploads only what its device lacks) while host parts
       run on the worker pool (see Overlap); the call waits once, at the
       end.
       The forms of the expressive skeletons split like their skeleton:
       indices are the whole call's, views are read whole, narrow and
       struct elements and wider accumulators (SKEL_REDUCE_EX) too.
       Reductions combine the parts' accumulators in index order on the
       host (the instance's combine); a vector Scan first reduces every
       part, then each part scans from its carry.  MapPairs splits by rows
       of its result, MapPairsReduce by its outputs (rows, or columns with
       SKEL_COLS): a part reads its own range of that side's operands and
       the other side's whole.  MapOverlap3D splits by planes, each part
       reading dD planes of halo either side.
       THE FALLBACK RULE: a call a split cannot cut correctly runs whole,
       as one call, on the place of its largest part (the first of equal
       ones), never split and never wrong: an in-place MapOverlap of any
       dimension or MapArray (an output that is in[0]: its parts would
       read what other parts write).  SKEL_VERBOSE=2 logs it ("not split
       (in place): whole on opencl").  Parts of no units do nothing;
       two parts may share a place (logical partitions of one device).
       {.backend = "split"} without parts: one part per place (the pool,
       every GPU device), equal shares.  {"cuda", .devices = k}: k equal
       parts over CUDA's devices in turn.
       Before any part moves data, every part is prepared (kernels,
       device copies, scratch, room in the maps): a part that cannot run
       (out of memory, a device error) fails the call with every container
       as it was, and skel_last_error names the part and its place.
       Shares: a plan's split variant gives them (the tuner makes split
       candidates, see TUNER), balanced for the call's context point: a
       tuned plan predicts each part's variant's time there and at half
       the rows (a fixed cost and a cost per share) and the shares make
       the parts end together (_skel_tree_shares; the tuner made the
       split for one point, and a plan answers it over a leaf of its
       tree); a call repeated at one context
       point moves its shares halfway towards its places' measured rates
       (at most 0.1 a call, 0.25 from the balanced ones, only when a part took
       50 us or more, and only from a call that copied about as many
       bytes between places as the one before it: the call that
       distributes a chain's data is no measure of the calls after it;
       SKEL_SPLIT_REFINE=0 turns both off: the plan's shares as stored;
       SKEL_VERBOSE=1 logs each change).  A GPU part's time comes from its place's time marks
       (CUDA: a pair of events around its parts, timed by the device)
       when it ended before the host's parts, else from the wait's end
       (it was the later one; a place whose end mark has passed is not
       waited for); OpenCL places have no marks yet, so theirs is when the
       wait returned, after the host's parts: there refinement only
       learns while the device's part is the slower one.
       Profile: under SKEL_TRACE a split call records its steps (layout,
       prepare, host data, submit, marks, gpu part, host part queued and
       host part on the worker that ran it, waits, record, refine, the
       whole call; "split: gpu finish" spans the start to the GPU part's
       end) as tasks of the calling thread, with the copies.
       Overlap: the GPU parts' uploads run on the calling thread while
       the host parts already run on the pool (when they upload 1 MiB or
       more; below that the host parts run on the calling thread once the
       kernels are queued).  Page-locked host copies: a container's
       host copy is page-locked before a copy to or from a CUDA device
       once its pageable copies so far, this one included, take as long
       as registering and releasing it is estimated to (the ski rental's
       rule; skel_cuda.h "Page-locked host copies"): a large container
       at its first copy, a small one only when copied again and again
       (a loop of split calls on host data, a program that writes its
       input on the host before each call).  Its copies then run at DMA
       speed and take no core from the host parts.  SKEL_CUDA_PINNED=0
       never, =1 at the first copy.

   TASKS (thesis ch. 6; StarPU's task model)
       skel_submit(sk, &call) runs a call later and returns at once;
       skel_task_submit(&desc) does the same for a *user task*, a C
       function with the containers it reads and writes declared
       (SKEL_READ, SKEL_WRITE, SKEL_READ_WRITE) and optionally a GPU
       version whose skeleton calls run on the GPU that runs it:
           skel_submit(scale, &(skel_call){ .in = { x }, .out = y });
           skel_task_submit(&(skel_task_desc){ .name = "norm", .cpu = norm,
               .data = { y, n }, .mode = { SKEL_READ, SKEL_WRITE } });
           skel_submit(axpy, &(skel_call){ .in = { x, y }, .out = z });
           const float *r = skel_read(z);     // waits for the three
       Order: each follows the calls and tasks submitted before it that
       touch the same containers (read after write, write after read,
       write after write); the rest run at the same time, on CPU workers
       (pool threads) and GPU workers.  Operands are checked and uniform,
       edge_value, init and weights copied at submission; call.result is
       written when the call runs.  skel_read, skel_write, skel_flush,
       skel_free and skel_run wait for what is pending on the containers
       they touch; skel_wait(c) for c's writers, skel_wait_all() for
       everything.  A waiting thread runs ready tasks meanwhile.  Inside a
       task, skeleton calls and submissions run at once, and a task may
       touch only the containers it declared.
       Failures: a task that fails leaves the containers it writes as they
       were and marks them failed; tasks that read them are not run
       (SKEL_EDEPEND) and pass the mark on.  skel_wait and skel_read of a
       failed container, and skel_run reading one, return the failure and
       say which call failed and why; skel_wait_all returns the first
       failure since the last skel_wait_all.  Writing a failed container
       (skel_write, a call that succeeds) clears the mark.
       Farm (thesis 6.4): skel_farm_call / skel_farm_task add members (checked
       and copied then); skel_farm_run runs them all at once and waits;
       skel_farm_start returns at once and skel_farm_join waits later,
       returning the first member's failure.  A farm may be run again.
       Places and policies: ready tasks go to a place (the host's CPU
       workers, each GPU's worker) chosen by the policy (skel_sched_set or
       SKEL_SCHED): dmda (default) where the task is expected to finish
       first: the instance's tuned plan or the history model learned
       online (per instance, size and place; outliers left out) predicts
       its time, a measured transfer model (latency + bytes / bandwidth
       per link, measured with 16 MB copies as the space serves them: on
       CUDA page-locked where its rule locks a container that size) the
       copies of inputs not already there; places not yet
       measured for a task get it (calibration).  Unlike StarPU's dmda it
       looks ahead: a place's finish time also counts the predicted time
       there of the submitted calls and tasks that follow the ready one
       (up to skel_sched_desc.lookahead of them, default 64; negative:
       greedy), so a chain goes where the chain is cheapest, not where its
       first call's input happens to be (greedy, 80 SOR sweeps whose input
       starts on the host all ran there, 3 times slower than on the GPU;
       with 16, the H100 machine's chain still did: its 4 ms of copies pay
       off only over 32 sweeps of 0.14 ms on 16 CPUs against 0.013 ms),
       and it counts bringing the results of the last of them home (the
       host is taken to read what no submitted call follows).  A call
       ready when it is submitted is placed a little later, with the ones
       submitted after it (skel_sched_desc.defer_us: when submissions,
       ready or not, pause for 5 us, 320 us after the first waited (as
       long as 64 take at that pace), once the calls that follow it fill
       the lookahead, when 64 wait, or at once when any thread waits or a
       farm starts), so that the lookahead sees what follows it (a blur's
       row pass placed before its column pass existed went to the GPU and
       paid two copies; SOR's first sweep, placed while the sweeps that
       follow it were still coming, ran on the host).
       eager: one queue, any
       worker; ws: a queue per worker, idle workers steal; static: where
       skel_run would run it.  A user task without containers that only
       the host can run (no gpu function, or no GPU place in use) follows
       nothing and nothing follows it: under every policy it goes to the
       host's CPU workers through a lock-free queue (oldest first).  The models live in <plan folder>/skel.models
       (versioned, fingerprinted, checksummed, written atomically; at exit
       and by skel_models_save); tools/skel_plan --models shows them.
       skel_sched_stats_get counts tasks per place, by model or by rule,
       and the bytes copied per link.  Without GCC/Clang atomics (no pool)
       submissions run at once.
       SKEL_SCHED=dmda|eager|ws|static   the default policy
       SKEL_PLACES=host,cuda             the places it may use (default all)

   2D CONVOLUTION (thesis ch. 5)
       SKEL_CONV2D computes r = sum of w * a over the window.  CPU (every
       CPU backend, in its per-rows chunk function): the window's taps in
       the outer loops, a block of outputs of two rows in the inner one
       (each input row loaded once for both), the weights held in
       registers, fused multiply-adds; blocks of whole rows (up to 4096
       floats) inside the matrix, then, for each 8 rows, the blocks at an
       edge, which run the same loop on a padded copy; the call's rows go
       to the threads in chunks of row pairs, up to 8 a thread, claimed
       dynamically on the pool.  Every other 2D overlap, of any form (index,
       views, uniform, weights, any element type), runs in the same blocks:
       its function is called for a row of outputs in one loop.  Build with -O2 -fopenmp (or -O3) and the target's
       vector ISA (-march=native) for the vector speed.  GPU: windows of
       more than 49 taps (wider than 7x7) run a register-tiled kernel: a
       work-item computes cy x cx adjacent outputs, the window's rows
       stream through its registers, the weights come from local memory.  The tiling factors
       (cx, cy) are computed from the window, the element type and the
       device's limits read at run time (registers, local memory, resident
       work-items and groups per compute unit) by the formula at
       _skel_ov2_tiling in the implementation, with the thesis' two
       metrics as variants (skel_variant.tiling): SKEL_TILING_OCCUPANCY
       (Phi_occupancy: occupancy first, then the most tiling),
       SKEL_TILING_MAX (Phi_tiling: the most tiling, then occupancy),
       SKEL_TILING_AUTO (groups x tiling, tiling counted up to 16 outputs
       a work-item; a tie to the candidate with a tenth less local-memory
       traffic a multiply-add, else fewer registers), SKEL_TILING_SHARED (no register tiling: the
       shared-memory tile kernel of the other 2D overlaps), or cx + 100 cy
       for given factors.  The tuner tries Phi_occupancy, Phi_tiling and
       none on each GPU block size for a SKEL_CONV2D.  SKEL_VERBOSE=1 logs
       the candidates, the device limits and the choice for each kernel
       compiled (CUDA: also the registers and groups per multiprocessor of
       the compiled kernel).  A 2D overlap with a user function, and a
       SKEL_CONV2D of 1- or 2-byte elements, runs the shared-memory tile
       kernel at any window width.
       (bench/conv2d.c, bench/results/conv2d.md.)

   BACKENDS AND ENVIRONMENT
       seq      one core, always present
       pool     skel's own worker threads (variant: threads, the calling
                thread included), present with GCC or Clang
       omp      OpenMP, present when compiled with -fopenmp (variant: threads)
       A variant's threads are at most SKEL_MAX_THREADS (1024; a compile-
       time macro): more is refused, not handed to the OpenMP runtime
       (which crashed at 100000).  skel keeps an OpenMP team alive between
       calls only up to the processor count, so one wide call does not
       tax every later small one.
       cuda     skel_cuda.h, when libcuda and NVRTC load and a GPU is there
       opencl   skel_cl.h, when libOpenCL loads and a device is there
       Default without a plan: a GPU backend when the first operand already
       lives on that GPU, else pool (omp without it) from
       SKEL_PARALLEL_THRESHOLD elements and seq below.  Its default is
       8192 elements a thread of the pool's default width, at least 32768
       (16 threads: 131072): on the 16-core H100 host a warm pool call
       over 16 threads costs 4-5 us, and seq won up to 2^16-2^17 elements
       for saxpy, dot and sum (pool/16 at 2^16: 1.2-3.6 x seq's time;
       stencil: from 2^15); on 2 cores the old 32768 held (pool/2 0.6-1.05
       x seq at 2^16).  Tuned plans replace it.
       pool and omp split a call alike; they differ in who waits for whom.
       An OpenMP region ends in a barrier that waits for every thread of
       its team, so one thread the OS has descheduled (another process
       wants the core) holds the call for a time slice.  The pool splits a
       call into chunks (8 per thread) that the calling thread and the
       workers claim as they come: a call waits only for chunks already
       being computed, never for a thread that has not started, and runs
       at about one core's speed at worst (with a process spinning on
       the other core of two: medians 0.38-1.15 of seq's, means at
       2^20-2^22 0.73-1.00; hand OpenMP's means 1.4-6 times seq's:
       bench/results/pool.md).  Workers start on first use, spin for
       SKEL_POOL_SPIN_US (100) after their last chunk (time they were
       descheduled does not count), then sleep.  A call wakes the
       sleepers it wants in a chain (it wakes one or two, each woken
       worker the next), off its own path; the chain goes on after a
       short call has ended, so that the next call finds them awake (a
       25 us call over 16 threads found 2-5 workers still asleep and
       waited up to 35 us for them), and wakes only workers that slept
       before the call (one woken for it that slept again is not woken
       twice while another is never woken).  The calling thread, its
       chunks done, spins until the helpers' are (twice its own chunks'
       time, and until 1.5 times the call site's usual time has passed,
       at most SKEL_POOL_SPIN_US), then sleeps, which frees its core for a
       helper the OS descheduled: where its own chunks were the light ones
       (a Julia set's first rows) it had slept at once and a helper had
       to wake it (H100 host, pool/16 at 89 x 31: 26-29 us, 23 now).
       A worker that finds
       itself on the CPU of the thread whose call it joins (the OS puts a
       woken thread there when its own CPU is busy, and leaves it there)
       moves to another CPU: on 2 CPUs with another process on one, the
       worker then takes turns with that process instead of with its
       caller (Linux, _GNU_SOURCE; not with SKEL_PIN).  A sleeping
       worker's affinity leaves out its waker's CPU until it runs again:
       in a virtual machine the OS may wake it onto its busy waker's CPU
       and leave it waiting there for a millisecond (on a 2-vCPU KVM
       guest calls after a 10 ms pause ran 35-43 us instead of 28-29, the
       worker missing for dozens of calls).
       A pool call that is faster on its calling thread alone runs there:
       each thread times its call sites (instance, phase, shape, width)
       both ways, keeps the faster, and tries the other again now and
       then (at most about 6% of the time goes to trying; the same chunks
       in the same order either way, so results do not change).  Where a
       pool call's fixed cost is most of its work (2^10-2^14 elements,
       more with a busy machine) or helpers are late (another process on
       their cores), pool/w then costs about what seq does instead of
       more (H100 host, pool/16 at 2^12: 0.7-1.2 us a call, was 4.7-9.9;
       bench/results/pool.md); where threads pay, nothing changes.
       SKEL_POOL_ADAPT=0 turns it off.
       A call's fixed cost: a Map, whole Reduce or MapReduce of built-in
       types and no views, on data the host holds (its output on the host
       alone) and no container a task ever named, whose variant runs it
       as one chunk (seq; the pool under 32 elements) is checked and run
       directly: 250-400 instructions besides the work (a 16-element
       saxpy: 24-36 ns on both test machines, was 104-346); every other
       call takes the full dispatch (1300-1800).  The same bits either way.
       GPU backends are probed (libcuda, NVRTC, the OpenCL loader opened,
       devices listed) only when something needs a GPU: a variant or plan
       naming one (skel_plan_add, a plan file), skel_tune, the registry
       queries skel_backend_count / _name / _available, a function of
       skel_cuda.h or skel_cl.h, or SKEL_BACKEND naming one.  A program
       that runs on the CPU never opens them (a first seq call costs tens
       of microseconds, not the 25-40 ms of opening them).
       SKEL_BACKEND=name     run every call on that backend (an unknown or
                             absent name makes every call fail, with the
                             reason: not compiled in, library or device
                             missing, SKEL_CUDA_CHECK unset or invalid)
       SKEL_THREADS=n        default pool thread count (else the CPUs this
                             process may use)
       SKEL_PIN=1            pin pool worker k to the (k+1)-th CPU (off by
                             default; needs _GNU_SOURCE on Linux)
       SKEL_POOL_ADAPT=0     every pool call in parallel (default: a call
                             site runs on its caller alone while that is
                             faster, see the pool above)
       SKEL_OMP_THREADS=n    default OpenMP thread count (else OpenMP's; at
                             most SKEL_MAX_THREADS)
       SKEL_PARALLEL_THRESHOLD=n  size from which the default goes parallel
                             (8192 x the pool's threads, at least 32768;
                             SKEL_OMP_THRESHOLD: its old name, still read)
       SKEL_FALLBACK=1       a call a GPU backend cannot run (out of device
                             memory, a device error) runs again on the CPU
                             (pool, else omp, else seq), with a warning in
                             the log
       SKEL_VERBOSE=1|2      log backend choices (2: and every call) on stderr
       SKEL_PLAN_DIR=dir     folder of the tuner's plan files (see PLAN FILES)
       SKEL_CACHE_DIR=dir    GPU kernel cache (skel_cuda.h, skel_cl.h); "off"
                             disables it, and so, with a warning, does a
                             value over 1023 characters or one naming a
                             file that is not a directory
       SKEL_RETUNE=1         tune again even when a matching plan file exists
       SKEL_TRACE=file       record what ran where and when (skeleton calls,
                             tasks, copies between memory spaces, per worker
                             thread and place) and write it to file at exit;
                             tools/skel_trace draws it and sums it up
       SKEL_SPLIT_REFINE=0   split calls keep their plan's shares as stored (SPLIT CALLS)
       A variable set to a value skel cannot use (empty, not a number, out
       of range, an architecture NVRTC does not know) is ignored with a
       warning that names it, on stderr or to the log callback, whatever
       SKEL_VERBOSE says.

   TUNER (seed 000: Dastgeer, Li, Kessler 2013; thesis ch. 4)
       skel_plan *plan;
       skel_tune(&(skel_tune_desc){ .id = "dot", .sk = dot,
                                    .lower = { 10 }, .upper = { 50000000 },
                                    .time_budget = 20 }, &plan);
       // every later call of dot runs the variant the plan picks for its size
       A *variant* is a backend plus parameters; the tuner considers every
       available backend x its candidates (pool: 2, 4, ... threads and the
       core count; omp only without a pool, 1, 2, 4, ... and the core count:
       measuring both would halve the budget per variant for the same
       threads; GPU backends list block / grid sizes themselves) or the
       desc's own list; desc.backends = "seq,pool" keeps those backends'
       variants only (a name skel does not know is an error).  It builds a
       dispatch tree over the box lower..upper of context points:
       - Context point (dimensionality reduction): Map, Scan, MapReduce,
         Reduce and 1-D MapOverlap on vectors: n (a matrix counts its
         elements); MapOverlap on a matrix (dims = 2, or a direction in the
         template call), MapOverlap2D and Reduce by rows / columns: rows x
         cols; MapArray: length of in[0] x length of in[1]; MapPairs and
         MapPairsReduce: rows x cols of the pairs (R x C); MapOverlap3D:
         depth * rows x cols (planes of rows taken as rows: the tuner makes
         its synthetic 3-D operands of planes of 8 rows).  Synthetic struct
         elements are zero unless desc.prepare fills them; views are the
         template call's (desc.call->views), else random ones shaped like
         in[0].  Map, Scan and
         MapReduce tune in 2-D too, on rows x cols of their matrices (the
         synthetic operands are matrices of that shape; an index-only
         MapReduce runs over call.rows x call.cols of the point): by
         default when the cost per element may depend on the shape, i.e. a
         Map or MapReduce with a (row, col) index (SKEL_INDEX2D) and a
         row-wise Scan (direction SKEL_ROWS in the template); dims = 2 asks
         for it otherwise.  A 2-D plan answers a vector call at 1 x n, a
         1-D plan a matrix call at rows * cols (an index-only MapReduce:
         its grid, or 1 x call.count).
       - The root box's 2^D corners are measured with every variant; then,
         level by level, each node whose corners agree on a winner is a
         closed leaf, the others split into 2^D children, until max_depth,
         max_nodes or time_budget.  Sides split at their geometric middle
         sqrt(lo*hi) (SKEL_SPLIT_LINEAR: the arithmetic one; geometric
         needs fewer points for the same accuracy when costs span decades).
       - Every node is split down to min_depth (3 in 1-D, 2 in 2-D) even if
         its corners agree: cache effects make costs non-convex (seq can
         win at both ends of a range and omp in its cache-sized middle).
       - The budget buys a tree: where a level's splits cost more than the
         budget left, nodes whose corners disagree go first and, among
         them, the cheaper splits (each new point priced from the node's
         corners, scaled down to its size); a split that does not fit is
         skipped, not the rest of the level (the 4096 x 4096 box of a blur
         costs many times its neighbours).  Below min_depth splits may use
         the whole budget; deeper ones leave 15% to refinement (below).
         Before this (0.2.0) the tuner stopped at the first split that did
         not fit, and a blur over 16..4096 squared on the H100 machine often
         measured only its 4 root corners in 5 s.
       - Corners "agree" when one variant is within `tolerance` (3%) of the
         best at every corner (timing noise would otherwise split forever
         where variants tie); tolerance < 0 is the paper's strict rule.
       - Ties on the CPU: where seq or a pool variant is the fastest (at a
         point, over a leaf's corners, or interpolated in a 2-D open leaf),
         the pool variant with the most threads within `tolerance` of it
         is the answer.  The pool's caller takes the chunks its workers
         have not claimed, so where its threads find no free core (a busy
         phase of a shared machine: the usual way they tie) pool/k mostly
         costs seq's time plus a wake-up, and up to k times less where they
         do.  On the 2-vCPU VM with a competing spinner, pool/2 tied seq at
         points tuned in one phase and took half seq's time in the next;
         it also took 1.2-1.4 times seq's at some points (a worker
         descheduled while it holds a chunk), so the rule bets, it does
         not insure: bench/results/tuner2d.md.
       - A split wins only by more than twice `tolerance` (6%): where the
         fastest variant is a split and the fastest single place is within
         that margin of it, the single place is the answer (at a point, in
         an open leaf's ties, interpolated in 2-D).  A split's time carries
         two places' noise and a balance set at one measurement: plans
         that chose splits measured a little faster than the better place
         alone ran 1.06-1.12 times its time later (bench/results/splits.md).
       - Pruning: once the root and its children are measured, and again at
         each deeper level, a variant that was never within `prune` (25%) of
         the best at any point measured so far, and is not within it anywhere
         between two corners of a measured box either (each variant's time
         taken as a + b*size through its times at the two corners), is not
         measured again.
       - A call that takes longer than `timeout` drops its variant at that
         point and at every point at least as large in each dimension.
       - Measurement: synthetic operands of the instance's types and shapes
         with random values (inputs of floats in [0,1), integers 0..99;
         desc.prepare may change them or set the uniform per point), put
         where in_loc says (device buffers are kept between samples and
         only marked stale, as in a loop that writes new data with
         skel_write: a sample pays the uploads, not the allocation, nor
         the page-locking of SKEL_CUDA_PINNED); the template call's pointers (uniform,
         edge_value, init, weights) are read in every synthetic call, so
         what they point to must outlive skel_tune.  A *sample* of a
         variant times the first call on fresh data (plus the copy back
         when out_to_host) and a repeated call on the same data, each until
         its result is complete (a result left on a GPU is waited for with
         a one-element copy: launches are asynchronous).  Variants rank by
         T(r) = R*r + F, r = desc.repeats: the cost of r calls on the same
         data that starts where in_loc says (default r = 1: every call
         starts from there), so a GPU that loses the single call (uploads)
         can win at r = 10.
         Rounds: at a new point every live variant takes a sample, likely
         fastest first (the ranking at the nearest measured point; at a
         point over 64 times as large, GPUs, then CPU variants by threads,
         then seq); then, in rounds whose order alternates, the contenders
         (within twice the best T(r), or, where it is under 1 ms, within a
         4 ms scheduler slice of it) take more, up to `reps` samples, while
         the point has spent less than 1/16 (2-D; 1-D: 1/8) of the budget
         left.  R is the lower median of a variant's repeated calls, F the
         lower median of its backend's first-call extras: a burst of
         interference that slows fewer than half of the samples does not
         move them, and a round puts other variants' calls between one
         variant's samples (before 0.2.0 a variant's repetitions ran back
         to back, the least taken, and one burst could spoil all of them).
         Variants of one backend that moves data (F over R where it last
         ran: uploads, downloads) share F: they differ in kernel geometry,
         not in what moves, so one first call per backend and round is
         timed, and the others time only a repeated call on the data it
         placed (at 4096 x 4096 with host data every CUDA and OpenCL
         variant had paid a 64 MB upload and download per repetition).
         Where a backend moves nothing, each variant times its own first
         call, and with r = 1 only that: T(1) is the first call.  In the
         first round, a sample over twice the best T(r) loses (a first
         call that loses is not followed by its repeated call; where calls
         are cheap it gets a second try first, the lesser kept), and after
         two dear (> 1 ms) losses in a row the rest of that backend is not
         measured at the point.  Where calls are cheap and a variant
         follows another backend's calls, an untimed call of its own comes
         first, as bench/eval.c times (what the other left behind is not
         charged to it); so does a CPU variant of several threads after any
         other variant, and its pool workers that slept are woken and
         waited for (at most 200 us) before its timed calls: a plan's calls
         in a loop find them awake (timed as they arrived, pool/16 measured
         between its loop speed and seq's on the H100 host, either way from
         one run to the next).  A sample whose first call took over twice what
         the variant should take there (its time at a larger point, else
         twice its time at the nearest point scaled by the elements) plus
         1 ms, or over the timeout, is taken again at once: where the
         second is much faster the first was a one-off (a kernel compiled
         only now), replaced and not charged to the budget.
         Second looks: each new point is checked against the points
         measured before it: a variant over 1.5 times slower at a point
         than at a larger one, or over 1.5*k times slower than at one with
         k times fewer elements, caught a stall in one of them, and takes
         two more samples there (once per point and variant, within the
         budget, unless they would cost over 1/8 of what is left); where
         both are over 1.5 times faster, they replace the earlier samples
         (one burst, as the points around say).
         Refinement, with what the tree leaves of the budget: every point
         gets its second looks once more (seconds later, a burst that
         outlasted a point's rounds has passed), then the variants within
         30% of a point's winner take more rounds, up to 9 samples each,
         cheapest points first.  Last, every leaf closes if its corners
         agree, or reopens.
       - Warm-up: before the budget's clock starts, every variant runs once
         at the lower corner (thread pools start, GPU kernels compile); that
         call is neither measured nor charged.
       - Lookup: descend to the leaf holding the point (clamped into the
         box); a closed leaf answers its winner.  A 2-D open leaf answers
         the variant with the least T(r) interpolated bilinearly in rows and
         cols from its corners (exact for costs a + b*rows + c*cols +
         d*rows*cols; a variant not measured at a corner counts twice the
         best there, except a split: each point's split is made for it and
         measured only there, so at a corner it was not made for a split
         takes the time of the split over the same places that was made
         there, and the answer is the one made for the corner that weighs
         most at the point; before, moment's leaves with a split 13-38%
         ahead of pool/16 at all four corners answered pool/16 on the H100
         machine): a crossover at rows*cols = k runs diagonally through a
         leaf, which seed 000's nearest corner cuts at the middle (0.2.0
         did; at 377 x 28 of a dilation on the H100 machine it answered
         the winner at 256 x 16, 2.1 times slower than CUDA).  A 1-D open
         leaf answers the winner at its nearest corner in log space (x^2 <=
         lo*hi takes the lower end); where other variants are within
         `tolerance` of that winner there (a tie within the timing noise,
         which one disturbed measurement decides), the tied variant with
         the least sum over the leaf's corners of its time / the best's.
         About 10-20 ns at depth 10 in 1-D (open leaves' answers, and 2-D
         open leaves' candidates, at most 4, are computed once, when the
         plan is made or loaded).
       - Split variants (SPLIT CALLS): after the single-place variants ran
         at a new point (1-D or 2-D), the host's fastest there and each GPU
         backend's fastest (on every device of it) make a split candidate;
         each place's cost of a part of s units is taken as a + b*s (a
         line through its times at this point and the largest smaller
         point measured), and the shares make every part end together.
         The candidate (shares rounded to 0.001, an identical one reused)
         is measured there in as many rounds as the point's variants had,
         so a split wins only where it was measured to be the fastest; it
         is not measured at other points.  Made with the default variant
         table, or with desc.splits = 1 from the desc's own list;
         desc.splits = -1 never; never with a cost model.
       - Bulk selection: calls with the same call.group (non-zero) run in
         the memory space the first call of the group chose: a call whose
         own plan picks another space runs on the first call's variant;
         skel_group_reset forgets (a split call is left as it is).
       - The result's location: out_to_host = 0 (default) counts the copy
         back to the host when the (first) input starts on the host, and
         leaves the result where it is made when it starts on the device
         (a chain of GPU calls); 1 or -1 say so.  (Before 0.3.0 the copy was
         counted only with out_to_host = 1, though most programs read their
         results.)
       - Time: skel_plan_stats.tune_seconds is what time_budget bounds (the
         measuring); wall_seconds is skel_tune's wall time, warm-up, kernel
         compiles and one-offs included; the text dump shows both, and each
         point's measuring time when the plan was tuned in this process.
       - Steal time (Linux): skel_plan_stats.steal is the share of the
         machine's CPU time its hypervisor gave other guests while
         skel_tune ran (from /proc/stat; the text dump's "steal:" line);
         over 1% skel_tune logs a warning: CPU variants timed then may
         have been slowed by the neighbours (on the H100 machine's VM,
         2-D evaluation runs tuned at 4-5% steal timed pool/16 at a
         third of its usual speed and scored 92.6-93.0%, one at 0.6%
         96.8%).  The plan is kept and saved all the same;
         SKEL_RETUNE=1 tunes again.
       Tuning prints progress on stderr when stderr is a terminal or
       SKEL_VERBOSE is set (desc.quiet silences it).  skel_tune first looks
       for the plan file; if it holds the same configuration and the same
       machine fingerprint it is loaded and nothing is measured; otherwise
       (or with SKEL_RETUNE=1) the tuner runs and writes the file.

   PLAN FILES
       <exe dir>/<exe name>.skelplans/<id>.plan, or $SKEL_PLAN_DIR/<id>.plan,
       or desc.dir/<id>.plan, where <id> is the id with characters other
       than A-Z a-z 0-9 . _ - replaced by _; an id that had characters
       replaced or is over 100 characters long is named by its first 83
       characters, "-" and 16 hex digits of a hash of the whole id, so
       every id has a file of its own ("a/b" and "a_b" too).  An id has at
       most 1023 characters; the file stores it whole, and a file whose
       configuration (id included) differs is re-tuned, never used.
       Written to a new temporary file beside it, created exclusively
       under an unpredictable name (never through an existing file or a
       link planted in the folder), then renamed: readers see the old file
       or the new one, and threads or processes saving the same id never
       mix their bytes.  Read only when it is a regular file: a FIFO,
       device or directory at the path is refused at once (SKEL_EIO, "not
       a regular file"), never waited on.
       tools/skel_plan prints one as text, JSON or SVG.  Little-endian:
           "SKELPLAN" u32 version (4; 1, 2 and 3 are read too) u32 flags (0) u64 payload bytes
           payload:
             configuration: str id, instance, function, reduce function;
               u32 dims; per dim u64 lower, upper; i32 kind, in type, out
               type, inputs, index mode, overlap dR, dC, weighted, uniform,
               direction, edge, exclusive, max depth, min depth, max nodes,
               reps, r,
               in_loc[4], out_to_host, split, cost model, splits (version
               4); f64 budget, timeout, tolerance, prune; u64 hash of an
               explicit variant list and desc.backends (0: neither);
               (version 3 and later:) i32 outputs, views, row operands
               (MapPairs), overlap dD (versions 1 and 2 load; they hold -1
               there, so skel_tune tunes their instance again)
             str fingerprint: "cpu: <model name>\ncores: N\nbackend <name>:
               <info>\n" for each backend (GPU names, drivers)
             u32 variants; each: str backend, i32 threads, block, grid,
               devices, pruned-after-depth (-1: kept), tiling (version 3;
               versions 1 and 2 load with tiling 0), (version 4:) i32
               device, u32 parts, each: str backend, i32 device, threads,
               block, grid, f64 share (a split; shares sum to 1; a part's
               tiling is automatic)
             u32 points; each: u64 x[dims], i32 winner, f64 R, F per variant
               (R < 0: -1 not measured, -2 timed out, -3 failed)
             u32 nodes (breadth-first; children consecutive, after their
               parent); each: u64 lo, hi per dim, i32 first child (-1: leaf),
               i32 corner point per 2^dims, i32 winner, depth, closed
             f64 tuning seconds, u32 measurements
           u64 FNV-1a 64 of every byte before it
       str = u32 length + bytes.  Version 2 (0.3.0) has version 1's bytes;
       it says that 2-D open leaves interpolate (TUNER: Lookup) and that a
       2-D plan may belong to a Map, Scan or MapReduce, which a reader of
       version 1 would use wrongly or not at all: it refuses the file.
       Version 3 (0.3.0, the expressive forms and the 2-D convolution)
       adds the instance's form to the configuration and each variant's
       tiling (above).  (Version 3 is unreleased: files written by
       9e86a22..7887bba, before the tiling, are refused as malformed; tune
       again.)  Version 4 (0.3.0, splits) adds a variant's device and a
       split's parts and shares, and the tuner's split count
       (desc.splits): a reader of version 3 would run a split variant as
       one place, so it refuses the file.  Files of versions 1 to 3 are
       read as they are (their variants run on device 0, none is a
       split).  A file that is short, long, of
       another magic or a newer version, has flags other than 0, fails the
       checksum, or breaks any structural rule (indices, boxes, children
       halving their parent) is reported (skel_last_error, the log) and
       never used.

   CONFIGURATION MACROS (define before the implementation include)
       SKEL_MALLOC(n), SKEL_REALLOC(p, n), SKEL_FREE(p), SKEL_ASSERT(c),
       SKEL_NO_OPENMP (leave the omp backend out even with -fopenmp),
       SKEL_MAX_THREADS (1024: the most threads a variant may ask for)
       GPU kernel geometry (both GPU backends; the defaults were measured
       on an H100, see bench/results/gpu.md):
       SKEL_GPU_MAP_ITEMS    elements per Map work-item, loaded before storing (2)
       SKEL_GPU_REDUCE_TILE  bytes a work-group reads per reduce step, over all
                             inputs (16384)
       SKEL_GPU_REDUCE_WIDE_TILE  the same for a MapReduce whose accumulator
                             is wider than its inputs or a struct: bytes of
                             inputs (32768; at most 16 elements a work-item,
                             fewer where local memory is short)
       SKEL_GPU_REDUCE_PIECES  a MapReduce whose accumulator is wider and
                             whose operator is declared commutative loads
                             16-byte pieces of its inputs (1; 0: element
                             by element)
       SKEL_GPU_REDUCE_PITEMS  at most this many pieces of every input in
                             flight a step (8)
       SKEL_GPU_REDUCE_WIDE_GROUPS  groups a compute unit such a MapReduce
                             launches where the backend cannot ask how many
                             it holds (OpenCL: 2, up to 8 as chunks pass 64
                             tiles); CUDA launches what the SMs hold of the
                             compiled kernel, one wave
       SKEL_GPU_SCAN_TILE    bytes of one scan tile (40960)
       SKEL_GPU_OV2_REGS     CUDA: registers a 2D MapOverlap work-item may
                             use, so more groups fit an SM (__launch_bounds__
                             with the groups of SKEL_BLOCK work-items that
                             fit 64K registers; 0: the compiler picks) (48:
                             5 groups of 256 instead of 4 at 56 registers;
                             2^28 floats on an H100 at 88% of the copy rate
                             instead of 83%; 40 registers spilled: 59%.  The
                             same cap on the scan cost 8%.  NVIDIA's OpenCL
                             with -cl-nv-maxrregcount=48 took twice as long
                             as without, so OpenCL gets no cap)
       SKEL_GPU_SHUFFLE      CUDA: warp shuffles in group reductions/scans (1)
       SKEL_GPU_OV2_W        columns of a 2D MapOverlap tile (128: with its
                             rows loaded in 16-byte pieces, a 5x5's halo
                             is 4 floats a side, 6% of a 136-float tile
                             row; 2^24-2^28 floats 2-3% faster than 64)
       SKEL_GPU_OV2_ITEMS    outputs per work-item (16)
       SKEL_GPU_OV3_ZRUN     planes a 3D MapOverlap group marches through
                             (64; fewer where that leaves fewer than 8
                             groups a compute unit)
       SKEL_GPU_OV3_VEC      CUDA: a 3D MapOverlap of 4- or 8-byte elements
                             whose rows hold whole 16-byte pieces takes its
                             16-byte kernel: a piece's columns of
                             SKEL_GPU_OV3_ITEMS planes a work-item, no
                             march (1; 0: the marching kernel; OpenCL
                             always marches)
       SKEL_GPU_OV3_ITEMS    outputs a 3D MapOverlap work-item computes a
                             step, all their loads in flight at once (4;
                             halved while the window's planes would take
                             more than 96 registers)
       SKEL_GPU_OV2_DIRECT   CUDA: interior tiles of 4-byte elements with
                             small windows (5x5 and less) read straight
                             from global memory into registers, 4 x 4
                             outputs a work-item, no local memory (1)

   VERSION 0.2.0 (SKEL_VERSION)
       Change log, newest first; one line per change under the unreleased
       version.
       unreleased (0.3.0)
              - Pool: the call-site rule guesses a call's time on its
                caller alone from the median chunk time of every thread's
                records (one parallel call in 8 records them), not from
                the caller's own chunks: a Julia set's first rows escape
                at once, and at 112 x 21 on the H100 machine pool/16 ran
                alone at 130 us where in parallel it took 23.
              - A plan's split runs at shares balanced for the call's
                context point by the times the plan predicts there for its
                parts' variants (were: the shares of the point the tuner
                made it for; a moment at 870 x 3881 on the H100 machine
                ran at a smaller corner's 0.56 / 0.44, 544 us, where a
                split at 0.21 / 0.79 took 255; balanced: 293, CUDA 278).
              - skel_tune measures the machine's steal time while it tunes
                (skel_plan_stats.steal, the text dump) and warns over 1%:
                plans tuned while other guests took 4-5% of the CPUs
                scored 92.6-93.0% in the 2-D evaluation, 96.8% at 0.6%.
              - Pool: a calling thread whose chunks are done spins for the
                helpers' until 1.5 times its call site's usual time has
                passed, not only twice its own chunks' time: where its
                chunks were light it slept and paid a wake-up (H100 host,
                bench_pool_bursts, Julia sets of 2-5 Ki pixels: pool/16
                medians 26-61 us, now 20-53; bench_pool_skew 512: 29-32,
                now 22).
              - CPU MapOverlap along columns: where a part would get only a
                few of a tile's column blocks, tiles are made smaller (16
                rows at least) and a part takes whole tiles: parts of a
                matrix of 33-47 columns and 256 rows shared its rows' cache
                lines, and pool/2 took 1.7 times seq's time.
              - CPU Reduce along columns: wide matrices split by columns
                (parts fold strips of columns over every row into the
                result), tall ones by rows with at most two partial rows a
                thread, folded in parallel (were: always by rows, the
                partial rows folded column by column on one thread).
                bench_columns, 2-vCPU VM, int32 column sums seq / pool/2,
                us: 16 x 65536 330 / 330, now 146 / 50; 1024 x 1024 143 /
                97, now 139 / 50; 256 x 4096 155 / 83, now 143 / 52.
              - CPU MapOverlap along columns: parts take tiles of rows with
                all their column blocks (were column blocks down all rows,
                so parts shared every row's lines), tiles of equal row
                counts.  bench_columns, 2-vCPU VM, column pass seq /
                pool/2, 16384 x 64: 1.25-1.27 / 0.86-0.87 ms, now 0.82-0.89
                / 0.43-0.45; 32768 x 32 pool/2 0.62-0.64 to 0.39; 264 x 667
                pool/2 86 us to 62.
              - CPU MapOverlap along columns: a part's scratch holds a tile's
                rows and halo, not whole columns (cyclic edges excepted),
                and the pool's caller-alone rule keys a site by the call's
                shape as well as its items (shapes of equal tile counts
                shared one site's times).  bench_columns, 2-vCPU VM, 65536
                x 16, column pass seq / pool/2: 0.87-0.98 / 0.88-0.93 ms,
                now 0.70-0.74 / 0.36.
              - Tuner: a CPU variant of several threads starts its samples
                with its pool's workers awake (an untimed call after any
                other variant where calls are cheap, the sleepers woken and
                waited for, at most 200 us): timed as they arrived, pool/16
                measured between its loop speed and seq's, and the plans
                chose pool widths by what ran before.  bench_eval2d on the
                H100 machine, with its 0.3 ms warm-up per sample: 98.2% / 0
                and 97.3% / 3 of 120 below 80% in two fresh runs (seven
                runs before: 95.4-98.0%, 2-10).
              - CPU backends: rows, planes and blocks of columns are chunked
                by their elements, at most one chunk an item (counted in
                items, the column pass of a MapOverlap on a matrix of under
                512 columns was one chunk, and 56 rows of a row Scan gave 16
                threads 3 chunks); the column pass works in tiles of 16
                columns by 256 rows (a matrix of 16 columns splits too), its
                transposed columns no longer start a multiple of 4 KiB apart
                (they shared L1 sets from 1024 rows of floats on), and its
                transposition has a loop per element size.  bench_columns,
                2-vCPU VM, 2^20 floats, the column pass before / after:
                4096 x 256 4.0-4.2 / 1.4 ms on one thread, 4.0 / 0.7-0.9 on
                pool/2; 65536 x 16 4.1-4.3 / 0.95 and 4.3-4.4 / 0.45-0.97.
              - 2-D plans: in an open leaf a split stands in for its family
                (the splits over the same places made at the other
                corners), and the one made for the nearest-weighing corner
                answers; dmda looks ahead 64 calls by default (was 16),
                each node's predicted work asked once (bench_tasks_chain,
                host + PoCL: 64 costs 0.3 us a call over 16, was 1.3-1.9).
              - MapPairs splits by rows of its result, MapPairsReduce by its
                outputs (rows, or columns with SKEL_COLS), MapOverlap3D by
                planes with dD halo planes; they ran whole on one place.
                Every skeleton splits now (in-place calls still run whole).
              - Pool: a worker looks at the task queue's count before its
                mutex (after every call it helped with, 15 workers queued
                on the mutex); a worker does not enter a slot again until
                the next publication; helpers enter and leave with one
                fetch-add.  H100 host, pool/16 against hand OpenMP at 2^16:
                0.59-0.71 of its speed, was 0.37-0.54 (2^22: 0.96-1.96).
                Chunks of at least 4096 items, were 1024 (same host, 2^16:
                medians 0.78-0.89 of OpenMP's speed, 0.63-0.68 with 1024).
              - A GPU call's launch plan is no longer cleared whole (29 KB:
                0.5 us of a CUDA call's 4.1 on the H100 host): Pearson at
                2^24, one call, 0.85 of the copy (median of 9), was 0.83.
              - Models learned before the models file is read (.nofile, then
                a configuration with the file) are kept, the file's others
                added; they were dropped (and leaked).
              - MapOverlap3D on CUDA: rows of whole 16-byte pieces (4- and
                8-byte elements) take a kernel that computes a piece's
                columns of 4 planes a work-item from one window loaded in
                16-byte pieces, no march (H100, 7 points at 512^3 floats:
                0.80-0.81 of the copy, was 0.71-0.72); SKEL_GPU_OV3_VEC.
                A commutative wide MapReduce loads 16-byte pieces of its
                inputs (Pearson at 2^24 / 2^26: 0.84-0.85 / 0.98-0.99 of
                the copy on CUDA, were 0.74-0.76 / 0.91-0.92);
                SKEL_GPU_REDUCE_PIECES, SKEL_GPU_REDUCE_PITEMS.
              - dmda defers placing a call ready at submission until the
                calls that follow it are submitted (skel_sched_desc.defer_us,
                skel_sched_stats.deferred); a place's load counts the copies
                of the calls queued there (a GPU worker makes them itself).
                Not yet measured on the GPU machine.
              - CPU reductions: the lanes' loads start at a 64-byte
                boundary where the call reads at most 32 KiB; the
                shorthands (skel_map1/2, skel_reduce, skel_mapreduce1/2)
                take the fast path without building a skel_call (2-vCPU
                VM: seq sum / dot at 2^10 0.96-1.04 / 1.00-1.03 of an
                `omp simd reduction` loop, were 0.70-0.76).
              - A wide MapReduce (a struct accumulator, or one wider than its
                elements) whose operator is declared commutative folds in
                any order on the GPUs: strided straight from memory, one
                group reduction at the end (H100, Pearson at 2^26-2^28:
                NVIDIA's OpenCL 0.87-0.97 of the copy, was 0.73-0.83).  On
                the CPU, commutative accumulators wider than 8 bytes keep
                the ordered tree (4 lanes of structs were 15% slower).
              - Split calls: the GPU part's time from two CUDA events (a host
                function in stream order fired after the host part, up to
                0.35 ms late, so refinement gave the CPU too much), no wait
                on a GPU place already done, the host part joined with a
                short spin; SKEL_TRACE records a split's steps (H100, Map of
                2^22 floats: split 0.03-0.09 ms over the GPU alone with data
                on the GPU, was 0.09-0.20; host data, GPU/CPU 1/4..4: split
                1.20-1.65 x T*, was 1.20-1.81).
              - Tasks: a user task without containers is queued and taken
                without the scheduler's mutex (a lock-free ring) and holds
                it only to be recorded, after its waiters are released; a
                worker that takes the next task of a chain wakes nobody;
                skel_wait_all waits for the devices while tasks finish
                (H100 host, 15 CPU workers, medians of 3 runs: independent
                empty tasks 1.31 us, were 2.83; a chain 1.39, was 2.34;
                one waited for 1.82, was 1.81; every run under 2 us).
              - Pool on a shared machine: a worker that finds itself on its
                caller's CPU moves off it, and an idle worker's spin counts
                only time it ran (2-vCPU VM, a process spinning on one CPU:
                pool/2 medians 0.38-1.15 of seq's, were 0.73-1.19).  On
                Linux the implementation asks for _GNU_SOURCE (affinity).
              - Tasks: an empty task without a futex sleep or wake-up: the
                scheduler's mutex is taken after a short spin, idle workers
                try it only when a task is queued and it is free, waiters
                spin on finishes before sleeping, task nodes are reused
                (H100 host, 1 / 15 CPU workers: independent empty tasks
                1.26 / 2.23 us, were 3.51 / 7.45; a chain 1.55 / 1.91, was
                2.58 / 3.00; one waited for 1.87 / 2.20, was 2.14 / 4.40).
              - A call's fixed cost cut 4x: a host Map / Reduce / MapReduce
                run as one chunk skips the full dispatch (types resolved
                once per instance, no map lock or update), and the lanes'
                pairwise fold stays in registers.  seq float sum and dot
                at 2^10: 0.8-1.4 of an `omp simd` loop (was 0.3-0.5).
              - A 2-D plan remembers its answers per call shape: its pick
                interpolates a leaf's candidates and cost up to 0.75 us a
                call on the H100 machine (26 variants), a one-range plan
                0.07 us; a shape called again now pays a word's load.
              - The default's parallel threshold scales with the pool: 8192
                elements a thread, at least 32768 (measured: a 16-thread
                pool call costs 4-5 us; seq won to 2^16-2^17 on the H100).
              - The tuner's samples keep their operands' device buffers
                (marked stale, as a loop that writes with skel_write):
                releasing them undid SKEL_CUDA_PINNED's page-locking every
                sample, and plans missed the GPU (H100, 4M floats: pool or
                a split at 1.1-2.4 x the best, now cuda at 0.8-0.9).
              - CPU 2-D convolution at the best hand-written loop: interior
                blocks of whole rows, edge blocks gathered after their
                rows' interior, no remainder pass after the last strip,
                chunks of row pairs by elements (2048^2 floats on 2 AVX-512
                cores: 0.98-1.06 of the hand loop from 7x7 to 31x31, was
                0.88-1.00; H100 host, 16 threads: 1.09-1.37, was 0.77-1.03).
              - A GPU MapReduce with a wider or struct accumulator launches
                one wave of groups: on CUDA as many as the SMs hold of the
                compiled kernel, on OpenCL SKEL_GPU_REDUCE_WIDE_GROUPS a
                compute unit (2, up to 8 for long inputs); Pearson's five
                sums on an H100: 0.77 / 0.89 / 0.95 of the copy bandwidth
                at 2^24 / 2^26 / 2^28 floats, was 0.54 / 0.79 / 0.91.
              - Fix: CUDA programs for blocks over 256 threads are compiled
                with a register cap (64K / block a thread): a kernel that
                needed more (an int64 MapReduce over a 2-D index at block
                1024) failed every launch with OUT_OF_RESOURCES.
              - GPU kernels of the expressive forms: a MapReduce with a wider
                or struct accumulator reads contiguous tiles of its inputs,
                the next tile's loads in flight while one is folded, and
                shuffles a struct word by word on CUDA (Pearson's five sums
                on an H100 at 2^28: 0.90 of the copy bandwidth, was 0.48);
                MapOverlap3D marches each work-item through the planes
                with its window in registers (7 points at 512^3: 0.71 of the
                copy, was 0.27); SKEL_GPU_REDUCE_WIDE_TILE,
                SKEL_GPU_OV3_ZRUN, SKEL_GPU_OV3_ITEMS.
              - dmda looks ahead (skel_sched_desc.lookahead): a place's
                finish time counts the submitted calls that follow and the
                download of a chain's last results; the CPU count is read
                once (it was a /sys read at every call placed).
              - 2-D convolution at the compute limit (thesis ch. 5): a
                register-tiled GPU kernel whose tiling factors come from
                the device's limits through the thesis' two metrics
                (skel_variant.tiling, carried by plan format 3); CPU 2-D
                MapOverlap (every form) in cache blocks, SKEL_CONV2D's
                strips of outputs in vector registers.  Then: the
                default tiling breaks a tie by local-memory traffic (2 x 8
                at 9x9-13x13: 11x11 at 33.7 TFLOP/s on an H100); the CPU
                strips keep loaded vectors in registers (1.2-1.5x), edge
                blocks gathered once per slab of 8 rows.
              - Tuner in 2-D and on shared machines: Map, Scan and MapReduce
                tune on rows x cols; interleaved sample rounds, lower
                medians, F shared per data-moving backend; the budget buys
                a tree (cheaper splits first, refinement last); 2-D open
                leaves interpolate; ties on the CPU go to the pool variant
                with more threads; desc.backends, the result's location
                follows the inputs, wall_seconds; plan format 2;
                bench/eval2d.c (bench/results/tuner2d.md).
              - Streams (STREAMS): stages, Pipeline, Comp and Farm nodes
                with CPU and GPU workers, bounded queues, on-demand and
                ordered farms, measured service times, utilisation and
                queue occupancy; threads from the worker pool.
              - The worker pool and the pool backend (the default parallel
                backend; omp stays): one set of pthreads skel owns, chunks
                claimed as they come, the calling thread working too,
                asynchronous tasks; SKEL_THREADS, SKEL_PIN.  Operators
                declared with SKEL_FUNC_COMMUTATIVE reduce in interleaved
                vector lanes.
              - Split calls: one call over the CPU and the GPUs at once
                (variant "split" with parts and shares; every skeleton and
                the expressive forms: several outputs, views, indices,
                narrow, struct and wider-accumulator types; MapPairs,
                MapPairsReduce, MapOverlap3D and in-place stencils run
                whole on one place, the fallback rule), parts kept where
                they were computed, halos only between calls, shares given
                in the plan (plan file format 4 carries a variant's device
                and a split's parts) and refined by repeated calls;
                kernels compute ranges of whole buffers; the CUDA
                .devices split is this mechanism now.
              - Places and per-range coherence: a container's map records
                which index ranges each memory space holds; reads copy only
                the missing ranges, writes invalidate only the written ones;
                skel_traffic_get counts bytes and copies per link.
              - Places (the host, each GPU) and a per-thread place binding
                for workers; SKEL_TRACE=file records a timeline (calls,
                tasks, copies per worker and place).
              - Tasks: skel_submit, user tasks (skel_task_submit), the Farm;
                dependencies from container accesses; failures passed on;
                policies dmda (plans, history and transfer models), eager,
                ws, static; skel.models; SKEL_EDEPEND.
              - Expressive forms: int8/uint8/int16/uint16 and SKEL_STRUCT
                element types (arrays of structs, layout checked on the
                GPU), accumulators wider than the elements (SKEL_REDUCE_EX)
                and structs, up to 4 outputs per Map / 1-D MapOverlap,
                views (read-only whole containers, SKEL_AT), the index in
                every skeleton, MapPairs / MapPairsReduce, 3-D containers
                and MapOverlap3D; plan file format 3 (the instance's form).
              - bench/: bench/README.md (headline tables), bench/results/
                (the current tables per area), bench/plots/; the dated
                session logs left to git history.
              - Plan and cache files: temporary files created exclusively
                (no planted link is followed, no two writers share one),
                non-regular files refused without blocking, a cache entry
                that crashed its loader rebuilt, one file per tuning id
                (hashed names), clearer errors (ENOMEM, folders, flags).
              - Limits: variants' threads at most SKEL_MAX_THREADS, OpenMP
                teams kept only up to the processor count; empty calls
                return at once; 2-D plan sizes saturate; a failed call
                (out of memory) changes nothing on every skeleton and
                backend; overlapping wrapped buffers refused; index-only
                MapReduce over call.rows x call.cols; SKEL_MAP_INDEX and
                SKEL_MAPREDUCE_INDEX name no input type.
              - make install / uninstall (PREFIX, DESTDIR): the headers,
                skel_plan and skel.pc; CI builds an example against them.
              - SKEL_UNIFORM(int) and every one-token C scalar as a uniform;
                a uniform struct without SKEL_STRUCT, or an element type
                of another spelling, fails to compile with a message
                that says what to write.
              - SKEL_EUNSUPPORTED says whether the skeleton or the backend
                lacks the feature.
              - Threads: any number may call skel at once (THREADS); a
                container's coherence state is locked, an instance's plan
                swapped atomically, OpenCL statistics counted under a
                lock; skel_wait(container) and skel_wait_all(); make
                test-tsan.
              - GPU backends probed only when something needs a GPU (a
                first seq call no longer opens libcuda, NVRTC, OpenCL); bad
                environment values warned about by name; SKEL_CUDA_CHECK
                refuses unknown architectures; an absent backend says why.
       0.2.0  2026-11-24
              - The tuner: dispatch trees over context points (seed 000),
                T = R*r + F ranking, pruning, second looks, versioned plan
                files with a machine fingerprint, bulk groups, skel_plan
                tool (text, JSON, SVG).
              - CUDA backend (driver API + NVRTC loaded at run time, kernel
                disk cache, memory pools, calls split over several GPUs,
                cuda-check compile mode) and OpenCL backend (PoCL or a GPU,
                program binary cache), one set of portable kernel
                templates for both.
              - Reduce/MapReduce into call.out (the value stays on the
                device), SKEL_FALLBACK, SKEL_OMP_THRESHOLD.
       0.1.0  2026-11-22
              - Containers with coherence state, every data-parallel
                skeleton on seq and omp, manual execution plans.
*/
#ifndef SKEL_H
#define SKEL_H

/* The implementation uses POSIX (clock_gettime, dlopen, pthreads); ask for
   it when this is the first header of the implementation file. */
#if defined(SKEL_IMPLEMENTATION) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#if defined(__linux__)
#define _GNU_SOURCE             /* POSIX, and sched_getcpu / affinity for the pool */
#else
#define _POSIX_C_SOURCE 200809L
#endif
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKEL_VERSION "0.2.0"

/* ---- status codes ----------------------------------------------------- */
enum {
    SKEL_OK = 0,
    SKEL_EINVAL = -1,       /* a NULL or out-of-range argument */
    SKEL_ESIZE = -2,        /* operand sizes do not match */
    SKEL_ETYPE = -3,        /* element type does not match the instance */
    SKEL_ESHAPE = -4,       /* a matrix where a vector is needed, or the reverse */
    SKEL_ENOMEM = -5,       /* out of host or device memory */
    SKEL_EBACKEND = -6,     /* unknown or unavailable backend */
    SKEL_EEMPTY = -7,       /* reduction of an empty container */
    SKEL_ECOMPILE = -8,     /* a generated kernel did not compile */
    SKEL_EDEVICE = -9,      /* a GPU driver call failed */
    SKEL_EIO = -10,         /* a file could not be read or written */
    SKEL_EFORMAT = -11,     /* a file is truncated, corrupted or of another version */
    SKEL_EUNSUPPORTED = -12, /* not supported: a limit of the skeleton on every backend (a column Scan),
                               or of one backend or device (skel_last_error says which) */
    SKEL_EDEPEND = -13      /* not run: a call or task it depends on failed */
};
const char *skel_error_string(int status);  /* the code's name and meaning */
const char *skel_last_error(void);          /* detail of this thread's last failure */

/* ---- logging ---------------------------------------------------------- */
enum { SKEL_LOG_ERROR = 0, SKEL_LOG_WARN = 1, SKEL_LOG_INFO = 2, SKEL_LOG_DEBUG = 3 };
typedef void (*skel_log_fn)(int level, const char *message, void *user);
/* Replace the log sink (NULL restores the default: stderr when SKEL_VERBOSE is set). */
void skel_set_log(skel_log_fn fn, void *user);

/* ---- element types ---------------------------------------------------- */
typedef enum skel_type {
    SKEL_NOTYPE = 0, SKEL_FLOAT, SKEL_DOUBLE, SKEL_INT32, SKEL_UINT32,
    SKEL_INT64, SKEL_UINT64, SKEL_INT8, SKEL_UINT8, SKEL_INT16, SKEL_UINT16,
    SKEL_TYPE_COUNT         /* struct types (SKEL_TYPE of a SKEL_STRUCT) are numbered from here */
} skel_type;
typedef struct skel_type_info {
    const char *name;       /* "float", "int32", ..., a struct's name */
    const char *c_name;     /* spelling in C and in generated kernels: "int32_t", a struct's name */
    size_t size;            /* bytes */
    int is_float, is_signed;
    size_t align;           /* bytes */
    int is_struct;          /* declared with SKEL_STRUCT */
    const char *src;        /* a struct's definition, as the GPU kernels get it ("" otherwise) */
} skel_type_info;
/* The type table entry for t, or NULL for an invalid t. */
const skel_type_info *skel_type_get(skel_type t);
/* The id of a described type: a built-in one's enum value, or a struct's
   (registered on first use; at most 64 struct types; SKEL_NOTYPE when the
   table is full).  SKEL_TYPE(T) gives it for any element type T. */
skel_type skel_type_of(const skel_type_info *ti);
#define SKEL_TYPE(T) skel_type_of(_SKEL_TINFO(T)())
typedef int64_t skel_index;  /* element index passed to index-aware functions */

/* ---- containers ------------------------------------------------------- */
/* One opaque container type; skel_vec, skel_mat and skel_ten name its
   shapes (n; rows x cols; depth x rows x cols).  Data is row-major and
   contiguous (planes of rows).  A container remembers which memory spaces
   (host, each GPU) hold its newest data and copies lazily. */
typedef struct skel_array skel_vec;
typedef struct skel_array skel_mat;
typedef struct skel_array skel_ten;

int skel_vec_new(skel_vec **v, skel_type t, size_t n);                          /* zero-filled */
int skel_vec_new_fill(skel_vec **v, skel_type t, size_t n, const void *value);  /* every element = *value */
int skel_vec_new_copy(skel_vec **v, skel_type t, size_t n, const void *src);    /* copies n elements */
/* Wrap a user buffer without copying.  The buffer must outlive the
   container; after a GPU write it is stale until skel_read/skel_flush. */
int skel_vec_wrap(skel_vec **v, skel_type t, size_t n, void *buffer);
int skel_mat_new(skel_mat **m, skel_type t, size_t rows, size_t cols);
int skel_mat_new_fill(skel_mat **m, skel_type t, size_t rows, size_t cols, const void *value);
int skel_mat_new_copy(skel_mat **m, skel_type t, size_t rows, size_t cols, const void *src);
int skel_mat_wrap(skel_mat **m, skel_type t, size_t rows, size_t cols, void *buffer);
int skel_ten_new(skel_ten **t, skel_type type, size_t depth, size_t rows, size_t cols);
int skel_ten_new_copy(skel_ten **t, skel_type type, size_t depth, size_t rows, size_t cols, const void *src);
int skel_ten_wrap(skel_ten **t, skel_type type, size_t depth, size_t rows, size_t cols, void *buffer);
void skel_free(skel_vec *c);              /* frees host and device copies; NULL is fine */

size_t skel_size(const skel_vec *c);      /* elements (depth * rows * cols) */
size_t skel_depth(const skel_vec *c);     /* 1 for a vector or matrix */
size_t skel_rows(const skel_vec *c);      /* 1 for a vector; rows of one plane of a 3-D container */
size_t skel_cols(const skel_vec *c);      /* n for a vector */
skel_type skel_elem_type(const skel_vec *c);
int skel_is_matrix(const skel_vec *c);    /* 1 for a matrix (2-D), 0 for a vector or a 3-D container */
int skel_dims(const skel_vec *c);         /* 1, 2 or 3 */
/* Host pointer to the newest data, for reading (copies from a device if
   needed).  NULL on failure (see skel_last_error). Valid until the next
   skeleton call that writes the container, or skel_free. */
const void *skel_read(skel_vec *c);
/* Host pointer for reading and writing: like skel_read, and marks the host
   copy as the only valid one (device copies are re-sent when next needed). */
void *skel_write(skel_vec *c);
/* Make the host copy valid and release device copies (the GPU backends
   keep released device memory for reuse: SKEL_CUDA_POOL_MB, SKEL_CL_POOL_MB). */
int skel_flush(skel_vec *c);
/* Wait until every skeleton call issued so far that writes c has finished
   (GPU calls return once their work is queued: see SEMANTICS); SKEL_OK, or
   the error a GPU reported while running them.  skel_wait_all: the same
   for every call issued so far, on every backend.  Neither copies data. */
int skel_wait(skel_vec *c);
int skel_wait_all(void);

/* ---- transfers between memory spaces ---------------------------------- */
/* Bytes and copies moved between memory spaces (0 = the host, then each
   GPU device: "cuda:0", "opencl:0", ...) by the coherence layer since the
   program started or the last skel_traffic_reset; [from][to]. */
#define SKEL_MAX_SPACES 16
typedef struct skel_traffic {
    int spaces;                                         /* memory spaces registered */
    const char *name[SKEL_MAX_SPACES];
    uint64_t bytes[SKEL_MAX_SPACES][SKEL_MAX_SPACES];
    uint64_t copies[SKEL_MAX_SPACES][SKEL_MAX_SPACES];
} skel_traffic;
void skel_traffic_get(skel_traffic *out);
void skel_traffic_reset(void);
uint64_t skel_traffic_total(const skel_traffic *t);    /* bytes over every link */

/* ---- skeleton calls --------------------------------------------------- */
typedef enum skel_edge { SKEL_EDGE_CONSTANT = 0, SKEL_EDGE_CYCLIC, SKEL_EDGE_DUPLICATE } skel_edge;
enum { SKEL_WHOLE = 0, SKEL_ROWS = 1, SKEL_COLS = 2, SKEL_ROWS_COLS = 3 };
#define SKEL_MAX_IN 4
#define SKEL_MAX_OUT 4
#define SKEL_MAX_VIEWS 4

/* The operands of one call.  Zero fields take the documented default. */
typedef struct skel_call {
    skel_vec *in[SKEL_MAX_IN];  /* inputs in order (MapArray: in[0] = v, in[1] = v2 or matrix;
                                   MapPairs: the row operands, then the column operands) */
    skel_vec *out;              /* result container; a whole Reduce/MapReduce may write its value
                                   into a 1-element vector here instead of result: it stays where
                                   it is made (a GPU's memory), and the call does not wait for it */
    skel_vec *outs[SKEL_MAX_OUT];   /* an instance with several outputs: all of them, in order
                                   (out may be left NULL: it means outs[0]) */
    skel_vec *views[SKEL_MAX_VIEWS];  /* read-only whole containers the function indexes freely */
    void *result;               /* Reduce/MapReduce scalar result (one element of the result type) */
    const void *uniform;        /* uniform argument, required iff the instance declares one */
    int direction;              /* Reduce: SKEL_WHOLE (scalar), SKEL_ROWS or SKEL_COLS (vector result).
                                   matrix MapOverlap: SKEL_ROWS (default), SKEL_COLS, SKEL_ROWS_COLS */
    skel_edge edge;             /* MapOverlap edge policy (default SKEL_EDGE_CONSTANT) */
    const void *edge_value;     /* SKEL_EDGE_CONSTANT value (default 0) */
    int exclusive;              /* Scan: 0 inclusive, 1 exclusive (init required) */
    const void *init;           /* Scan exclusive: initial value */
    const void *weights;        /* weighted MapOverlap2D: (2dR+1) x (2dC+1) elements, row-major */
    int group;                  /* bulk selection group (tuner), 0 = none */
    size_t count;               /* MapReduce with no inputs (index only): reduce indices 0..count-1 */
    size_t rows, cols;          /* ... or over a rows x cols grid instead (needed for SKEL_INDEX2D:
                                   (row, col) = (i / cols, i % cols)) */
} skel_call;

typedef struct skel_skeleton skel_skeleton;
/* Run one skeleton call.  On failure no container is changed. */
int skel_run(skel_skeleton *sk, const skel_call *call);
/* Shorthands for the common calls. */
int skel_map1(skel_skeleton *sk, skel_vec *out, skel_vec *a);
int skel_map2(skel_skeleton *sk, skel_vec *out, skel_vec *a, skel_vec *b);
int skel_reduce(skel_skeleton *sk, skel_vec *in, void *result);
int skel_mapreduce1(skel_skeleton *sk, skel_vec *a, void *result);
int skel_mapreduce2(skel_skeleton *sk, skel_vec *a, skel_vec *b, void *result);
int skel_scan(skel_skeleton *sk, skel_vec *out, skel_vec *in);
int skel_overlap(skel_skeleton *sk, skel_vec *out, skel_vec *in, skel_edge edge, const void *edge_value);

/* ---- variants and execution plans -------------------------------------- */
/* The most threads a variant (or SKEL_OMP_THREADS) may ask for: more is
   refused with SKEL_EINVAL (a plan file: rejected; the variable: ignored
   with a warning), not left to the OpenMP runtime, which crashed at 100000. */
#ifndef SKEL_MAX_THREADS
#define SKEL_MAX_THREADS 1024
#endif
/* One part of a split variant (see SPLIT CALLS at the top): a place (a
   backend and, for a GPU backend, one of its devices), the part's share of
   the call and the backend's parameters for it. */
#define SKEL_MAX_PARTS 8
typedef struct skel_part {
    const char *backend;        /* "seq", "omp", "pool", "cuda", "opencl"; NULL ends the list */
    int device;                 /* GPU backends: which of its devices (0: the first) */
    double share;               /* its share of the call's elements or rows (shares are normalised) */
    int threads, block, grid;   /* the backend's parameters for this part (0: its defaults) */
} skel_part;

/* A variant is a backend plus its parameters.  Zero parameters take the
   backend's default. */
typedef struct skel_variant {
    const char *backend;    /* "seq", "omp", "pool", "cuda", "opencl", or "split" */
    int threads;            /* omp, pool: thread count (0: the backend's default) */
    int block, grid;        /* GPU: threads per block, blocks */
    int devices;            /* GPU: split the call into this many equal parts, one per device in
                               turn (two on one device run as logical partitions; 0: 1) */
    int tiling;             /* GPU, SKEL_CONV2D: its register tiling (SKEL_TILING_*, or >= 4:
                               that many outputs a work-item along a row) */
    int device;             /* GPU: the device the call runs on (0: the first) */
    skel_part parts[SKEL_MAX_PARTS];    /* "split": its parts, in index order (their tiling: automatic) */
} skel_variant;
/* How a GPU SKEL_CONV2D chooses its tiling factor (thesis ch. 5; the
   formula is at _skel_ov2_tiling in the implementation, SKEL_VERBOSE logs
   the candidates and the choice). */
enum { SKEL_TILING_AUTO = 0,        /* groups x tiling (ties: local-memory traffic) for windows over 7x7,
                                       else the shared-memory tile */
       SKEL_TILING_OCCUPANCY = 1,   /* Phi_occupancy: occupancy first, then the most tiling */
       SKEL_TILING_MAX = 2,         /* Phi_tiling: the most tiling that fits */
       SKEL_TILING_SHARED = 3 };    /* no register tiling: the shared-memory tile kernel */

/* An execution plan maps a context point (the reduced size of a call: its
   element count for range plans) to a variant (thesis Fig. 4.3). */
typedef struct skel_plan skel_plan;
int skel_plan_new(skel_plan **p);
void skel_plan_free(skel_plan *p);
/* Sizes lo..hi (inclusive) run on variant v; later ranges win on overlap. */
int skel_plan_add(skel_plan *p, size_t lo, size_t hi, const skel_variant *v);
/* The variant the plan chooses for a call of n elements; SKEL_EINVAL if no range covers n. */
int skel_plan_lookup(const skel_plan *p, size_t n, skel_variant *out);
/* Attach a plan to an instance (NULL detaches).  The instance does not own it. */
int skel_set_plan(skel_skeleton *sk, skel_plan *p);
/* The variant the next call of sk with these operands would run. */
int skel_choose(skel_skeleton *sk, const skel_call *call, skel_variant *out);
/* The variant a plan chooses at a context point of dims (1 or 2) values:
   a range plan looks at the product (saturated at SIZE_MAX), a tuned
   plan at the point itself. */
int skel_plan_lookup_point(const skel_plan *p, const size_t *point, int dims, skel_variant *out);

/* ---- the tuner (see TUNER at the top) ------------------------------------ */
enum { SKEL_ON_HOST = 0, SKEL_ON_DEVICE = 1 };              /* operand locality */
enum { SKEL_SPLIT_GEOMETRIC = 0, SKEL_SPLIT_LINEAR = 1 };   /* where a box splits */

/* What to tune.  Zero fields take the documented default. */
typedef struct skel_tune_desc {
    const char *id;             /* unique name of this tuning; names the plan file (required) */
    skel_skeleton *sk;          /* the instance; gets the plan (required unless cost is set) */
    int dims;                   /* context dimensions (default: the instance's reduction, see TUNER) */
    size_t lower[2], upper[2];  /* inclusive bounds per dimension, 1 <= lower <= upper (required) */
    const skel_call *call;      /* template of the synthetic calls: uniform, direction, edge, init,
                                   weights (its containers are ignored; NULL: all zero).  What its
                                   pointers point to must outlive skel_tune (it reads them in every call) */
    int max_depth;              /* deepest tree level (default 10) */
    int min_depth;              /* split down to this level even where corners agree
                                   (default 3 for 1-D, 2 for 2-D; negative: 0) */
    int max_nodes;              /* most tree nodes (default 2048) */
    double time_budget;         /* seconds for the whole tuning (default 60) */
    double timeout;             /* seconds one call may take before the variant is dropped there (default 2) */
    int reps;                   /* rounds per point: every variant once, then its close contenders
                                   (default 5; fewer where a point has taken its share of the budget) */
    int repeats;                /* expected calls r on the same data: ranks by R*r + F (default 1) */
    int in_loc[SKEL_MAX_IN];    /* where each input lives before the calls: SKEL_ON_HOST (default) or
                                   SKEL_ON_DEVICE (the first GPU's memory; host without a GPU) */
    int out_to_host;            /* 1: the result comes back to the host (paid once per r calls); -1: it
                                   stays where it is made; 0 (default): 1 if in_loc[0] is SKEL_ON_HOST */
    double tolerance;           /* corners agree when one variant is within this share of the best
                                   at each (default 0.03; negative: 0, the strict rule) */
    double prune;               /* drop variants never within this share of the best (default 0.25;
                                   negative: never prune) */
    int split;                  /* SKEL_SPLIT_GEOMETRIC (default) or SKEL_SPLIT_LINEAR */
    const skel_variant *variants; /* the variants to consider (default: every backend x its candidates) */
    int nvariants;
    const char *backends;       /* only the variants of these backends, comma-separated: "seq,omp"
                                   (default NULL: every backend; an unknown name is an error) */
    int splits;                 /* split candidates at each point (TUNER): 0 with the default
                                   variant table only, 1 also from desc.variants, -1 never */
    const char *dir;            /* plan folder (default: SKEL_PLAN_DIR, else <exe dir>/<exe name>.skelplans) */
    int nofile;                 /* 1: neither load nor save a plan file */
    int quiet;                  /* 1: no progress on stderr */
    /* Called with each synthetic call after its operands were made and filled
       with random values: may rewrite inputs (skel_write) or set call->uniform
       for this point (e.g. a length).  NULL: nothing. */
    void (*prepare)(skel_call *call, const size_t *point, void *user);
    /* A cost model in place of measurements (tests, simulation): returns the
       per-call time R of variant v at point (negative: v fails there) and
       sets *once to the once-per-data time F (preset to 0). */
    double (*cost)(const skel_variant *v, const size_t *point, double *once, void *user);
    void *user;                 /* passed to prepare and cost */
} skel_tune_desc;

/* Load the plan for desc->id if its file matches this configuration and
   machine, else tune and save it.  *plan (owned by the caller) is also set
   on desc->sk.  SKEL_RETUNE=1 ignores existing files. */
int skel_tune(const skel_tune_desc *desc, skel_plan **plan);

/* What a tuned plan knows about itself (zeros for a range plan). */
typedef struct skel_plan_stats {
    int tuned;                  /* 1: a dispatch tree (tuned or loaded) */
    int loaded;                 /* 1: read from a plan file rather than tuned now */
    int dims;
    size_t lower[2], upper[2];
    int variants, pruned;       /* variant table size; how many were pruned */
    int points, measurements;   /* context points measured; variant runs measured */
    int rechecks;               /* measurements taken again because a smaller point was over 1.5
                                   times slower than a larger one (tuned now only; 0 when loaded) */
    int nodes, closed_leaves, open_leaves, depth;
    double explored;            /* points / integer points in the box */
    double tune_seconds;        /* time spent measuring, what time_budget bounds (modelled time with a
                                   cost model); warm-up, kernel compiles and one-off first calls left out */
    double wall_seconds;        /* wall time of the skel_tune call that made or loaded the plan, all
                                   included (0 for a plan from skel_plan_load) */
    double steal;               /* the share of the machine's CPU time a hypervisor gave other guests
                                   while skel_tune measured (Linux's steal time; -1: not known, a
                                   loaded or a range plan): over 0.01, CPU variants' times may be off */
} skel_plan_stats;
int skel_plan_stats_get(const skel_plan *p, skel_plan_stats *out);

/* Plan files (format at the top).  Load never trusts a bad file: it
   returns SKEL_EFORMAT and says why in skel_last_error() (SKEL_EIO: missing,
   unreadable or not a regular file; SKEL_ENOMEM: out of memory). */
int skel_plan_save(const skel_plan *p, const char *path);
int skel_plan_load(skel_plan **p, const char *path);
/* The file skel_tune uses for id, with dir as in skel_tune_desc (NULL: default). */
int skel_plan_path(const char *id, const char *dir, char *buf, size_t size);
enum { SKEL_DUMP_TEXT = 0, SKEL_DUMP_JSON = 1, SKEL_DUMP_SVG = 2 };
/* Write a tuned plan as text, JSON or SVG to path (NULL: stdout). */
int skel_plan_dump(const skel_plan *p, int format, const char *path);
/* Forget the memory space chosen for bulk group `group` (0: every group). */
void skel_group_reset(int group);

/* ---- backends ----------------------------------------------------------- */
int skel_backend_count(void);                  /* registered backends */
const char *skel_backend_name(int index);      /* NULL past the end */
int skel_backend_available(const char *name);  /* 1 if present on this machine */

/* ---- streams: Pipeline, Farm, Comp (see STREAMS at the top) -------------- */
typedef struct skel_stream skel_stream;

/* A stage function's view of the worker running it: one per worker and
   stage, kept for the whole run. */
typedef struct skel_stream_worker {
    int node;                   /* the stage's node id */
    int worker;                 /* the worker's number (skel_stream_worker_stats_get) */
    int gpu;                    /* 1: a GPU worker (it runs the stage's gpu function) */
    const char *place;          /* "host", or the GPU place the worker owns */
    void *user;                 /* the stage's user pointer */
    void *local;                /* the worker's own pointer: NULL at the first item of a run, kept
                                   between items; the stage's fini gets it at the end of the run */
} skel_stream_worker;

/* A stage function: computes the output for one item and returns SKEL_OK,
   or fails with a negative status.  *out comes preset to item (a stage
   that works in place need not set it). */
typedef int (*skel_stage_fn)(skel_stream_worker *w, void *item, void **out);

typedef struct skel_stage_desc {
    const char *name;           /* in statistics and errors (default "stage<id>"; 31 characters kept) */
    skel_stage_fn cpu;          /* required: what CPU workers run */
    skel_stage_fn gpu;          /* what GPU workers run, their skeleton calls on their GPU
                                   (default: none; GPU workers then run cpu on the host) */
    void *user;                 /* passed in skel_stream_worker.user */
    void (*fini)(skel_stream_worker *w);  /* at the end of a run, for each worker whose local is set */
} skel_stage_desc;

typedef struct skel_farm_desc {
    int cpu_workers;            /* copies of the worker node that run on the CPU */
    int gpu_workers;            /* copies that each own a GPU place (both 0: one CPU worker per CPU) */
    const char *gpus;           /* the GPU places they own, in turn: "cuda", "opencl", "cuda:1", a
                                   comma-separated list (default: every GPU place) */
    int ordered;                /* 1: items leave in the order they came in */
} skel_farm_desc;

/* One run over a stream of items.  Zero fields take the documented default. */
typedef struct skel_stream_desc {
    int (*source)(void *user, void **item); /* required: 1 and *item: the next item; 0: no more;
                                               < 0: an error (the run fails with it) */
    int (*sink)(void *user, void *item);    /* each item out of the last node (default: none);
                                               SKEL_OK, or an error; the sink owns what it gets */
    void (*drop)(void *user, void *item);   /* each item that will not reach the sink because the
                                               run failed (default: none); called by the caller */
    void *user;                 /* passed to source, sink and drop */
    int queue;                  /* capacity of each queue between nodes (default 4) */
    int threads;                /* threads running the stream, the caller's included
                                   (default: one per worker, the source and sink included) */
    int ordered;                /* 1: every farm is ordered: the sink sees the source's order */
} skel_stream_desc;

enum { SKEL_STREAM_STAGE = 1, SKEL_STREAM_PIPELINE, SKEL_STREAM_COMP, SKEL_STREAM_FARM };

int skel_stream_new(skel_stream **s);
void skel_stream_free(skel_stream *s);              /* NULL is fine; not during a run */
/* Nodes: each returns the new node's id (>= 0) or a negative status.  A
   negative id passed in is returned as it is, so a chain of calls reports
   its first error.  A node may be the child of one node only. */
int skel_stream_stage(skel_stream *s, const skel_stage_desc *d);
int skel_stream_pipeline(skel_stream *s, int n, const int *nodes);    /* nodes[0] | nodes[1] | .. */
int skel_stream_comp(skel_stream *s, int n, const int *nodes);        /* nodes[0] . nodes[1] . .. */
int skel_stream_farm(skel_stream *s, int node, const skel_farm_desc *d);
/* Run the stream rooted at node over the source's items; returns when
   every item reached the sink, or the first failure (a stage's, the
   source's, the sink's), with its status and, in skel_last_error, which
   stage, worker and item. */
int skel_stream_run(skel_stream *s, int root, const skel_stream_desc *d);
/* Ask the run in progress to take no more items from the source; the
   items already taken go on to the sink.  Any thread, a stage too. */
void skel_stream_stop(skel_stream *s);

/* Measurements of the last run. */
typedef struct skel_stream_stats {
    double seconds;             /* the run's wall time */
    long items;                 /* items the source gave */
    long done;                  /* items the sink took */
    long dropped;               /* items handed to drop */
    int threads, workers, queues, nodes;
} skel_stream_stats;

typedef struct skel_stream_node_stats {
    int kind;                   /* SKEL_STREAM_STAGE, ... */
    const char *name;
    int parent;                 /* -1: the root of the run (or not in it) */
    int workers;                /* workers that ran it */
    long items;                 /* items out of it */
    double busy;                /* seconds its workers spent in its stage functions */
    double service;             /* seconds between items out of it, on average: from its first
                                   item in to its last out, over the items */
    double model;               /* the service time its measured stage times predict with seed
                                   001's cost models (a farm: its workers in parallel, a pipeline:
                                   its slowest part, a comp: the sum of its parts) */
    double util_mean, util_sd, util_min, util_max;  /* its workers' busy share of the run */
} skel_stream_node_stats;

typedef struct skel_stream_worker_stats {
    int node;                   /* the (first) stage it runs; -1: the source, -2: the sink */
    int farm, copy;             /* the farm and the copy of its worker node it belongs to (-1: none) */
    int gpu;                    /* 1: a GPU worker */
    const char *place;          /* where its skeleton calls run */
    long items;
    double busy, util;          /* seconds in stage functions; busy / the run's seconds */
} skel_stream_worker_stats;

typedef struct skel_stream_queue_stats {
    int from, to;               /* the nodes it links (-1: the source, -2: the sink) */
    int capacity;
    long items;                 /* items that passed */
    double mean;                /* occupancy: items in it, averaged over the run's time */
    int max;                    /* the most items it ever held (<= capacity) */
} skel_stream_queue_stats;

int skel_stream_stats_get(const skel_stream *s, skel_stream_stats *out);
int skel_stream_node_stats_get(const skel_stream *s, int node, skel_stream_node_stats *out);
int skel_stream_worker_stats_get(const skel_stream *s, int worker, skel_stream_worker_stats *out);
int skel_stream_queue_stats_get(const skel_stream *s, int queue, skel_stream_queue_stats *out);
/* The last run's measurements as text or JSON (SKEL_DUMP_TEXT, _JSON) to path (NULL: stdout). */
int skel_stream_dump(const skel_stream *s, int format, const char *path);


/* ---- asynchronous calls, user tasks, the Farm (see TASKS at the top) ---- */
/* Run a call later, in order with the calls and tasks submitted before it
   that touch the same containers; returns at once.  The operands are
   checked now (errors are returned now); uniform, edge_value, init and
   weights are copied now; call.result is written when the call runs. */
int skel_submit(skel_skeleton *sk, const skel_call *call);

enum { SKEL_READ = 1, SKEL_WRITE = 2, SKEL_READ_WRITE = 3 };  /* a user task's access modes */
#define SKEL_TASK_MAX_DATA 8
/* A user task: C code that joins the dependency graph like a skeleton call.
   Zero fields take the documented default. */
typedef struct skel_task_desc {
    const char *name;           /* names it in errors, traces and history models (required) */
    int (*cpu)(skel_vec *const *data, void *arg);  /* runs on a CPU worker; skel_read / skel_write
                                   give its containers' host data (required unless gpu is set) */
    int (*gpu)(skel_vec *const *data, void *arg);  /* runs on a GPU worker instead: the skeleton
                                   calls it makes run on that GPU (optional) */
    skel_vec *data[SKEL_TASK_MAX_DATA];  /* the containers it touches, and how: */
    int mode[SKEL_TASK_MAX_DATA];        /* SKEL_READ, SKEL_WRITE or SKEL_READ_WRITE */
    void *arg;                  /* passed to cpu or gpu; must live until the task has run */
    size_t size;                /* what its history model keys on (default: elements of data[0]) */
} skel_task_desc;
/* Submit a user task (like skel_submit).  It returns SKEL_OK or an error
   status; an error makes the containers it writes count as failed. */
int skel_task_submit(const skel_task_desc *task);

/* A Farm (thesis 6.4): a set of calls and tasks run concurrently. */
typedef struct skel_farm skel_farm;
int skel_farm_new(skel_farm **f);
int skel_farm_call(skel_farm *f, skel_skeleton *sk, const skel_call *call);  /* add a call (checked, copied) */
int skel_farm_task(skel_farm *f, const skel_task_desc *task);               /* add a user task */
int skel_farm_run(skel_farm *f);    /* start every member and wait for all: the first failure */
int skel_farm_start(skel_farm *f);  /* start every member; returns at once */
int skel_farm_join(skel_farm *f);   /* wait for a started farm: SKEL_OK or the first failure */
void skel_farm_free(skel_farm *f);  /* joins first; NULL is fine */

/* How ready calls and tasks are placed.  Zero fields take the default. */
typedef struct skel_sched_desc {
    const char *policy;         /* "dmda", "eager", "ws" or "static" (default: SKEL_SCHED, else dmda) */
    const char *places;         /* comma-separated places to use, e.g. "host,cuda" (default:
                                   SKEL_PLACES, else the host and every GPU) */
    int cpu_workers;            /* CPU worker threads (default: the pool's threads less one per GPU) */
    double alpha, beta;         /* dmda's weights of expected finish and transfer time (0: the
                                   defaults, 1 and 1; for no transfer term pass a tiny beta, e.g.
                                   1e-12: the expected finish already counts the transfer once) */
    int lookahead;              /* dmda: how many of the calls and tasks that follow a ready one its
                                   choice adds (default and at most 64; negative: none, greedy) */
    int defer_us;               /* dmda: a call or task ready when submitted waits to be placed
                                   together with the ones submitted after it, until submissions pause
                                   this long (default 5 us, at most 1 s; any submission counts; 64
                                   times as long at most since the first waiting one; 64 at most
                                   wait; a wait for any of them places them at once); negative:
                                   placed at once */
    int calibrate;              /* samples before a history model is trusted (default 10) */
    const char *model_dir;      /* folder of the models file (default: the plan folder) */
    int nofile;                 /* 1: models are neither loaded nor saved */
} skel_sched_desc;
/* Wait for every pending call and task, then use this configuration (NULL:
   the defaults again). */
int skel_sched_set(const skel_sched_desc *desc);

/* What the scheduler did since the start or skel_sched_stats_reset. */
typedef struct skel_sched_stats {
    const char *policy;
    uint64_t tasks, failed, not_run;            /* finished; failed; not run (an input failed) */
    uint64_t by_model, calibrating, by_rule;    /* placed by a performance model; sent to an
                                                   uncalibrated place to measure it; by the policy's
                                                   rule alone (eager, ws, static, one place) */
    uint64_t deferred;                          /* of them, ready at submission and placed later
                                                   with those submitted after (dmda's defer_us) */
    int places;                                 /* memory spaces */
    const char *place_name[16];
    uint64_t place_tasks[16];                   /* tasks run at each place */
    double place_busy[16];                      /* seconds of tasks run there */
    uint64_t bytes[16][16];                     /* bytes copied between memory spaces [from][to] */
} skel_sched_stats;
void skel_sched_stats_get(skel_sched_stats *out);
void skel_sched_stats_reset(void);

/* Performance models (history per instance, size and place; a transfer
   model per link), kept in <plan folder>/skel.models.  Write them as text,
   JSON or SVG (time against size per place) to path (NULL: stdout); file
   NULL: this program's; file may also be a plan file, whose measured
   times are shown the same way. */
int skel_models_dump(const char *file, int format, const char *path);
int skel_models_save(void);                     /* write this program's models now (also at exit) */
int skel_models_path(const char *dir, char *buf, size_t size);
/* ======================================================================
   Code generation.  Everything below builds the per-instance loops; users
   only need the macros documented at the top.
   ====================================================================== */

/* A read-only view of a whole container, as a CPU chunk sees it. */
typedef struct _skel_viewdesc {
    const void *data;
    skel_index size, rows, cols, depth;
} _skel_viewdesc;

/* The private job one CPU chunk function works on. */
typedef struct _skel_job {
    void *out[SKEL_MAX_OUT];
    const void *in[SKEL_MAX_IN];
    _skel_viewdesc view[SKEL_MAX_VIEWS];
    const void *uniform;
    const void *weights;
    const void *edge_value;
    int edge;
    int dir;                /* MapPairsReduce: SKEL_ROWS or SKEL_COLS */
    size_t depth, rows, cols;   /* shape of the data the chunk indexes (vector: 1 x 1 x n) */
} _skel_job;

/* MapPairsReduce: the output a value function works for */
typedef struct _skel_pctx {
    const _skel_job *j;
    size_t fix;
} _skel_pctx;

/* Per-instance CPU entry points; each processes a range with the user
   function inlined. */
typedef struct _skel_cpu {
    void (*map)(const _skel_job *j, size_t lo, size_t hi);                  /* Map, MapArray */
    void (*reduce)(const _skel_job *j, size_t lo, size_t hi, void *acc);    /* hi > lo: Reduce (in[0]),
                                                                               MapReduce (mapped), Scan */
    void (*combine)(const _skel_job *j, size_t lo, size_t hi, void *acc);   /* hi > lo: accumulators in[0] */
    void (*reduce_cols)(const _skel_job *j, size_t row_lo, size_t row_hi, size_t col_lo, size_t col_hi,
                        void *acc, int have_acc);   /* acc[0] is column col_lo's */
    void (*scan)(const _skel_job *j, size_t lo, size_t hi, const void *carry, int exclusive);
    /* a line of n elements: src[lo..hi) into dst[k][lo..hi) for each
       output k; the line's element i is the call's element base + i*step */
    void (*overlap)(const _skel_job *j, const void *src, void *const *dst, size_t n, size_t lo, size_t hi,
                    size_t base, size_t step);
    void (*overlap2d)(const _skel_job *j, size_t row_lo, size_t row_hi);
    void (*overlap3d)(const _skel_job *j, size_t plane_lo, size_t plane_hi);
    void (*pairs)(const _skel_job *j, size_t lo, size_t hi);  /* MapPairs: rows; MapPairsReduce: outputs */
} _skel_cpu;

/* The worker pool's internal API, for skel's own headers and tests
   (documented at the worker pool section of the implementation). */
typedef void (*_skel_body)(void *ctx, int part, size_t lo, size_t hi);
typedef struct _skel_task {     /* a function queued on the pool; fields private */
    int (*fn)(void *arg);
    void *arg;
    int status;                 /* fn's result: written before state turns DONE */
    int state;                  /* atomic: _SKEL_TASK_QUEUED, _RUNNING, _DONE */
    struct _skel_task *next;    /* queue link, guarded by the pool mutex */
} _skel_task;
enum { _SKEL_TASK_QUEUED = 0, _SKEL_TASK_RUNNING, _SKEL_TASK_DONE };
void _skel_pool_for(int width, int parts, size_t n, _skel_body body, void *ctx);
size_t _skel_pool_parts(int width, size_t n);
size_t _skel_test_pool_parts_of(int threads, size_t n, size_t weight);    /* n items of `weight` elements */
void _skel_pool_submit(_skel_task *t, int (*fn)(void *arg), void *arg);
int _skel_task_done(_skel_task *t);
int _skel_task_wait(_skel_task *t);
int _skel_task_join(_skel_task *t, double spin);
void _skel_pool_wake(int width);
void _skel_pool_stop(void);
int _skel_pool_threads(void);
void _skel_pool_reserve(int n);
int _skel_pool_step_aside(int cpu);
int _skel_pool_sleepers_avoiding(void);
unsigned _skel_pool_wakes(int k);
void _skel_pool_tally(unsigned *owner_sleeps, unsigned *site_alone);
unsigned _skel_site_alone_calls(void);
double _skel_pool_wait_spin(double per, double expect, double elapsed);
double _skel_test_pool_guess(int width, int parts, size_t n, _skel_body body, void *ctx);
int _skel_steal_parse(const char *line, double *steal, double *total);
/* A pool call's site: when it runs on its caller alone (the implementation's
   "Pool calls that run faster on their caller alone"); fields private. */
typedef struct _skel_site {
    const void *who;            /* the instance (NULL: an empty entry) */
    _skel_body body;            /* the phase */
    size_t n, units, unit;      /* its items; the call's units and their elements (_skel_par) */
    int parts, width;
    unsigned calls[2];          /* calls timed: [0] in parallel, [1] on the caller alone */
    float times[2][8];          /* the last 8 of each (seconds; a ring) */
    double par, one;            /* their medians (0: not measured) */
    double guess;               /* its time alone as a parallel call guessed it (_skel_pool_run's work; 0: none) */
    double since;               /* seconds spent the chosen way since the other was tried */
    double woke;                /* when the workers were woken for a parallel try (0: not) */
    int way, left;              /* a try: the way (0 parallel, 1 alone), calls of it left */
} _skel_site;
int _skel_site_pick(_skel_site *e, double now, int asleep);
void _skel_site_note(_skel_site *e, int alone, double t, double guess);
void _skel_pool_site_for(const void *who, size_t units, size_t unit, int width, int parts, size_t n, _skel_body body,
                         void *ctx);
int _skel_pool_asleep(void);
void _skel_pool_pass_wake(void);
/* A memory space of the coherence layer (the implementation's "memory
   spaces"): the host is space 0; GPU providers register theirs (and
   tests a stand-in, in a child process: a space stays for the process). */
typedef struct _skel_space {
    const char *name;           /* "host", "cuda:0", "opencl:0" */
    const char *backend;        /* the backend computing here (NULL: the host's CPU backends) */
    int device;                 /* that backend's device index */
    void *ctx;
    int (*alloc)(void *ctx, size_t bytes, void **dev);
    void (*release)(void *ctx, void *dev);
    /* copy bytes between host memory and the device copy, at byte offset off of it */
    int (*upload)(void *ctx, void *dev, size_t off, const void *host, size_t bytes);
    int (*download)(void *ctx, void *host, const void *dev, size_t off, size_t bytes);
    /* Optional: asked before each copy of `bytes` between a container's
       host copy `host` and its device copy dev, until it answers 1: the
       space may page-lock host for dev's lifetime, now or at a later ask
       (it keeps the score; CUDA: "Page-locked host copies" in skel_cuda.h). */
    int (*pin)(void *ctx, void *dev, void *host, size_t bytes);
    int (*wait)(void *ctx);     /* until everything queued in this space has finished */
    /* Optional: time marks in this space's queue, timed by the device (a
       split's GPU part times).  mark(ctx, &m) with m NULL queues a new
       pair's start mark, with m set its end mark (SKEL_OK, or m is NULL
       after a failed start).  marked(ctx, m, &secs): 0 while m's end is
       still ahead; else 1 with secs the seconds from its start to its end
       as the device ran them (-1: unknown), and m is freed.  Every m a
       mark made goes to marked until it answers 1 (after wait it does). */
    int (*mark)(void *ctx, void **m);
    int (*marked)(void *ctx, void *m, double *secs);
} _skel_space;
int _skel_space_register(const _skel_space *s);    /* its id, or -1 */

enum { SKEL_KIND_MAP = 1, SKEL_KIND_REDUCE, SKEL_KIND_MAPREDUCE, SKEL_KIND_SCAN,
       SKEL_KIND_OVERLAP, SKEL_KIND_OVERLAP2D, SKEL_KIND_MAPARRAY, SKEL_KIND_MAPPAIRS,
       SKEL_KIND_MAPPAIRSREDUCE, SKEL_KIND_OVERLAP3D, _SKEL_KIND_LAST = SKEL_KIND_OVERLAP3D };

/* an operand's element type: the function that describes it */
typedef const skel_type_info *(*_skel_tref)(void);

struct _skel_inst_state;
struct skel_skeleton {
    int kind;
    const char *name;
    int nout, nin, nview;           /* outputs, element inputs, views */
    int nrow;                       /* MapPairs: inputs that go with rows (the rest: columns) */
    _skel_tref out_t[SKEL_MAX_OUT]; /* output types; Reduce/MapReduce: out_t[0] is the accumulator */
    _skel_tref in_t[SKEL_MAX_IN];
    _skel_tref view_t[SKEL_MAX_VIEWS];
    int index_mode;                 /* 0 none, 1 flat, 2 (row, col), 3 (plane, row, col) */
    int has_uniform;
    size_t uniform_size;
    const char *uniform_type;       /* C spelling of the uniform type */
    const char *(*uniform_src)(void);
    int dd, dr, dc, weighted;       /* MapOverlap: overlap in planes, rows, columns */
    int conv;                       /* SKEL_CONV2D: the function is the weighted sum */
    const char *func_name;          /* element function */
    const char *(*func_src)(void);
    const char *red_name;           /* reduce function */
    int commutative;                /* it was declared with SKEL_FUNC_COMMUTATIVE */
    const char *(*red_src)(void);
    _skel_cpu cpu;
    struct _skel_inst_state *state; /* plan and kernel caches, made on first use */
};

/* ---- macro plumbing ---- */
#define _SKEL_CAT(a, b) _SKEL_CAT_(a, b)
#define _SKEL_CAT_(a, b) a##b
#define _SKEL_FIRST(a, b) a
#define _SKEL_SECOND(a, b) b
#define _SKEL_CALLF(f, ...) _SKEL_CALLF_(f, __VA_ARGS__)
#define _SKEL_CALLF_(f, dummy, ...) f(__VA_ARGS__)
#define _SKEL_STR(x) _SKEL_STR_(x)
#define _SKEL_STR_(x) #x

/* Type lists (n, T0, T1, T2, T3, pad): SKEL_TYPES counts its 1..4 types;
   _SKEL_REP(M, list) expands M(k, Tk) for k < n. */
#define _SKEL_NARGS(...) _SKEL_NARGS_(__VA_ARGS__, 4, 3, 2, 1, 0)
#define _SKEL_NARGS_(a, b, c, d, n, ...) n
#define _SKEL_LN(l) _SKEL_LN_ l
#define _SKEL_LN_(n, ...) n
#define _SKEL_L0_(n, a, ...) a
#define _SKEL_L1_(n, a, b, ...) b
#define _SKEL_L2_(n, a, b, c, ...) c
#define _SKEL_L3_(n, a, b, c, d, ...) d
#define _SKEL_REP(M, l) _SKEL_CAT(_SKEL_REP_, _SKEL_LN(l))(M, l)
#define _SKEL_REP_0(M, l)
#define _SKEL_REP_1(M, l) M(0, _SKEL_L0_ l)
#define _SKEL_REP_2(M, l) _SKEL_REP_1(M, l) M(1, _SKEL_L1_ l)
#define _SKEL_REP_3(M, l) _SKEL_REP_2(M, l) M(2, _SKEL_L2_ l)
#define _SKEL_REP_4(M, l) _SKEL_REP_3(M, l) M(3, _SKEL_L3_ l)
#define _SKEL_REPX(M, l, x) _SKEL_CAT(_SKEL_REPX_, _SKEL_LN(l))(M, l, x)
#define _SKEL_REPX_0(M, l, x)
#define _SKEL_REPX_1(M, l, x) M(0, _SKEL_L0_ l, x)
#define _SKEL_REPX_2(M, l, x) _SKEL_REPX_1(M, l, x) M(1, _SKEL_L1_ l, x)
#define _SKEL_REPX_3(M, l, x) _SKEL_REPX_2(M, l, x) M(2, _SKEL_L2_ l, x)
#define _SKEL_REPX_4(M, l, x) _SKEL_REPX_3(M, l, x) M(3, _SKEL_L3_ l, x)
#define _SKEL_SAME(n, T) (n, T, T, T, T, T)

#define SKEL_TYPES(...) (_SKEL_NARGS(__VA_ARGS__), __VA_ARGS__, char, char, char, char)
#define SKEL_OUTS(...) SKEL_TYPES(__VA_ARGS__)
#define SKEL_INS(...) SKEL_TYPES(__VA_ARGS__)
#define SKEL_VIEWS(...) SKEL_TYPES(__VA_ARGS__)
#define SKEL_NO_INS (0, char, char, char, char, char)
#define SKEL_NO_VIEWS (0, char, char, char, char, char)

#define SKEL_NO_INDEX 0
#define SKEL_INDEX 1
#define SKEL_INDEX2D 2
#define SKEL_INDEX3D 3
#define SKEL_UNWEIGHTED 0
#define SKEL_WEIGHTED 1
#define SKEL_NO_UNIFORM (0, char)
#define SKEL_UNIFORM(type) (1, type)
#define _SKEL_UMODE(u) _SKEL_FIRST u
#define _SKEL_UTYPE(u) _SKEL_SECOND u

/* ---- element types as code sees them ---- */
/* _SKEL_TINFO(T): the type's description (a function); _SKEL_ISFLOAT_T:
   whether a reduction of it should use the balanced tree (see
   _SKEL_REDUCE_BODY); skel_view_T: a read-only view of a container of T
   (see VIEWS).  A type that is not an element type (int, unsigned int, a
   struct declared without SKEL_STRUCT) leaves _SKEL_TINFO(T) undeclared,
   and the compiler's message says what to write. */
#define _SKEL_TINFO(T) _SKEL_TINFO_(T)
#define _SKEL_TINFO_(T) SKEL_element_type_must_be_a_fixed_width_scalar_or_declared_with_SKEL_STRUCT__##T
#if defined(__GNUC__) || defined(__clang__)
#define _SKEL_UNUSED __attribute__((unused))   /* generated, maybe not called */
#else
#define _SKEL_UNUSED
#endif
#define _SKEL_BUILTIN(T, id, fl)                                              \
    static inline const skel_type_info *_SKEL_TINFO(T)(void) { return skel_type_get(id); } \
    typedef struct skel_view_##T { const T *data; skel_index size, rows, cols, depth; } skel_view_##T;
_SKEL_BUILTIN(float, SKEL_FLOAT, 1)
_SKEL_BUILTIN(double, SKEL_DOUBLE, 1)
_SKEL_BUILTIN(int32_t, SKEL_INT32, 0)
_SKEL_BUILTIN(uint32_t, SKEL_UINT32, 0)
_SKEL_BUILTIN(int64_t, SKEL_INT64, 0)
_SKEL_BUILTIN(uint64_t, SKEL_UINT64, 0)
_SKEL_BUILTIN(int8_t, SKEL_INT8, 0)
_SKEL_BUILTIN(uint8_t, SKEL_UINT8, 0)
_SKEL_BUILTIN(int16_t, SKEL_INT16, 0)
_SKEL_BUILTIN(uint16_t, SKEL_UINT16, 0)
#define _SKEL_ISFLOAT(T) _SKEL_CAT(_SKEL_ISFLOAT_, T)
#define _SKEL_ISFLOAT_float 1
#define _SKEL_ISFLOAT_double 1
#define _SKEL_ISFLOAT_int32_t 0
#define _SKEL_ISFLOAT_uint32_t 0
#define _SKEL_ISFLOAT_int64_t 0
#define _SKEL_ISFLOAT_uint64_t 0
#define _SKEL_ISFLOAT_int8_t 0
#define _SKEL_ISFLOAT_uint8_t 0
#define _SKEL_ISFLOAT_int16_t 0
#define _SKEL_ISFLOAT_uint16_t 0
#define _SKEL_ISFLOAT_int _SKEL_TINFO_(int)
#define _SKEL_ISFLOAT_unsigned _SKEL_TINFO_(unsigned)
#define _SKEL_ISFLOAT_signed _SKEL_TINFO_(signed)
#define _SKEL_ISFLOAT_long _SKEL_TINFO_(long)
#define _SKEL_ISFLOAT_short _SKEL_TINFO_(short)
#define _SKEL_ISFLOAT_char _SKEL_TINFO_(char)

/* A user function: inlinable C plus its source text. */
#define SKEL_FUNC(ret, name, params, ...)                                     \
    _SKEL_FUNC(ret, name, params, 0, #ret " " #name #params " { " #__VA_ARGS__ " }\n", __VA_ARGS__)
/* The same for a reduction operator that is commutative as well as
   associative: Reduce and MapReduce may then combine elements in any
   order (see SEMANTICS). */
#define SKEL_FUNC_COMMUTATIVE(ret, name, params, ...)                         \
    _SKEL_FUNC(ret, name, params, 1, #ret " " #name #params " { " #__VA_ARGS__ " }\n", __VA_ARGS__)
/* (src is stringified right in SKEL_FUNC, before any macro in the body
   expands: the kernels get the user's SKEL_AT, not the host's debug form) */
#define _SKEL_FUNC(ret, name, params, comm, src, ...)                         \
    static inline ret name params { __VA_ARGS__ }                             \
    enum { _skel_comm_##name = comm };                                        \
    _SKEL_FUNC_TEXT(name, src)
#define _SKEL_FUNC_TEXT(name, src) static inline _SKEL_UNUSED const char *_skel_src_##name(void) { return src; }
/* The source text alone, for a function only the GPU kernels call (a C
   one nobody calls would warn under clang's -Wunused-function). */
#define _SKEL_FUNC_SRC(ret, name, params, ...)                                \
    _SKEL_FUNC_TEXT(name, #ret " " #name #params " { " #__VA_ARGS__ " }\n")

/* A struct type usable as a uniform and as an element type on every
   backend.  Reductions of structs take the balanced tree: the compiler may
   not reassociate their fields either. */
#define SKEL_STRUCT(name, ...)                                                \
    typedef struct name { __VA_ARGS__ } name;                                 \
    struct _skel_al_##name { char c_; name x_; };                             \
    typedef struct skel_view_##name { const name *data; skel_index size, rows, cols, depth; } skel_view_##name; \
    enum { _SKEL_ISFLOAT_##name = 1 };                                        \
    static inline _SKEL_UNUSED const char *_SKEL_USRC(name)(void)             \
    { return "typedef struct " #name " { " #__VA_ARGS__ " } " #name ";\n"; }  \
    static inline _SKEL_UNUSED const skel_type_info *_SKEL_TINFO(name)(void) \
    {                                                                         \
        static const skel_type_info ti_ = { #name, #name, sizeof(name), 0, 0, \
            sizeof(struct _skel_al_##name) - sizeof(name), 1,                 \
            "typedef struct " #name " { " #__VA_ARGS__ " } " #name ";\n" };   \
        return &ti_;                                                          \
    }

/* The GPU source of a uniform's type: its SKEL_STRUCT's, or none for a C
   scalar.  A type that is neither (a plain typedef struct, an unlisted
   typedef) leaves this name undeclared, and the compiler's message says so. */
#define _SKEL_USRC(T) _SKEL_CAT(SKEL_UNIFORM_type_must_be_a_C_scalar_or_declared_with_SKEL_STRUCT__, T)
#define _SKEL_USCALAR(T) static inline _SKEL_UNUSED const char *_SKEL_USRC(T)(void) { return ""; }
_SKEL_USCALAR(char) _SKEL_USCALAR(signed) _SKEL_USCALAR(unsigned) _SKEL_USCALAR(short) _SKEL_USCALAR(int)
_SKEL_USCALAR(long) _SKEL_USCALAR(float) _SKEL_USCALAR(double) _SKEL_USCALAR(int8_t) _SKEL_USCALAR(uint8_t)
_SKEL_USCALAR(int16_t) _SKEL_USCALAR(uint16_t) _SKEL_USCALAR(int32_t) _SKEL_USCALAR(uint32_t)
_SKEL_USCALAR(int64_t) _SKEL_USCALAR(uint64_t) _SKEL_USCALAR(skel_index)

/* Bounds of view reads (see VIEWS): checked with SKEL_DEBUG defined. */
skel_index _skel_view_oob(skel_index i, skel_index n);
static inline skel_index _skel_view_at(skel_index i, skel_index n) { return i >= 0 && i < n ? i : _skel_view_oob(i, n); }
#ifdef SKEL_DEBUG
#define SKEL_AT(v, i) ((v).data[_skel_view_at((skel_index)(i), (v).size)])
#else
#define SKEL_AT(v, i) ((v).data[i])
#endif
#define SKEL_AT2(v, r, c) SKEL_AT(v, (skel_index)(r) * (v).cols + (c))
#define SKEL_AT3(v, p, r, c) SKEL_AT(v, ((skel_index)(p) * (v).rows + (r)) * (v).cols + (c))

/* ---- pieces of a generated call ---- */
#define _SKEL_DECL_OUT(k, T) T *_SKEL_CAT(r, k) = (T *)j->out[k];
#define _SKEL_OUT_PARAMQ(k, T, q) , T *q _SKEL_CAT(r, k)
#define _SKEL_IN_PARAMQ(k, T, q) , const T *q _SKEL_CAT(a, k)
#define _SKEL_OUT_OF_JOB(k, T) , (T *)j->out[k]
#define _SKEL_IN_OF_JOB(k, T) , (const T *)j->in[k]
#define _SKEL_DECL_DST(k, T) T *_SKEL_CAT(r, k) = (T *)dst[k];
#define _SKEL_DECL_IN(k, T) const T *_SKEL_CAT(a, k) = (const T *)j->in[k];
#define _SKEL_DECL_CIN(k, T, off) const T *_SKEL_CAT(b, k) = (const T *)j->in[(off) + k];
#define _SKEL_DECL_VIEW(k, T)                                                 \
    const _SKEL_CAT(skel_view_, T) _SKEL_CAT(vw, k) = { (const T *)j->view[k].data, j->view[k].size, \
        j->view[k].rows, j->view[k].cols, j->view[k].depth };
#define _SKEL_ELEM(k, T) , _SKEL_CAT(a, k)[i]
#define _SKEL_RELEM(k, T) , _SKEL_CAT(a, k)[r]
#define _SKEL_CELEM(k, T) , _SKEL_CAT(b, k)[c]
#define _SKEL_VIEW_ARG(k, T) , _SKEL_CAT(vw, k)
#define _SKEL_OUT_PTR(k, T) , &_SKEL_CAT(r, k)[o_]
#define _SKEL_UDECL_0(t)
#define _SKEL_UDECL_1(t) const t u_ = *(const t *)j->uniform;
#define _SKEL_UDECL(u) _SKEL_CAT(_SKEL_UDECL_, _SKEL_UMODE(u))(_SKEL_UTYPE(u))
#define _SKEL_UARG_0
#define _SKEL_UARG_1 , u_
#define _SKEL_UARG(u) _SKEL_CAT(_SKEL_UARG_, _SKEL_UMODE(u))
/* the views and the uniform: declared once per chunk, passed last */
#define _SKEL_XDECL(views, u) _SKEL_REP(_SKEL_DECL_VIEW, views) _SKEL_UDECL(u)
#define _SKEL_XARGS(views, u) _SKEL_REP(_SKEL_VIEW_ARG, views) _SKEL_UARG(u)
/* index arguments from the flat element index f of data shaped
   depth x rows x cols (j's shape) */
#define _SKEL_FIX_0(f)
#define _SKEL_FIX_1(f) , (skel_index)(f)
#define _SKEL_FIX_2(f) , (skel_index)((f) / j->cols), (skel_index)((f) % j->cols)
#define _SKEL_FIX_3(f) , (skel_index)((f) / (j->rows * j->cols)), (skel_index)((f) / j->cols % j->rows), \
                        (skel_index)((f) % j->cols)
#define _SKEL_FIX(ix, f) _SKEL_CAT(_SKEL_FIX_, ix)(f)
#define _SKEL_IX2(r, c) , (skel_index)(r), (skel_index)(c)
/* Store func(args) at position o_ of the outputs: one output is returned,
   several are written through pointers passed after every other argument.
   args starts with a dummy token. */
#define _SKEL_PUT(func, outs, ...) _SKEL_CAT(_SKEL_PUT_, _SKEL_LN(outs))(func, outs, __VA_ARGS__)
#define _SKEL_PUT_1(func, outs, ...) r0[o_] = _SKEL_CALLF(func, __VA_ARGS__);
#define _SKEL_PUT_2(func, outs, ...) _SKEL_CALLF(func, __VA_ARGS__ _SKEL_REP(_SKEL_OUT_PTR, outs));
#define _SKEL_PUT_3(func, outs, ...) _SKEL_PUT_2(func, outs, __VA_ARGS__)
#define _SKEL_PUT_4(func, outs, ...) _SKEL_PUT_2(func, outs, __VA_ARGS__)

/* the instance descriptor's common fields */
#define _SKEL_OUT_T(k, T) .out_t[k] = _SKEL_TINFO(T),
#define _SKEL_IN_T(k, T) .in_t[k] = _SKEL_TINFO(T),
#define _SKEL_VIEW_T(k, T) .view_t[k] = _SKEL_TINFO(T),
#define _SKEL_INST(nm_, kind_, outs_, ins_, ix_, views_, u_)                  \
    .nin = _SKEL_LN(ins_), _SKEL_REP(_SKEL_IN_T, ins_)                        \
    _SKEL_INST_BASE(nm_, kind_, outs_, ix_, views_, u_)
/* (without the inputs) */
#define _SKEL_INST_BASE(nm_, kind_, outs_, ix_, views_, u_)                   \
    .kind = kind_, .name = #nm_,                                              \
    .nout = _SKEL_LN(outs_), .nview = _SKEL_LN(views_),                       \
    _SKEL_REP(_SKEL_OUT_T, outs_) _SKEL_REP(_SKEL_VIEW_T, views_)             \
    .index_mode = ix_,                                                        \
    .has_uniform = _SKEL_UMODE(u_), .uniform_size = sizeof(_SKEL_UTYPE(u_)),  \
    .uniform_type = _SKEL_STR(_SKEL_UTYPE(u_)),                               \
    .uniform_src = _SKEL_USRC(_SKEL_UTYPE(u_))

/* Reduction of V(ctx, i) over [lo, hi), hi > lo, into *acc_out.
   Operators declared with SKEL_FUNC_COMMUTATIVE (_skel_comm_<red> = 1)
   take interleaved lanes: lane k folds elements lo+k, lo+k+L, ... in
   order, then the L lanes combine pairwise (lane k with lane k+L/2, ...).
   The lanes are independent chains, so the compiler keeps them in vector
   registers and the loop runs at the speed of `omp simd reduction` (it
   is the same reordering).  L = 32 4-byte or 16 8-byte elements (4
   vectors of AVX2, 2 of AVX-512): fewer lanes were latency-bound in L1
   (8: 3.5 times slower than 32), more gained nothing (bench/results/
   cpu.md).  Calls under 2L elements, accumulators wider than 8 bytes
   (structs: 4 lanes of Pearson's five double sums ran at 0.98 of the
   fused C loop, the tree below at 1.14, 2-vCPU VM, bench/results/
   forms.md) and every other operator keep index order:
   Integer types: the plain left-to-right loop; the compiler vectorises it
   itself when the operator is exactly associative (+, *, min, &, ...).
   Floating types and structs: the compiler may not reassociate, so tiles
   of 32 are reduced as a balanced tree (pairs of neighbours, then pairs
   of pairs), which vectorises and has one dependent step per tile
   instead of 32.  Both use only associativity: operands are always
   combined in order.
   phase: _skel_lanes_phase of the operand whose loads should be aligned
   (0: none); see _SKEL_REDUCE_LANES. */
#define _SKEL_LANES(T) (sizeof(T) <= 4 ? 32 : sizeof(T) <= 8 ? 16 : 4)
#define _SKEL_REDUCE_BODY(T, red, V, ctx, lo, hi, phase, acc_out)             \
    {                                                                         \
        if (_SKEL_CAT(_skel_comm_, red) && sizeof(T) <= 8 &&                \
            (hi) - (lo) >= 2 * _SKEL_LANES(T))                                \
            _SKEL_REDUCE_LANES(T, red, V, ctx, lo, hi, phase, acc_out)        \
        else                                                                  \
            _SKEL_REDUCE_ORDERED(T, red, V, ctx, lo, hi, acc_out)             \
    }
/* The lanes with aligned loads: the vector loop starts at lo + s (s =
   phase < L, chosen so that element's address is a multiple of 64 bytes:
   misaligned 64-byte loads cross a cache line each, and a 2^10-float sum
   in L1 took 1.5 times as long), and register position p holds lane (s + p)
   mod L throughout.  Every lane still folds its elements in index order:
   the first block takes elements lo+s .. lo+s+L-1, where positions L-s ..
   L-1 (lanes 0 .. s-1) first put the lane's first element (lo .. lo+s-1)
   before it; the fold pairs the same lanes as with s = 0, each pair's
   lower lane the left operand.  So the bits are those of s = 0 for every
   s: a result does not depend on the data's address.  The first block's
   head and the last partial block run over all L positions with a
   condition (masked loads where the target has them: no scalar loop, no
   lane stored and reloaded).  Needs hi - lo >= s + L. */
#define _SKEL_REDUCE_LANES(T, red, V, ctx, lo, hi, phase, acc_out)            \
    {                                                                         \
        T l_[_SKEL_LANES(T)];                                                 \
        size_t s_ = (phase), i_ = (lo) + s_, k_, r_;                          \
        for (k_ = 0; k_ < _SKEL_LANES(T); ++k_) l_[k_] = V(ctx, i_ + k_);     \
        for (k_ = 0; s_ && k_ < _SKEL_LANES(T); ++k_) {                       \
            T h_ = l_[k_];                                                    \
            if (k_ + s_ >= _SKEL_LANES(T)) h_ = red(V(ctx, i_ + k_ - _SKEL_LANES(T)), h_); \
            l_[k_] = h_;                                                      \
        }                                                                     \
        for (i_ += _SKEL_LANES(T); i_ + _SKEL_LANES(T) <= (hi); i_ += _SKEL_LANES(T)) \
            for (k_ = 0; k_ < _SKEL_LANES(T); ++k_) l_[k_] = red(l_[k_], V(ctx, i_ + k_)); \
        for (r_ = (hi) - i_, k_ = 0; r_ && k_ < _SKEL_LANES(T); ++k_) {       \
            T t_ = l_[k_];                                                    \
            if (k_ < r_) t_ = red(t_, V(ctx, i_ + k_));                       \
            l_[k_] = t_;                                                      \
        }                                                                     \
        _SKEL_LANES_FOLD(T, red, 16) _SKEL_LANES_FOLD(T, red, 8) _SKEL_LANES_FOLD(T, red, 4) \
        _SKEL_LANES_FOLD(T, red, 2) _SKEL_LANES_FOLD(T, red, 1)              \
        *(T *)(acc_out) = l_[0];                                              \
    }
/* One level of the lanes' pairwise combination: the lane at position k
   with the one at k + w (position k holds lane (k + s) mod 2w: the lower
   of the two is the left operand).  Constant widths: a loop over w kept
   the lanes in memory and went through them with scalar loads and stores
   (a quarter of a 2^10-float sum's time); unrolled, they stay in vector
   registers. */
#define _SKEL_LANES_FOLD(T, red, w)                                           \
        if (_SKEL_LANES(T) > (w))                                             \
            for (k_ = 0; k_ < (w); ++k_)                                      \
                l_[k_] = ((k_ + s_) & (2 * (w) - 1)) < (w) ? red(l_[k_], l_[k_ + (w)]) \
                                                            : red(l_[k_ + (w)], l_[k_]);
/* The phase of the lanes for operand p (elements of sz bytes) from
   element lo: the elements from lo to the first one at a multiple of 64
   bytes, modulo L; 0 (loads from lo as they come) without an operand,
   where elements are not aligned to their size, and where the call reads
   more than _SKEL_LANES_ALIGNED bytes (`bytes`, its inputs' elements):
   aligned loads paid only while the data fit in L1 (2-vCPU VM, a float
   sum: 2^13 elements 0.88 of the time, 2^15-2^16 1.05-1.08 times it,
   misaligned data taking two lines a load ran ahead of the next one). */
#define _SKEL_LANES_ALIGNED 32768
static inline size_t _skel_lanes_phase(const void *p, size_t sz, size_t lo, size_t lanes, size_t bytes)
{
    size_t m = (size_t)(-((uintptr_t)p + lo * sz) & 63u);
    return p && bytes <= _SKEL_LANES_ALIGNED && m % sz == 0 ? m / sz % lanes : 0;
}
/* A job's elements (its data's shape; 0 for a combination of partials). */
#define _SKEL_JOB_ELEMS(j) ((j)->depth * (j)->rows * (j)->cols)
#define _SKEL_SIZE_PLUS(k, T) + sizeof(T)
#define _SKEL_REDUCE_ORDERED(T, red, V, ctx, lo, hi, acc_out)                 \
    {                                                                         \
        size_t i_ = (lo), k_;                                                 \
        T t_ = V(ctx, i_), b_[16];                                            \
        ++i_;                                                                 \
        if (_SKEL_ISFLOAT(T))                                                 \
            for (; i_ + 32 <= (hi); i_ += 32) {                               \
                for (k_ = 0; k_ < 16; ++k_) b_[k_] = red(V(ctx, i_ + 2 * k_), V(ctx, i_ + 2 * k_ + 1)); \
                for (k_ = 0; k_ < 8; ++k_) b_[k_] = red(b_[2 * k_], b_[2 * k_ + 1]); \
                for (k_ = 0; k_ < 4; ++k_) b_[k_] = red(b_[2 * k_], b_[2 * k_ + 1]); \
                b_[0] = red(red(b_[0], b_[1]), red(b_[2], b_[3]));            \
                t_ = red(t_, b_[0]);                                          \
            }                                                                 \
        for (; i_ < (hi); ++i_) t_ = red(t_, V(ctx, i_));                     \
        *(T *)(acc_out) = t_;                                                 \
    }

#if defined(__cplusplus)
#define _SKEL_RESTRICT __restrict
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define _SKEL_RESTRICT restrict
#else
#define _SKEL_RESTRICT
#endif
/* Whether an output of the job is one of its inputs (a call in place). */
static inline int _skel_job_in_place(const _skel_job *j)
{
    int o, i;
    for (o = 0; o < SKEL_MAX_OUT; ++o)
        for (i = 0; i < SKEL_MAX_IN; ++i)
            if (j->out[o] && j->out[o] == j->in[i]) return 1;
    return 0;
}

/* Edge policy for index i of n (n > 0): 1 and *at = the element to read,
   or 0 when the constant applies.  Inlined into the generated border code. */
static inline int _skel_edge_at(ptrdiff_t i, size_t n, int edge, size_t *at)
{
    if (i >= 0 && (size_t)i < n) { *at = (size_t)i; return 1; }
    if (edge == SKEL_EDGE_CYCLIC) { ptrdiff_t m = (ptrdiff_t)n; *at = (size_t)(((i % m) + m) % m); return 1; }
    if (edge == SKEL_EDGE_DUPLICATE) { *at = i < 0 ? 0 : n - 1; return 1; }
    return 0;
}

/* ---- Map ---- */
#define _SKEL_MAP_AT(func, outs, ins, views, u, ixargs)                       \
    _SKEL_PUT(func, outs, ~ ixargs _SKEL_REP(_SKEL_ELEM, ins) _SKEL_XARGS(views, u))
#define _SKEL_MAP_LOOP_0(func, outs, ins, views, u)                           \
    for (i = lo; i < hi; ++i) { o_ = i; _SKEL_MAP_AT(func, outs, ins, views, u, ) }
#define _SKEL_MAP_LOOP_1(func, outs, ins, views, u)                           \
    for (i = lo; i < hi; ++i) { o_ = i; _SKEL_MAP_AT(func, outs, ins, views, u, _SKEL_FIX_1(i)) }
#define _SKEL_MAP_LOOP_2(func, outs, ins, views, u)                           \
    for (i = lo; i < hi;) {                                                   \
        size_t row = i / j->cols, col = i % j->cols;                          \
        size_t end = i - col + j->cols < hi ? i - col + j->cols : hi;         \
        for (; i < end; ++i, ++col) {                                         \
            o_ = i;                                                           \
            _SKEL_MAP_AT(func, outs, ins, views, u, _SKEL_IX2(row, col))      \
        }                                                                     \
    }
#define _SKEL_MAP_LOOP_3(func, outs, ins, views, u)                           \
    for (i = lo; i < hi; ++i) { o_ = i; _SKEL_MAP_AT(func, outs, ins, views, u, _SKEL_FIX_3(i)) }

/* A Map's chunk comes twice: with restrict pointer parameters (no output
   is an input: the compiler vectorises without checking for overlap; gcc
   12 vectorised no loop of more than 5 pointers otherwise, and restrict
   locals did not help: 4 x 4 floats, 1.6 ms against 1.2 for the same loop
   over restrict parameters, 2^20 elements on seq), and plain ones for a
   call in place. */
#define _SKEL_MAP_CHUNK(name, func, outs, ins, index, views, uniform, q)       \
    static void name(const _skel_job *j, size_t lo, size_t hi                 \
                     _SKEL_REPX(_SKEL_OUT_PARAMQ, outs, q) _SKEL_REPX(_SKEL_IN_PARAMQ, ins, q)) \
    {                                                                         \
        size_t i, o_;                                                         \
        _SKEL_XDECL(views, uniform)                                           \
        (void)j;                                                              \
        _SKEL_CAT(_SKEL_MAP_LOOP_, index)(func, outs, ins, views, uniform)    \
    }
#define SKEL_MAP_X(name, func, outs, ins, index, views, uniform)              \
    _SKEL_MAP_CHUNK(_skel_mapr_##name, func, outs, ins, index, views, uniform, _SKEL_RESTRICT) \
    _SKEL_MAP_CHUNK(_skel_mapa_##name, func, outs, ins, index, views, uniform, )               \
    static void _skel_map_##name(const _skel_job *j, size_t lo, size_t hi)    \
    {                                                                         \
        if (_skel_job_in_place(j))                                            \
            _skel_mapa_##name(j, lo, hi _SKEL_REP(_SKEL_OUT_OF_JOB, outs) _SKEL_REP(_SKEL_IN_OF_JOB, ins)); \
        else _skel_mapr_##name(j, lo, hi _SKEL_REP(_SKEL_OUT_OF_JOB, outs) _SKEL_REP(_SKEL_IN_OF_JOB, ins)); \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_MAP, outs, ins, index, views, uniform),    \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .map = _skel_map_##name } }};
#define SKEL_MAP_EX(name, func, Tout, Tin, nin, index, uniform)               \
    SKEL_MAP_X(name, func, SKEL_TYPES(Tout), _SKEL_SAME(nin, Tin), index, SKEL_NO_VIEWS, uniform)
#define SKEL_MAP(name, func, T, nin) SKEL_MAP_EX(name, func, T, T, nin, SKEL_NO_INDEX, SKEL_NO_UNIFORM)
/* A Map of the index alone: no inputs, so no input type to name. */
#define SKEL_MAP_INDEX(name, func, Tout, index, uniform)                      \
    SKEL_MAP_X(name, func, SKEL_TYPES(Tout), SKEL_NO_INS, index, SKEL_NO_VIEWS, uniform)

/* ---- Reduce ---- */
#define _SKEL_CONV_SAME(T, x) (x)
#define _SKEL_CONV_CAST(T, x) ((T)(x))
/* _skel_comb_NAME: fold an array of accumulators (partials) */
#define _SKEL_COMBINE_FN(name, red, T)                                        \
    static inline T _skel_cv_##name(const _skel_job *j, size_t i) { return ((const T *)j->in[0])[i]; } \
    static void _skel_comb_##name(const _skel_job *j, size_t lo, size_t hi, void *acc) \
    _SKEL_REDUCE_BODY(T, red, _skel_cv_##name, j, lo, hi,                    \
                      _skel_lanes_phase(j->in[0], sizeof(T), lo, _SKEL_LANES(T), ((hi) - (lo)) * sizeof(T)), acc)
#define _SKEL_REDUCE_X(name, func, Tacc, Tin, conv)                           \
    _SKEL_COMBINE_FN(name, func, Tacc)                                        \
    static inline Tacc _skel_rv_##name(const _skel_job *j, size_t i)          \
    { return conv(Tacc, ((const Tin *)j->in[0])[i]); }                        \
    static void _skel_red_##name(const _skel_job *j, size_t lo, size_t hi, void *acc) \
    _SKEL_REDUCE_BODY(Tacc, func, _skel_rv_##name, j, lo, hi,                 \
                      _skel_lanes_phase(j->in[0], sizeof(Tin), lo, _SKEL_LANES(Tacc),           \
                                        _SKEL_JOB_ELEMS(j) * sizeof(Tin)), acc)                 \
    static void _skel_redc_##name(const _skel_job *j, size_t rlo, size_t rhi, size_t clo, size_t chi, \
                                  void *accv, int have)                       \
    {                                                                         \
        const Tin *a0 = (const Tin *)j->in[0] + clo;                          \
        Tacc *acc = (Tacc *)accv;                                             \
        size_t c, rr, nc = j->cols, w = chi - clo;                            \
        if (rlo >= rhi) return;                                               \
        if (!have) { for (c = 0; c < w; ++c) acc[c] = conv(Tacc, a0[rlo * nc + c]); ++rlo; } \
        for (rr = rlo; rr < rhi; ++rr)                                        \
            for (c = 0; c < w; ++c) acc[c] = func(acc[c], conv(Tacc, a0[rr * nc + c])); \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_REDUCE, SKEL_TYPES(Tacc), SKEL_TYPES(Tin), 0, SKEL_NO_VIEWS, SKEL_NO_UNIFORM), \
        .red_name = #func, .red_src = _skel_src_##func, .commutative = _skel_comm_##func, \
        .cpu = { .reduce = _skel_red_##name, .combine = _skel_comb_##name,    \
                 .reduce_cols = _skel_redc_##name } }};
#define SKEL_REDUCE(name, func, T) _SKEL_REDUCE_X(name, func, T, T, _SKEL_CONV_SAME)
#define SKEL_REDUCE_EX(name, func, Tacc, Tin) _SKEL_REDUCE_X(name, func, Tacc, Tin, _SKEL_CONV_CAST)

/* ---- MapReduce ---- */
#define SKEL_MAPREDUCE_X(name, mapf, redf, Tacc, ins, index, views, uniform)  \
    static inline Tacc _skel_mrv_##name(const _skel_job *j, size_t i)         \
    {                                                                         \
        _SKEL_REP(_SKEL_DECL_IN, ins)                                         \
        _SKEL_XDECL(views, uniform)                                           \
        (void)j;                                                              \
        return _SKEL_CALLF(mapf, ~ _SKEL_FIX(index, i) _SKEL_REP(_SKEL_ELEM, ins) _SKEL_XARGS(views, uniform)); \
    }                                                                         \
    static void _skel_mr_##name(const _skel_job *j, size_t lo, size_t hi, void *acc) \
    _SKEL_REDUCE_BODY(Tacc, redf, _skel_mrv_##name, j, lo, hi,                \
                      _SKEL_LN(ins) ? _skel_lanes_phase(j->in[0], sizeof(_SKEL_L0_ ins), lo, _SKEL_LANES(Tacc), \
                                                        _SKEL_JOB_ELEMS(j) * (0 _SKEL_REP(_SKEL_SIZE_PLUS, ins))) : 0, acc) \
    _SKEL_COMBINE_FN(name, redf, Tacc)                                        \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_MAPREDUCE, SKEL_TYPES(Tacc), ins, index, views, uniform), \
        .func_name = #mapf, .func_src = _skel_src_##mapf,                     \
        .red_name = #redf, .red_src = _skel_src_##redf, .commutative = _skel_comm_##redf, \
        .cpu = { .reduce = _skel_mr_##name, .combine = _skel_comb_##name } }};
#define SKEL_MAPREDUCE_EX(name, mapf, redf, Tout, Tin, nin, index, uniform)   \
    SKEL_MAPREDUCE_X(name, mapf, redf, Tout, _SKEL_SAME(nin, Tin), index, SKEL_NO_VIEWS, uniform)
#define SKEL_MAPREDUCE(name, mapf, redf, T, nin)                              \
    SKEL_MAPREDUCE_EX(name, mapf, redf, T, T, nin, SKEL_NO_INDEX, SKEL_NO_UNIFORM)
/* A MapReduce of the index alone (over call.count, or call.rows x call.cols). */
#define SKEL_MAPREDUCE_INDEX(name, mapf, redf, Tout, index, uniform)          \
    SKEL_MAPREDUCE_X(name, mapf, redf, Tout, SKEL_NO_INS, index, SKEL_NO_VIEWS, uniform)

/* ---- Scan ---- */
#define SKEL_SCAN(name, func, T)                                              \
    _SKEL_COMBINE_FN(name, func, T)                                           \
    static void _skel_scan_##name(const _skel_job *j, size_t lo, size_t hi,   \
                                  const void *carry, int exclusive)           \
    {                                                                         \
        const T *a = (const T *)j->in[0];                                     \
        T *r = (T *)j->out[0], acc, x;                                        \
        size_t i = lo;                                                        \
        if (lo >= hi) return;                                                 \
        if (exclusive) {                                                      \
            acc = *(const T *)carry;                                          \
            for (; i < hi; ++i) { x = a[i]; r[i] = acc; acc = func(acc, x); } \
            return;                                                           \
        }                                                                     \
        if (carry) acc = *(const T *)carry;                                   \
        else { acc = a[i]; r[i] = acc; ++i; }                                 \
        for (; i < hi; ++i) { acc = func(acc, a[i]); r[i] = acc; }            \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_SCAN, SKEL_TYPES(T), SKEL_TYPES(T), 0, SKEL_NO_VIEWS, SKEL_NO_UNIFORM), \
        .red_name = #func, .red_src = _skel_src_##func,                       \
        .cpu = { .reduce = _skel_comb_##name, .combine = _skel_comb_##name, .scan = _skel_scan_##name } }};

/* ---- MapOverlap 1D (vectors, matrix rows, matrix columns) ---- */
/* the 2d+1 window around element i of s[0..n) under the call's edge policy */
#define _SKEL_WIN1(T, d)                                                      \
    for (k_ = -(d); k_ <= (d); ++k_)                                          \
        win[k_ + (d)] = _skel_edge_at((ptrdiff_t)i + k_, n, j->edge, &at_) ? s[at_] : cv_
#define _SKEL_OV_AT(func, outs, index, views, u, p)                           \
    _SKEL_PUT(func, outs, ~ _SKEL_FIX(index, base + i * step), p _SKEL_XARGS(views, u))
#define SKEL_OVERLAP_X(name, func, outs, T, d, index, views, uniform)         \
    static void _skel_ov_##name(const _skel_job *j, const void *src, void *const *dst, \
                                size_t n, size_t lo, size_t hi, size_t base, size_t step) \
    {                                                                         \
        const T *s = (const T *)src;                                          \
        static const T zero_;                                                 \
        T win[2 * (d) + 1], cv_ = j->edge_value ? *(const T *)j->edge_value : zero_; \
        int k_; size_t at_, o_;                                               \
        size_t i = lo, e, first = (size_t)(d) < n ? (size_t)(d) : n;          \
        size_t last = n > (size_t)(d) ? n - (size_t)(d) : 0;                  \
        _SKEL_REP(_SKEL_DECL_DST, outs)                                       \
        _SKEL_XDECL(views, uniform)                                           \
        (void)base; (void)step;                                               \
        for (; i < hi && i < first; ++i) {                                    \
            _SKEL_WIN1(T, d);                                                 \
            o_ = i; _SKEL_OV_AT(func, outs, index, views, uniform, win + (d)) \
        }                                                                     \
        e = hi < last ? hi : last;                                            \
        for (; i < e; ++i) { o_ = i; _SKEL_OV_AT(func, outs, index, views, uniform, s + i) } \
        for (; i < hi; ++i) {                                                 \
            _SKEL_WIN1(T, d);                                                 \
            o_ = i; _SKEL_OV_AT(func, outs, index, views, uniform, win + (d)) \
        }                                                                     \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_OVERLAP, outs, SKEL_TYPES(T), index, views, uniform), \
        .dr = (d), .dc = (d), .func_name = #func, .func_src = _skel_src_##func, \
        .cpu = { .overlap = _skel_ov_##name } }};
#define SKEL_OVERLAP_EX(name, func, T, d, uniform)                            \
    SKEL_OVERLAP_X(name, func, SKEL_TYPES(T), T, d, SKEL_NO_INDEX, SKEL_NO_VIEWS, uniform)
#define SKEL_OVERLAP(name, func, T, d) SKEL_OVERLAP_EX(name, func, T, d, SKEL_NO_UNIFORM)

/* ---- MapOverlap 2D non-separable ---- */
/* The CPU loop of every CPU backend, for every form (index, views,
   uniform, weights, any element type): the chunk function of an instance
   (cpu.overlap2d, a range of output rows) hands the range to
   _skel_ov2_drive (implementation below), which walks it in slabs of
   rows, each in blocks of up to two rows by _SKEL_OV2_COLS bytes of
   columns, and calls the instance's block function on each: `in` is the centre of the first output's
   window, `is` the row stride around it, so the window offsets y * is + x
   are loop-invariant and the block function's loop over a row of outputs
   vectorises; (row, col) is the first output's position in the matrix
   (for the index argument).  Blocks whose windows cross an edge of the
   matrix get a padded copy of their input (the edge policy applied once
   per element) and run the same block function. */
typedef void (*_skel_ov2_block_fn)(const _skel_job *j, void *out, size_t os, const void *in, ptrdiff_t is,
                                   size_t row, size_t col, size_t rows, size_t n);
/* tile: room for (2 dr + _SKEL_OV2_SLAB(esz)) x (2 dc + _SKEL_OV2_EDGE(esz))
   elements (a block at an edge, padded) */
void _skel_ov2_drive(const _skel_job *j, size_t rlo, size_t rhi, int dr, int dc, size_t esz,
                     _skel_ov2_block_fn blk, void *tile);
/* columns of an edge block: 256 bytes of them (64 floats), at least 2, so
   that the tile of a 128-byte struct stays near the size of its window */
#define _SKEL_OV2_EDGE(esz) ((esz) >= 128 ? 2 : 256 / (esz))
/* bytes of columns of an interior block: whole rows of up to 4096 floats
   (its rows stay in L2 while its row pairs go down them; 2-vCPU AMD EPYC,
   2048 x 2048 floats, one thread: whole rows 2-3% faster than blocks of
   1024 columns at 7x7 and 11x11) */
#define _SKEL_OV2_COLS 16384
/* rows of a slab: 8 (an edge block's gather copies 8 + 2 dr rows for 8
   outputs rows, not 2 + 2 dr for 2); 2 for elements over 16 bytes, whose
   tiles on the stack would grow past 100 KiB */
#define _SKEL_OV2_SLAB(esz) ((esz) > 16 ? 2 : 8)
/* GCC vectorises a loop over outputs whose body calls the user function
   (loops and all) when told it may; clang's vectoriser takes innermost
   loops only, and would warn that it cannot */
#if defined(_OPENMP) && !defined(__clang__)
#define _SKEL_SIMD _Pragma("omp simd")
#else
#define _SKEL_SIMD
#endif
/* a * b + c, fused where the target has it (ISO C modes do not contract) */
#define _SKEL_FMA(T, a, b, c) _SKEL_CAT(_SKEL_FMA_, T)(a, b, c)
#if defined(__FP_FAST_FMAF)
#define _SKEL_FMA_float(a, b, c) __builtin_fmaf(a, b, c)
#else
#define _SKEL_FMA_float(a, b, c) ((a) * (b) + (c))
#endif
#if defined(__FP_FAST_FMA)
#define _SKEL_FMA_double(a, b, c) __builtin_fma(a, b, c)
#else
#define _SKEL_FMA_double(a, b, c) ((a) * (b) + (c))
#endif
#define _SKEL_FMA_int32_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_uint32_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_int64_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_uint64_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_int8_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_uint8_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_int16_t(a, b, c) ((a) * (b) + (c))
#define _SKEL_FMA_uint16_t(a, b, c) ((a) * (b) + (c))

#define _SKEL_WARG_0(T, dr, dc)
#define _SKEL_WARG_1(T, dr, dc) , (const T *)j->weights + (dr) * (2 * (dc) + 1) + (dc)
/* index arguments of the output at (r, c), flat index f (no division for
   SKEL_INDEX2D in the loop over a row) */
#define _SKEL_OV2IX_0(r, c, f)
#define _SKEL_OV2IX_1(r, c, f) , (skel_index)(f)
#define _SKEL_OV2IX_2(r, c, f) , (skel_index)(r), (skel_index)(c)
#define _SKEL_OV2IX_3(r, c, f) _SKEL_FIX_3(f)
/* the user function's value at a (the centre of its window, rows is apart)
   for the output at (r, c) */
#define _SKEL_OV2_AT(func, T, dR, dC, wmode, index, views, u, a, is, r, c)    \
    _SKEL_CALLF(func, ~ _SKEL_CAT(_SKEL_OV2IX_, index)(r, c, (r) * j->cols + (c)), a, (skel_index)(is) \
        _SKEL_CAT(_SKEL_WARG_, wmode)(T, dR, dC) _SKEL_XARGS(views, u))
#define _SKEL_OV2_USER_BLOCK(name, func, T, dR, dC, wmode, index, views, uniform) \
    static void _skel_ov2b_##name(const _skel_job *j, void *out, size_t os, const void *in, ptrdiff_t is, \
                                  size_t row, size_t col, size_t rows, size_t n) \
    {                                                                         \
        size_t y, c;                                                          \
        _SKEL_XDECL(views, uniform)                                           \
        (void)j; (void)row; (void)col;                                        \
        for (y = 0; y < rows; ++y) {                                          \
            T *_SKEL_RESTRICT r = (T *)out + y * os;                          \
            const T *_SKEL_RESTRICT a = (const T *)in + (ptrdiff_t)y * is;    \
            _SKEL_SIMD                                                        \
            for (c = 0; c < n; ++c)                                           \
                r[c] = _SKEL_OV2_AT(func, T, dR, dC, wmode, index, views, uniform, a + c, is, row + y, col + c); \
        }                                                                     \
    }
/* SKEL_CONV2D: the window's taps in the outer loops, a row of outputs in
   the inner one: acc[c] += w[t] * q[c + t] for k (a constant, so the t
   loop unrolls) taps at a time; the sum of each output keeps the order of
   the user-function form (window rows, then columns).  Two output rows
   share each input row they both read, which halves the loads. */
#define _SKEL_CONV_TAPS1(T, acc, q, w, n, k)                                  \
    {                                                                         \
        size_t c_; int t_;                                                    \
        T w_[k];    /* local: the compiler keeps them in registers over the loop */ \
        for (t_ = 0; t_ < (k); ++t_) w_[t_] = (w)[t_];                        \
        _SKEL_SIMD                                                            \
        for (c_ = 0; c_ < (n); ++c_) {                                        \
            T a_ = (acc)[c_];                                                 \
            for (t_ = 0; t_ < (k); ++t_) a_ = _SKEL_FMA(T, w_[t_], (q)[c_ + t_], a_); \
            (acc)[c_] = a_;                                                   \
        }                                                                     \
    }
#define _SKEL_CONV_TAPS2(T, acc0, acc1, q, w0, w1, n, k)                      \
    {                                                                         \
        size_t c_; int t_;                                                    \
        T u_[k], v_[k];                                                       \
        for (t_ = 0; t_ < (k); ++t_) { u_[t_] = (w0)[t_]; v_[t_] = (w1)[t_]; } \
        _SKEL_SIMD                                                            \
        for (c_ = 0; c_ < (n); ++c_) {                                        \
            T a_ = (acc0)[c_], b_ = (acc1)[c_];                               \
            for (t_ = 0; t_ < (k); ++t_) {                                    \
                T x_ = (q)[c_ + t_];                                          \
                a_ = _SKEL_FMA(T, u_[t_], x_, a_);                            \
                b_ = _SKEL_FMA(T, v_[t_], x_, b_);                            \
            }                                                                 \
            (acc0)[c_] = a_; (acc1)[c_] = b_;                                 \
        }                                                                     \
    }
#define _SKEL_CONV_K 8
#define _SKEL_CONV_ROW1(T, acc, q, w, n, W)                                   \
    for (x = 0; x + _SKEL_CONV_K <= (W); x += _SKEL_CONV_K)                   \
        _SKEL_CONV_TAPS1(T, acc, q + x, w + x, n, _SKEL_CONV_K)               \
    if ((W) % _SKEL_CONV_K) _SKEL_CONV_TAPS1(T, acc, q + x, w + x, n, (W) % _SKEL_CONV_K)
#define _SKEL_CONV_ROW2(T, acc0, acc1, q, w0, w1, n, W)                       \
    for (x = 0; x + _SKEL_CONV_K <= (W); x += _SKEL_CONV_K)                   \
        _SKEL_CONV_TAPS2(T, acc0, acc1, q + x, w0 + x, w1 + x, n, _SKEL_CONV_K) \
    if ((W) % _SKEL_CONV_K) _SKEL_CONV_TAPS2(T, acc0, acc1, q + x, w0 + x, w1 + x, n, (W) % _SKEL_CONV_K)
/* GCC and clang: first, strips of outputs stay in registers over the
   whole window: 2 rows x 4 vectors (each input vector loaded once for both
   rows: half the loads of one row, and 8 independent chains of fused
   multiply-adds), or 4 vectors of one row; vectors of the target's width
   (_SKEL_CONV_VB), so that the 8 sums, 4 inputs and a weight fit its 16
   or 32 registers.  2-vCPU AMD EPYC (AVX-512), 2048 x 2048 floats, pool
   (bench/results/conv2d.md): 2 x 4 at 0.90-0.98 of the best hand-written
   loop from 9x9 to 31x31 (0.86 at 7x7), 2 x 2 vectors at 0.83-0.88 from
   7x7 to 15x15 in the same session.  A block's last strip overlaps the one before
   (the same values again) rather than leave its last columns to the loops
   after it, which (the rest of narrow blocks, other compilers) keep
   partial sums in memory between groups of _SKEL_CONV_K taps.  GCC
   contracts a * b + c into fused multiply-adds in ISO C modes only when
   told (_SKEL_CONTRACT_BEGIN). */
#if defined(__GNUC__)
#if defined(__AVX512F__)
#define _SKEL_CONV_VB 64
#elif defined(__AVX__)
#define _SKEL_CONV_VB 32
#else
#define _SKEL_CONV_VB 16
#endif
#define _SKEL_CONV_LD(v, p) __builtin_memcpy(&(v), p, sizeof(v))
#define _SKEL_CONV_ST(p, v) __builtin_memcpy(p, &(v), sizeof(v))
/* the strip's next start, or break after the last: c + S past n starts the
   last strip at n - S */
#define _SKEL_CONV_NEXT(c, n, S)                                              \
    if ((c) + (S) > (n)) {                                                    \
        if ((c) == (n)) break;                                                \
        (c) = (n) - (S);                                                      \
    }
/* x86: a loaded vector stays in its register.  Without this GCC folds the
   load into each multiply-add that uses it (a memory operand): the two
   rows' multiply-adds load every input vector twice, and unaligned loads
   that split cache lines bound the loop (2-vCPU AMD EPYC, 7x7 on 2048 x
   2048 floats, one thread: 8 folded loads a tap for 8 multiply-adds). */
#if defined(__x86_64__) || defined(__i386__)
#define _SKEL_CONV_KEEP(v) __asm__("" : "+v"(v))
#else
#define _SKEL_CONV_KEEP(v) (void)0
#endif
/* a0..3 += wt * the 4 input vectors u0..3 (_SKEL_CONV_LD4 loads them) */
#define _SKEL_CONV_FMA4(wt, a0, a1, a2, a3)                                   \
    { a0 += (wt) * u0; a1 += (wt) * u1; a2 += (wt) * u2; a3 += (wt) * u3; }
#define _SKEL_CONV_LD4(p)                                                     \
    { _SKEL_CONV_LD(u0, p); _SKEL_CONV_LD(u1, (p) + VL); _SKEL_CONV_LD(u2, (p) + 2 * VL); _SKEL_CONV_LD(u3, (p) + 3 * VL); \
      _SKEL_CONV_KEEP(u0); _SKEL_CONV_KEEP(u1); _SKEL_CONV_KEEP(u2); _SKEL_CONV_KEEP(u3); }
#define _SKEL_CONV_ST4(p, a0, a1, a2, a3)                                     \
    { _SKEL_CONV_ST(p, a0); _SKEL_CONV_ST((p) + VL, a1); _SKEL_CONV_ST((p) + 2 * VL, a2); _SKEL_CONV_ST((p) + 3 * VL, a3); }
#define _SKEL_CONV_VEC(T, dR, W, q, is, w, r0, r1, rows, n, c)                \
    {                                                                         \
        typedef T v_t __attribute__((vector_size(_SKEL_CONV_VB)));            \
        enum { VL = _SKEL_CONV_VB / sizeof(T), S = 4 * VL };                  \
        v_t a0, a1, a2, a3, b0, b1, b2, b3, u0, u1, u2, u3;                   \
        if (n >= S)                                                           \
            for (;; c += S) {                                                 \
                _SKEL_CONV_NEXT(c, n, S)                                      \
                a0 = a1 = a2 = a3 = b0 = b1 = b2 = b3 = (v_t){ 0 };           \
                if (rows == 2) {                                              \
                    for (y = 0; y <= 2 * (dR) + 1; ++y) {   /* output row 0's window row y, 1's y - 1 */ \
                        const T *qy = q + y * is + c, *w0 = w + y * W, *w1 = y ? w0 - W : w0; \
                        if (y > 0 && y <= 2 * (dR))                           \
                            for (x = 0; x < W; ++x) {                         \
                                _SKEL_CONV_LD4(qy + x)                        \
                                _SKEL_CONV_FMA4(w0[x], a0, a1, a2, a3) \
                                _SKEL_CONV_FMA4(w1[x], b0, b1, b2, b3) \
                            }                                                 \
                        else if (y == 0)                                      \
                            for (x = 0; x < W; ++x) {                         \
                                _SKEL_CONV_LD4(qy + x)                        \
                                _SKEL_CONV_FMA4(w0[x], a0, a1, a2, a3) \
                            }                                                 \
                        else                                                  \
                            for (x = 0; x < W; ++x) {                         \
                                _SKEL_CONV_LD4(qy + x)                        \
                                _SKEL_CONV_FMA4(w1[x], b0, b1, b2, b3) \
                            }                                                 \
                    }                                                         \
                    _SKEL_CONV_ST4(r1 + c, b0, b1, b2, b3)                    \
                } else                                                        \
                    for (y = 0; y <= 2 * (dR); ++y) {                         \
                        const T *qy = q + y * is + c, *wy = w + y * W;        \
                        for (x = 0; x < W; ++x) {                             \
                            _SKEL_CONV_LD4(qy + x)                            \
                            _SKEL_CONV_FMA4(wy[x], a0, a1, a2, a3)    \
                        }                                                     \
                    }                                                         \
                _SKEL_CONV_ST4(r0 + c, a0, a1, a2, a3)                        \
            }                                                                 \
    }
#else
#define _SKEL_CONV_VEC(T, dR, W, q, is, w, r0, r1, rows, n, c)
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define _SKEL_CONTRACT_BEGIN _Pragma("GCC push_options") _Pragma("GCC optimize (\"fp-contract=fast\")")
#define _SKEL_CONTRACT_END _Pragma("GCC pop_options")
#else
#define _SKEL_CONTRACT_BEGIN
#define _SKEL_CONTRACT_END
#endif
#define _SKEL_OV2_CONV_BLOCK(name, T, dR, dC)                                 \
    _SKEL_CONTRACT_BEGIN                                                      \
    static void _skel_ov2b_##name(const _skel_job *j, void *out, size_t os, const void *in, ptrdiff_t is, \
                                  size_t row, size_t col, size_t rows, size_t n) \
    {                                                                         \
        enum { W = 2 * (dC) + 1 };                                            \
        const T *w = (const T *)j->weights;                                   \
        const T *q = (const T *)in - (dR) * is - (dC);                        \
        T *_SKEL_RESTRICT r0 = (T *)out, *_SKEL_RESTRICT r1 = r0 + os;        \
        size_t c = 0;                                                         \
        int y, x;                                                             \
        (void)row; (void)col;                                                 \
        _SKEL_CONV_VEC(T, dR, W, q, is, w, r0, r1, rows, n, c)                \
        if (c == n) return;     /* no remainder: an edge block, most rows */ \
        q += c; r0 += c; r1 += c; n -= c;                                     \
        for (c = 0; c < n; ++c) r0[c] = 0;                                    \
        if (rows < 2) {                                                       \
            for (y = 0; y <= 2 * (dR); ++y) {                                 \
                const T *_SKEL_RESTRICT qy = q + y * is, *wy = w + y * W;    \
                _SKEL_CONV_ROW1(T, r0, qy, wy, n, W)                          \
            }                                                                 \
            return;                                                           \
        }                                                                     \
        for (c = 0; c < n; ++c) r1[c] = 0;                                    \
        for (y = 0; y <= 2 * (dR) + 1; ++y) {   /* input row y: output row 0's window row y, 1's y - 1 */ \
            const T *_SKEL_RESTRICT qy = q + y * is, *w0 = w + y * W, *w1 = y ? w0 - W : w0; \
            if (y == 0) { _SKEL_CONV_ROW1(T, r0, qy, w0, n, W) }             \
            else if (y > 2 * (dR)) { _SKEL_CONV_ROW1(T, r1, qy, w1, n, W) }   \
            else { _SKEL_CONV_ROW2(T, r0, r1, qy, w0, w1, n, W) }             \
        }                                                                     \
    }                                                                         \
    _SKEL_CONTRACT_END
#define _SKEL_OV2_INST(name, func, T, dR, dC, wmode, index, views, uniform, isconv) \
    static void _skel_ov2_##name(const _skel_job *j, size_t rlo, size_t rhi)  \
    {                                                                         \
        T tile[(2 * (dR) + _SKEL_OV2_SLAB(sizeof(T))) * (2 * (dC) + _SKEL_OV2_EDGE(sizeof(T)))]; \
        _skel_ov2_drive(j, rlo, rhi, dR, dC, sizeof(T), _skel_ov2b_##name, tile); \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_OVERLAP2D, SKEL_TYPES(T), SKEL_TYPES(T), index, views, uniform), \
        .dr = (dR), .dc = (dC), .weighted = (wmode), .conv = (isconv),        \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .overlap2d = _skel_ov2_##name } }};
#define SKEL_OVERLAP2D_X(name, func, T, dR, dC, wmode, index, views, uniform) \
    _SKEL_OV2_USER_BLOCK(name, func, T, dR, dC, wmode, index, views, uniform) \
    _SKEL_OV2_INST(name, func, T, dR, dC, wmode, index, views, uniform, 0)
#define SKEL_OVERLAP2D_EX(name, func, T, dR, dC, wmode, uniform)              \
    SKEL_OVERLAP2D_X(name, func, T, dR, dC, wmode, SKEL_NO_INDEX, SKEL_NO_VIEWS, uniform)
#define SKEL_OVERLAP2D(name, func, T, dR, dC)                                 \
    SKEL_OVERLAP2D_EX(name, func, T, dR, dC, SKEL_UNWEIGHTED, SKEL_NO_UNIFORM)
/* 2D convolution: r[i,j] = sum over the neighbourhood of w * a.  The
   function's text is the GPU's shared-memory tile kernel's (small windows,
   SKEL_TILING_SHARED); the CPU and the GPU's register-tiled kernel compute
   the same sum in their own loops (.conv). */
#define SKEL_CONV2D(name, T, dR, dC)                                          \
    _SKEL_FUNC_SRC(T, _skel_conv_##name, (const T *a, skel_index stride, const T *w), \
        T s = 0; int y, x;                                                    \
        for (y = -(dR); y <= (dR); ++y)                                       \
            for (x = -(dC); x <= (dC); ++x)                                   \
                s += w[y * (2 * (dC) + 1) + x] * a[y * stride + x];           \
        return s;)                                                            \
    _SKEL_OV2_CONV_BLOCK(name, T, dR, dC)                                     \
    _SKEL_OV2_INST(name, _skel_conv_##name, T, dR, dC, SKEL_WEIGHTED, SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM, 1)

/* ---- MapOverlap 3D non-separable ---- */
/* the (2dD+1) x (2dR+1) x (2dC+1) window around (p, row, c) under the edge policy */
#define _SKEL_WIN3(dD, dR, dC)                                                \
    for (z_ = -(dD); z_ <= (dD); ++z_) {                                      \
        int in_p = _skel_edge_at((ptrdiff_t)p + z_, D, j->edge, &ap_);        \
        for (y_ = -(dR); y_ <= (dR); ++y_) {                                  \
            int in_r = in_p && _skel_edge_at((ptrdiff_t)row + y_, R, j->edge, &ar_); \
            for (x_ = -(dC); x_ <= (dC); ++x_)                                \
                win[(size_t)(z_ + (dD)) * WP + (size_t)(y_ + (dR)) * W + (size_t)(x_ + (dC))] = \
                    in_r && _skel_edge_at((ptrdiff_t)c + x_, C, j->edge, &ac_) ? s[(ap_ * R + ar_) * C + ac_] : cv_; \
        }                                                                     \
    }
#define _SKEL_OV3_AT(func, index, views, u, pt, rs, ps)                       \
    r0[o_] = _SKEL_CALLF(func, ~ _SKEL_FIX(index, o_), pt, rs, ps _SKEL_XARGS(views, u));
#define SKEL_OVERLAP3D_X(name, func, T, dD, dR, dC, index, views, uniform)    \
    static void _skel_ov3_##name(const _skel_job *j, size_t plo, size_t phi)  \
    {                                                                         \
        const T *s = (const T *)j->in[0];                                     \
        T *r0 = (T *)j->out[0], win[(2 * (dD) + 1) * (2 * (dR) + 1) * (2 * (dC) + 1)]; \
        static const T zero_;                                                 \
        const T cv_ = j->edge_value ? *(const T *)j->edge_value : zero_;      \
        int z_, y_, x_; size_t ap_ = 0, ar_ = 0, ac_ = 0, o_;                 \
        const size_t D = j->depth, R = j->rows, C = j->cols, W = 2 * (dC) + 1, WP = W * (2 * (dR) + 1); \
        const skel_index RS = (skel_index)C, PS = (skel_index)(R * C);        \
        size_t p, row, c, cfirst = (size_t)(dC) < C ? (size_t)(dC) : C;       \
        size_t clast = C > (size_t)(dC) ? C - (size_t)(dC) : 0;               \
        _SKEL_XDECL(views, uniform)                                           \
        for (p = plo; p < phi; ++p)                                           \
            for (row = 0; row < R; ++row) {                                   \
                int inner = p >= (size_t)(dD) && p + (size_t)(dD) < D && row >= (size_t)(dR) && row + (size_t)(dR) < R; \
                for (c = 0; c < C; ++c) {                                     \
                    o_ = (p * R + row) * C + c;                               \
                    if (inner && c >= cfirst && c < clast) {                  \
                        for (; c < clast; ++c, ++o_) _SKEL_OV3_AT(func, index, views, uniform, s + o_, RS, PS) \
                        if (c >= C) break;                                    \
                    }                                                         \
                    _SKEL_WIN3(dD, dR, dC)                                    \
                    _SKEL_OV3_AT(func, index, views, uniform, win + (dD) * WP + (dR) * W + (dC), (skel_index)W, (skel_index)WP) \
                }                                                             \
            }                                                                 \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_OVERLAP3D, SKEL_TYPES(T), SKEL_TYPES(T), index, views, uniform), \
        .dd = (dD), .dr = (dR), .dc = (dC), .func_name = #func, .func_src = _skel_src_##func, \
        .cpu = { .overlap3d = _skel_ov3_##name } }};
#define SKEL_OVERLAP3D(name, func, T, dD, dR, dC)                             \
    SKEL_OVERLAP3D_X(name, func, T, dD, dR, dC, SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)

/* ---- MapArray ---- */
#define SKEL_MAPARRAY_X(name, func, T, index, views, uniform)                 \
    static void _skel_ma_##name(const _skel_job *j, size_t lo, size_t hi)    \
    {                                                                         \
        const T *v = (const T *)j->in[0], *a1 = (const T *)j->in[1];          \
        T *r = (T *)j->out[0];                                                \
        size_t i;                                                             \
        _SKEL_XDECL(views, uniform)                                           \
        for (i = lo; i < hi; ++i)                                             \
            r[i] = _SKEL_CALLF(func, ~ _SKEL_FIX(index, i), v, a1[i] _SKEL_XARGS(views, uniform)); \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST(name, SKEL_KIND_MAPARRAY, SKEL_TYPES(T), SKEL_TYPES(T, T), index, views, uniform), \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .map = _skel_ma_##name } }};
#define SKEL_MAPARRAY_EX(name, func, T, uniform) SKEL_MAPARRAY_X(name, func, T, SKEL_NO_INDEX, SKEL_NO_VIEWS, uniform)
#define SKEL_MAPARRAY(name, func, T) SKEL_MAPARRAY_EX(name, func, T, SKEL_NO_UNIFORM)

/* ---- MapPairs, MapPairsReduce ---- */
/* index arguments of the pair (r, c) of an R x C result */
#define _SKEL_PIX_0(r, c)
#define _SKEL_PIX_1(r, c) , (skel_index)((r) * j->cols + (c))
#define _SKEL_PIX_2(r, c) , (skel_index)(r), (skel_index)(c)
#define _SKEL_PAIR_CALL(func, rins, cins, index, views, u)                    \
    _SKEL_CALLF(func, ~ _SKEL_CAT(_SKEL_PIX_, index)(r, c) _SKEL_REP(_SKEL_RELEM, rins) \
                _SKEL_REP(_SKEL_CELEM, cins) _SKEL_XARGS(views, u))
#define _SKEL_PAIR_DECLS(rins, cins, views, u)                                \
    _SKEL_REP(_SKEL_DECL_IN, rins) _SKEL_REPX(_SKEL_DECL_CIN, cins, _SKEL_LN(rins)) _SKEL_XDECL(views, u)
#define _SKEL_PIN_C(k, T, off) .in_t[(off) + k] = _SKEL_TINFO(T),
#define _SKEL_PAIRS_INST(name, kind, Tacc, rins, cins, index, views, u)       \
    .nin = _SKEL_LN(rins) + _SKEL_LN(cins), .nrow = _SKEL_LN(rins),           \
    _SKEL_REP(_SKEL_IN_T, rins) _SKEL_REPX(_SKEL_PIN_C, cins, _SKEL_LN(rins)) \
    _SKEL_INST_BASE(name, kind, SKEL_TYPES(Tacc), index, views, u)
/* MapPairs: out[r][c] = func([index] rins[..][r].., cins[..][c].. [views] [uniform]) */
#define SKEL_MAPPAIRS_X(name, func, Tout, rins, cins, index, views, uniform)  \
    static void _skel_mp_##name(const _skel_job *j, size_t rlo, size_t rhi)   \
    {                                                                         \
        size_t r, c, C = j->cols;                                             \
        Tout *out = (Tout *)j->out[0];                                        \
        _SKEL_PAIR_DECLS(rins, cins, views, uniform)                          \
        for (r = rlo; r < rhi; ++r)                                           \
            for (c = 0; c < C; ++c) out[r * C + c] = _SKEL_PAIR_CALL(func, rins, cins, index, views, uniform); \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_PAIRS_INST(name, SKEL_KIND_MAPPAIRS, Tout, rins, cins, index, views, uniform), \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .pairs = _skel_mp_##name } }};
#define SKEL_MAPPAIRS(name, func, Tout, rins, cins)                           \
    SKEL_MAPPAIRS_X(name, func, Tout, rins, cins, SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
/* MapPairsReduce: out[r] = func(r, 0) (+) .. (+) func(r, C-1) (call.direction
   SKEL_ROWS) or out[c] = func(0, c) (+) .. (+) func(R-1, c) (SKEL_COLS); the
   value functions hold one of r, c fixed (p->fix) and run along the other */
#define SKEL_MAPPAIRSREDUCE_X(name, mapf, redf, Tacc, rins, cins, index, views, uniform) \
    static inline Tacc _skel_pvr_##name(const _skel_pctx *p, size_t c)        \
    {                                                                         \
        const _skel_job *j = p->j;                                            \
        size_t r = p->fix;                                                    \
        _SKEL_PAIR_DECLS(rins, cins, views, uniform)                          \
        return _SKEL_PAIR_CALL(mapf, rins, cins, index, views, uniform);      \
    }                                                                         \
    static inline Tacc _skel_pvc_##name(const _skel_pctx *p, size_t r)        \
    {                                                                         \
        const _skel_job *j = p->j;                                            \
        size_t c = p->fix;                                                    \
        _SKEL_PAIR_DECLS(rins, cins, views, uniform)                          \
        return _SKEL_PAIR_CALL(mapf, rins, cins, index, views, uniform);      \
    }                                                                         \
    static void _skel_mprr_##name(const _skel_pctx *p, size_t n, void *acc)   \
    _SKEL_REDUCE_BODY(Tacc, redf, _skel_pvr_##name, p, 0, n, 0, acc)          \
    static void _skel_mprc_##name(const _skel_pctx *p, size_t n, void *acc)   \
    _SKEL_REDUCE_BODY(Tacc, redf, _skel_pvc_##name, p, 0, n, 0, acc)          \
    static void _skel_mpr_##name(const _skel_job *j, size_t lo, size_t hi)    \
    {                                                                         \
        Tacc *out = (Tacc *)j->out[0];                                        \
        _skel_pctx p;                                                         \
        p.j = j;                                                              \
        for (p.fix = lo; p.fix < hi; ++p.fix)                                 \
            if (j->dir == SKEL_COLS) _skel_mprc_##name(&p, j->rows, out + p.fix); \
            else _skel_mprr_##name(&p, j->cols, out + p.fix);                 \
    }                                                                         \
    _SKEL_COMBINE_FN(name, redf, Tacc)                                        \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_PAIRS_INST(name, SKEL_KIND_MAPPAIRSREDUCE, Tacc, rins, cins, index, views, uniform), \
        .func_name = #mapf, .func_src = _skel_src_##mapf,                     \
        .red_name = #redf, .red_src = _skel_src_##redf,                       \
        .cpu = { .pairs = _skel_mpr_##name, .combine = _skel_comb_##name } }};
#define SKEL_MAPPAIRSREDUCE(name, mapf, redf, Tacc, rins, cins)               \
    SKEL_MAPPAIRSREDUCE_X(name, mapf, redf, Tacc, rins, cins, SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)

#ifdef __cplusplus
}
#endif
#endif /* SKEL_H */

/* ======================================================================
   IMPLEMENTATION
   ====================================================================== */
#if defined(SKEL_IMPLEMENTATION) && !defined(_SKEL_IMPL_DONE)
#define _SKEL_IMPL_DONE

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
/* readlink, fsync, kill and fileno need POSIX 2001: absent when system
   headers came first in strict C99 (plan files then go to
   ./skel.skelplans, are not synced before the rename, cache load marks
   never count as stale, and pool workers do not block signals: the
   signal set functions are POSIX too). */
#if defined(__GLIBC__)      /* what features.h enabled, not what was asked later */
#if defined(__USE_XOPEN2K) && defined(__USE_POSIX)
#define _SKEL_POSIX2001 1
#else
#define _SKEL_POSIX2001 0
#endif
#elif (defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L) || defined(_XOPEN_SOURCE) || defined(_GNU_SOURCE)
#define _SKEL_POSIX2001 1
#else
#define _SKEL_POSIX2001 0
#endif
/* The CPU affinity calls (the pool's CPU count, SKEL_PIN, stepping off a
   caller's CPU) need GNU extensions: on glibc what features.h enabled
   (_GNU_SOURCE defined before the first system header), elsewhere the
   macro itself. */
#if defined(__linux__) && (defined(__GLIBC__) ? defined(__USE_GNU) : defined(_GNU_SOURCE))
#define _SKEL_LINUX_GNU 1
#include <sched.h>
#else
#define _SKEL_LINUX_GNU 0
#endif

#if defined(_OPENMP) && !defined(SKEL_NO_OPENMP)
#include <omp.h>
#define _SKEL_OMP 1
#else
#define _SKEL_OMP 0
#endif

#ifndef SKEL_MALLOC
#define SKEL_MALLOC(n) malloc(n)
#define SKEL_REALLOC(p, n) realloc(p, n)
#define SKEL_FREE(p) free(p)
#endif
#ifndef SKEL_ASSERT
#include <assert.h>
#define SKEL_ASSERT(c) assert(c)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define _SKEL_TLS __thread
#define _SKEL_HAVE_TLS 1
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define _SKEL_TLS _Thread_local
#define _SKEL_HAVE_TLS 1
#else
#define _SKEL_TLS
#define _SKEL_HAVE_TLS 0
#endif

#define _SKEL_MAX_SPACES SKEL_MAX_SPACES
#define _SKEL_MAX_BACKENDS 16

/* Loads and stores of a word other threads may read or write at the same
   time without a lock (the registry's counts, an instance's plan), an
   atomic add, and the full fence that follows a _SKEL_ADD where another
   thread's write must be seen (free on x86: a locked instruction is one).
   Other compilers get plain accesses. */
#if defined(__GNUC__) || defined(__clang__)
#define _SKEL_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define _SKEL_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define _SKEL_ADD(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)   /* the new value */
#if defined(__x86_64__) || defined(__i386__)
#define _SKEL_FENCE_RMW() __atomic_signal_fence(__ATOMIC_SEQ_CST)   /* the locked instruction was one */
#else
#define _SKEL_FENCE_RMW() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#else
#define _SKEL_LOAD(p) (*(p))
#define _SKEL_STORE(p, v) (*(p) = (v))
#define _SKEL_ADD(p, v) (*(p) += (v))
#define _SKEL_FENCE_RMW() ((void)0)
#endif

/* ---------------------------------------------------------------------
   base: errors, logging, environment, time
   --------------------------------------------------------------------- */
static _SKEL_TLS char _skel_errbuf[1024];
static skel_log_fn _skel_log_sink;              /* guarded by _skel_log_lock */
static void *_skel_log_user;
static pthread_mutex_t _skel_log_lock = PTHREAD_MUTEX_INITIALIZER;
static int _skel_verbose;                       /* SKEL_VERBOSE, read once (_skel_verbose_once) */
static pthread_once_t _skel_verbose_once = PTHREAD_ONCE_INIT;

const char *skel_error_string(int status)
{
    switch (status) {
    case SKEL_OK: return "SKEL_OK: success";
    case SKEL_EINVAL: return "SKEL_EINVAL: invalid argument";
    case SKEL_ESIZE: return "SKEL_ESIZE: operand sizes do not match";
    case SKEL_ETYPE: return "SKEL_ETYPE: element type does not match";
    case SKEL_ESHAPE: return "SKEL_ESHAPE: wrong container shape (matrix vs vector)";
    case SKEL_ENOMEM: return "SKEL_ENOMEM: out of memory";
    case SKEL_EBACKEND: return "SKEL_EBACKEND: unknown or unavailable backend";
    case SKEL_EEMPTY: return "SKEL_EEMPTY: reduction of an empty container";
    case SKEL_ECOMPILE: return "SKEL_ECOMPILE: kernel compilation failed";
    case SKEL_EDEVICE: return "SKEL_EDEVICE: GPU driver call failed";
    case SKEL_EIO: return "SKEL_EIO: file input/output failed";
    case SKEL_EFORMAT: return "SKEL_EFORMAT: bad file format";
    case SKEL_EUNSUPPORTED: return "SKEL_EUNSUPPORTED: not supported (by the skeleton, or by this backend or device)";
    case SKEL_EDEPEND: return "SKEL_EDEPEND: not run: a call or task it depends on failed";
    default: return "unknown skel status";
    }
}

const char *skel_last_error(void) { return _skel_errbuf; }

void skel_set_log(skel_log_fn fn, void *user)
{
    pthread_mutex_lock(&_skel_log_lock);
    _skel_log_sink = fn;
    _skel_log_user = user;
    pthread_mutex_unlock(&_skel_log_lock);
}

/* A message to the log sink; without one, to stderr when always is set or
   the level is within SKEL_VERBOSE's. */
static void _skel_vlog(int level, int always, const char *fmt, va_list ap)
{
    char msg[2048];
    skel_log_fn sink;
    void *user;
    pthread_mutex_lock(&_skel_log_lock);
    sink = _skel_log_sink;
    user = _skel_log_user;
    pthread_mutex_unlock(&_skel_log_lock);
    if (!sink && !always && (_skel_verbose <= 0 || level > _skel_verbose + 1)) return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (sink) sink(level, msg, user);
    else fprintf(stderr, "skel: %s\n", msg);
}

/* A bad environment value: always said (a setting the user made is being
   ignored), through the sink or on stderr, whatever SKEL_VERBOSE says. */
static void _skel_env_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    _skel_vlog(SKEL_LOG_WARN, 1, fmt, ap);
    va_end(ap);
}

/* The integer value of environment variable name in 0..max, or fallback
   when it is unset; a value that is empty, not a number or out of range is
   ignored with a warning naming it. */
static int _skel_env_int_max(const char *name, int fallback, long max)
{
    const char *v = getenv(name);
    char *end;
    long x;
    if (!v) return fallback;
    errno = 0;
    x = strtol(v, &end, 10);
    if (*v && *end == 0 && errno == 0 && x >= 0 && x <= max) return (int)x;
    _skel_env_warn("%s=\"%s\" is not a whole number in 0..%ld; ignored (using %d)", name, v, max, fallback);
    return fallback;
}
static int _skel_env_int(const char *name, int fallback) { return _skel_env_int_max(name, fallback, (1L << 30) - 1); }

static void _skel_verbose_read(void) { _skel_verbose = _skel_env_int_max("SKEL_VERBOSE", 0, 3); }

/* 1 when a message of this level goes anywhere (a sink, or SKEL_VERBOSE
   asks for it): a caller that formats much asks first. */
static int _skel_log_wanted(int level)
{
    int sink;
    pthread_once(&_skel_verbose_once, _skel_verbose_read);
    pthread_mutex_lock(&_skel_log_lock);
    sink = _skel_log_sink != NULL;
    pthread_mutex_unlock(&_skel_log_lock);
    return sink || (_skel_verbose > 0 && level <= _skel_verbose + 1);
}

static void _skel_log(int level, const char *fmt, ...)
{
    va_list ap;
    pthread_once(&_skel_verbose_once, _skel_verbose_read);
    va_start(ap, fmt);
    _skel_vlog(level, 0, fmt, ap);
    va_end(ap);
}

#define _SKEL_TRY(x) do { int rc_ = (x); if (rc_ != SKEL_OK) return rc_; } while (0)
#define _SKEL_BAD(code, ...) return _skel_fail(code, __VA_ARGS__)

/* Record a failure for skel_last_error() and return its code. */
static int _skel_fail(int code, const char *fmt, ...)
{
    char msg[sizeof _skel_errbuf];    /* the arguments may quote the last error: format aside first */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    memcpy(_skel_errbuf, msg, sizeof msg);
    _skel_log(SKEL_LOG_WARN, "%s (%s)", _skel_errbuf, skel_error_string(code));
    return code;
}

/* Return the status of x when it failed. */
#define _SKEL_TRY(x) do { int rc_ = (x); if (rc_ != SKEL_OK) return rc_; } while (0)

/* _skel_fail, keeping the last failure's detail after the new text:
   "<fmt>: <what skel_last_error() said>" (the common "while doing X" wrap). */
static int _skel_fail_wrap(int code, const char *fmt, ...)
{
    char inner[sizeof _skel_errbuf];
    size_t n;
    va_list ap;
    memcpy(inner, _skel_errbuf, sizeof inner);
    va_start(ap, fmt);
    vsnprintf(_skel_errbuf, sizeof _skel_errbuf, fmt, ap);
    va_end(ap);
    n = strlen(_skel_errbuf);
    if (inner[0] && n + 3 < sizeof _skel_errbuf) {     /* ": " and what fits of the detail */
        size_t k = strlen(inner), room = sizeof _skel_errbuf - n - 3;
        memcpy(_skel_errbuf + n, ": ", 2);
        memcpy(_skel_errbuf + n + 2, inner, k < room ? k : room);
        _skel_errbuf[n + 2 + (k < room ? k : room)] = 0;
    }
    _skel_log(SKEL_LOG_WARN, "%s (%s)", _skel_errbuf, skel_error_string(code));
    return code;
}

/* Seconds on a monotonic clock. */
double _skel_now(void)
{
#ifdef CLOCK_MONOTONIC
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else   /* system headers were included before skel.h without POSIX */
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* Files, hashing and the on-disk cache directory shared by the GPU backends
   (kernel caches) and plan files.  Plan and cache folders may be writable
   by others (a shared cache, a plan folder beside a shared executable), so
   files are read only when they are regular files (a FIFO would block the
   process), and written through a temporary file created exclusively under
   an unpredictable name (never through a link someone planted there).

   _skel_hash(h, data, n)     FNV-1a/64 over n bytes, continuing from h
                              (start with _SKEL_HASH_SEED), lightly finalised;
   _skel_hash_str(h, s)       the same over a string and its terminating 0.
   _skel_cache_dir()          the cache directory, created on first use:
                              $SKEL_CACHE_DIR ("off" disables), else
                              $XDG_CACHE_HOME/skel, else ~/.cache/skel; ""
                              when disabled or unusable (a missing cache only
                              costs compile time; why is logged).
   _skel_write_atomic(path, a, na, b, nb, sync)   writes a then b (nb may be
                              0) to a new temporary file beside path
                              (O_EXCL: never through a link; fsync'd when
                              sync), then renames it over path, so readers
                              see the old file or the new one, and two
                              writers never share a file; SKEL_OK, or
                              SKEL_EIO with skel_last_error set.
   _skel_load_file(path, max, &buf, &size, why, whylen)   the whole regular
                              file (plus a 0 byte; SKEL_FREE it): SKEL_OK;
                              SKEL_EIO when missing, unreadable or not a
                              regular file (errno ENOENT: missing), SKEL_EFORMAT
                              when over max bytes (0: no limit), SKEL_ENOMEM;
                              why says which.  Never blocks on a FIFO.
   _skel_read_file(path, &size)  the same for caches: NULL on any failure
                              (logged, unless the file is just missing).
   _skel_cache_mark(path), _skel_cache_unmark(path)   bracket the load of a
                              cache entry that may crash the process (a
                              driver asserting on a bad binary): mark 1
                              means an earlier process died loading it, and
                              the entry and its mark are gone (rebuild it).
   (Not static: a program that uses none of them must still build -Werror.) */
#define _SKEL_HASH_SEED 0xcbf29ce484222325ULL
#define _SKEL_FNV_SEED _SKEL_HASH_SEED

/* FNV-1a, 64 bits, continuing from h: the checksum of skel's binary files. */
static uint64_t _skel_fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = (const unsigned char *)data;
    size_t i;
    for (i = 0; i < n; ++i) { h ^= p[i]; h *= 0x100000001b3ULL; }
    return h;
}

uint64_t _skel_hash(uint64_t h, const void *data, size_t n)
{
    h = _skel_fnv1a(data, n, h);
    h ^= h >> 29;  /* FNV's low bits mix poorly */
    return h;
}
uint64_t _skel_hash_str(uint64_t h, const char *s) { return _skel_hash(h, s, strlen(s) + 1); }

const char *_skel_cache_dir(void)
{
    static char dir[1024];
    static uint64_t seen;           /* hash of the SKEL_CACHE_DIR the decision was made for */
    static int state = 0;           /* 0 unknown, 1 usable, 2 unusable */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    const char *env, *home;
    struct stat st;
    uint64_t h;
    char *p;
    pthread_mutex_lock(&lock);
    env = getenv("SKEL_CACHE_DIR");
    h = env ? _skel_hash_str(_SKEL_HASH_SEED, env) : 1;
    if (h != seen) {                /* (re)decide when SKEL_CACHE_DIR changes */
        seen = h;
        state = 0;
    }
    if (state) { pthread_mutex_unlock(&lock); return state == 1 ? dir : ""; }
    state = 2;
    dir[0] = 0;
    if (env && *env) {
        if (strlen(env) >= sizeof dir)
            _skel_log(SKEL_LOG_WARN, "SKEL_CACHE_DIR is %zu characters long (at most %zu): no kernel cache",
                      strlen(env), sizeof dir - 1);
        else if (strcmp(env, "off") != 0)
            snprintf(dir, sizeof dir, "%s", env);
    } else if ((env = getenv("XDG_CACHE_HOME")) && *env && strlen(env) + 6 < sizeof dir) {
        snprintf(dir, sizeof dir, "%s/skel", env);
    } else if ((home = getenv("HOME")) && *home && strlen(home) + 13 < sizeof dir) {
        snprintf(dir, sizeof dir, "%s/.cache/skel", home);
    }
    if (dir[0]) {
        for (p = dir + 1; *p; ++p)      /* mkdir -p */
            if (*p == '/') { *p = 0; mkdir(dir, 0755); *p = '/'; }
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            _skel_log(SKEL_LOG_WARN, "cache directory %s cannot be created (%s); compiling every run", dir,
                      strerror(errno));
        else if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            _skel_log(SKEL_LOG_WARN, "cache directory %s is not a directory; compiling every run", dir);
        else {
            if (access(dir, W_OK | X_OK) != 0)
                _skel_log(SKEL_LOG_WARN, "cache directory %s is not writable; cached kernels are read only", dir);
            state = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return state == 1 ? dir : "";
}

/* A new file beside path, created exclusively (O_EXCL fails on any
   existing name, a planted link included) under a name nobody can guess in
   advance; its name in tmp.  The fd, or -1 with errno set. */
static int _skel_create_temp(const char *path, char *tmp, size_t size)
{
    static unsigned long counter;   /* guarded by lock */
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    uint64_t r;
    unsigned long n;
    int attempt, fd = -1, flags = O_WRONLY | O_CREAT | O_EXCL;
#ifdef O_NOFOLLOW
    flags |= O_NOFOLLOW;
#endif
#ifdef O_CLOEXEC
    flags |= O_CLOEXEC;
#endif
    for (attempt = 0; attempt < 64 && fd < 0; ++attempt) {
        double now = _skel_now();
        pthread_mutex_lock(&lock);
        n = counter++;
        pthread_mutex_unlock(&lock);
        r = _skel_hash(_SKEL_HASH_SEED, &now, sizeof now);
        r = _skel_hash(r, &n, sizeof n);
        r = _skel_hash(r, &tmp, sizeof tmp);    /* a stack address: ASLR */
        n = (unsigned long)getpid();
        r = _skel_hash(r, &n, sizeof n);
        if (snprintf(tmp, size, "%s.tmp.%016llx", path, (unsigned long long)r) >= (int)size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        fd = open(tmp, flags, 0644);
        if (fd < 0 && errno != EEXIST) return -1;
    }
    return fd;
}

static int _skel_write_all(int fd, const void *data, size_t n)
{
    const char *p = (const char *)data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int _skel_write_atomic(const char *path, const void *a, size_t na, const void *b, size_t nb, int sync)
{
    char tmp[4200];
    int fd, ok, e;
    if ((fd = _skel_create_temp(path, tmp, sizeof tmp)) < 0)
        return _skel_fail(SKEL_EIO, "cannot create a temporary file beside %s: %s", path, strerror(errno));
    ok = _skel_write_all(fd, a, na) == 0 && (!nb || _skel_write_all(fd, b, nb) == 0);
#if _SKEL_POSIX2001
    if (ok && sync) ok = fsync(fd) == 0;
#else
    (void)sync;
#endif
    e = errno;
    ok = (close(fd) == 0) && ok;
    if (ok && rename(tmp, path) == 0) return SKEL_OK;
    e = ok ? errno : e;
    unlink(tmp);
    return _skel_fail(SKEL_EIO, "cannot write %s: %s", path, strerror(e));
}

int _skel_load_file(const char *path, size_t max, unsigned char **out, size_t *size, char *why, size_t whylen)
{
    struct stat st;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    int fd, flags = O_RDONLY | O_NONBLOCK, rc = SKEL_OK;
#ifdef O_CLOEXEC
    flags |= O_CLOEXEC;
#endif
    *out = NULL;
    *size = 0;
    if ((fd = open(path, flags)) < 0) {
        snprintf(why, whylen, "%s", strerror(errno));
        return SKEL_EIO;
    }
    if (fstat(fd, &st) != 0) st.st_mode = 0;
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "not a regular file%s", S_ISFIFO(st.st_mode) ? " (a FIFO)" : S_ISDIR(st.st_mode) ? " (a directory)" : "");
        close(fd);
        errno = EINVAL;
        return SKEL_EIO;
    }
    for (;;) {
        ssize_t got;
        if (len + 1 >= cap) {
            unsigned char *q;
            cap = cap ? 2 * cap : (size_t)st.st_size + 2;
            if (max && cap > max + 2) cap = max + 2;
            if (max && len > max) { snprintf(why, whylen, "larger than %zu bytes", max); rc = SKEL_EFORMAT; break; }
            if (!(q = (unsigned char *)SKEL_REALLOC(buf, cap))) { snprintf(why, whylen, "out of memory"); rc = SKEL_ENOMEM; break; }
            buf = q;
        }
        got = read(fd, buf + len, cap - 1 - len);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) { snprintf(why, whylen, "%s", strerror(errno)); rc = SKEL_EIO; break; }
        if (got == 0) break;
        len += (size_t)got;
    }
    close(fd);
    if (rc != SKEL_OK) { SKEL_FREE(buf); return rc; }
    buf[len] = 0;
    *out = buf;
    *size = len;
    return SKEL_OK;
}

unsigned char *_skel_read_file(const char *path, size_t *size)
{
    unsigned char *buf;
    char why[256];
    int rc = _skel_load_file(path, 0, &buf, size, why, sizeof why);
    if (rc != SKEL_OK && !(rc == SKEL_EIO && errno == ENOENT))
        _skel_log(SKEL_LOG_WARN, "cache entry %s cannot be read: %s", path, why);
    return rc == SKEL_OK ? buf : NULL;
}

/* Is process pid alive?  (Without POSIX's kill: assume so.) */
static int _skel_pid_alive(long pid)
{
#if _SKEL_POSIX2001
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
#else
    (void)pid;
    return 1;
#endif
}

int _skel_cache_mark(const char *path)
{
    char mark[4200], text[32], why[64];
    unsigned char *old = NULL;
    size_t n = 0;
    long pid = 0;
    snprintf(mark, sizeof mark, "%s.loading", path);
    if (_skel_load_file(mark, 64, &old, &n, why, sizeof why) == SKEL_OK) {
        pid = strtol((const char *)old, NULL, 10);
        SKEL_FREE(old);
        /* another thread of this process or a live process is loading it:
           load it too (a load that crashes, crashes both, and the mark stays) */
        if (pid == (long)getpid() || _skel_pid_alive(pid)) return 0;
        _skel_log(SKEL_LOG_WARN, "cache entry %s: an earlier process (%ld) died loading it; removing it", path, pid);
        unlink(path);
        unlink(mark);
        return 1;
    }
    snprintf(text, sizeof text, "%ld\n", (long)getpid());
    if (_skel_write_atomic(mark, text, strlen(text), NULL, 0, 0) != SKEL_OK)
        _skel_log(SKEL_LOG_INFO, "cache entry %s: no load mark (%s)", path, _skel_errbuf);
    return 0;
}

void _skel_cache_unmark(const char *path)
{
    char mark[4200];
    snprintf(mark, sizeof mark, "%s.loading", path);
    unlink(mark);
}

/* ---------------------------------------------------------------------
   trace: SKEL_TRACE=file records what ran where and when, transfers
   included (tools/skel_trace draws it as a timeline and sums it up).
   Every thread that records is a *lane* (a CPU worker, a GPU worker, a
   stream stage's worker, the main thread); an event is a span of time on
   a lane, at a place (see "places" below).

   THE API (skel's headers: the task scheduler, stream workers)
   _skel_trace_on()     1 while a trace is recorded (one load once
                        started); build an event only then
   _skel_trace_lane(fmt, ...)   from now on this thread records on the
                        lane of that name ("cpu worker 3", "gpu worker
                        cuda", "stage p worker 2"), made on first use: a
                        lane is a worker, whichever pool thread runs it; a
                        thread that records without naming one gets its
                        own, "thread N"
   _skel_trace_event(kind, place, from, t0, t1, bytes, flags, name)
                        this thread spent t0..t1 (_skel_now() seconds) on
                        `name` (copied: up to 47 characters) at `place`:
                        kind _SKEL_TR_TASK     a skeleton call or user task
                             _SKEL_TR_COPY     bytes moved from place
                                               `from` to `place` (from is
                                               -1 for other kinds)
                             _SKEL_TR_STAGE    a stream stage on one item
                             _SKEL_TR_WAIT     a thread blocked waiting
                        flags (or'ed): _SKEL_TR_MODEL (placed by a
                        performance model), _SKEL_TR_FALLBACK (placed
                        without one), _SKEL_TR_CALIBRATE (placed to
                        measure an uncalibrated place), _SKEL_TR_FAILED,
                        _SKEL_TR_NOTRUN (an input's producer failed)
   _skel_trace_flush()  write the file now (it is also written at exit):
                        SKEL_OK, or SKEL_EIO with skel_last_error set
   The file is text, one record a line, times in microseconds since the
   trace began, written whole through _skel_write_atomic:
       skeltrace 1
       place P NAME                         every place an event names
       lane L NAME
       ev L KIND PLACE FROM T0 T1 BYTES FLAGS NAME
       dropped N                            events past the limit (4M)
   KIND is one letter: T task, C copy, S stage, W wait.
   Events go to one buffer under one mutex: tracing costs about a lock
   per event, and nothing when off.
   --------------------------------------------------------------------- */
enum { _SKEL_TR_TASK = 'T', _SKEL_TR_COPY = 'C', _SKEL_TR_STAGE = 'S', _SKEL_TR_WAIT = 'W' };
enum { _SKEL_TR_MODEL = 1, _SKEL_TR_FALLBACK = 2, _SKEL_TR_CALIBRATE = 4, _SKEL_TR_FAILED = 8, _SKEL_TR_NOTRUN = 16 };
#define _SKEL_TRACE_MAX_EVENTS (4u << 20)
#define _SKEL_TRACE_LANES 1024

typedef struct _skel_trev {
    double t0, t1;
    uint64_t bytes;
    int lane, place, from, flags;
    char kind, name[47];
} _skel_trev;

const char *_skel_place_name(int p);

static pthread_once_t _skel_trace_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t _skel_trace_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int on;                     /* written once (_skel_trace_start), read-only after */
    char path[1024];            /* the same */
    double origin;              /* the same: _skel_now() when the trace began */
    _skel_trev *ev;             /* _skel_trace_mu: the events */
    size_t nev, cap, dropped;   /* _skel_trace_mu */
    char lanes[_SKEL_TRACE_LANES][48];  /* _skel_trace_mu: lane names */
    int nlanes;                 /* _skel_trace_mu */
    const char *places[_SKEL_MAX_SPACES];  /* _skel_trace_mu: names of the places events named */
} _skel_trace;
static _SKEL_TLS int _skel_trace_self;     /* owner thread only: 1 + this thread's lane, 0: none yet */

int _skel_trace_flush(void);
static void _skel_trace_atexit(void) { _skel_trace_flush(); }

static void _skel_trace_start(void)
{
    const char *p = getenv("SKEL_TRACE");
    if (!p || !*p) return;
    if (strlen(p) >= sizeof _skel_trace.path) {
        _skel_env_warn("SKEL_TRACE is %zu characters long (at most %zu); no trace", strlen(p), sizeof _skel_trace.path - 1);
        return;
    }
    snprintf(_skel_trace.path, sizeof _skel_trace.path, "%s", p);
    _skel_trace.origin = _skel_now();
    _skel_trace.on = 1;
    atexit(_skel_trace_atexit);
}

int _skel_trace_on(void)
{
    pthread_once(&_skel_trace_once, _skel_trace_start);
    return _skel_trace.on;
}

/* This thread's lane, made on first use (mutex held). */
static int _skel_trace_lane_locked(void)
{
    if (!_skel_trace_self && _skel_trace.nlanes < _SKEL_TRACE_LANES) {
        snprintf(_skel_trace.lanes[_skel_trace.nlanes], sizeof _skel_trace.lanes[0], "thread %d", _skel_trace.nlanes);
        _skel_trace_self = ++_skel_trace.nlanes;
    }
    return _skel_trace_self ? _skel_trace_self - 1 : _SKEL_TRACE_LANES - 1;
}

void _skel_trace_lane(const char *fmt, ...)
{
    va_list ap;
    char name[sizeof _skel_trace.lanes[0]];
    int l;
    if (!_skel_trace_on()) return;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&_skel_trace_mu);
    for (l = 0; l < _skel_trace.nlanes && strcmp(_skel_trace.lanes[l], name) != 0; ++l) {}
    if (l == _skel_trace.nlanes && l < _SKEL_TRACE_LANES) memcpy(_skel_trace.lanes[_skel_trace.nlanes++], name, sizeof name);
    if (l < _SKEL_TRACE_LANES) _skel_trace_self = l + 1;
    pthread_mutex_unlock(&_skel_trace_mu);
}

void _skel_trace_event(int kind, int place, int from, double t0, double t1, uint64_t bytes, int flags, const char *name)
{
    _skel_trev *e;
    if (!_skel_trace_on()) return;
    pthread_mutex_lock(&_skel_trace_mu);
    if (_skel_trace.nev == _skel_trace.cap) {
        size_t cap = _skel_trace.cap ? 2 * _skel_trace.cap : 4096;
        _skel_trev *q = cap <= _SKEL_TRACE_MAX_EVENTS ? (_skel_trev *)SKEL_REALLOC(_skel_trace.ev, cap * sizeof *q) : NULL;
        if (!q) { _skel_trace.dropped++; pthread_mutex_unlock(&_skel_trace_mu); return; }
        _skel_trace.ev = q;
        _skel_trace.cap = cap;
    }
    e = &_skel_trace.ev[_skel_trace.nev++];
    e->lane = _skel_trace_lane_locked();
    e->kind = (char)kind; e->place = place; e->from = from; e->flags = flags;
    e->t0 = t0; e->t1 = t1; e->bytes = bytes;
    snprintf(e->name, sizeof e->name, "%s", name ? name : "?");
    if (place >= 0 && place < _SKEL_MAX_SPACES) _skel_trace.places[place] = _skel_place_name(place);
    if (from >= 0 && from < _SKEL_MAX_SPACES) _skel_trace.places[from] = _skel_place_name(from);
    pthread_mutex_unlock(&_skel_trace_mu);
}

/* Append printf text to a growing buffer (*len, *cap); 0 when out of memory. */
static int _skel_trace_put(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return 0;
        if (*buf && *len + (size_t)n < *cap) { *len += (size_t)n; return 1; }
        {
            size_t c = (*cap ? *cap : 65536) * 2 + (size_t)n;
            char *q = (char *)SKEL_REALLOC(*buf, c);
            if (!q) return 0;
            *buf = q;
            *cap = c;
        }
    }
}

int _skel_trace_flush(void)
{
    char *buf = NULL, name[48];
    size_t len = 0, cap = 0, i, k;
    int ok, rc;
    if (!_skel_trace_on()) return SKEL_OK;
    pthread_mutex_lock(&_skel_trace_mu);
    ok = _skel_trace_put(&buf, &len, &cap, "skeltrace 1\n");
    for (i = 0; ok && i < _SKEL_MAX_SPACES; ++i)
        if (_skel_trace.places[i]) ok = _skel_trace_put(&buf, &len, &cap, "place %d %s\n", (int)i, _skel_trace.places[i]);
    for (i = 0; ok && i < (size_t)_skel_trace.nlanes; ++i)
        ok = _skel_trace_put(&buf, &len, &cap, "lane %d %s\n", (int)i, _skel_trace.lanes[i]);
    for (i = 0; ok && i < _skel_trace.nev; ++i) {
        const _skel_trev *e = &_skel_trace.ev[i];
        for (k = 0; e->name[k] && k + 1 < sizeof name; ++k)   /* one token per field but the last */
            name[k] = e->name[k] == '\n' ? ' ' : e->name[k];
        name[k] = 0;
        ok = _skel_trace_put(&buf, &len, &cap, "ev %d %c %d %d %.3f %.3f %llu %d %s\n", e->lane, e->kind, e->place,
                             e->from, 1e6 * (e->t0 - _skel_trace.origin), 1e6 * (e->t1 - _skel_trace.origin),
                             (unsigned long long)e->bytes, e->flags, name);
    }
    if (ok && _skel_trace.dropped) ok = _skel_trace_put(&buf, &len, &cap, "dropped %zu\n", _skel_trace.dropped);
    pthread_mutex_unlock(&_skel_trace_mu);
    rc = ok ? _skel_write_atomic(_skel_trace.path, buf, len, NULL, 0, 0)
            : _skel_fail(SKEL_ENOMEM, "trace %s: out of memory", _skel_trace.path);
    SKEL_FREE(buf);
    return rc;
}

/* ---------------------------------------------------------------------
   worker pool: the one set of CPU threads skel owns
   (DESIGN.md "Threads, places and parts").  Nothing else in skel
   creates threads.  Workers start lazily, the first time a call needs
   them; idle workers spin for SKEL_POOL_SPIN_US, then sleep, each on a
   condition variable of its own with an affinity that leaves out its
   waker's CPU (_skel_pool_avoid; an idle process burns no CPU); they stop at exit,
   or in _skel_pool_stop, and start again on the next use.

   THE API (all of it; nothing else in the section is meant to be called)
   _skel_pool_for(width, parts, n, body, ctx)
       Split [0, n) into `parts` contiguous chunks (chunk p is [lo, hi),
       the p-th of `parts` near-equal ranges in index order, see
       _skel_part_range) and run body(ctx, p, lo, hi) once for each, on
       the calling thread and at most width-1 workers.  Returns when every
       chunk is done.  Chunks are claimed dynamically, one at a time, and
       the calling thread claims them too: a call never waits for a
       worker that took no chunk (a descheduled worker only ever holds
       the chunk it is running), and a call completes even when no worker
       helps at all: from inside a chunk or a task (nested use), when
       every worker is busy, or when threads cannot be created.  The
       chunks depend only on (n, parts), so the phases of one algorithm
       (block sums, then block scans) see the same ones.
   _skel_pool_parts(width, n)
       The chunk count the CPU backends use for n items at this width:
       up to _SKEL_POOL_PARTS chunks per thread (so that a slow or late
       thread holds back little), but chunks of at least _SKEL_POOL_GRAIN
       items where that still leaves one chunk per thread, and never of
       fewer than _SKEL_POOL_MIN items (a call of under 32 items runs on
       its calling thread).  Items here are elements: the backends count
       rows, planes and tiles of columns by their elements
       (_skel_parts_of), at most one chunk an item.
   _skel_task t; _skel_pool_submit(&t, fn, arg)
       Queue fn(arg) (returning a status) to run on a worker; returns at
       once.  t belongs to the caller and must stay alive and unmoved
       until _skel_task_wait(&t) returns.
   _skel_task_done(&t)
       1 once fn has returned (a poll: never blocks).
   _skel_task_wait(&t)
       Wait for fn to return and give its status.  A task no worker has
       taken yet runs on the waiting thread instead, so a wait never
       depends on a free worker (a task that waits for another task, or
       a wait from inside a chunk, cannot deadlock the pool).
   _skel_task_join(&t, spin)
       _skel_task_wait, but while a worker runs t the caller spins for up
       to `spin` seconds before it sleeps: waking from the pool's
       condition variable cost a split call tens of microseconds on the
       H100 host, where its host part ends just before the call does.
   Together these cover the later uses: a split call submits its CPU
   part (a task that runs _skel_pool_for) and drives the GPUs from the
   calling thread meanwhile; asynchronous calls and Farm or Pipeline
   workers are tasks; any of them may call _skel_pool_for from inside.
   _skel_pool_wake(width)
       Start the workers a call of this width uses and wake sleeping
       ones (they spin again for SKEL_POOL_SPIN_US): the tuner calls it
       before timing a first call, as it wakes OpenMP's threads.
   _skel_pool_stop()
       Stop and join every worker (in-flight chunks and queued tasks are
       finished first); nothing from a worker thread.  Registered with
       atexit when the pool first starts; tests call it to start and stop
       the pool many times.  The child of a fork() starts workers of its
       own (the parent's calls in flight and queued tasks are not its).
   _skel_pool_threads()
       Workers running now (for tests and logs).
   _skel_pool_step_aside(cpu)
       What a worker does before it helps a call whose owner ran on
       `cpu` (exposed for the tests).
   _skel_pool_reserve(n)
       n workers will be held by tasks that run as long as something
       else (a stream run's threads, asleep while it has nothing for
       them): the pool starts n more workers than it would, from now on,
       so that its other users keep theirs; _skel_pool_reserve(-n) when
       the tasks are done.  Threads are never stopped early: the extra
       ones sleep.

   Environment (read each time the pool starts): SKEL_THREADS=n the
   default width of a call (else the CPUs this process may use);
   SKEL_PIN=1 pins worker k to the (k+1)-th of those CPUs (needs
   _GNU_SOURCE on Linux; off by default: pinned workers cannot make way
   for other processes).

   How it works.  A parallel-for in flight owns one of _SKEL_POOL_SLOTS
   slots.  A slot's state word holds its phase (free, being written,
   open, closed), how many helpers it admits (width-1) and how many are
   inside.  A worker enters an open slot by a fetch-add that counts it
   in (and leaves at once if the slot was not open for it after all),
   reads the slot's parameters (the caller wrote them
   before it opened the slot, and cannot rewrite them until the slot is
   free, which needs every helper out), claims chunks until none are
   left, and leaves.  The chunks are dealt into one home range per thread
   of the width (at most _SKEL_POOL_RANGES), each with its own cursor: the
   caller's home is range 0, worker k's is always the same one, so a loop
   of calls finds each thread's part of the data where it left it (in its
   core's cache; chunks claimed from one shared counter went to whichever
   thread came first, and a dot product of 2^16 floats on two threads ran
   no faster than on one).  A thread claims its home range's chunks with
   a fetch-add on its cursor, then takes what is left of the others' (the
   ranges of threads that are late or descheduled).  The caller then waits
   (a short spin, then the condition variable) until `done` counts every
   chunk, and closes the slot; helpers still inside (they took no chunk)
   leave later, and the last one out frees the slot.
   `epoch` counts publications (jobs and tasks): a worker sleeps only if
   it has not changed since it last looked for work, and a publisher
   signals only if someone sleeps (both sides use sequentially consistent
   operations, so one of them sees the other).
   --------------------------------------------------------------------- */
#ifndef SKEL_POOL_SPIN_US
#define SKEL_POOL_SPIN_US 100   /* how long an idle worker spins before sleeping (a waiting
                                   caller: _skel_pool_wait_spin, 5 us up to this) */
#endif
#ifndef _SKEL_POOL_WAIT_MIN_US
#define _SKEL_POOL_WAIT_MIN_US 5    /* a waiting caller spins at least this long (us) */
#endif
#define _SKEL_POOL_MAX 256      /* the widest call: the caller and 255 workers */
#define _SKEL_POOL_SLOTS 64     /* parallel-fors in flight at once; more run on their caller alone */
#define _SKEL_POOL_PARTS 8      /* chunks per thread of a call */
#define _SKEL_POOL_GRAIN 4096   /* items a chunk should have, where threads allow (16-CPU H100
                                   host, pool/16 against hand OpenMP, medians of 3 rounds, saxpy /
                                   sum / dot / stencil at 2^16: 0.88 / 0.89 / 0.87 / 0.78 of its
                                   speed with chunks of 4096, 0.63 / 0.66 / 0.64 / 0.68 with 1024) */
#define _SKEL_POOL_MIN 16       /* items a chunk has at least: handing a chunk to another core
                                   costs 0.05-4 us (2 and 16 threads), 16 cheap elements far less */
#define _SKEL_POOL_RANGES 32    /* home ranges of a call (threads beyond share them) */
#define _SKEL_POOL_RECS 32      /* chunk-time records a timed call keeps (_skel_pool_run's work) */

/* Chunk p of `parts` near-equal contiguous ranges of [0, n). */
static void _skel_part_range(size_t n, size_t parts, size_t p, size_t *lo, size_t *hi)
{
    size_t q = n / parts, rem = n % parts;
    *lo = q * p + (p < rem ? p : rem);
    *hi = q * (p + 1) + (p + 1 < rem ? p + 1 : rem);
}

size_t _skel_pool_parts(int width, size_t n)
{
    size_t w = width > 1 ? (size_t)width : 1, parts = n / _SKEL_POOL_GRAIN;
    if (parts > w * _SKEL_POOL_PARTS) parts = w * _SKEL_POOL_PARTS;
    if (parts < w) parts = w;
    if (parts > n / _SKEL_POOL_MIN) parts = n / _SKEL_POOL_MIN;
    return parts ? parts : 1;
}

/* Run every chunk on the calling thread, in order. */
static void _skel_pool_inline(int parts, size_t n, _skel_body body, void *ctx)
{
    size_t p, lo, hi;
    for (p = 0; p < (size_t)parts; ++p) {
        _skel_part_range(n, (size_t)parts, p, &lo, &hi);
        body(ctx, (int)p, lo, hi);
    }
}

/* The CPUs this process may run on (its affinity mask where the platform
   says), at least 1; read once, as OpenMP and TBB do: sysconf reads a
   /sys file each time (5-10 us on a VM), and the scheduler asks for every
   place of every call it places. */
static int _skel_cpu_count(void)
{
    static int known;
    int n = _SKEL_LOAD(&known);
    if (n > 0) return n;
#if _SKEL_LINUX_GNU
    {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) n = CPU_COUNT(&set);
    }
#endif
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)(c < _SKEL_POOL_MAX ? c : _SKEL_POOL_MAX) : 1;
    }
    _SKEL_STORE(&known, n);
    return n;
}

#if defined(__GNUC__) || defined(__clang__)
#define _SKEL_POOL 1
#else
#define _SKEL_POOL 0            /* no atomics: no pool backend; calls run on their caller */
#endif

/* The lower median of t[0..k) (k <= 32). */
static double _skel_median_f(const float *t, unsigned k)
{
    float v[32], x;
    unsigned i, j;
    if (k > 32) k = 32;
    for (i = 0; i < k; ++i) {               /* insertion sort */
        for (x = t[i], j = i; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
        v[j] = x;
    }
    return k ? v[(k - 1) / 2] : 0;
}

#if _SKEL_POOL
#if defined(__x86_64__) || defined(__i386__)
#define _SKEL_PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__) || defined(__arm__)
#define _SKEL_PAUSE() __asm__ __volatile__("yield")
#else
#define _SKEL_PAUSE() ((void)0)
#endif
#define _SKEL_SC_LOAD(p) __atomic_load_n(p, __ATOMIC_SEQ_CST)

/* slot state word: helpers inside (bits 0-9), helpers admitted (10-19), phase (20-21) */
enum { _SKEL_SLOT_FREE = 0, _SKEL_SLOT_WRITING = 1, _SKEL_SLOT_OPEN = 2, _SKEL_SLOT_CLOSED = 3 };
#define _SKEL_SLOT_IN(s) ((s) & 1023u)
#define _SKEL_SLOT_CAP(s) (((s) >> 10) & 1023u)
#define _SKEL_SLOT_PHASE(s) ((s) >> 20)

typedef struct _skel_slot {
    unsigned state;             /* atomic: see above */
    int parts;                  /* the parameters: written by the owner while WRITING, */
    size_t n;                   /* read by helpers inside an OPEN slot */
    _skel_body body;
    void *ctx;
    int ranges;                 /* home ranges (parameter too) */
    int cpu;                    /* the CPU the owner ran on when it opened the slot, or -1 */
    char pad0[64];
    struct { size_t next; char pad[64 - sizeof(size_t)]; } cur[_SKEL_POOL_RANGES];
                                /* atomic: the next chunk of each home range */
    size_t done;                /* atomic: chunks finished */
    unsigned nrec;              /* atomic: records claimed in rec (timed slots) */
    int timed;                  /* parameter: record chunk times (_skel_pool_run's `work`) */
    float rec[_SKEL_POOL_RECS]; /* seconds a chunk took, one record per thread and range it worked in,
                                   written before they count in done */
    int owner_sleeps;           /* atomic: the owner waits on done_cv */
    char pad2[64];
} _skel_slot;

static pthread_mutex_t _skel_pool_mu = PTHREAD_MUTEX_INITIALIZER;  /* guards threads, nthreads, stopping,
                                                                      the task queue, and the sleeps */
/* An idle worker sleeps on a condition variable of its own, so that its
   waker knows which thread it wakes and can say where it may run
   (_skel_pool_kick). */
typedef struct _skel_sleeper {
    pthread_cond_t cv;          /* the worker sleeps here, with mu */
    int asleep, kicked;         /* mu */
    int avoid;                  /* mu: the CPU its affinity leaves out while it sleeps, or -1 */
    unsigned seen;              /* mu: the epoch it saw before it slept (_skel_pool_signal) */
    unsigned wakes;             /* mu: times it woke (tests) */
#if _SKEL_LINUX_GNU
    cpu_set_t allowed;          /* its affinity, read when it starts (before it can sleep) */
#endif
} _skel_sleeper;
static pthread_cond_t _skel_pool_done_cv = PTHREAD_COND_INITIALIZER;  /* owners of jobs and waiters of tasks */
static struct {
    pthread_t threads[_SKEL_POOL_MAX];  /* mu */
    int nthreads;               /* mu (read atomically elsewhere) */
    int stopping;               /* mu: _skel_pool_stop is joining */
    int stop;                   /* atomic: workers exit when idle */
    int pin;                    /* SKEL_PIN: written under mu before workers start */
    unsigned epoch;             /* atomic: bumped by every publication */
    int reserved;               /* atomic: workers held by long tasks (_skel_pool_reserve) */
    int sleepers;               /* atomic: workers asleep on work_cv */
    int wake_budget;            /* atomic: wake-ups the last publication wants passed on beyond
                                   its first one or two (_skel_pool_publish) */
    int task_waiters;           /* atomic: threads asleep in _skel_task_wait */
    uint64_t active;            /* atomic: bit i: slot i may be open */
    _skel_task *head, *tail;    /* mu: tasks no worker took yet */
    int queued;                 /* atomic (written under mu): how many; a worker looks here before
                                   it takes mu.  It took mu after every call it helped with: on
                                   the 16-CPU H100 host its 15 workers queued on the mutex and
                                   came to the next call 6.0-6.9 us after it opened on average
                                   (now 1.6-2.2), and pool/16 ran at 0.37-0.54 of hand OpenMP's
                                   speed at 2^16 (now 0.59-0.71; bench/results/pool.md) */
    unsigned owner_sleeps;      /* atomic: calls whose caller slept on their end (benchmarks) */
    _skel_slot slots[_SKEL_POOL_SLOTS];
    _skel_sleeper sleep[_SKEL_POOL_MAX];   /* worker k's */
} _skel_pool;

static _SKEL_TLS unsigned _skel_pool_hint;  /* where this thread looks for a free slot first */
static _SKEL_TLS int _skel_pool_self;       /* 1 + worker index on a worker thread, else 0 */
static _SKEL_TLS int _skel_pool_last_cpu;   /* on a worker: the CPU of the last call it helped with, or -1 */

/* The CPU this thread runs on, or -1 where that cannot be asked. */
static int _skel_this_cpu(void)
{
#if _SKEL_LINUX_GNU
    return sched_getcpu();
#else
    return -1;
#endif
}

/* A worker about to help a call whose owner runs on its own CPU (`cpu`)
   could only take turns with the owner there.  The OS puts it there: a
   wake-up lands on the waker's CPU when the worker's own is busy (another
   process on it), and nothing moves it off again (two threads on one
   CPU and one on the other is balanced to the OS), so on 2 CPUs with one
   busy a call ran at one core's speed or slower while its worker spun
   beside it.  The worker moves: it narrows its affinity to the other
   CPUs (the kernel migrates it at once) and widens it again at once
   (it stays where it went while it keeps running; the OS may still move
   it anywhere, e.g. onto the owner's CPU when the owner sleeps).  1 if it
   moved.  Pinned workers (SKEL_PIN) stay where they are. */
#if _SKEL_LINUX_GNU
/* Thread t may run on the CPUs of `allowed` but cpu from now on: 1 if so
   (not for pinned workers, nor where cpu is its only CPU or not one of them). */
static int _skel_affinity_without(pthread_t t, const cpu_set_t *allowed, int cpu)
{
    cpu_set_t others;
    if (cpu < 0 || _skel_pool.pin || !CPU_ISSET(cpu, allowed) || CPU_COUNT(allowed) < 2) return 0;
    others = *allowed;
    CPU_CLR(cpu, &others);
    return pthread_setaffinity_np(t, sizeof others, &others) == 0;
}
#endif

int _skel_pool_step_aside(int cpu)
{
#if _SKEL_LINUX_GNU
    cpu_set_t all;
    if (cpu < 0 || sched_getcpu() != cpu || sched_getaffinity(0, sizeof all, &all) != 0) return 0;
    if (!_skel_affinity_without(pthread_self(), &all, cpu)) return 0;
    (void)sched_setaffinity(0, sizeof all, &all);
    return 1;
#else
    (void)cpu;
    return 0;
#endif
}

/* Spin until *p differs from seen (1) or the thread has spun for
   SKEL_POOL_SPIN_US (0).  Only time it ran counts: a gap of more than
   _SKEL_SPIN_GAP between two looks at the clock (64 pauses take about a
   microsecond) was spent descheduled.  On a core shared with another
   process the OS runs a spinning worker in turns with it; counting wall
   time, the worker's budget ran out while it waited for its turn, it
   slept after running for a moment, and a wake-up on a busy core (Linux
   6.6+: EEVDF) waits for the other process's slice, longer than most
   calls, so the worker hardly ever helped (2-vCPU VM with a spinner on
   one core: pool/2 at seq's median, hand OpenMP at half of it).  Counted
   this way it keeps its turns while calls keep coming. */
#define _SKEL_SPIN_GAP 20e-6
static int _skel_spin_while(const unsigned *p, unsigned seen)
{
    double left = 1e-6 * SKEL_POOL_SPIN_US, last = 0, now;
    int k;
    for (;;) {
        for (k = 0; k < 64; ++k) {
            if (_SKEL_LOAD(p) != seen) return 1;
            _SKEL_PAUSE();
        }
        now = _skel_now();
        if (last > 0 && now - last < _SKEL_SPIN_GAP) left -= now - last;
        if (left <= 0) return 0;
        last = now;
    }
}

/* Worker affinity while it sleeps.  Where the OS thinks a sleeping
   worker's own CPU unavailable (an idle virtual CPU of a KVM guest counts
   as preempted while its host has it halted), it wakes the worker onto
   its waker's CPU, and the waker, busy with the call, keeps that CPU
   until the OS balances the load, a millisecond or more later: on the
   2-vCPU VM a worker woken for a run of 96 us calls missed the next 10 of
   them, and 35-50% of the calls of bench_peers' rounds ran on their
   caller alone.  So a sleeping worker's affinity leaves out its waker's
   CPU: the worker leaves out the CPU of the last call it helped with
   before it sleeps (its caller is most likely there again), a waker on
   another CPU narrows it itself before it signals (a syscall on the
   call's path, about 10 us there, so only when the guess was wrong), and
   the worker widens it again once it runs.  Pinned workers keep theirs. */
static int _skel_pool_avoid(pthread_t t, const _skel_sleeper *w, int cpu)
{
#if _SKEL_LINUX_GNU
    return _skel_affinity_without(t, &w->allowed, cpu) ? cpu : -1;
#else
    (void)t; (void)w; (void)cpu;
    return -1;
#endif
}

/* Wake sleeping worker k (mu held) from a thread on CPU `cpu` (-1: unknown). */
static void _skel_pool_kick(int k, int cpu)
{
    _skel_sleeper *w = &_skel_pool.sleep[k];
    w->kicked = 1;
    if (cpu >= 0 && cpu != w->avoid) {
        int a = _skel_pool_avoid(_skel_pool.threads[k], w, cpu);
        if (a >= 0 || w->avoid < 0) w->avoid = a;
    }
    pthread_cond_signal(&w->cv);
}

/* Wake up to k sleeping workers (k < 0: all) that went to sleep before
   the last publication.  One that saw it has looked at every open call
   since, and has nothing to wake for: on a loaded machine a worker woken
   by a publication's chain slept again within its spin, before the chain
   had gone on, and the chain's next wake-up found it first and woke it
   again, while the last sleeper never woke (CI's clang run; with two
   spinners on the 2-vCPU VM, 15 of 15 chains reached 4 of 5 workers). */
static void _skel_pool_signal(int k)
{
    int i, n, cpu;
    unsigned epoch;
    if (k == 0 || _SKEL_SC_LOAD(&_skel_pool.sleepers) == 0) return;
    cpu = _skel_this_cpu();
    pthread_mutex_lock(&_skel_pool_mu);
    epoch = _SKEL_SC_LOAD(&_skel_pool.epoch);
    for (i = 0, n = _skel_pool.nthreads; i < n && k != 0; ++i) {
        const _skel_sleeper *w = &_skel_pool.sleep[i];
        if (w->asleep && !w->kicked && w->seen != epoch) { _skel_pool_kick(i, cpu); --k; }
    }
    pthread_mutex_unlock(&_skel_pool_mu);
}

/* Wake up to k sleeping workers out of the last publication's budget. */
static void _skel_pool_pass_on(int k)
{
    while (k-- > 0 && __atomic_load_n(&_skel_pool.wake_budget, __ATOMIC_RELAXED) > 0)
        if (__atomic_sub_fetch(&_skel_pool.wake_budget, 1, __ATOMIC_RELAXED) >= 0) _skel_pool_signal(1);
}

/* Bump the epoch and, if `want` helpers are wanted and workers sleep,
   wake one or two: each worker that joins a call wakes the next one while
   the call wants more (_skel_slot_help), and each worker that wakes wakes
   the next one while the last publication's wake-ups are not all handed
   out (wake_budget: the sleepers it wants, less the first one or two;
   _skel_pool_worker), so the wake-ups spread off the caller's path,
   instead of a broadcast that woke every sleeper into a queue on the
   mutex.  (Two a joiner, a binary tree, measured no faster on the
   16-CPU H100 host: bench_pool_probe after 1.3 ms asleep, pool/16
   0.050-0.053 ms against 0.051.)  The second rule keeps the chain going
   after the call has ended: a short call ended before the wake-ups
   reached most sleepers, the chain stopped there, and the next call
   found them asleep again (the H100 host, the moment application of
   bench/eval2d.c at 17 x 2550, a 25 us call of pool/16: 2.4-9 of its 15
   workers asleep when each call opened, 14-34 us before the last one
   came, although an untimed call had just run). */
static void _skel_pool_publish(int want)
{
    int first = want < 2 ? want : 2, asleep = _SKEL_SC_LOAD(&_skel_pool.sleepers);
    __atomic_store_n(&_skel_pool.wake_budget, (want < asleep ? want : asleep) - first, __ATOMIC_RELAXED);
    __atomic_add_fetch(&_skel_pool.epoch, 1u, __ATOMIC_SEQ_CST);
    _skel_pool_signal(first);
}

/* Claim and run chunks of slot s until none are left, home range first
   (worker k's home: 1 + k mod (ranges - 1); the owner, k < 0: range 0);
   how many it ran.  What it ran of a range is counted in `done` before it
   looks at the next range (one line transfer per range it worked in, not
   per chunk; counted only at the end, the call's end waited for every
   thread's look at every other range's cursor); the thread whose count
   completes `done` wakes a sleeping owner.  In a timed slot a thread
   records the time a chunk took it in each range it worked in, before it
   counts them done. */
static size_t _skel_slot_work(_skel_slot *s, int k)
{
    size_t parts = (size_t)s->parts, ranges = (size_t)s->ranges, p, r, lo, hi, end, ran = 0, here;
    size_t home = k < 0 || ranges < 2 ? 0 : 1 + (size_t)k % (ranges - 1);
    for (r = 0; r < ranges; ++r) {
        size_t h = (home + r) % ranges;
        double t0;
        _skel_part_range(parts, ranges, h, &lo, &end);
        if (__atomic_load_n(&s->cur[h].next, __ATOMIC_RELAXED) >= end) continue;   /* (a read shares the line) */
        t0 = s->timed ? _skel_now() : 0;
        for (here = 0; (p = __atomic_fetch_add(&s->cur[h].next, 1, __ATOMIC_RELAXED)) < end; ++here) {
            _skel_part_range(s->n, parts, p, &lo, &hi);
            s->body(s->ctx, (int)p, lo, hi);
        }
        if (here && s->timed) {
            unsigned q = __atomic_fetch_add(&s->nrec, 1u, __ATOMIC_RELAXED);
            float per = (float)((_skel_now() - t0) / (double)here);
            if (q < _SKEL_POOL_RECS) __atomic_store(&s->rec[q], &per, __ATOMIC_RELAXED);
        }
        if (here && __atomic_add_fetch(&s->done, here, __ATOMIC_SEQ_CST) == parts && _SKEL_SC_LOAD(&s->owner_sleeps)) {
            pthread_mutex_lock(&_skel_pool_mu);
            pthread_cond_broadcast(&_skel_pool_done_cv);
            pthread_mutex_unlock(&_skel_pool_mu);
        }
        ran += here;
    }
    return ran;
}

/* Worker k helps with slot s if it is open and admits one more helper.
   It enters and leaves with one fetch-add each, not a compare-and-swap
   loop, which 15 workers entering one call at once retry on the one line
   (alone, this changed nothing measurable on the 16-CPU H100 host: the
   task queue's mutex, below, held the workers then).  A helper counted
   in a slot that turns out not to be open for it (closed, full, or taken
   again since it looked) leaves at once; the owner opens a slot with an
   add too, so that such a visitor stays counted. */
static void _skel_slot_help(_skel_slot *s, int k)
{
    unsigned st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
    if (_SKEL_SLOT_PHASE(st) != _SKEL_SLOT_OPEN || _SKEL_SLOT_IN(st) >= _SKEL_SLOT_CAP(st)) return;  /* (no write) */
    st = __atomic_fetch_add(&s->state, 1u, __ATOMIC_ACQUIRE);
    if (_SKEL_SLOT_PHASE(st) == _SKEL_SLOT_OPEN && _SKEL_SLOT_IN(st) < _SKEL_SLOT_CAP(st)) {
        if (_SKEL_SLOT_IN(st) + 1 < _SKEL_SLOT_CAP(st))
            _skel_pool_signal(1);       /* the call wants more helpers: pass the wake-up on */
        _skel_pool_last_cpu = s->cpu;
        (void)_skel_pool_step_aside(s->cpu);
        (void)_skel_slot_work(s, k);
    }
    /* leave; the last one out of a closed slot frees it (a visitor counted
       in after that sees the swap fail, and frees it when it leaves) */
    st = __atomic_sub_fetch(&s->state, 1u, __ATOMIC_RELEASE);
    if (st == (unsigned)_SKEL_SLOT_CLOSED << 20)
        (void)__atomic_compare_exchange_n(&s->state, &st, 0u, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Run the first queued task, if any; 1 if it ran one. */
static int _skel_pool_run_task(void)
{
    _skel_task *t;
    if (_SKEL_SC_LOAD(&_skel_pool.queued) == 0) return 0;
    pthread_mutex_lock(&_skel_pool_mu);
    if ((t = _skel_pool.head) != NULL) {
        if (!(_skel_pool.head = t->next)) _skel_pool.tail = NULL;
        __atomic_sub_fetch(&_skel_pool.queued, 1, __ATOMIC_SEQ_CST);
        __atomic_store_n(&t->state, _SKEL_TASK_RUNNING, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&_skel_pool_mu);
    if (!t) return 0;
    t->status = t->fn(t->arg);
    __atomic_store_n(&t->state, _SKEL_TASK_DONE, __ATOMIC_SEQ_CST);   /* t may be gone after this */
    if (_SKEL_SC_LOAD(&_skel_pool.task_waiters)) {
        pthread_mutex_lock(&_skel_pool_mu);
        pthread_cond_broadcast(&_skel_pool_done_cv);
        pthread_mutex_unlock(&_skel_pool_mu);
    }
    return 1;
}

static void _skel_pool_pin(int k)
{
#if _SKEL_LINUX_GNU
    cpu_set_t all, one;
    int c, seen = -1;
    if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) == 0) return;
    k %= CPU_COUNT(&all);
    CPU_ZERO(&one);
    for (c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &all) && ++seen == (k + 1) % CPU_COUNT(&all)) { CPU_SET(c, &one); break; }
    if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0)
        _skel_log(SKEL_LOG_WARN, "SKEL_PIN: worker %d could not be pinned", k);
#else
    (void)k;
#endif
}

static void *_skel_pool_worker(void *arg)
{
    int i, avoid;
    _skel_sleeper *me = &_skel_pool.sleep[(intptr_t)arg];
    _skel_pool_self = (int)(intptr_t)arg + 1;
    _skel_pool_last_cpu = -1;
    if (_skel_pool.pin) _skel_pool_pin(_skel_pool_self - 1);
#if _SKEL_LINUX_GNU
    if (sched_getaffinity(0, sizeof me->allowed, &me->allowed) != 0) CPU_ZERO(&me->allowed);  /* (never narrowed) */
#endif
    for (;;) {
        unsigned seen = _SKEL_SC_LOAD(&_skel_pool.epoch);
        uint64_t m = _SKEL_LOAD(&_skel_pool.active);
        /* A slot it helped has no chunk left to claim: it looks again only
           after the next publication (it went straight back, and entered
           and left the slot again and again until its owner closed it) */
        for (i = 0; m; ++i, m >>= 1)
            if (m & 1) _skel_slot_help(&_skel_pool.slots[i], _skel_pool_self - 1);
        if (_skel_pool_run_task()) continue;
        if (_SKEL_LOAD(&_skel_pool.stop)) break;
        if (_skel_spin_while(&_skel_pool.epoch, seen)) continue;
        avoid = _skel_pool_avoid(pthread_self(), me, _skel_pool_last_cpu);   /* (see _skel_pool_avoid) */
        pthread_mutex_lock(&_skel_pool_mu);
        __atomic_add_fetch(&_skel_pool.sleepers, 1, __ATOMIC_SEQ_CST);
        me->asleep = 1; me->kicked = 0; me->avoid = avoid; me->seen = seen;
        while (_SKEL_SC_LOAD(&_skel_pool.epoch) == seen && !_SKEL_LOAD(&_skel_pool.stop) && !me->kicked)
            pthread_cond_wait(&me->cv, &_skel_pool_mu);
        me->asleep = 0;
        me->wakes++;
        avoid = me->avoid; me->avoid = -1;
        __atomic_sub_fetch(&_skel_pool.sleepers, 1, __ATOMIC_SEQ_CST);
        pthread_mutex_unlock(&_skel_pool_mu);
        _skel_pool_pass_on(1);          /* (_skel_pool_publish) */
#if _SKEL_LINUX_GNU
        if (avoid >= 0) (void)sched_setaffinity(0, sizeof me->allowed, &me->allowed);  /* it stays where it runs */
#endif
    }
    return NULL;
}

void _skel_pool_stop(void);

/* In the child of a fork() only the forking thread exists: forget the
   parent's workers, calls in flight and queued tasks (the child starts
   workers of its own when it needs them).  The lock may have been held
   by a thread that is gone, so it is made again. */
static void _skel_pool_forked(void)
{
    int i;
    pthread_mutex_init(&_skel_pool_mu, NULL);
    pthread_cond_init(&_skel_pool_done_cv, NULL);
    _skel_pool.nthreads = _skel_pool.stopping = _skel_pool.stop = 0;
    _skel_pool.sleepers = _skel_pool.task_waiters = _skel_pool.reserved = _skel_pool.wake_budget = 0;
    _skel_pool.active = 0;
    _skel_pool.head = _skel_pool.tail = NULL;
    _skel_pool.queued = 0;
    for (i = 0; i < _SKEL_POOL_SLOTS; ++i) _skel_pool.slots[i].state = 0;
}

static void _skel_pool_atexit(void)
{
    atexit(_skel_pool_stop);
    pthread_atfork(NULL, NULL, _skel_pool_forked);
}

/* Make sure `want` workers run (at most _SKEL_POOL_MAX - 1); fewer if
   threads cannot be created, which only costs parallelism. */
static void _skel_pool_start(int want)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
#if _SKEL_POSIX2001
    sigset_t all, old;
#endif
    want += _SKEL_LOAD(&_skel_pool.reserved);  /* those workers are taken */
    if (want > _SKEL_POOL_MAX - 1) want = _SKEL_POOL_MAX - 1;
    if (__atomic_load_n(&_skel_pool.nthreads, __ATOMIC_ACQUIRE) >= want) return;
    pthread_once(&once, _skel_pool_atexit);
    pthread_mutex_lock(&_skel_pool_mu);
    if (!_skel_pool.stopping && _skel_pool.nthreads == 0)
        _skel_pool.pin = _skel_env_int("SKEL_PIN", 0) > 0;
#if _SKEL_POSIX2001
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* workers take no signals: the caller's threads do */
#endif
    while (!_skel_pool.stopping && _skel_pool.nthreads < want) {
        int rc;
        _skel_sleeper *w = &_skel_pool.sleep[_skel_pool.nthreads];
        pthread_cond_init(&w->cv, NULL);
        w->asleep = w->kicked = 0;
        w->avoid = -1;
        rc = pthread_create(&_skel_pool.threads[_skel_pool.nthreads], NULL, _skel_pool_worker,
                                (void *)(intptr_t)_skel_pool.nthreads);
        if (rc != 0) {
            _skel_log(SKEL_LOG_WARN, "worker pool: cannot start thread %d (%s); running with %d",
                      _skel_pool.nthreads + 1, strerror(rc), _skel_pool.nthreads);
            break;
        }
        __atomic_store_n(&_skel_pool.nthreads, _skel_pool.nthreads + 1, __ATOMIC_RELEASE);
    }
#if _SKEL_POSIX2001
    pthread_sigmask(SIG_SETMASK, &old, NULL);
#endif
    pthread_mutex_unlock(&_skel_pool_mu);
}

void _skel_pool_stop(void)
{
    int i, n;
    if (_skel_pool_self) return;    /* a worker cannot join itself (a task that calls exit) */
    pthread_mutex_lock(&_skel_pool_mu);
    if (_skel_pool.stopping) { pthread_mutex_unlock(&_skel_pool_mu); return; }
    _skel_pool.stopping = 1;
    __atomic_store_n(&_skel_pool.stop, 1, __ATOMIC_SEQ_CST);
    n = _skel_pool.nthreads;
    for (i = 0; i < n; ++i) pthread_cond_signal(&_skel_pool.sleep[i].cv);
    pthread_mutex_unlock(&_skel_pool_mu);
    for (i = 0; i < n; ++i) pthread_join(_skel_pool.threads[i], NULL);   /* (the array is stable: stopping) */
    for (i = 0; i < n; ++i) pthread_cond_destroy(&_skel_pool.sleep[i].cv);
    pthread_mutex_lock(&_skel_pool_mu);
    __atomic_store_n(&_skel_pool.nthreads, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&_skel_pool.stop, 0, __ATOMIC_SEQ_CST);
    _skel_pool.stopping = 0;
    pthread_mutex_unlock(&_skel_pool_mu);
}

int _skel_pool_threads(void) { return __atomic_load_n(&_skel_pool.nthreads, __ATOMIC_ACQUIRE); }

/* For tests: how many times worker k woke from sleep. */
unsigned _skel_pool_wakes(int k)
{
    unsigned n;
    pthread_mutex_lock(&_skel_pool_mu);
    n = k >= 0 && k < _skel_pool.nthreads ? _skel_pool.sleep[k].wakes : 0;
    pthread_mutex_unlock(&_skel_pool_mu);
    return n;
}

/* For tests: how many workers sleep now. */
int _skel_pool_asleep(void) { return __atomic_load_n(&_skel_pool.sleepers, __ATOMIC_ACQUIRE); }

/* For benchmarks: pool calls whose caller slept on their end (all
   threads'), and site calls this thread ran on itself alone, since the
   process started. */
void _skel_pool_tally(unsigned *owner_sleeps, unsigned *site_alone)
{
    *owner_sleeps = __atomic_load_n(&_skel_pool.owner_sleeps, __ATOMIC_RELAXED);
    *site_alone = _skel_site_alone_calls();
}

/* For tests: pass one wake-up on, as a woken worker does. */
void _skel_pool_pass_wake(void) { _skel_pool_signal(1); }

/* For tests: how many sleeping workers leave a CPU out of their affinity
   (_skel_pool_avoid), or -1 if a sleeping worker's affinity is not what
   its record says (its own, or that less the CPU it avoids). */
int _skel_pool_sleepers_avoiding(void)
{
    int i, n = 0;
#if _SKEL_LINUX_GNU
    pthread_mutex_lock(&_skel_pool_mu);
    for (i = 0; i < _skel_pool.nthreads && n >= 0; ++i) {
        const _skel_sleeper *w = &_skel_pool.sleep[i];
        cpu_set_t now, want = w->allowed;
        if (!w->asleep) continue;
        if (w->avoid >= 0) CPU_CLR(w->avoid, &want);
        if (pthread_getaffinity_np(_skel_pool.threads[i], sizeof now, &now) != 0 || !CPU_EQUAL(&now, &want)) n = -1;
        else if (w->avoid >= 0) ++n;
    }
    pthread_mutex_unlock(&_skel_pool_mu);
#else
    (void)i;
#endif
    return n;
}

void _skel_pool_reserve(int n)
{
    int def = _skel_cpu_count() - 1;
    __atomic_add_fetch(&_skel_pool.reserved, n, __ATOMIC_ACQ_REL);
    if (n > 0) _skel_pool_start(def > 1 ? def : 1);
}

void _skel_pool_wake(int width)
{
    _skel_pool_start(width - 1);
    __atomic_add_fetch(&_skel_pool.epoch, 1u, __ATOMIC_SEQ_CST);
    _skel_pool_signal(-1);      /* every sleeper spins again */
}

/* A free slot, now WRITING, or NULL when all are in use. */
static _skel_slot *_skel_slot_take(void)
{
    unsigned i, k;
    for (k = 0; k < _SKEL_POOL_SLOTS; ++k) {
        unsigned free_ = 0;
        i = (_skel_pool_hint + k) % _SKEL_POOL_SLOTS;
        if (__atomic_compare_exchange_n(&_skel_pool.slots[i].state, &free_, (unsigned)_SKEL_SLOT_WRITING << 20, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            _skel_pool_hint = i;
            return &_skel_pool.slots[i];
        }
    }
    return NULL;
}

/* Wait until every chunk of the owner's slot is done: spin for `spin`
   seconds, then sleep.  The chunks not done are being computed by helpers;
   one that is not done after twice the time a chunk took the owner, and
   after half as long again as such calls take (_skel_pool_run), has
   been descheduled by the OS, and sleeping frees the owner's core for it
   (the scheduler moves a waiting thread to an idle core at once): a call
   then costs a migration, not the time slice of whatever runs on the
   helper's core. */
static void _skel_slot_wait(_skel_slot *s, double spin)
{
    size_t parts = (size_t)s->parts;
    double end = 0;
    int k;
    for (;;) {
        for (k = 0; k < 64; ++k) {
            if (_SKEL_LOAD(&s->done) == parts) return;
            _SKEL_PAUSE();
        }
        if (end == 0) end = _skel_now() + spin;
        else if (_skel_now() > end) break;
    }
    __atomic_store_n(&s->owner_sleeps, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&_skel_pool.owner_sleeps, 1u, __ATOMIC_RELAXED);
    pthread_mutex_lock(&_skel_pool_mu);
    while (_SKEL_SC_LOAD(&s->done) != parts) pthread_cond_wait(&_skel_pool_done_cv, &_skel_pool_mu);
    pthread_mutex_unlock(&_skel_pool_mu);
}

/* How long a caller that ran its chunks in `elapsed` seconds, `per` a
   chunk, spins for the helpers' chunks before it sleeps (_skel_slot_wait):
   for twice its chunks' time, and at least until 1.5 times `expect` (the
   seconds such a call usually takes, its site's estimate; 0: not known)
   has passed since the call began; 5 us at least, SKEL_POOL_SPIN_US at
   most.  Its own chunks need not be typical: a Julia set's first rows
   escape at once, so on pool/16 its caller's chunk took 1 us, and it
   slept while the helpers computed the middle rows, and the last of them
   had to wake it (bench_pool_bursts, H100 host, 89 x 31: pool/16 28 us,
   22 with the caller spinning; seq 110). */
double _skel_pool_wait_spin(double per, double expect, double elapsed)
{
    double spin = 1.5 * expect - elapsed, cap = 1e-6 * SKEL_POOL_SPIN_US;
    if (spin < 2 * per) spin = 2 * per;
    if (spin < 1e-6 * _SKEL_POOL_WAIT_MIN_US) spin = 1e-6 * _SKEL_POOL_WAIT_MIN_US;
    return spin > cap ? cap : spin;
}

/* _skel_pool_for.  `expect`: the seconds such a call usually takes (0:
   not known; _skel_pool_wait_spin).  `work` (NULL: not wanted): about
   what the call would take its caller alone (_skel_site_note's guess):
   the chunks times the lower median of the records of a chunk's time
   (one per thread and range it worked in); -1 where it did not run in
   parallel.  The median, not the calling thread's own chunks: a Julia
   set's first rows, the caller's, escape at once, and a guess from them,
   a tenth of the truth, had the site rule try the caller alone where it
   took 5 times as long; nor the threads' total, which counts the time
   slices of a helper the OS descheduled (a 2-thread record's lower
   median is its faster one). */
static void _skel_pool_run(int width, int parts, size_t n, _skel_body body, void *ctx, double expect, double *work)
{
    _skel_slot *s;
    unsigned i, st, nst, helpers;
    size_t r, mine;
    double t0, per, start;
    if (work) *work = -1;
    if (width > _SKEL_POOL_MAX) width = _SKEL_POOL_MAX;
    helpers = (unsigned)(width < parts ? width : parts) - 1;
    if (parts <= 1 || width <= 1) { _skel_pool_inline(parts, n, body, ctx); return; }
    _skel_pool_start((int)helpers);
    if (_skel_pool_threads() == 0 || !(s = _skel_slot_take())) { _skel_pool_inline(parts, n, body, ctx); return; }
    i = (unsigned)(s - _skel_pool.slots);
    s->parts = parts; s->n = n; s->body = body; s->ctx = ctx;
    s->timed = work != NULL;
    s->ranges = (int)helpers + 1 < _SKEL_POOL_RANGES ? (int)helpers + 1 : _SKEL_POOL_RANGES;
    s->cpu = _skel_this_cpu();
    for (r = 0; r < (size_t)s->ranges; ++r) {
        size_t first, end;
        _skel_part_range((size_t)parts, (size_t)s->ranges, r, &first, &end);
        __atomic_store_n(&s->cur[r].next, first, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&s->done, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&s->nrec, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&s->owner_sleeps, 0, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->state, ((unsigned)(_SKEL_SLOT_OPEN - _SKEL_SLOT_WRITING) << 20) | (helpers << 10),
                       __ATOMIC_RELEASE);       /* (visitors counted in meanwhile stay counted) */
    __atomic_fetch_or(&_skel_pool.active, (uint64_t)1 << i, __ATOMIC_RELEASE);
    _skel_pool_publish((int)helpers);
    start = _skel_now();
    mine = _skel_slot_work(s, -1);
    t0 = _skel_now();
    per = mine ? (t0 - start) / (double)mine : 0;
    _skel_slot_wait(s, _skel_pool_wait_spin(per, expect, t0 - start));
    if (work) {     /* (done's acquire made the records whole) */
        unsigned k = __atomic_load_n(&s->nrec, __ATOMIC_RELAXED);
        *work = parts * _skel_median_f(s->rec, k < _SKEL_POOL_RECS ? k : _SKEL_POOL_RECS);
    }
    __atomic_fetch_and(&_skel_pool.active, ~((uint64_t)1 << i), __ATOMIC_RELAXED);
    st = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
    do {    /* close; free it now if no helper is inside */
        nst = _SKEL_SLOT_IN(st) == 0 ? 0u : (st & 1023u) | ((unsigned)_SKEL_SLOT_CLOSED << 20);
    } while (!__atomic_compare_exchange_n(&s->state, &st, nst, 1, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
}

void _skel_pool_for(int width, int parts, size_t n, _skel_body body, void *ctx)
{
    _skel_pool_run(width, parts, n, body, ctx, 0, NULL);
}


void _skel_pool_submit(_skel_task *t, int (*fn)(void *), void *arg)
{
    int def = _skel_cpu_count() - 1;
    t->fn = fn; t->arg = arg; t->status = 0; t->next = NULL;
    __atomic_store_n(&t->state, _SKEL_TASK_QUEUED, __ATOMIC_RELAXED);
    _skel_pool_start(def > 1 ? def : 1);
    pthread_mutex_lock(&_skel_pool_mu);
    if (_skel_pool.tail) _skel_pool.tail->next = t;
    else _skel_pool.head = t;
    _skel_pool.tail = t;
    __atomic_add_fetch(&_skel_pool.queued, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&_skel_pool_mu);
    _skel_pool_publish(1);
}

int _skel_task_done(_skel_task *t) { return _SKEL_LOAD(&t->state) == _SKEL_TASK_DONE; }

int _skel_task_wait(_skel_task *t)
{
    int mine = 0;
    pthread_mutex_lock(&_skel_pool_mu);
    if (__atomic_load_n(&t->state, __ATOMIC_RELAXED) == _SKEL_TASK_QUEUED) {   /* unlink it: run it here */
        _skel_task **pp = &_skel_pool.head, *prev = NULL;
        while (*pp != t) { prev = *pp; pp = &(*pp)->next; }
        *pp = t->next;
        if (_skel_pool.tail == t) _skel_pool.tail = prev;
        __atomic_sub_fetch(&_skel_pool.queued, 1, __ATOMIC_SEQ_CST);
        mine = 1;
    } else if (_SKEL_LOAD(&t->state) != _SKEL_TASK_DONE) {
        __atomic_add_fetch(&_skel_pool.task_waiters, 1, __ATOMIC_SEQ_CST);
        while (_SKEL_SC_LOAD(&t->state) != _SKEL_TASK_DONE) pthread_cond_wait(&_skel_pool_done_cv, &_skel_pool_mu);
        __atomic_sub_fetch(&_skel_pool.task_waiters, 1, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&_skel_pool_mu);
    if (mine) {
        t->status = t->fn(t->arg);
        __atomic_store_n(&t->state, _SKEL_TASK_DONE, __ATOMIC_RELEASE);
    }
    return t->status;
}

int _skel_task_join(_skel_task *t, double spin)
{
    double end = 0;
    while (_SKEL_SC_LOAD(&t->state) == _SKEL_TASK_RUNNING) {
        double now = _skel_now();
        if (end == 0) end = now + spin;
        else if (now > end) break;
        _SKEL_PAUSE();
    }
    return _skel_task_wait(t);
}

#else   /* no atomics: every call runs on its caller; tasks run when waited for */
static void _skel_pool_run(int width, int parts, size_t n, _skel_body body, void *ctx, double expect, double *work)
{
    (void)width; (void)expect;
    if (work) *work = -1;
    _skel_pool_inline(parts, n, body, ctx);
}
void _skel_pool_for(int width, int parts, size_t n, _skel_body body, void *ctx)
{
    _skel_pool_run(width, parts, n, body, ctx, 0, NULL);
}

void _skel_pool_submit(_skel_task *t, int (*fn)(void *), void *arg)
{
    t->fn = fn; t->arg = arg; t->status = 0; t->state = _SKEL_TASK_QUEUED;
}
int _skel_task_done(_skel_task *t) { return t->state == _SKEL_TASK_DONE; }
int _skel_task_wait(_skel_task *t)
{
    if (t->state != _SKEL_TASK_DONE) { t->status = t->fn(t->arg); t->state = _SKEL_TASK_DONE; }
    return t->status;
}
int _skel_task_join(_skel_task *t, double spin) { (void)spin; return _skel_task_wait(t); }
void _skel_pool_wake(int width) { (void)width; }
void _skel_pool_reserve(int n) { (void)n; }
void _skel_pool_stop(void) {}
int _skel_pool_threads(void) { return 0; }
int _skel_pool_step_aside(int cpu) { (void)cpu; return 0; }
int _skel_pool_sleepers_avoiding(void) { return 0; }
unsigned _skel_pool_wakes(int k) { (void)k; return 0; }
void _skel_pool_tally(unsigned *owner_sleeps, unsigned *site_alone) { *owner_sleeps = 0; *site_alone = _skel_site_alone_calls(); }
double _skel_pool_wait_spin(double per, double expect, double elapsed) { (void)per; (void)expect; (void)elapsed; return 0; }
int _skel_pool_asleep(void) { return 0; }
void _skel_pool_pass_wake(void) {}
#endif
/* For tests: a parallel call's guess of its time alone (-1: not run in parallel). */
double _skel_test_pool_guess(int width, int parts, size_t n, _skel_body body, void *ctx)
{
    double work;
    _skel_pool_run(width, parts, n, body, ctx, 0, &work);
    return work;
}

/* ---------------------------------------------------------------------
   types
   --------------------------------------------------------------------- */
static const skel_type_info _skel_types[SKEL_TYPE_COUNT] = {
    { "none", "void", 0, 0, 0, 1, 0, "" },
    { "float", "float", 4, 1, 1, 4, 0, "" },
    { "double", "double", 8, 1, 1, 8, 0, "" },
    { "int32", "int32_t", 4, 0, 1, 4, 0, "" },
    { "uint32", "uint32_t", 4, 0, 0, 4, 0, "" },
    { "int64", "int64_t", 8, 0, 1, 8, 0, "" },
    { "uint64", "uint64_t", 8, 0, 0, 8, 0, "" },
    { "int8", "int8_t", 1, 0, 1, 1, 0, "" },
    { "uint8", "uint8_t", 1, 0, 0, 1, 0, "" },
    { "int16", "int16_t", 2, 0, 1, 2, 0, "" },
    { "uint16", "uint16_t", 2, 0, 0, 2, 0, "" },
};

/* Struct types, registered by skel_type_of.  Append-only: an entry is
   written in full (under the lock) before its id is handed out, and never
   changes, so readers of an id they were given need no lock. */
#define _SKEL_MAX_STRUCTS 64
#define _SKEL_MAX_ELEM 128          /* bytes of the largest element type */
static skel_type_info _skel_structs[_SKEL_MAX_STRUCTS];
static int _skel_nstructs;          /* guarded by _skel_structs_lock */
static pthread_mutex_t _skel_structs_lock = PTHREAD_MUTEX_INITIALIZER;

const skel_type_info *skel_type_get(skel_type t)
{
    int k = (int)t - SKEL_TYPE_COUNT;
    if (t > SKEL_NOTYPE && t < SKEL_TYPE_COUNT) return &_skel_types[t];
    return k >= 0 && k < _SKEL_MAX_STRUCTS && _skel_structs[k].size ? &_skel_structs[k] : NULL;
}

/* Two descriptions of one type: the same entry, or the same struct
   (name, size, alignment and definition) described in two files. */
static int _skel_type_same(const skel_type_info *a, const skel_type_info *b)
{
    return a == b || (a && b && a->is_struct && b->is_struct && a->size == b->size && a->align == b->align &&
                      strcmp(a->name, b->name) == 0 && strcmp(a->src, b->src) == 0);
}

/* The id of a built-in element type; SKEL_NOTYPE for any other. */
static skel_type _skel_builtin_type(const skel_type_info *ti)
{
    int k;
    for (k = 1; k < SKEL_TYPE_COUNT; ++k)
        if (ti == &_skel_types[k]) return (skel_type)k;
    return SKEL_NOTYPE;
}

skel_type skel_type_of(const skel_type_info *ti)
{
    int k;
    if (!ti) { _skel_fail(SKEL_EINVAL, "skel_type_of: NULL type"); return SKEL_NOTYPE; }
    if ((k = (int)_skel_builtin_type(ti)) != SKEL_NOTYPE) return (skel_type)k;
    if (!ti->is_struct || !ti->size) { _skel_fail(SKEL_EINVAL, "skel_type_of: %s is no element type", ti->name); return SKEL_NOTYPE; }
    if (ti->size > _SKEL_MAX_ELEM) {
        _skel_fail(SKEL_EINVAL, "skel_type_of: struct %s has %zu bytes; element types may have at most %d",
                   ti->name, ti->size, _SKEL_MAX_ELEM);
        return SKEL_NOTYPE;
    }
    pthread_mutex_lock(&_skel_structs_lock);
    for (k = 0; k < _skel_nstructs && !_skel_type_same(&_skel_structs[k], ti); ++k) {}
    if (k == _skel_nstructs && k < _SKEL_MAX_STRUCTS) _skel_structs[_skel_nstructs++] = *ti;
    pthread_mutex_unlock(&_skel_structs_lock);
    if (k == _SKEL_MAX_STRUCTS) {
        _skel_fail(SKEL_EINVAL, "skel_type_of: more than %d struct types", _SKEL_MAX_STRUCTS);
        return SKEL_NOTYPE;
    }
    return (skel_type)(SKEL_TYPE_COUNT + k);
}

/* a view read out of bounds (SKEL_DEBUG builds): counted, and the call
   that made it fails; element 0 is read instead */
static long _skel_oob_count;        /* atomic */
skel_index _skel_view_oob(skel_index i, skel_index n)
{
#if defined(__GNUC__) || defined(__clang__)
    if (__atomic_fetch_add(&_skel_oob_count, 1, __ATOMIC_RELAXED) == 0)
#endif
        _skel_log(SKEL_LOG_ERROR, "a view was read at %lld, outside its %lld elements", (long long)i, (long long)n);
    return 0;
}
static long _skel_oob_now(void)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(&_skel_oob_count, __ATOMIC_RELAXED);
#else
    return _skel_oob_count;
#endif
}

/* ---------------------------------------------------------------------
   places, memory spaces and containers (the coherence layer)

   A *memory space* is where a copy of a container can live: space 0 is
   host memory, each GPU device (CUDA device, OpenCL device) is one more.
   A *place* is a memory space with the backend that computes there: the
   host with the CPU backends (seq, omp, pool), each GPU with its backend.
   Places and spaces share their index: place p computes in space p.

   Every container carries a *map*: its index space [0, n) cut into
   segments in index order, each with the set of spaces (a bit mask) that
   hold its newest data.  Today's "valid on the host and on GPU 1" is the
   map with one segment [0, n) and mask 0b11.  The rules (THE INVARIANT in
   the manual at the top says why they are enough):
     read  [lo, hi) in s   every part of the range whose mask lacks s is
                           copied into s from a space in its mask (through
                           the host when both are devices), then s joins
                           those masks;
     write [lo, hi) in s   the range's masks become {s}: the other copies
                           of that range are stale (they are not freed);
     a device copy is always an allocation of the whole container, so
     element i lives at byte i * esz in every space.

   INTERNAL API (skel's headers, the split engine, #26's scheduler)
   _skel_acquire_range(c, s, mode, lo, hi)   c's buffer in space s (host
       pointer or the space's handle), after making [lo, hi) valid there
       when mode reads (_SKEL_READ); _SKEL_WRITE alone only allocates and
       reserves map room for the write.  NULL on failure (skel_last_error).
   _skel_acquire(c, s, mode)            the same for [0, n).
   _skel_mark_written_range(c, s, lo, hi)   record a write of [lo, hi) in s
       (after the write succeeded: a failed call leaves the map as it was);
       _skel_mark_written(c, s) for [0, n).  Never fails once an acquire
       for writing (or _skel_map_reserve) made room.
   _skel_map_reserve(c, writes)          room for that many more writes.
   _skel_missing(c, s, lo, hi)           elements of [lo, hi) not valid in s
       (the bytes a read there would move: times c->esz).
   _skel_map_valid(c, s)                 1 when all of c is valid in s
       (lock-free: the map's summary words, see below).
   _skel_map_reset(c, s)                 all of c valid in s only (tests,
       the tuner's operand placement; s must hold all of it already).
   _skel_spaces[p], _skel_nspaces        the places (_skel_space, declared with
       the internal pool API above): name, backend, device,
       and the space's copy functions (range copies, byte offsets), wait
       and (optional) time marks.
   _skel_part_io(sk, c, sh, &io)         the element ranges part sh of call c
       reads of each input and writes of call.out (halos included);
   _skel_part_missing(sk, c, sh, s)      bytes of them space s lacks (what
       running the part there copies first);
   _skel_part_acquire(sk, c, sh, s, bufs) brings them to s (backends).
   _skel_traffic_add(from, to, bytes)    the transfer counters of every copy
       between spaces, per link (public: skel_traffic_get).

   THREADS.  A container's map and device buffers are guarded by its lock:
   several threads may read one container at once and each may copy
   ranges of it into the same space; the first copies, the others find
   them valid.  `all` (spaces valid for the whole container) and `any`
   (spaces valid somewhere) summarise the map for readers that take no
   lock (a CPU call on data the host holds): they change only under the
   lock, with release stores, after the copy they announce is complete.
   --------------------------------------------------------------------- */

/* Appended by GPU providers (under _skel_gpu_lock) and published like the
   backend registry: entries below _SKEL_LOAD(&_skel_nspaces) never change. */
static _skel_space _skel_spaces[_SKEL_MAX_SPACES] = { { "host", NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 } };
static int _skel_nspaces = 1;

/* Register a device memory space (GPU backends); returns its id or -1. */
int _skel_space_register(const _skel_space *s)
{
    int n = _SKEL_LOAD(&_skel_nspaces);
    if (n >= _SKEL_MAX_SPACES) return -1;
    _skel_spaces[n] = *s;
    _SKEL_STORE(&_skel_nspaces, n + 1);
    return n;
}

/* ---- transfer counters: bytes and copies per link, since the start or
   the last skel_traffic_reset (atomic adds: any thread copies) ---- */
static uint64_t _skel_tr_bytes[_SKEL_MAX_SPACES][_SKEL_MAX_SPACES], _skel_tr_copies[_SKEL_MAX_SPACES][_SKEL_MAX_SPACES];

static void _skel_traffic_add(int from, int to, size_t bytes)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_fetch_add(&_skel_tr_bytes[from][to], (uint64_t)bytes, __ATOMIC_RELAXED);
    __atomic_fetch_add(&_skel_tr_copies[from][to], 1, __ATOMIC_RELAXED);
#else
    _skel_tr_bytes[from][to] += bytes;
    _skel_tr_copies[from][to] += 1;
#endif
}

void skel_traffic_get(skel_traffic *out)
{
    int a, b;
    if (!out) return;
    memset(out, 0, sizeof *out);
    out->spaces = _SKEL_LOAD(&_skel_nspaces);
    for (a = 0; a < out->spaces; ++a) {
        out->name[a] = _skel_spaces[a].name;
        for (b = 0; b < out->spaces; ++b) {
            out->bytes[a][b] = _SKEL_LOAD(&_skel_tr_bytes[a][b]);
            out->copies[a][b] = _SKEL_LOAD(&_skel_tr_copies[a][b]);
        }
    }
}

void skel_traffic_reset(void)
{
    int a, b;
    for (a = 0; a < _SKEL_MAX_SPACES; ++a)
        for (b = 0; b < _SKEL_MAX_SPACES; ++b) {
            _SKEL_STORE(&_skel_tr_bytes[a][b], 0);
            _SKEL_STORE(&_skel_tr_copies[a][b], 0);
        }
}

uint64_t skel_traffic_total(const skel_traffic *t)
{
    uint64_t s = 0;
    int a, b;
    if (!t) return 0;
    for (a = 0; a < t->spaces; ++a)
        for (b = 0; b < t->spaces; ++b) s += t->bytes[a][b];
    return s;
}

/* One segment of a container's map: it runs from lo to the next one's lo
   (the last to n); mask holds bit s when space s holds its newest data. */
typedef struct _skel_seg {
    size_t lo;
    unsigned mask;
} _skel_seg;

#define _SKEL_SEG_INLINE 8
struct skel_array {
    skel_type type;
    int is_matrix, wrapped;
    int dims;                   /* 1 vector, 2 matrix, 3 depth x rows x cols */
    size_t depth, rows, cols, n, esz;
    void *host;
    void *host_block;               /* what host was carved from (page-aligned copies), or NULL */
    void *dev[_SKEL_MAX_SPACES];    /* guarded by lock */
    unsigned pin_settled;           /* spaces whose pin answered 1 for dev[s] (lock) */
    _skel_seg *seg;                 /* the map: nseg segments (>= 1), seg[0].lo = 0; guarded by lock */
    int nseg, capseg;
    unsigned all, any;              /* the map's summary: _SKEL_LOAD without the lock, written under it */
    _skel_seg seg_inline[_SKEL_SEG_INLINE];
    pthread_mutex_t lock;
    struct _skel_cdeps *tasks;  /* pending tasks and failures (see "tasks"): made by the first
                                   task naming it, under the scheduler's mutex; read with _SKEL_LOAD */
};

enum { _SKEL_READ = 1, _SKEL_WRITE = 2, _SKEL_READWRITE = 3 };

/* the tasks layer (below): host access waits for the tasks pending on c */
static int _skel_tasks_settle(skel_vec *c, int mode);
static void _skel_tasks_clear(skel_vec *c);
static void _skel_tasks_forget(skel_vec *c);
static int _skel_tasks_wait_all(void);
static size_t _skel_seg_hi(const skel_vec *c, int k) { return k + 1 < c->nseg ? c->seg[k + 1].lo : c->n; }

static void _skel_map_summarise(skel_vec *c)
{
    unsigned all = ~0u, any = 0;
    int k;
    for (k = 0; k < c->nseg; ++k) {
        all &= c->seg[k].mask;
        any |= c->seg[k].mask;
    }
    _SKEL_STORE(&c->all, all);
    _SKEL_STORE(&c->any, any);
}

/* Room for `more` segments beyond the current ones (lock held). */
static int _skel_map_room(skel_vec *c, int more)
{
    _skel_seg *s;
    int cap;
    if (c->nseg + more <= c->capseg) return SKEL_OK;
    cap = 2 * (c->nseg + more);
    if (c->seg == c->seg_inline) {
        if (!(s = (_skel_seg *)SKEL_MALLOC((size_t)cap * sizeof *s))) return SKEL_ENOMEM;
        memcpy(s, c->seg, (size_t)c->nseg * sizeof *s);
    } else if (!(s = (_skel_seg *)SKEL_REALLOC(c->seg, (size_t)cap * sizeof *s))) {
        return SKEL_ENOMEM;
    }
    c->seg = s;
    c->capseg = cap;
    return SKEL_OK;
}

/* Make `at` (0 < at < n) a segment boundary; the index of the segment
   starting there.  Needs room for one more segment. */
static int _skel_map_cut(skel_vec *c, size_t at)
{
    int k = c->nseg - 1;
    while (c->seg[k].lo > at) --k;
    if (c->seg[k].lo == at) return k;
    SKEL_ASSERT(c->nseg < c->capseg);
    memmove(c->seg + k + 2, c->seg + k + 1, (size_t)(c->nseg - k - 1) * sizeof *c->seg);
    c->seg[k + 1].lo = at;
    c->seg[k + 1].mask = c->seg[k].mask;
    c->nseg++;
    return k + 1;
}

/* Neighbours with the same mask become one segment. */
static void _skel_map_merge(skel_vec *c)
{
    int k, m = 0;
    for (k = 1; k < c->nseg; ++k)
        if (c->seg[k].mask != c->seg[m].mask) c->seg[++m] = c->seg[k];
    c->nseg = m + 1;
}

/* Set (or, with add, OR into) the masks of [lo, hi), lo < hi <= n.  Needs
   room for two more segments. */
static void _skel_map_apply(skel_vec *c, size_t lo, size_t hi, unsigned mask, int add)
{
    int a = lo ? _skel_map_cut(c, lo) : 0, b = hi < c->n ? _skel_map_cut(c, hi) : c->nseg, k;
    for (k = a; k < b; ++k) c->seg[k].mask = add ? c->seg[k].mask | mask : mask;
    _skel_map_merge(c);
    _skel_map_summarise(c);
}

int _skel_map_reserve(skel_vec *c, int writes)
{
    int rc;
    pthread_mutex_lock(&c->lock);
    rc = _skel_map_room(c, 2 * writes);
    pthread_mutex_unlock(&c->lock);
    return rc == SKEL_OK ? SKEL_OK : _skel_fail(SKEL_ENOMEM, "container map: out of memory");
}

size_t _skel_missing(skel_vec *c, int s, size_t lo, size_t hi)
{
    size_t miss = 0, a, b;
    int k;
    if (_SKEL_LOAD(&c->all) & (1u << s)) return 0;
    pthread_mutex_lock(&c->lock);
    for (k = 0; k < c->nseg; ++k) {
        a = c->seg[k].lo > lo ? c->seg[k].lo : lo;
        b = _skel_seg_hi(c, k) < hi ? _skel_seg_hi(c, k) : hi;
        if (a < b && !(c->seg[k].mask & (1u << s))) miss += b - a;
    }
    pthread_mutex_unlock(&c->lock);
    return miss;
}

int _skel_map_valid(const skel_vec *c, int s) { return (_SKEL_LOAD(&c->all) >> s) & 1u; }

/* A container's host copy of `bytes`.  From 64 KiB on it has pages of
   its own (page-aligned, whole pages; *block is what to free): a space
   that page-locks host copies (CUDA: SKEL_CUDA_PINNED) locks whole
   pages, and a copy sharing a page with one already locked could not be
   locked (the driver refuses overlapping registrations).  Smaller ones
   are plain allocations (*block NULL). */
static void *_skel_host_alloc(size_t bytes, void **block)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    uintptr_t p;
    *block = NULL;
    if (bytes < ((size_t)1 << 16) || bytes > SIZE_MAX - 2 * page) return SKEL_MALLOC(bytes);
    if (!(*block = SKEL_MALLOC(bytes + 2 * page))) return NULL;
    p = ((uintptr_t)*block + page - 1) & ~(uintptr_t)(page - 1);
    return (void *)p;
}

/* dims: 1, 2 or 3 (depth x rows x cols) */
static int _skel_array_new(skel_vec **out, int dims, skel_type t, size_t depth, size_t rows,
                           size_t cols, const void *fill, const void *src, void *wrap)
{
    const skel_type_info *ti = skel_type_get(t);
    skel_vec *a;
    size_t n, i;
    if (!out) return _skel_fail(SKEL_EINVAL, "container constructor: NULL result pointer");
    *out = NULL;
    if (!ti) return _skel_fail(SKEL_EINVAL, "container constructor: invalid element type %d", (int)t);
    if (cols && rows > SIZE_MAX / cols / ti->size)
        return _skel_fail(SKEL_EINVAL, "container constructor: %zu x %zu elements overflow", rows, cols);
    if (rows * cols != 0 && depth > SIZE_MAX / (rows * cols) / ti->size)
        return _skel_fail(SKEL_EINVAL, "container constructor: %zu x %zu x %zu elements overflow", depth, rows, cols);
    n = depth * rows * cols;
    a = (skel_vec *)SKEL_MALLOC(sizeof *a);
    if (!a) return _skel_fail(SKEL_ENOMEM, "container constructor: out of host memory");
    memset(a, 0, sizeof *a);
    if (pthread_mutex_init(&a->lock, NULL) != 0) {
        SKEL_FREE(a);
        return _skel_fail(SKEL_ENOMEM, "container constructor: no mutex");
    }
    a->type = t; a->is_matrix = dims == 2; a->dims = dims;
    a->depth = depth; a->rows = rows; a->cols = cols;
    a->n = n; a->esz = ti->size;
    a->seg = a->seg_inline;
    a->capseg = _SKEL_SEG_INLINE;
    a->nseg = 1;
    a->seg[0].lo = 0;
    a->seg[0].mask = 1u;
    a->all = a->any = 1u;
    if (wrap) {
        a->host = wrap;
        a->wrapped = 1;
    } else {
        a->host = _skel_host_alloc(n ? n * a->esz : a->esz, &a->host_block);   /* (an element: a debug view read of element 0) */
        if (!a->host) {
            pthread_mutex_destroy(&a->lock);
            SKEL_FREE(a);
            return _skel_fail(SKEL_ENOMEM, "container constructor: cannot allocate %zu bytes", n * ti->size);
        }
        if (src && n) memcpy(a->host, src, n * a->esz);
        if (!src && !fill) memset(a->host, 0, n * a->esz);
        if (fill)
            for (i = 0; i < n; ++i) memcpy((char *)a->host + i * a->esz, fill, a->esz);
    }
    *out = a;
    return SKEL_OK;
}

#define _SKEL_NEED(p, what) \
    do { if (v) *v = NULL; if (!(p)) return _skel_fail(SKEL_EINVAL, what ": NULL %s", #p); } while (0)
int skel_vec_new(skel_vec **v, skel_type t, size_t n) { return _skel_array_new(v, 1, t, 1, 1, n, NULL, NULL, NULL); }
int skel_vec_new_fill(skel_vec **v, skel_type t, size_t n, const void *value)
{ _SKEL_NEED(value, "skel_vec_new_fill"); return _skel_array_new(v, 1, t, 1, 1, n, value, NULL, NULL); }
int skel_vec_new_copy(skel_vec **v, skel_type t, size_t n, const void *src)
{ _SKEL_NEED(src, "skel_vec_new_copy"); return _skel_array_new(v, 1, t, 1, 1, n, NULL, src, NULL); }
int skel_vec_wrap(skel_vec **v, skel_type t, size_t n, void *buffer)
{ _SKEL_NEED(buffer, "skel_vec_wrap"); return _skel_array_new(v, 1, t, 1, 1, n, NULL, NULL, buffer); }
int skel_mat_new(skel_mat **m, skel_type t, size_t rows, size_t cols)
{ return _skel_array_new(m, 2, t, 1, rows, cols, NULL, NULL, NULL); }
int skel_mat_new_fill(skel_mat **v, skel_type t, size_t rows, size_t cols, const void *value)
{ _SKEL_NEED(value, "skel_mat_new_fill"); return _skel_array_new(v, 2, t, 1, rows, cols, value, NULL, NULL); }
int skel_mat_new_copy(skel_mat **v, skel_type t, size_t rows, size_t cols, const void *src)
{ _SKEL_NEED(src, "skel_mat_new_copy"); return _skel_array_new(v, 2, t, 1, rows, cols, NULL, src, NULL); }
int skel_mat_wrap(skel_mat **v, skel_type t, size_t rows, size_t cols, void *buffer)
{ _SKEL_NEED(buffer, "skel_mat_wrap"); return _skel_array_new(v, 2, t, 1, rows, cols, NULL, NULL, buffer); }
int skel_ten_new(skel_ten **v, skel_type t, size_t depth, size_t rows, size_t cols)
{ return _skel_array_new(v, 3, t, depth, rows, cols, NULL, NULL, NULL); }
int skel_ten_new_copy(skel_ten **v, skel_type t, size_t depth, size_t rows, size_t cols, const void *src)
{ _SKEL_NEED(src, "skel_ten_new_copy"); return _skel_array_new(v, 3, t, depth, rows, cols, NULL, src, NULL); }
int skel_ten_wrap(skel_ten **v, skel_type t, size_t depth, size_t rows, size_t cols, void *buffer)
{ _SKEL_NEED(buffer, "skel_ten_wrap"); return _skel_array_new(v, 3, t, depth, rows, cols, NULL, NULL, buffer); }

/* Free every device copy (lock held, or the container is the caller's alone). */
static void _skel_release_devices(skel_vec *c)
{
    int s;
    for (s = 1; s < _SKEL_LOAD(&_skel_nspaces); ++s)
        if (c->dev[s]) {
            _skel_spaces[s].release(_skel_spaces[s].ctx, c->dev[s]);
            c->dev[s] = NULL;
        }
    c->pin_settled = 0;
}

void skel_free(skel_vec *c)
{
    if (!c) return;
    _skel_tasks_forget(c);
    _skel_release_devices(c);
    if (!c->wrapped) SKEL_FREE(c->host_block ? c->host_block : c->host);
    if (c->seg != c->seg_inline) SKEL_FREE(c->seg);
    pthread_mutex_destroy(&c->lock);
    SKEL_FREE(c);
}

size_t skel_size(const skel_vec *c) { return c ? c->n : 0; }
size_t skel_depth(const skel_vec *c) { return c ? c->depth : 0; }
size_t skel_rows(const skel_vec *c) { return c ? c->rows : 0; }
size_t skel_cols(const skel_vec *c) { return c ? c->cols : 0; }
skel_type skel_elem_type(const skel_vec *c) { return c ? c->type : SKEL_NOTYPE; }
int skel_is_matrix(const skel_vec *c) { return c ? c->is_matrix : 0; }
int skel_dims(const skel_vec *c) { return c ? c->dims : 0; }

/* A copy of bytes from space `from` to space `to` that began at t0 (0:
   not traced) succeeded: counted (skel_sched_stats_get), and traced. */
static uint64_t _skel_copied_bytes[_SKEL_MAX_SPACES][_SKEL_MAX_SPACES];  /* [from][to]: atomic adds */
static void _skel_copied(int from, int to, size_t bytes, double t0)
{
#if defined(__GNUC__) || defined(__clang__)
    __atomic_fetch_add(&_skel_copied_bytes[from][to], (uint64_t)bytes, __ATOMIC_RELAXED);
#else
    _skel_copied_bytes[from][to] += bytes;
#endif
    if (t0 > 0) _skel_trace_event(_SKEL_TR_COPY, to, from, t0, _skel_now(), bytes, 0, "copy");
}

/* The status of this thread's last failed acquire (the space's code:
   SKEL_ENOMEM out of memory, SKEL_EDEVICE a failed copy, ...). */
static _SKEL_TLS int _skel_acquire_rc;

/* c's buffer in space s, allocated on first use (lock held); NULL with
   _skel_acquire_rc set when that fails. */
static void *_skel_buffer(skel_vec *c, int s)
{
    int rc;
    if (s == 0) return c->host;
    if (!c->dev[s] && (rc = _skel_spaces[s].alloc(_skel_spaces[s].ctx, c->n ? c->n * c->esz : 16, &c->dev[s])) != SKEL_OK) {
        c->dev[s] = NULL;
        _skel_acquire_rc = rc;
    }
    return c->dev[s];
}

/* Copy elements [a, b) of c from space `from` to space `to`, one of them
   the host (lock held, both buffers allocated). */
static int _skel_copy(skel_vec *c, int from, int to, size_t a, size_t b)
{
    size_t off = a * c->esz, bytes = (b - a) * c->esz;
    int dev = to ? to : from, rc;
    double t0;
    if (_skel_spaces[dev].pin && !(c->pin_settled & (1u << dev)) &&
        _skel_spaces[dev].pin(_skel_spaces[dev].ctx, c->dev[dev], c->host, bytes))
        c->pin_settled |= 1u << dev;
    t0 = _skel_trace.on ? _skel_now() : 0;
    rc = to == 0 ? _skel_spaces[from].download(_skel_spaces[from].ctx, (char *)c->host + off, c->dev[from], off, bytes)
                     : _skel_spaces[to].upload(_skel_spaces[to].ctx, c->dev[to], off, (const char *)c->host + off, bytes);
    if (rc != SKEL_OK) return rc;
    _skel_traffic_add(from, to, bytes);
    _skel_copied(from, to, bytes, t0);
    return SKEL_OK;
}

/* Make [lo, hi) valid in s (lock held; lo < hi).  A range only another
   device holds comes through the host, which then holds it too. */
static int _skel_fetch(skel_vec *c, int s, size_t lo, size_t hi)
{
    int k, src, rc;
    _SKEL_TRY(_skel_map_room(c, 4));
    for (k = 0; k < c->nseg; ++k) {
        size_t a = c->seg[k].lo > lo ? c->seg[k].lo : lo, b = _skel_seg_hi(c, k) < hi ? _skel_seg_hi(c, k) : hi;
        unsigned m = c->seg[k].mask;
        if (a >= b || (m & (1u << s))) continue;
        if (s != 0 && !(m & 1u)) {      /* device to device: down, then up */
            for (src = 1; !(m & (1u << src)); ++src) {}
            if ((rc = _skel_copy(c, src, 0, a, b)) != SKEL_OK) return rc;
            _skel_map_apply(c, a, b, 1u, 1);
            k = -1;                     /* the map changed: look again */
            continue;
        }
        for (src = s == 0 ? 1 : 0; !(m & (1u << src)); ++src) {}
        if ((rc = _skel_copy(c, src, s, a, b)) != SKEL_OK) return rc;
        _skel_map_apply(c, a, b, 1u << s, 1);
        k = -1;
    }
    return SKEL_OK;
}

void *_skel_acquire_range(skel_vec *c, int s, int mode, size_t lo, size_t hi)
{
    void *p;
    int rc = SKEL_OK;
    /* the host copy of data the host holds (most CPU calls): no lock */
    if (s == 0 && !(mode & _SKEL_WRITE) && (_SKEL_LOAD(&c->all) & 1u)) return c->host;
    pthread_mutex_lock(&c->lock);
    if (!(p = _skel_buffer(c, s)))
        rc = _skel_acquire_rc;      /* the space said why */
    else if ((mode & _SKEL_READ) && lo < hi && !(c->all & (1u << s)))
        rc = _skel_fetch(c, s, lo, hi);
    if (rc == SKEL_OK && (mode & _SKEL_WRITE) && _skel_map_room(c, 2) != SKEL_OK)
        rc = _skel_fail(SKEL_ENOMEM, "container map: out of memory");
    pthread_mutex_unlock(&c->lock);
    if (rc != SKEL_OK) _skel_acquire_rc = rc;
    return rc == SKEL_OK ? p : NULL;
}

void *_skel_acquire(skel_vec *c, int s, int mode) { return _skel_acquire_range(c, s, mode, 0, c->n); }

void _skel_mark_written(skel_vec *c, int s);
void _skel_mark_written_range(skel_vec *c, int s, size_t lo, size_t hi)
{
    if (lo == 0 && hi >= c->n) { _skel_mark_written(c, s); return; }
    if (lo >= hi) return;
    pthread_mutex_lock(&c->lock);
    if (_skel_map_room(c, 2) != SKEL_OK) {
        /* no room (an acquire for writing reserves it): keep the map true
           by making the host hold everything first */
        SKEL_ASSERT(0);
    }
    _skel_map_apply(c, lo, hi, 1u << s, 0);
    pthread_mutex_unlock(&c->lock);
}

void _skel_mark_written(skel_vec *c, int s)
{
    pthread_mutex_lock(&c->lock);
    c->nseg = 1;
    c->seg[0].lo = 0;
    c->seg[0].mask = 1u << s;
    _skel_map_summarise(c);
    pthread_mutex_unlock(&c->lock);
}

void _skel_map_reset(skel_vec *c, int s)
{
    SKEL_ASSERT(_skel_map_valid(c, s));
    _skel_mark_written(c, s);
}

/* The first device space that holds some of c, or 0. */
static int _skel_map_device(const skel_vec *c)
{
    unsigned any = _SKEL_LOAD(&c->any) & ~1u;
    int s;
    for (s = 1; s < _SKEL_MAX_SPACES; ++s)
        if (any & (1u << s)) return s;
    return 0;
}

/* Tests: 1 when c's map keeps its promises (segments in order covering
   [0, n), every mask non-empty, neighbours different, summaries right). */
int _skel_test_map_ok(skel_vec *c)
{
    unsigned all = ~0u, any = 0;
    int k, ok;
    pthread_mutex_lock(&c->lock);
    ok = c->nseg >= 1 && c->seg[0].lo == 0 && c->nseg <= c->capseg;
    for (k = 0; ok && k < c->nseg; ++k) {
        ok = c->seg[k].mask != 0 && c->seg[k].mask < (1u << _SKEL_LOAD(&_skel_nspaces)) &&
             (k == 0 || (c->seg[k].lo > c->seg[k - 1].lo && c->seg[k].mask != c->seg[k - 1].mask)) &&
             (c->n == 0 || c->seg[k].lo < c->n);
        all &= c->seg[k].mask;
        any |= c->seg[k].mask;
    }
    ok = ok && all == c->all && any == c->any;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

/* Tests: the segments of c's map (at most max), as lo and mask; returns
   their count. */
int _skel_test_map_get(skel_vec *c, size_t *lo, unsigned *mask, int max)
{
    int k, n;
    pthread_mutex_lock(&c->lock);
    n = c->nseg;
    for (k = 0; k < n && k < max; ++k) { lo[k] = c->seg[k].lo; mask[k] = c->seg[k].mask; }
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* Tests: write src (elements [lo, hi)) straight into c's copy in space s
   and record the write there, as a call computing that range in s would;
   and read [lo, hi) of c's copy in s into dst without any coherence
   (what that copy holds, stale or not). */
int _skel_test_write_range(skel_vec *c, int s, size_t lo, size_t hi, const void *src)
{
    void *p;
    int rc = SKEL_OK;
    if (!(p = _skel_acquire_range(c, s, _SKEL_WRITE, lo, hi))) return SKEL_ENOMEM;
    if (s == 0) memcpy((char *)p + lo * c->esz, src, (hi - lo) * c->esz);
    else rc = _skel_spaces[s].upload(_skel_spaces[s].ctx, p, lo * c->esz, src, (hi - lo) * c->esz);
    if (rc == SKEL_OK) _skel_mark_written_range(c, s, lo, hi);
    return rc;
}

int _skel_test_peek_range(skel_vec *c, int s, size_t lo, size_t hi, void *dst)
{
    if (s == 0) { memcpy(dst, (char *)c->host + lo * c->esz, (hi - lo) * c->esz); return SKEL_OK; }
    if (!c->dev[s]) return SKEL_EINVAL;
    return _skel_spaces[s].download(_skel_spaces[s].ctx, dst, c->dev[s], lo * c->esz, (hi - lo) * c->esz);
}

const void *skel_read(skel_vec *c)
{
    if (!c) { _skel_fail(SKEL_EINVAL, "skel_read: NULL container"); return NULL; }
    if (_skel_tasks_settle(c, _SKEL_READ) != SKEL_OK) return NULL;
    return _skel_acquire(c, 0, _SKEL_READ);
}

void *skel_write(skel_vec *c)
{
    void *p;
    if (!c) { _skel_fail(SKEL_EINVAL, "skel_write: NULL container"); return NULL; }
    _skel_tasks_settle(c, _SKEL_READWRITE);
    _skel_tasks_clear(c);           /* the host writes it: whatever failed before is replaced */
    if ((p = _skel_acquire(c, 0, _SKEL_READWRITE)) != NULL) _skel_mark_written(c, 0);
    return p;
}

int skel_flush(skel_vec *c)
{
    if (!c) return _skel_fail(SKEL_EINVAL, "skel_flush: NULL container");
    _skel_tasks_settle(c, _SKEL_READWRITE);
    if (!_skel_acquire(c, 0, _SKEL_READ)) return SKEL_EDEVICE;
    pthread_mutex_lock(&c->lock);
    _skel_release_devices(c);
    c->nseg = 1;
    c->seg[0].lo = 0;
    c->seg[0].mask = 1u;
    _skel_map_summarise(c);
    pthread_mutex_unlock(&c->lock);
    return SKEL_OK;
}

int skel_wait(skel_vec *c)
{
    int s, rc = SKEL_OK;
    unsigned valid;
    if (!c) return _skel_fail(SKEL_EINVAL, "skel_wait: NULL container");
    if ((rc = _skel_tasks_settle(c, _SKEL_READ)) != SKEL_OK) return rc;
    valid = _SKEL_LOAD(&c->any);     /* every space holding some of it */
    for (s = 1; s < _SKEL_LOAD(&_skel_nspaces) && rc == SKEL_OK; ++s)
        if ((valid & (1u << s)) && _skel_spaces[s].wait) rc = _skel_spaces[s].wait(_skel_spaces[s].ctx);
    return rc;
}

/* The devices first, the tasks next: a device's wait (a microsecond or
   more, idle or not) then overlaps the tasks still running.  Nothing is
   missed: a task leaves nothing queued on a device (a GPU worker waits for
   its GPU after each call; host tasks run bound to the host). */
int skel_wait_all(void)
{
    int s, rc = SKEL_OK, r;
    for (s = 1; s < _SKEL_LOAD(&_skel_nspaces); ++s)
        if (_skel_spaces[s].wait && (r = _skel_spaces[s].wait(_skel_spaces[s].ctx)) != SKEL_OK && rc == SKEL_OK) rc = r;
    r = _skel_tasks_wait_all();
    return r != SKEL_OK ? r : rc;
}

/* ---------------------------------------------------------------------
   backends: the interface, the registry, and the environment
   --------------------------------------------------------------------- */
/* One part of a split variant, resolved: a registry index and a share. */
typedef struct _skel_vpart {
    int backend, device, threads, block, grid;
    double share;
} _skel_vpart;

typedef struct _skel_variant {
    int backend;                /* registry index (the "split" backend for a split) */
    int threads, block, grid, devices, tiling;
    int device;                 /* GPU: the device, i.e. which of the backend's places */
    int nparts;                 /* split: its parts, in index order, shares summing to 1 */
    _skel_vpart part[SKEL_MAX_PARTS];
} _skel_variant;

/* The unit a call's work is split in: elements, rows of a matrix, or
   planes of a 3-D container. */
enum { _SKEL_UNIT_ELEMS = 0, _SKEL_UNIT_ROWS = 1, _SKEL_UNIT_PLANES = 2 };
/* What a run computes: the call, or (a vector scan's split) only the total
   of its part, into call.result or call.out. */
enum { _SKEL_PHASE_RUN = 0, _SKEL_PHASE_TOTAL = 1 };

/* What dispatch learned about one call's operands, and which part of the
   call a run computes: units [lo, hi) of `units` (a whole call: all of
   them).  Backends compute exactly that part, reading and writing the
   ranges _skel_part_io gives. */
typedef struct _skel_shape {
    size_t n, depth, rows, cols;    /* the data a call runs over (MapPairs: the result) */
    size_t point[2];            /* context point */
    int dims;
    int flex;                   /* Map, Scan, MapReduce: a 1-D point n, or rows x cols for a 2-D plan */
    int unit;                   /* _SKEL_UNIT_ELEMS, _ROWS or _PLANES */
    size_t units, lo, hi;
    int phase;                  /* _SKEL_PHASE_RUN or _SKEL_PHASE_TOTAL */
} _skel_shape;

/* Elements of one unit of sh */
static size_t _skel_unit_elems(const _skel_shape *sh)
{
    return sh->unit == _SKEL_UNIT_ROWS ? sh->cols : sh->unit == _SKEL_UNIT_PLANES ? sh->rows * sh->cols : 1;
}

/* What part sh of call c reads and writes, in elements of each container
   (the coherence layer's currency): the part's own range of each input,
   widened by the stencil's halo for MapOverlaps (wrapping around for a
   cyclic edge: up to three ranges), all of MapArray's in[0]; and the
   range of every output the part writes (the outputs share the first's
   shape; a whole or column reduction: all of it, a split gives each of
   their parts its own call.out).  A part that covers the whole call reads
   and writes whole containers (the forms that never split: MapPairs,
   MapOverlap3D).  Views are read whole by every part. */
typedef struct _skel_io {
    int nin[SKEL_MAX_IN];
    size_t in_lo[SKEL_MAX_IN][3], in_hi[SKEL_MAX_IN][3];
    size_t out_lo, out_hi;
} _skel_io;

/* The buffers of a call's operands in one space (host pointers or the
   space's handles of the whole containers), in the kernel plans' order
   (_SKEL_BUF_OUT, _SKEL_BUF_IN0, _SKEL_BUF_VIEW0). */
typedef struct _skel_opbufs {
    void *out[SKEL_MAX_OUT], *in[SKEL_MAX_IN], *view[SKEL_MAX_VIEWS];
} _skel_opbufs;

/* Output k of a normalised call (call.out is output 0; a split part's
   call.out may be its own container). */
static skel_vec *_skel_out_k(const skel_call *c, int k) { return k ? c->outs[k] : c->out; }

/* Units [lo - h, hi + h) of `total` as the stencil reads them: clipped to
   [0, total), plus (cyclic edge) the units it wraps around to.  Returns
   the range count (1..3) in a[], b[]. */
static int _skel_halo(size_t lo, size_t hi, size_t h, size_t total, int edge, size_t *a, size_t *b)
{
    int n = 1;
    a[0] = lo > h ? lo - h : 0;
    b[0] = total - hi > h ? hi + h : total;
    if (edge != SKEL_EDGE_CYCLIC) return n;
    if (lo < h && b[0] < total) {           /* wraps below 0: the last h - lo units */
        a[n] = total - (h - lo < total ? h - lo : total);
        b[n] = total;
        if (a[n] < b[0]) a[n] = b[0];
        if (a[n] < b[n]) ++n;
    }
    if (hi + h > total && a[0] > 0) {       /* wraps past the end: the first hi + h - total units */
        a[n] = 0;
        b[n] = hi + h - total < a[0] ? hi + h - total : a[0];
        if (b[n] > 0) ++n;
    }
    return n;
}

static void _skel_part_io(const skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, _skel_io *io)
{
    size_t U = _skel_unit_elems(sh), lo = sh->lo * U, hi = sh->hi * U;
    int i, k, halo = 0;
    memset(io, 0, sizeof *io);
    for (i = 0; i < sk->nin; ++i) {
        io->nin[i] = 1;
        io->in_lo[i][0] = lo;
        io->in_hi[i][0] = hi;
    }
    if (sh->lo == 0 && sh->hi >= sh->units && sh->phase == _SKEL_PHASE_RUN) {     /* the whole call */
        for (i = 0; i < sk->nin; ++i) io->in_hi[i][0] = c->in[i]->n;
        io->out_hi = c->out ? c->out->n : 0;
        return;
    }
    if (sk->kind == SKEL_KIND_MAPARRAY) {
        io->in_lo[0][0] = 0;
        io->in_hi[0][0] = c->in[0]->n;
    }
    if (sk->kind == SKEL_KIND_MAPPAIRS || sk->kind == SKEL_KIND_MAPPAIRSREDUCE) {
        int cols = sk->kind == SKEL_KIND_MAPPAIRSREDUCE && c->direction == SKEL_COLS;   /* its units: columns */
        for (i = 0; i < sk->nin; ++i) {     /* the part's side: its units' elements; the other side whole */
            int mine = cols ? i >= sk->nrow : i < sk->nrow;
            io->in_lo[i][0] = mine ? sh->lo : 0;
            io->in_hi[i][0] = mine ? sh->hi : c->in[i]->n;
        }
    }
    if (sk->kind == SKEL_KIND_OVERLAP2D) halo = sk->dr;
    if (sk->kind == SKEL_KIND_OVERLAP3D) halo = sk->dd;     /* planes */
    if (sk->kind == SKEL_KIND_OVERLAP && (sh->unit == _SKEL_UNIT_ELEMS || (c->direction & SKEL_COLS))) halo = sk->dr;
    if (halo) {
        size_t a[3], b[3];
        io->nin[0] = _skel_halo(sh->lo, sh->hi, (size_t)halo, sh->units, (int)c->edge, a, b);
        for (k = 0; k < io->nin[0]; ++k) {
            io->in_lo[0][k] = a[k] * U;
            io->in_hi[0][k] = b[k] * U;
        }
    }
    if (!c->out) return;
    if (sh->phase == _SKEL_PHASE_TOTAL ||
        ((sk->kind == SKEL_KIND_REDUCE || sk->kind == SKEL_KIND_MAPREDUCE) && c->direction != SKEL_ROWS)) {
        io->out_hi = c->out->n;     /* the part's own result (a split gives each part its own out) */
        return;
    }
    if (sk->kind == SKEL_KIND_REDUCE && c->direction == SKEL_ROWS) {
        io->out_lo = sh->lo;
        io->out_hi = sh->hi;
        return;
    }
    io->out_lo = lo;
    io->out_hi = hi;
}

/* Bytes of the ranges part sh of call c reads that space s lacks: what
   running it there would copy first (a scheduler's transfer estimate). */
size_t _skel_part_missing(const skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, int s)
{
    _skel_io io;
    size_t bytes = 0;
    int i, k;
    _skel_part_io(sk, c, sh, &io);
    for (i = 0; i < sk->nin; ++i)
        for (k = 0; k < io.nin[i]; ++k)
            bytes += _skel_missing(c->in[i], s, io.in_lo[i][k], io.in_hi[i][k]) * c->in[i]->esz;
    for (i = 0; i < sk->nview; ++i) bytes += _skel_missing(c->views[i], s, 0, c->views[i]->n) * c->views[i]->esz;
    return bytes;
}

/* Bring the ranges part sh of c reads (inputs, views) into space s and
   allocate its outputs there (read too where an output is an input).
   SKEL_OK, or the failure (skel_last_error says which operand). */
static int _skel_part_acquire(const skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, int s,
                              _skel_opbufs *ops)
{
    const char *where = _skel_spaces[s].name;
    _skel_io io;
    skel_vec *o;
    int i, k;
    memset(ops, 0, sizeof *ops);
    _skel_part_io(sk, c, sh, &io);
    for (i = 0; i < sk->nin; ++i)
        for (k = 0; k < io.nin[i]; ++k)
            if (!(ops->in[i] = _skel_acquire_range(c->in[i], s, _SKEL_READ, io.in_lo[i][k], io.in_hi[i][k])))
                return _skel_fail_wrap(_skel_acquire_rc, "%s: cannot bring in[%d] to %s", sk->name, i, where);
    for (i = 0; i < sk->nview; ++i)
        if (!(ops->view[i] = _skel_acquire(c->views[i], s, _SKEL_READ)))
            return _skel_fail_wrap(_skel_acquire_rc, "%s: cannot bring views[%d] to %s", sk->name, i, where);
    for (k = 0; k < sk->nout && (o = _skel_out_k(c, k)) != NULL; ++k) {
        int mode = _SKEL_WRITE;
        for (i = 0; i < sk->nin; ++i)
            if (c->in[i] == o) mode = _SKEL_READWRITE;
        if (!(ops->out[k] = _skel_acquire_range(o, s, mode, io.out_lo, io.out_hi)))
            return _skel_fail_wrap(_skel_acquire_rc, "%s: cannot allocate output %d on %s", sk->name, k, where);
    }
    return SKEL_OK;
}

/* Allocate in space s every buffer call c uses (inputs, views, outputs,
   and room in the outputs' maps) without moving any data: a split part's
   preparation (backend prepare).  SKEL_OK or the space's status. */
int _skel_part_alloc(const skel_skeleton *sk, const skel_call *c, int s)
{
    skel_vec *o;
    int i;
    for (i = 0; i < sk->nin; ++i)
        if (!_skel_acquire_range(c->in[i], s, 0, 0, 0)) return _skel_acquire_rc;
    for (i = 0; i < sk->nview; ++i)
        if (!_skel_acquire_range(c->views[i], s, 0, 0, 0)) return _skel_acquire_rc;
    for (i = 0; i < sk->nout && (o = _skel_out_k(c, i)) != NULL; ++i)
        if (!_skel_acquire_range(o, s, _SKEL_WRITE, 0, 0)) return _skel_acquire_rc;
    return SKEL_OK;
}

/* Record that part sh of c ran in space s: every output's range. */
static void _skel_part_written(const skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, int s)
{
    _skel_io io;
    skel_vec *o;
    int k;
    _skel_part_io(sk, c, sh, &io);
    for (k = 0; k < sk->nout && (o = _skel_out_k(c, k)) != NULL; ++k) _skel_mark_written_range(o, s, io.out_lo, io.out_hi);
}

/* A backend is a value: the core knows it only through this struct. */
typedef struct _skel_backend {
    const char *name;
    int is_gpu;
    int space;                  /* memory space its kernels read (0 = host) */
    void *ctx;
    /* Run one checked call with variant v. */
    int (*run)(const struct _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
               const skel_call *c, const _skel_shape *sh);
    /* Fill up to max tuning candidates (parameter sets) for this backend and
       return how many; NULL means the default variant only. */
    int (*candidates)(const struct _skel_backend *b, skel_variant *out, int max);
    /* What it runs on, for logs and the machine fingerprint
       (e.g. "NVIDIA H100 80GB HBM3, sm_90, driver 13000, NVRTC 13.0"). */
    char info[256];
    /* Before any part of a split call runs: everything running part sh of
       call c on variant v needs that can fail for want of resources
       (kernels compiled, device copies and scratch allocated), without
       copying or writing any data.  NULL: nothing can fail so (CPU). */
    int (*prepare)(const struct _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                   const skel_call *c, const _skel_shape *sh);
} _skel_backend;

/* The registry.  Entries are appended and never change once counted: a
   new one is written, then the count is published (_SKEL_STORE), so a
   thread that reads the count (_SKEL_LOAD) may read every entry below it
   without a lock.  seq and omp register at the first call; GPU backends
   (the providers their headers add) only when something needs a GPU
   (_skel_init_gpus): opening libcuda, NVRTC and the OpenCL loader costs
   25-40 ms that a program using the CPU alone should not pay. */
static _skel_backend _skel_backends[_SKEL_MAX_BACKENDS];
static int _skel_nbackends;                 /* _SKEL_LOAD / _SKEL_STORE; appended under _skel_gpu_lock or once */
static pthread_once_t _skel_once = PTHREAD_ONCE_INIT;
static void (*_skel_providers[8])(void);    /* GPU headers' registration hooks; guarded by _skel_gpu_lock */
static int _skel_nproviders, _skel_gpus_done;
static pthread_mutex_t _skel_gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { char name[16], why[256]; } _skel_absent[8];    /* backends known absent, and why */
static int _skel_nabsent;                   /* guarded by _skel_gpu_lock (written by init or providers) */
static struct {
    int forced;                 /* SKEL_BACKEND: -1 none, -2 unknown, else index */
    char forced_name[64];
    int omp_threads, omp_threshold;
    int pool_threads;           /* SKEL_THREADS: the pool's default width (0: the CPU count) */
    int pool_adapt_off;         /* SKEL_POOL_ADAPT=0: every pool call in parallel */
    int omp_backend, pool_backend;  /* registry indices, -1 when absent */
    int split_backend;          /* registry index of "split" */
    int fallback;               /* SKEL_FALLBACK: a GPU call that fails runs again on the CPU */
} _skel_env;                    /* written once (_skel_init_once), read-only after */

/* Called by a GPU header's constructor (or its register function): the
   provider runs when GPUs are first needed, or now if that was already. */
void _skel_provider_add(void (*fn)(void))
{
    int now;
    int i;
    pthread_mutex_lock(&_skel_gpu_lock);
    now = _skel_gpus_done;
    for (i = 0; i < _skel_nproviders && _skel_providers[i] != fn; ++i) {}
    if (!now && i == _skel_nproviders && _skel_nproviders < 8) _skel_providers[_skel_nproviders++] = fn;
    if (now) fn();      /* providers run once whatever calls them (their own flag) */
    pthread_mutex_unlock(&_skel_gpu_lock);
}

/* Register every GPU backend whose header is compiled in and whose library
   and device are there (once; later calls return at once).  The CPU
   backends must be registered first (_skel_init_gpus): they keep indices
   0 (seq) and 1 (omp). */
static void _skel_gpus_probe(void)
{
    int i;
    if (_SKEL_LOAD(&_skel_gpus_done)) return;
    pthread_mutex_lock(&_skel_gpu_lock);
    if (!_skel_gpus_done) {
        for (i = 0; i < _skel_nproviders; ++i) _skel_providers[i]();
        _SKEL_STORE(&_skel_gpus_done, 1);
    }
    pthread_mutex_unlock(&_skel_gpu_lock);
}

static int _skel_backend_register(const _skel_backend *b)
{
    int n = _SKEL_LOAD(&_skel_nbackends);
    if (n >= _SKEL_MAX_BACKENDS) return -1;
    _skel_backends[n] = *b;
    _SKEL_STORE(&_skel_nbackends, n + 1);
    _skel_log(SKEL_LOG_INFO, "backend %s registered", b->name);
    return n;
}

/* A backend that is known but absent here, and why (shown by every error
   that names it).  Called by providers (under _skel_gpu_lock). */
void _skel_backend_absent(const char *name, const char *why)
{
    if (_skel_nabsent >= 8) return;
    snprintf(_skel_absent[_skel_nabsent].name, sizeof _skel_absent[0].name, "%s", name);
    snprintf(_skel_absent[_skel_nabsent].why, sizeof _skel_absent[0].why, "%s", why);
    _skel_nabsent++;
}

static int _skel_backend_index(const char *name)
{
    int i, n = _SKEL_LOAD(&_skel_nbackends);
    for (i = 0; name && i < n; ++i)
        if (strcmp(_skel_backends[i].name, name) == 0) return i;
    return -1;
}

/* The registry index of backend name, probing the GPUs if it is not a CPU
   backend already registered; -1 when absent. */
static int _skel_backend_find(const char *name)
{
    int i = _skel_backend_index(name);
    if (i < 0 && name && !_SKEL_LOAD(&_skel_gpus_done)) {
        _skel_gpus_probe();
        i = _skel_backend_index(name);
    }
    return i;
}

/* Why backend name is not there, as the end of a sentence "backend 'x' is ...". */
static const char *_skel_backend_why(const char *name, char *buf, size_t size)
{
    static const struct { const char *name, *how; } known[] = {
        { "omp", "not compiled in (build with -fopenmp, without SKEL_NO_OPENMP)" },
        { "pool", "not compiled in (it needs GCC's or Clang's atomic builtins)" },
        { "cuda", "not compiled in (include skel_cuda.h after skel.h in the implementation file)" },
        { "opencl", "not compiled in (include skel_cl.h after skel.h in the implementation file)" },
        { "cuda-check", "not compiled in (include skel_cuda.h and set SKEL_CUDA_CHECK=sm_XY)" }
    };
    size_t i;
    int k;
    _skel_gpus_probe();
    pthread_mutex_lock(&_skel_gpu_lock);
    for (k = 0; k < _skel_nabsent; ++k)
        if (strcmp(_skel_absent[k].name, name) == 0) {
            snprintf(buf, size, "not available here: %.*s", (int)(size > 24 ? size - 24 : 0), _skel_absent[k].why);
            pthread_mutex_unlock(&_skel_gpu_lock);
            return buf;
        }
    pthread_mutex_unlock(&_skel_gpu_lock);
    for (i = 0; i < sizeof known / sizeof *known; ++i)
        if (strcmp(name, known[i].name) == 0) return snprintf(buf, size, "%s", known[i].how), buf;
    snprintf(buf, size, "unknown (known: seq, pool, omp, cuda, opencl, cuda-check)");
    return buf;
}

static int _skel_cpu_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                         const skel_call *c, const _skel_shape *sh);
static int _skel_split_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                           const skel_call *c, const _skel_shape *sh);
static int _skel_pool_default_threads(void);

/* The pool's tuning candidates: 2, 4, 8, ... threads below the default
   width, and the default width (pool/1 would be seq). */
static int _skel_pool_candidates(const struct _skel_backend *b, skel_variant *out, int max)
{
    int cores = _skel_pool_default_threads(), th, m = 0;
    (void)b;
    for (th = 2; th <= cores && m < max; th = th < cores && th * 2 > cores ? cores : th * 2) {
        memset(&out[m], 0, sizeof out[0]);
        out[m++].threads = th;
        if (th == cores) break;
    }
    return m;
}

static void _skel_init_once(void)
{
    _skel_backend seq = { "seq", 0, 0, NULL, _skel_cpu_run, NULL, "one CPU core", NULL };
    const char *forced = getenv("SKEL_BACKEND");
    pthread_once(&_skel_verbose_once, _skel_verbose_read);
    _skel_trace_on();           /* SKEL_TRACE starts with the first call */
    _skel_backend_register(&seq);
    _skel_env.omp_backend = _skel_env.pool_backend = -1;
#if _SKEL_OMP
    {
        _skel_backend omp = { "omp", 0, 0, NULL, _skel_cpu_run, NULL, "", NULL };
        snprintf(omp.info, sizeof omp.info, "OpenMP, %d threads", omp_get_max_threads());
        _skel_env.omp_backend = _skel_backend_register(&omp);
    }
#endif
    _skel_env.pool_threads = _skel_env_int_max("SKEL_THREADS", 0, _SKEL_POOL_MAX);
    _skel_env.pool_adapt_off = _skel_env_int("SKEL_POOL_ADAPT", 1) == 0;
#if _SKEL_POOL
    {
        _skel_backend pool = { "pool", 0, 0, NULL, _skel_cpu_run, _skel_pool_candidates, "", NULL };
        snprintf(pool.info, sizeof pool.info, "worker pool, %d threads", _skel_pool_default_threads());
        _skel_env.pool_backend = _skel_backend_register(&pool);
    }
#endif
    {
        _skel_backend split = { "split", 0, 0, NULL, _skel_split_run, NULL, "one call over several places", NULL };
        _skel_env.split_backend = _skel_backend_register(&split);
    }
    _skel_env.omp_threads = _skel_env_int_max("SKEL_OMP_THREADS", 0, SKEL_MAX_THREADS);
    {   /* a parallel call's fixed cost grows with its threads (a warm pool
           call: about 1 us on 2, 4-5 us on 16): from 8192 elements a
           thread, at least 32768 (crossovers with seq measured on both
           machines: bench/results/pool.md) */
        int t = _skel_pool_default_threads(), def = t > 4 ? 8192 * t : 32768;
        _skel_env.omp_threshold = _skel_env_int("SKEL_PARALLEL_THRESHOLD", _skel_env_int("SKEL_OMP_THRESHOLD", def));
    }
    _skel_env.fallback = _skel_env_int("SKEL_FALLBACK", 0) > 0;
    _skel_env.forced = -1;
    if (forced && *forced) {
        snprintf(_skel_env.forced_name, sizeof _skel_env.forced_name, "%s", forced);
        _skel_env.forced = _skel_backend_find(forced);      /* a GPU name probes the GPUs now */
        if (_skel_env.forced < 0) {
            char why[300];
            _skel_env.forced = -2;
            _skel_env_warn("SKEL_BACKEND=%s: backend %s; every call will fail", forced,
                           _skel_backend_why(forced, why, sizeof why));
        }
    }
}

static void _skel_init(void) { pthread_once(&_skel_once, _skel_init_once); }
/* Every backend: the CPU ones, then the GPUs (not static: the GPU headers' public functions call it). */
void _skel_init_gpus(void) { _skel_init(); _skel_gpus_probe(); }

int skel_backend_count(void) { _skel_init(); _skel_init_gpus(); return _SKEL_LOAD(&_skel_nbackends); }
const char *skel_backend_name(int index)
{
    _skel_init();
    _skel_init_gpus();
    return index >= 0 && index < _SKEL_LOAD(&_skel_nbackends) ? _skel_backends[index].name : NULL;
}
int skel_backend_available(const char *name) { _skel_init(); return _skel_backend_find(name) >= 0; }

/* The place (memory space) where device `device` of backend b computes:
   the host for the CPU backends (device 0); -1 when b has no such device. */
static int _skel_place_of(int b, int device)
{
    const _skel_backend *be = &_skel_backends[b];
    int s, n = _SKEL_LOAD(&_skel_nspaces);
    if (!be->is_gpu) return device == 0 ? 0 : -1;
    for (s = 1; s < n; ++s)
        if (_skel_spaces[s].backend && strcmp(_skel_spaces[s].backend, be->name) == 0 && _skel_spaces[s].device == device)
            return s;
    return -1;
}

/* How many places (devices) backend b computes on. */
static int _skel_backend_devices(int b)
{
    int d = 0;
    while (_skel_place_of(b, d) >= 0) ++d;
    return d;
}

/* A split without parts: one part per place, equal shares: the host (the
   pool, else omp, else seq) and every GPU device. */
static void _skel_split_default(_skel_variant *v)
{
    int b, d, n;
    _skel_init_gpus();
    n = _SKEL_LOAD(&_skel_nbackends);
    v->nparts = 0;
    memset(v->part, 0, sizeof v->part);
    v->part[v->nparts++].backend = _skel_env.pool_backend >= 0 ? _skel_env.pool_backend
                                 : _skel_env.omp_backend >= 0 ? _skel_env.omp_backend : 0;
    for (b = 0; b < n; ++b)
        for (d = 0; _skel_backends[b].is_gpu && _skel_place_of(b, d) >= 0 && v->nparts < SKEL_MAX_PARTS; ++d) {
            v->part[v->nparts].backend = b;
            v->part[v->nparts++].device = d;
        }
    for (d = 0; d < v->nparts; ++d) v->part[d].share = 1.0 / v->nparts;
}

/* A GPU variant with .devices = k > 1: its shorthand split, k equal parts
   on the backend's devices in turn. */
static void _skel_split_devices(const _skel_variant *v, _skel_variant *out)
{
    int k, nd = _skel_backend_devices(v->backend);
    memset(out, 0, sizeof *out);
    out->backend = _skel_env.split_backend;
    out->nparts = v->devices < SKEL_MAX_PARTS ? v->devices : SKEL_MAX_PARTS;
    for (k = 0; k < out->nparts; ++k) {
        _skel_vpart *p = &out->part[k];
        p->backend = v->backend;
        p->device = nd > 0 ? k % nd : 0;
        p->threads = v->threads; p->block = v->block; p->grid = v->grid;
        p->share = 1.0 / out->nparts;
    }
}

/* Resolve one backend name (with its device) of a variant or a part. */
static int _skel_resolve_place(const char *what, const char *name, int device, int *b)
{
    char why[300];
    int nd;
    if (!name) return _skel_fail(SKEL_EINVAL, "%s: NULL backend name", what);
    if ((*b = _skel_backend_find(name)) < 0)
        return _skel_fail(SKEL_EBACKEND, "%s: backend '%s' is %s", what, name, _skel_backend_why(name, why, sizeof why));
    if (device < 0) return _skel_fail(SKEL_EINVAL, "%s %s: negative device %d", what, name, device);
    if (device > 0 && (nd = _skel_backend_devices(*b)) <= device)
        return _skel_fail(SKEL_EBACKEND, "%s %s: device %d, but the backend has %d", what, name, device, nd);
    return SKEL_OK;
}

/* Resolve a public variant to registry indices, with a clear error; a
   split's shares normalised to sum 1. */
static int _skel_variant_resolve(const skel_variant *v, _skel_variant *out)
{
    int b, k;
    double sum = 0;
    _skel_init();
    if (!v) return _skel_fail(SKEL_EINVAL, "variant: NULL");
    memset(out, 0, sizeof *out);
    _SKEL_TRY(_skel_resolve_place("variant", v->backend, v->device, &b));
    if (v->threads < 0 || v->block < 0 || v->grid < 0 || v->devices < 0 || v->tiling < 0)
        return _skel_fail(SKEL_EINVAL, "variant %s: negative parameter", v->backend);
    if (v->threads > SKEL_MAX_THREADS)
        return _skel_fail(SKEL_EINVAL, "variant %s: %d threads (at most SKEL_MAX_THREADS, %d)", v->backend, v->threads,
                          SKEL_MAX_THREADS);
    if (b == _skel_env.pool_backend && v->threads > _SKEL_POOL_MAX)
        return _skel_fail(SKEL_EINVAL, "variant pool: %d threads, more than the pool's %d", v->threads,
                          _SKEL_POOL_MAX);
    out->backend = b;
    out->threads = v->threads; out->block = v->block;
    out->grid = v->grid; out->devices = v->devices; out->tiling = v->tiling;
    out->device = v->device;
    if (b != _skel_env.split_backend) return SKEL_OK;
    for (k = 0; k < SKEL_MAX_PARTS && v->parts[k].backend; ++k) {
        const skel_part *p = &v->parts[k];
        _skel_vpart *q = &out->part[k];
        _SKEL_TRY(_skel_resolve_place("split part", p->backend, p->device, &q->backend));
        if (q->backend == _skel_env.split_backend) return _skel_fail(SKEL_EINVAL, "split part %d: a split in a split", k);
        if (!(p->share >= 0 && p->share <= 1e9) || p->threads < 0 || p->threads > SKEL_MAX_THREADS || p->block < 0 ||
            p->grid < 0)
            return _skel_fail(SKEL_EINVAL, "split part %d (%s): share %g or a parameter out of range", k, p->backend,
                              p->share);
        if (q->backend == _skel_env.pool_backend && p->threads > _SKEL_POOL_MAX)
            return _skel_fail(SKEL_EINVAL, "split part %d: pool with %d threads, more than %d", k, p->threads,
                              _SKEL_POOL_MAX);
        q->device = p->device;
        q->threads = p->threads; q->block = p->block; q->grid = p->grid;
        q->share = p->share;
        sum += p->share;
    }
    out->nparts = k;
    if (k == 0) { _skel_split_default(out); return SKEL_OK; }
    if (!(sum > 0)) return _skel_fail(SKEL_EINVAL, "split: the shares sum to 0");
    for (k = 0; k < out->nparts; ++k) out->part[k].share /= sum;
    return SKEL_OK;
}

static void _skel_variant_public(const _skel_variant *v, skel_variant *out)
{
    int k;
    memset(out, 0, sizeof *out);
    out->backend = _skel_backends[v->backend].name;
    out->threads = v->threads; out->block = v->block;
    out->grid = v->grid; out->devices = v->devices; out->tiling = v->tiling;
    out->device = v->device;
    for (k = 0; k < v->nparts; ++k) {
        const _skel_vpart *p = &v->part[k];
        out->parts[k].backend = _skel_backends[p->backend].name;
        out->parts[k].device = p->device;
        out->parts[k].share = p->share;
        out->parts[k].threads = p->threads; out->parts[k].block = p->block; out->parts[k].grid = p->grid;
    }
}

/* ---------------------------------------------------------------------
   places: where a call computes (DESIGN.md "Threads, places and parts").
   Place p is memory space p with the backend that computes there: place
   0 the host with the CPU backends, place s > 0 the device of a GPU
   backend that space s belongs to (_skel_spaces[s].backend, .device:
   "cuda:0", "cuda:1", "opencl:0"; a variant's .device names it).

   THE API (skel's headers, the task scheduler, stream workers)
   _skel_place_count()      spaces registered (GPUs probed): places are below it
   _skel_place_backend(p)   registry index of the GPU backend computing at
                            p, 0 (seq) for the host, -1 when p is no place
   _skel_place_name(p)      the space's name ("host", "cuda:0", "opencl:0")
   _skel_place_find(name)   the place named name, or "name:0", or -1
   _skel_place_bind(p)      from now on this thread's skeleton calls run at
                            place p (-1: no binding, the plan decides);
                            returns the previous binding.  A GPU worker
                            binds its thread to its GPU, so the skeleton
                            calls a GPU stage or a GPU user task makes run
                            there; a CPU worker binds to the host.
   _skel_place_bound()      this thread's binding (-1: none)
   Dispatch (_skel_choose) keeps the plan's or default's variant when its
   backend computes at the bound place (never a split), else the plan's best
   variant at that place (_skel_plan_at), else the place's default: the
   GPU backend's default variant, or on the host pool above
   SKEL_PARALLEL_THRESHOLD and seq below.  SKEL_BACKEND still wins when
   the backend it names computes at the bound place.
   --------------------------------------------------------------------- */
static _SKEL_TLS int _skel_place_tls;   /* owner thread only: 1 + the bound place, 0: none */

int _skel_place_count(void) { _skel_init_gpus(); return _SKEL_LOAD(&_skel_nspaces); }

int _skel_place_backend(int p)
{
    if (p == 0) return 0;
    if (p < 0 || p >= _SKEL_LOAD(&_skel_nspaces) || !_skel_spaces[p].backend) return -1;
    return _skel_backend_index(_skel_spaces[p].backend);
}

const char *_skel_place_name(int p)
{
    return p >= 0 && p < _SKEL_LOAD(&_skel_nspaces) ? _skel_spaces[p].name : "?";
}

/* "opencl" and "opencl:0" name the same place (a name without a device
   is its first); so do "cuda" and "cuda:0". */
static int _skel_place_named(const char *a, const char *b)
{
    size_t la = strcspn(a, ":"), lb = strcspn(b, ":");
    return la == lb && strncmp(a, b, la) == 0 && strcmp(a[la] ? a + la : ":0", b[lb] ? b + lb : ":0") == 0;
}

int _skel_place_find(const char *name)
{
    int p, n = _skel_place_count();
    if (!name) return -1;
    for (p = 0; p < n; ++p)
        if (_skel_place_backend(p) >= 0 && _skel_place_named(_skel_spaces[p].name, name)) return p;
    return -1;
}

int _skel_place_bind(int p)
{
    int old = _skel_place_tls - 1;
    _skel_place_tls = p >= 0 ? p + 1 : 0;
    return old;
}

int _skel_place_bound(void) { return _skel_place_tls - 1; }

/* ---------------------------------------------------------------------
   CPU backends: seq, omp and pool share this code.  A call splits its
   data into parts; seq runs them all on the calling thread, omp one per
   thread of a team, pool lets the calling thread and the worker pool
   claim them (see the worker pool above).  Each range below calls a
   chunk function the instance macro generated, with the user function
   inlined in its loop.
   --------------------------------------------------------------------- */
static const char *_skel_kind_name(int kind);
enum { _SKEL_RUN_SEQ = 0, _SKEL_RUN_OMP, _SKEL_RUN_POOL };
/* How one CPU call runs its parallel phases. */
typedef struct _skel_par {
    int how;                    /* _SKEL_RUN_SEQ, _SKEL_RUN_OMP or _SKEL_RUN_POOL */
    int threads;                /* omp: the team; pool: the width (calling thread included) */
    const void *site;           /* pool: the instance whose call this is (NULL: always in parallel) */
    size_t units, unit;         /* pool, with site: the call's (or its part's) units and their elements */
} _skel_par;

#if _SKEL_OMP
/* The largest team opened so far.  GNU libgomp ends the threads a smaller
   team leaves out and creates them again for the next larger one: a plan
   that runs one call on 8 threads and the next on 16 paid 8 thread
   creations per call (Pearson's five calls on the H100 machine: 3-5 times
   slower than all on 8 or all on 16).  So every team has at least this
   many threads; the ones beyond `parts` only pass the region's barrier.
   Only teams up to the processor count are kept so: after one call on 256
   threads of a 2-core machine every later 2-thread call woke 256 (15 times
   slower); a larger team is opened for its call and not kept. */
static int _skel_omp_team;
#endif
int _skel_omp_kept_team(void)   /* tests */
{
#if _SKEL_OMP
    return _skel_omp_team;
#else
    return 0;
#endif
}

/* How many parts a phase over n items has: one per omp thread (the omp
   split depends only on the thread count, as it always did), the pool's
   chunk count, 1 on seq. */
static size_t _skel_parts(const _skel_par *par, size_t n)
{
    if (par->how == _SKEL_RUN_POOL) return _skel_pool_parts(par->threads, n);
    return par->how == _SKEL_RUN_OMP && par->threads > 1 ? (size_t)par->threads : 1;
}

/* Chunks for n items of `weight` elements each (rows, planes, blocks of
   columns): the pool's grain counts elements, and a chunk holds at least
   one item.  Counted in items, the column pass of a 4096 x 256 MapOverlap
   (16 blocks of 16 columns, 64 Ki elements each) was one chunk: the pool
   gives a chunk at least _SKEL_POOL_MIN items, so it ran on one thread
   (bench_columns, 2-vCPU VM: pool/2 took seq's time at 256 columns and
   fewer, half of it at 1024 x 1024, 64 blocks). */
static size_t _skel_parts_of(const _skel_par *par, size_t n, size_t weight)
{
    size_t parts = _skel_parts(par, n * (weight ? weight : 1));
    return parts < n ? parts : n ? n : 1;
}
size_t _skel_test_pool_parts_of(int threads, size_t n, size_t weight)
{
    _skel_par par;
    memset(&par, 0, sizeof par);
    par.how = _SKEL_RUN_POOL;
    par.threads = threads;
    return _skel_parts_of(&par, n, weight);
}

/* ---------------------------------------------------------------------
   Pool calls that run faster on their caller alone.  A pool call pays a
   fixed cost (publishing it, waking a helper, completing, the cache lines
   that move between cores): about 1.7 us over 2 vCPUs of the development
   VM, where a dot of 2^16 floats takes 2.8 us on one core, and 4-5 us over
   16 threads of the H100 host, where calls of 2^12-2^14 take 0.2-2.5 us on
   one.  A variant of pool/w chosen by a plan for its usual speed, or
   forced by the user, can then be slower than seq at that size, and the
   cost changes with the machine's load (another process on a core).
   So each calling thread keeps, per site (instance, phase, items, the
   call's shape, chunks, width; a small table, replaced on collision),
   the phase's wall time both ways, in parallel and on the caller alone
   (the same chunks in the same order: results are the same either way),
   and runs it the faster way.  An estimate is the median of the way's last 8 times: a call
   preempted for a time slice (4 ms), or one that woke a sleeping worker,
   does not move it unless it is the common case (a running average did:
   on the VM with another process spinning, a few preempted parallel
   calls made the caller alone look faster at 2^22, where it was 1.7
   times slower).  The other way is tried again once the chosen one has
   spent _SKEL_SITE_RETRY times the other's estimate, a try being
   _SKEL_SITE_TRY calls (see _skel_site_pick): at most about 6% of the
   time goes to trying.  The caller alone is tried only where it could
   win: where a guess of its time, the chunk count times the median time
   a chunk took the threads (_skel_pool_run's work, taken in one
   parallel call in 8), comes to less than 1.25 times the parallel time
   (a 2^20 sum over 16 threads, 17 us against 127 alone, is never
   tried).  The guess was the caller's own chunks' time: on the H100
   machine a Julia set at 112 x 21 on pool/16, whose first rows (the
   caller's) escape at once, was guessed well below its parallel 23 us,
   ran alone at seq's 130 us through a held-out evaluation, and scored
   18.5% against CUDA's 24.
   SKEL_POOL_ADAPT=0 turns it off (every pool call in parallel).
   --------------------------------------------------------------------- */
#define _SKEL_SITES 32          /* sites a thread remembers */
#define _SKEL_SITE_RETRY 128    /* the other way is tried after this many times its estimate */
#define _SKEL_SITE_TRY 8        /* calls a try makes (its second half counts) */
#define _SKEL_SITE_WAKE 200e-6  /* seconds a parallel try waits at most for the workers it woke */

/* 0: run the site's next call in parallel; 1: on its caller alone; 2:
   alone, after waking the workers (a parallel try comes next).  A try is
   _SKEL_SITE_TRY calls in a row of the other way, and only its second
   half counts: the first moves the data and settles the threads.  After
   calls on the caller alone its core's cache holds all of the data, and
   the helpers of a parallel call fetch their part from there (2^16 saxpy
   on the VM, with a process spinning on the other CPU: 6.2-7.1 us the
   first 3 parallel calls, then 4.1-4.3; alone 6.4), so tries of 1-3
   calls kept the site alone.  A new site starts with a parallel try.
   And the workers are woken before a parallel try, which waits (its
   calls running alone) until none sleeps (`asleep`, now) or for at most
   _SKEL_SITE_WAKE: they sleep 100 us after their last call, and a woken
   worker takes 25-70 us on the VM to come (a try 25 us after the wake-up
   still ran at the caller-alone speed: the helper came late). */
int _skel_site_pick(_skel_site *e, double now, int asleep)
{
    if (e->left > 0) return e->way;
    if (e->calls[0] == 0) { e->way = 0; e->left = _SKEL_SITE_TRY; return 0; }     /* a new site */
    if (e->one > 0 && e->one < e->par) {
        if (e->since < _SKEL_SITE_RETRY * e->par) return 1;
        if (e->woke <= 0) { e->woke = now; return 2; }
        if (asleep > 0 && now - e->woke < _SKEL_SITE_WAKE) return 1;
        e->way = 0;
    } else {
        if (e->guess > 0 && e->guess >= 1.25 * e->par) return 0;     /* alone could not win */
        if (e->one > 0 && e->since < _SKEL_SITE_RETRY * e->one) return 0;
        e->way = 1;
    }
    e->left = _SKEL_SITE_TRY;
    return e->way;
}

/* Record a call of t seconds, run alone or in parallel (with its guess of
   the time alone, or 0 where it made none). */
void _skel_site_note(_skel_site *e, int alone, double t, double guess)
{
    if (e->left > 0) {
        if (--e->left >= _SKEL_SITE_TRY / 2) return;    /* the try's first half */
        if (e->left == 0) e->since = 0;
    } else {
        e->since += t;
    }
    e->times[alone][e->calls[alone]++ % 8] = (float)t;
    /* each way's estimate: the median of its last 8 times (a call
       preempted for a time slice, or one that woke a sleeping worker,
       moves it only when it is the common case) */
    if (alone) {
        e->one = _skel_median_f(e->times[1], e->calls[1] < 8 ? e->calls[1] : 8);
    } else {
        e->par = _skel_median_f(e->times[0], e->calls[0] < 8 ? e->calls[0] : 8);
        if (guess > 0) e->guess = guess;
        e->woke = 0;
    }
}

#if _SKEL_HAVE_TLS
static _SKEL_TLS _skel_site _skel_sites[_SKEL_SITES];
static _SKEL_TLS unsigned _skel_site_alone;     /* calls this thread ran alone (_skel_pool_tally) */
unsigned _skel_site_alone_calls(void) { return _skel_site_alone; }

/* This thread's entry for the site (a fresh one if another held it).  The
   call's shape (its units and their elements) is part of the key, not
   only the phase's items: the column pass of a MapOverlap on 2^20
   elements has 256 items (tiles) at 4096 x 256, 16384 x 64 and 65536 x
   16 alike, and one site's times, taken at one shape, kept the others on
   the caller alone (bench_columns, 2-vCPU VM: 65536 x 16 on pool/2 at
   seq's 0.73 ms, 0.34 with the rule off). */
static _skel_site *_skel_site_of(const void *who, size_t units, size_t unit, int width, int parts, size_t n,
                                 _skel_body body)
{
    uint64_t h = (uint64_t)(uintptr_t)who * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)body * 31u
               ^ (uint64_t)n * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)units * 0x165667B19E3779F9ull
               ^ (uint64_t)unit * 0x27D4EB2F165667C5ull ^ (uint64_t)parts << 16 ^ (uint64_t)width;
    _skel_site *e = &_skel_sites[(h ^ h >> 29) % _SKEL_SITES];
    if (e->who != who || e->body != body || e->n != n || e->units != units || e->unit != unit || e->parts != parts ||
        e->width != width) {
        memset(e, 0, sizeof *e);
        e->who = who; e->body = body; e->n = n; e->units = units; e->unit = unit; e->parts = parts; e->width = width;
    }
    return e;
}

/* _skel_pool_for for a call of instance `who` (NULL: always in parallel)
   over `units` units of `unit` elements: in parallel or on its caller, as the site's
   estimates say. */
void _skel_pool_site_for(const void *who, size_t units, size_t unit, int width, int parts, size_t n, _skel_body body,
                         void *ctx)
{
    _skel_site *e;
    double t0, guess = 0;
    int alone;
    if (!who || _skel_env.pool_adapt_off) { _skel_pool_for(width, parts, n, body, ctx); return; }
    e = _skel_site_of(who, units, unit, width, parts, n, body);
    t0 = _skel_now();
    alone = _skel_site_pick(e, t0, _skel_pool_asleep());
    if (alone == 2) {
        _skel_pool_wake(width);
        alone = 1;
        t0 = _skel_now();
    }
    if (alone) {
        _skel_pool_inline(parts, n, body, ctx);
        ++_skel_site_alone;     /* (this thread's count: no shared line on the small calls' path) */
    } else    /* the guess from one parallel call in 8 (timing chunks costs 2 clock reads a range) */
        _skel_pool_run(width, parts, n, body, ctx, e->par, e->guess <= 0 || e->calls[0] % 8 == 7 ? &guess : NULL);
    _skel_site_note(e, alone, _skel_now() - t0, guess);
}
#else   /* no thread-local storage: every pool call in parallel */
void _skel_pool_site_for(const void *who, size_t units, size_t unit, int width, int parts, size_t n, _skel_body body,
                         void *ctx)
{
    (void)who; (void)units; (void)unit;
    _skel_pool_for(width, parts, n, body, ctx);
}
unsigned _skel_site_alone_calls(void) { return 0; }
#endif

/* Split [0, n) into `parts` contiguous ranges, in order, run in parallel.
   The split depends only on parts and n (not on how many threads OpenMP
   grants, nor on which threads of the pool take them), so multi-phase
   algorithms see the same ranges every phase. */
static void _skel_parallel(const _skel_par *par, size_t parts_, size_t n, _skel_body body, void *ctx)
{
    int parts = (int)parts_;
#if _SKEL_OMP
    int team;
#endif
    if (parts <= 1 || n < 2) { body(ctx, 0, 0, n); return; }
    if ((size_t)parts > n) parts = (int)n;
    if (par->how == _SKEL_RUN_POOL) {
        _skel_pool_site_for(par->site, par->units, par->unit, par->threads, parts, n, body, ctx);
        return;
    }
#if _SKEL_OMP
    #pragma omp atomic read
    team = _skel_omp_team;
    if (team < parts) {
        team = parts;
        if (team <= omp_get_num_procs()) {
            #pragma omp atomic write
            _skel_omp_team = team;
        }
    }
    #pragma omp parallel num_threads(team)
    {
        size_t np = (size_t)parts, p, lo, hi;
        for (p = (size_t)omp_get_thread_num(); p < np; p += (size_t)omp_get_num_threads()) {
            _skel_part_range(n, np, p, &lo, &hi);
            body(ctx, (int)p, lo, hi);
        }
    }
#else
    _skel_pool_inline(parts, n, body, ctx);
#endif
}

typedef struct _skel_cpu_ctx {
    const skel_skeleton *sk;
    _skel_par par;
    _skel_job job;
    size_t esz, iesz, n, rows, cols;   /* esz: an output's (accumulator's) bytes, iesz: in[0]'s */
    int exclusive, has_init;
    unsigned char *partial;     /* one partial result per part (_SKEL_PART) */
    size_t pstride;             /* bytes from one part's partial to the next */
    unsigned char *have;        /* column reduce by rows: partial row t was written */
    size_t strip;               /* column reduce by columns: the columns of an item */
    unsigned char *carries;     /* per-part carries for scans */
    const void *carry;          /* the carries (or the init of a row scan) the scan phase reads */
    const unsigned char *src;   /* MapOverlap source and destinations */
    unsigned char *dst[SKEL_MAX_OUT];
    size_t desz[SKEL_MAX_OUT];  /* bytes of an element of each destination */
    unsigned char *scratch;     /* MapOverlap by columns: one block of columns per part */
    size_t base;                /* the part's first unit: the bodies' ranges start there */
    size_t rlo, rhi;            /* MapOverlap along columns: the output rows ... */
    int nrr;                    /* ... and the row ranges the stencil reads */
    size_t rr_lo[3], rr_hi[3];
    size_t ntile, trows;        /* ... and the tiles they come in, of trows <= _SKEL_COL_TILE rows */
    int whole;                  /* the column pass's items are whole tiles (else a tile's blocks) */
    size_t cstride;             /* a transposed column's stride in the scratch (_skel_col_rows) */
} _skel_cpu_ctx;

static void _skel_body_map(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    (void)t;
    c->sk->cpu.map(&c->job, c->base + lo, c->base + hi);
}

/* Part t's partial result, and after it its written flag, in a slot of
   its own cache line(s): parts written by different threads do not share
   a line (16 float partials in one line cost a dot product of 2^16 floats
   on two threads about a microsecond of line transfers). */
#define _SKEL_PART(c, t) ((c)->partial + (size_t)(t) * (c)->pstride)
#define _SKEL_HAVE(c, t) _SKEL_PART(c, t)[(c)->esz]

static void _skel_body_reduce(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    if (lo >= hi) return;
    lo += c->base;
    hi += c->base;
    c->sk->cpu.reduce(&c->job, lo, hi, _SKEL_PART(c, t));
    _SKEL_HAVE(c, t) = 1;
}

/* Move the written partials, in part order, to the front of c->partial
   as a plain array; how many there are. */
static size_t _skel_partials_pack(const _skel_cpu_ctx *c, size_t parts)
{
    size_t t, k = 0;
    for (t = 0; t < parts; ++t)
        if (_SKEL_HAVE(c, t)) memmove(c->partial + k++ * c->esz, _SKEL_PART(c, t), c->esz);
    return k;
}

/* Combine the written partials in part (= index) order into result. */
static void _skel_combine(const _skel_cpu_ctx *c, size_t parts, void *result)
{
    _skel_job j;
    size_t k = _skel_partials_pack(c, parts);
    memset(&j, 0, sizeof j);
    j.in[0] = c->partial;
    c->sk->cpu.combine(&j, 0, k, result);
}

/* Per-part scratch of one call: a partial result with its written flag
   per part (see _SKEL_PART) and a scan carry per part (esz bytes each,
   whatever the result type); on the stack when small, else on the heap. */
typedef struct _skel_partials {
    union { unsigned char b[8192]; double d; uint64_t u; void *p; } stack;
    unsigned char *heap;
} _skel_partials;

static int _skel_partials_get(_skel_partials *p, _skel_cpu_ctx *c, size_t parts)
{
    size_t need;
    unsigned char *m = p->stack.b;
    c->pstride = (c->esz + 1 + 63) / 64 * 64;
    need = parts * (c->pstride + c->esz) + 64;
    p->heap = NULL;
    if (need > sizeof p->stack.b) {
        if (!(m = p->heap = (unsigned char *)SKEL_MALLOC(need)))
            return _skel_fail(SKEL_ENOMEM, "out of memory for %zu partial results", parts);
    }
    c->partial = m + (64 - (size_t)((uintptr_t)m % 64)) % 64;     /* slots on line boundaries */
    c->carries = c->partial + parts * c->pstride;
    return SKEL_OK;
}

/* Mark every part's partial unwritten (before each phase that fills them). */
static void _skel_partials_clear(_skel_cpu_ctx *c, size_t parts)
{
    size_t t;
    for (t = 0; t < parts; ++t) _SKEL_HAVE(c, t) = 0;
}

/* Reduce [base, base + n) of c->job to result, in parallel, preserving order.  A
   variant's thread count is honoured at every size (it ran on one thread
   below 4096 elements): the tuner decides where threads pay, and omp/16
   that ran serially at n = 2306 tied with seq there, closed a leaf up to
   14142 and was 1.9 times slower than seq at n = 5981.  (Calls without a
   plan go parallel from SKEL_PARALLEL_THRESHOLD elements.) */
/* The same in `parts` parts whose partials c already has (_skel_partials_get). */
static void _skel_reduce_parts(_skel_cpu_ctx *c, size_t parts, size_t n, void *result)
{
    if (parts <= 1 || n < 2) {
        c->sk->cpu.reduce(&c->job, c->base, c->base + n, result);
        return;
    }
    _skel_partials_clear(c, parts);
    _skel_parallel(&c->par, parts, n, _skel_body_reduce, c);
    _skel_combine(c, parts, result);
}

static int _skel_reduce_range(_skel_cpu_ctx *c, size_t n, void *result)
{
    _skel_partials p;
    size_t parts = _skel_parts(&c->par, n);
    p.heap = NULL;
    if (parts > 1 && n >= 2) _SKEL_TRY(_skel_partials_get(&p, c, parts));
    _skel_reduce_parts(c, parts, n, result);
    SKEL_FREE(p.heap);
    return SKEL_OK;
}

static void _skel_body_reduce_rows(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    _skel_job j = c->job;
    size_t r;
    (void)t;
    for (r = c->base + lo; r < c->base + hi; ++r) {
        j.in[0] = c->src + r * c->cols * c->iesz;
        c->sk->cpu.reduce(&j, 0, c->cols, c->dst[0] + r * c->esz);
    }
}

/* Column sums, parts by rows: part t folds its rows [lo, hi) into
   partial row t (every column). */
static void _skel_body_reduce_cols(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    if (lo >= hi) return;
    c->sk->cpu.reduce_cols(&c->job, c->base + lo, c->base + hi, 0, c->cols, c->dst[0] + (size_t)t * c->cols * c->esz, 0);
    c->have[t] = 1;
}

/* Column sums, parts by columns: items are strips of c->strip columns (a
   cache line of results; the last strip is narrower), each folded over
   every row straight into the result, in spans of _SKEL_RCOL_SPAN
   accumulator bytes (which stay in L1 while the rows stream past).  Each
   column is folded in row order, as on one thread: the result does not
   depend on the parts. */
#define _SKEL_RCOL_SPAN 4096
#define _SKEL_RCOL_ROWS 8
static void _skel_body_reduce_col_strips(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    size_t c0 = lo * c->strip, c1 = hi * c->strip < c->cols ? hi * c->strip : c->cols, x, e;
    size_t span = _SKEL_RCOL_SPAN / c->esz ? _SKEL_RCOL_SPAN / c->esz : 1;
    (void)t;
    for (x = c0; x < c1; x = e) {
        e = c1 - x < span ? c1 : x + span;
        c->sk->cpu.reduce_cols(&c->job, c->base, c->base + c->rows, x, e, c->dst[0] + x * c->esz, 0);
    }
}

/* Reduce the part's n units (elements or rows from c->base). */
static int _skel_cpu_reduce(_skel_cpu_ctx *c, const skel_call *call, skel_vec *in, void *out, size_t n)
{
    if (call->direction == SKEL_WHOLE || c->sk->kind == SKEL_KIND_MAPREDUCE)
        return _skel_reduce_range(c, n, call->out ? out : call->result);
    c->src = (const unsigned char *)c->job.in[0];
    c->cols = in->cols;
    if (call->direction == SKEL_ROWS) {
        size_t r;
        c->dst[0] = (unsigned char *)out;
        if (n >= (size_t)c->par.threads || c->par.threads <= 1) {
            _skel_parallel(&c->par, _skel_parts_of(&c->par, n, in->cols), n, _skel_body_reduce_rows, c);
            return SKEL_OK;
        }
        {   /* few long rows: parallelise within each (short rows stay on one
               thread each: not worth a team per row); the partials once, before
               any row is written (a failure must not leave half the rows) */
            _skel_cpu_ctx rc = *c;
            _skel_partials p;
            size_t parts;
            rc.base = 0;
            if (in->cols < 4096) rc.par.how = _SKEL_RUN_SEQ;
            parts = _skel_parts(&rc.par, in->cols);
            p.heap = NULL;
            if (parts > 1) _SKEL_TRY(_skel_partials_get(&p, &rc, parts));
            for (r = c->base; r < c->base + n; ++r) {
                rc.job.in[0] = c->src + r * in->cols * c->iesz;
                _skel_reduce_parts(&rc, parts, in->cols, (unsigned char *)out + r * c->esz);
            }
            SKEL_FREE(p.heap);
            return SKEL_OK;
        }
    }
    /* columns: parts by rows where there are _SKEL_RCOL_ROWS rows or more
       a part, each folding its rows into a partial row (streaming whole
       rows), then the partial rows folded in order by columns: in
       parallel and vectorised where the accumulators have the elements'
       type, as reduce_cols needs, else column by column through combine;
       the partial rows then cost at most 1/8 of the input's reads.  Fewer
       rows a part (a wide matrix, many threads): parts by columns
       (c->strip columns an item), each folding its columns over every
       row straight into the result.  Before, every part took rows, and
       one thread folded the partial rows column by column: 16 partial
       rows of 4096 columns made pool/16 slower than seq (H100 host, 256 x
       4096 int32: 375 / 208 us), and 16 x 65536 ran as one part. */
    {
        size_t nt = _skel_parts_of(&c->par, n, in->cols), t, k = 0, x, rb = in->cols * c->esz;
        size_t strip = 64 / c->esz ? 64 / c->esz : 1, nstrip = (in->cols + strip - 1) / strip;
        unsigned char *col, *rows;
        _skel_job j;
        c->rows = n;
        c->strip = strip;
        if (nt > 2 * (size_t)c->par.threads) nt = 2 * (size_t)c->par.threads;  /* partial rows: two a thread */
        if (nt <= 1 || n < _SKEL_RCOL_ROWS * nt) {
            c->dst[0] = (unsigned char *)out;
            _skel_parallel(&c->par, _skel_parts_of(&c->par, nstrip, n * strip), nstrip, _skel_body_reduce_col_strips, c);
            return SKEL_OK;
        }
        if (!(rows = (unsigned char *)SKEL_MALLOC(nt * rb + nt * c->esz + nt + 1)))
            return _skel_fail(SKEL_ENOMEM, "column reduce: out of memory");
        c->dst[0] = rows;
        col = rows + nt * rb;                       /* one column's partials, contiguous */
        c->have = col + nt * c->esz;
        memset(c->have, 0, nt);
        _skel_parallel(&c->par, nt, n, _skel_body_reduce_cols, c);
        for (t = 0; t < nt; ++t)
            if (c->have[t]) memmove(rows + k++ * rb, rows + t * rb, rb);
        if (_skel_type_same(c->sk->in_t[0](), c->sk->out_t[0]())) {   /* the partial rows as a k-row matrix */
            _skel_cpu_ctx f = *c;
            f.job.in[0] = rows;
            f.base = 0;
            f.rows = k;
            f.dst[0] = (unsigned char *)out;
            _skel_parallel(&f.par, _skel_parts_of(&f.par, nstrip, k * strip), nstrip, _skel_body_reduce_col_strips, &f);
        } else {
            memset(&j, 0, sizeof j);
            j.in[0] = col;
            for (x = 0; x < in->cols; ++x) {
                for (t = 0; t < k; ++t) memcpy(col + t * c->esz, rows + t * rb + x * c->esz, c->esz);
                c->sk->cpu.combine(&j, 0, k, (unsigned char *)out + x * c->esz);
            }
        }
        SKEL_FREE(rows);
        return SKEL_OK;
    }
}

static void _skel_body_scan_sums(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    if (lo >= hi) return;
    c->sk->cpu.reduce(&c->job, lo, hi, _SKEL_PART(c, t));
    _SKEL_HAVE(c, t) = 1;
}

static void _skel_body_scan(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    const unsigned char *carry = (const unsigned char *)c->carry;
    const void *mine = (t == 0 && !c->exclusive && !c->has_init) ? NULL : carry + (size_t)t * c->esz;
    c->sk->cpu.scan(&c->job, lo, hi, mine, c->exclusive);
}

/* Scan [0, n) of c->job: one pass on one thread, else three phases:
   block sums, a scan of the sums, then each block scanned from its carry.
   Like Reduce, a variant's threads are used at every size (n >= parts:
   each block holds an element).  c holds the partials of `parts` parts. */
static void _skel_scan_parts(_skel_cpu_ctx *c, size_t parts, size_t n, const void *init)
{
    size_t t;
    _skel_job j;
    if (parts <= 1 || n < parts) {
        c->sk->cpu.scan(&c->job, 0, n, init, c->exclusive);
        return;
    }
    _skel_partials_clear(c, parts);
    _skel_parallel(&c->par, parts, n, _skel_body_scan_sums, c);
    t = _skel_partials_pack(c, parts);
    SKEL_ASSERT(t == parts);   /* n >= parts: every block has an element */
    (void)t;
    memset(&j, 0, sizeof j);
    j.in[0] = c->partial;
    /* carry[t] = init (+) sum[0] (+) .. (+) sum[t-1]: an exclusive scan of the
       sums from init; without init, carry[0] is none and carry[t] is the
       inclusive scan of sums[0..t-1]. */
    c->has_init = init != NULL;
    j.out[0] = init ? c->carries : c->carries + c->esz;
    c->sk->cpu.scan(&j, 0, parts - (init ? 0 : 1), init, init != NULL);
    c->carry = c->carries;
    _skel_parallel(&c->par, parts, n, _skel_body_scan, c);
}

/* Scan each of `rows` rows of `cols` elements (a vector: one row) starting
   at c->job's in[0] and out, in parallel within each row; the partials
   are allocated once, before any row is written. */
static int _skel_scan_range(_skel_cpu_ctx *c, size_t rows, size_t cols, const void *init)
{
    _skel_partials p;
    _skel_job whole = c->job;
    size_t parts = _skel_parts(&c->par, cols), r;
    p.heap = NULL;
    if (parts > 1 && cols >= parts) _SKEL_TRY(_skel_partials_get(&p, c, parts));
    for (r = 0; r < rows; ++r) {
        c->job.in[0] = (const unsigned char *)whole.in[0] + r * cols * c->esz;
        c->job.out[0] = (unsigned char *)whole.out[0] + r * cols * c->esz;
        _skel_scan_parts(c, parts, cols, init);
    }
    c->job = whole;
    SKEL_FREE(p.heap);
    return SKEL_OK;
}

/* Row-wise scan of rows [lo, hi), each row on one thread. */
static void _skel_body_scan_rows(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    _skel_job j = c->job;
    size_t r, rb = c->cols * c->esz;
    (void)t;
    for (r = lo; r < hi; ++r) {
        j.in[0] = (const unsigned char *)c->job.in[0] + r * rb;
        j.out[0] = (unsigned char *)c->job.out[0] + r * rb;
        c->sk->cpu.scan(&j, 0, c->cols, c->carry, c->exclusive);
    }
}

/* the destinations of line `row` of C elements, for every output */
static void _skel_line_dsts(const _skel_cpu_ctx *c, size_t row, size_t C, void **d)
{
    int k;
    for (k = 0; k < c->sk->nout; ++k) d[k] = c->dst[k] + row * C * c->desz[k];
}

/* MapOverlap along rows: a flat range of elements, split at row ends. */
static void _skel_body_overlap_rows(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    size_t row, off, end, C = c->cols, rb = C * c->iesz;
    void *d[SKEL_MAX_OUT];
    (void)t;
    lo += c->base;
    hi += c->base;
    while (lo < hi) {
        row = lo / C; off = lo % C;
        end = hi - lo < C - off ? off + (hi - lo) : C;
        _skel_line_dsts(c, row, C, d);
        c->sk->cpu.overlap(&c->job, c->src + row * rb, d, C, off, end, row * C, 1);
        lo += end - off;
    }
}

/* Copy rows [r0, r1) of w columns starting at col c0 of a matrix of
   `cols` columns into w contiguous rows `rows` elements apart (a
   transpose), or back; a loop per element size (not one that tests the
   size at each element). */
static void _skel_transpose_block(const unsigned char *src, unsigned char *dst, size_t rows, size_t r0,
                                  size_t r1, size_t cols, size_t c0, size_t w, size_t esz, int back)
{
    /* element (r, k) moves from a + (r sa + k ka) esz to b + (r sb + k kb) esz */
    const unsigned char *a = back ? src : src + c0 * esz;
    unsigned char *b = back ? dst + c0 * esz : dst;
    size_t sa = back ? 1 : cols, ka = back ? rows : 1, sb = back ? cols : 1, kb = back ? 1 : rows, r, k;
#define _SKEL_MOVE_AS(T)                                                      \
    for (r = r0; r < r1; ++r)                                                 \
        for (k = 0; k < w; ++k) {                                             \
            T v_;                                                             \
            memcpy(&v_, a + (r * sa + k * ka) * sizeof(T), sizeof v_);        \
            memcpy(b + (r * sb + k * kb) * sizeof(T), &v_, sizeof v_);        \
        }
    if (esz == 4) { _SKEL_MOVE_AS(uint32_t) }
    else if (esz == 8) { _SKEL_MOVE_AS(uint64_t) }
    else if (esz == 2) { _SKEL_MOVE_AS(uint16_t) }
    else if (esz == 1) { _SKEL_MOVE_AS(uint8_t) }
    else
        for (r = r0; r < r1; ++r)
            for (k = 0; k < w; ++k) memcpy(b + (r * sb + k * kb) * esz, a + (r * sa + k * ka) * esz, esz);
#undef _SKEL_MOVE_AS
}

#define _SKEL_COL_BLOCK 16
#define _SKEL_COL_TILE 256
/* A transposed column's stride in elements: its rows and 16 more, so that
   the columns of a block do not start a multiple of 4 KiB apart.  At 1024
   rows of floats and more they did and shared the L1 cache's sets
   (bench_columns, 2-vCPU VM, the column pass of 2^20 floats on one
   thread, without the 16 / with: 1024 x 1024 3.9 / 1.5 ms, 4096 x 256
   3.8 / 1.3, 65536 x 16 3.7-3.8 / 0.86-0.93). */
#define _SKEL_COL_STRIDE(rows) ((rows) + 16)
/* The rows a part's scratch holds of each column: a tile's rows and the
   halo rows its stencil reads (the tile's rows, not the whole column,
   unless the edge is cyclic: a tile at an end then reads rows at the
   other).  Whole columns of a tall matrix were megabytes a part (16 x
   65536 floats, in and out: 8 MB), allocated and page-faulted on every
   call (bench_columns, 2-vCPU VM, the column pass of 65536 x 16 on one
   thread: 0.87-0.98 ms, now 0.70-0.74). */
static size_t _skel_col_rows(size_t rows, size_t dr, int edge)
{
    size_t tile = _SKEL_COL_TILE + 2 * dr;
    return edge == SKEL_EDGE_CYCLIC || tile >= rows ? rows : tile;
}
/* MapOverlap along columns, output rows [c->rlo, c->rhi): tiles of
   _SKEL_COL_BLOCK columns by c->trows output rows are transposed
   into contiguous rows (the tile's rows and the halo rows its stencil
   reads), run through the row function, and transposed back (each output
   through its own temporary); part t works in scratch block t
   (c->scratch, allocated before any part writes: a failed call must not
   have written half the columns), which holds a tile's rows and its halo
   (_skel_col_rows).  Tiles rather than whole columns: a matrix of 16
   columns or fewer is one block, which ran on one thread.  Items run
   tile by tile, a tile's blocks one after the other: the blocks of a
   tile read and write the same rows, so a part works on rows no other
   part touches and finds the lines next to its block in cache.  Block by
   block, parts of a matrix of 32-128 columns shared every row's lines
   (bench_columns, 2-vCPU VM, the column pass of 16384 x 64 floats, seq /
   pool/2: 1.25-1.27 / 0.86-0.87 ms, tile by tile 0.84-0.85 / 0.43-0.44).
   The tiles have equal row counts (at most _SKEL_COL_TILE): with tiles of
   256 rows and a last one of what is left, 264 rows were a heavy tile and
   a light one, and the parts' home ranges split by them (264 x 667 on
   pool/2 ran at seq's speed). */
static size_t _skel_col_block_bytes(const _skel_cpu_ctx *c)
{
    size_t bytes = c->iesz;
    int o;
    for (o = 0; o < c->sk->nout; ++o) bytes += c->desz[o];
    return _SKEL_COL_BLOCK * c->cstride * bytes;
}

static void _skel_body_overlap_cols(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    size_t R = c->rows, S = c->cstride, C = c->cols, nb = (C + _SKEL_COL_BLOCK - 1) / _SKEL_COL_BLOCK, it, k, w;
    size_t rr_lo[3], rr_hi[3];
    unsigned char *block = c->scratch + (size_t)t * _skel_col_block_bytes(c), *tin, *at, *tout[SKEL_MAX_OUT];
    void *d[SKEL_MAX_OUT];
    int o, q, nrr, no = c->sk->nout;
    if (lo >= hi) return;
    if (c->whole) { lo *= nb; hi *= nb; }
    for (it = lo; it < hi; ++it) {      /* item it: tile it / nb, its block it % nb */
        size_t c0 = it % nb * _SKEL_COL_BLOCK, r0 = c->rlo + it / nb * c->trows;
        size_t r1 = c->rhi - r0 < c->trows ? c->rhi : r0 + c->trows, first;
        w = C - c0 < _SKEL_COL_BLOCK ? C - c0 : _SKEL_COL_BLOCK;
        nrr = _skel_halo(r0, r1, (size_t)c->sk->dr, R, c->job.edge, rr_lo, rr_hi);
        /* the scratch holds rows [first, first + S - 16) of each column
           (whole columns: first = 0), row r of column k at element
           k S + r - first: the row function and the transpositions index
           rows as the matrix does, through bases `first` rows before the
           block (never dereferenced there) */
        first = S - 16 < R ? rr_lo[0] : 0;
        tin = block - first * c->iesz;
        at = block + _SKEL_COL_BLOCK * S * c->iesz;
        for (o = 0; o < no; ++o) {
            tout[o] = at - first * c->desz[o];
            at += _SKEL_COL_BLOCK * S * c->desz[o];
        }
        for (q = 0; q < nrr; ++q) _skel_transpose_block(c->src, tin, S, rr_lo[q], rr_hi[q], C, c0, w, c->iesz, 0);
        for (k = 0; k < w; ++k) {
            for (o = 0; o < no; ++o) d[o] = tout[o] + k * S * c->desz[o];
            c->sk->cpu.overlap(&c->job, tin + k * S * c->iesz, d, R, r0, r1, c0 + k, C);
        }
        for (o = 0; o < no; ++o) _skel_transpose_block(tout[o], c->dst[o], S, r0, r1, C, c0, w, c->desz[o], 1);
    }
}

/* The rows [rlo, rhi) of a 2D MapOverlap, in slabs of _SKEL_OV2_SLAB(esz)
   rows, each in blocks of up to 2 rows (the conv block function shares
   input rows between them) by _SKEL_OV2_COLS bytes of columns, a block
   column's row pairs one after the other (their windows' rows stay in
   cache).  Windows inside the matrix read it in place; blocks at an edge
   (the first and last dc columns, the first and last dr rows) are copied
   first into tile with the edge policy applied, _SKEL_OV2_EDGE(esz)
   columns by the slab's rows at a time, so the same block function runs
   there and no output gathers its window element by element.  (2-vCPU
   AMD EPYC, 7x7 on 2048 x 2048 floats, one thread: gathering each row
   pair's edge blocks on its own, 2 dr + 2 rows for 2, took 8% of the
   call.) */
static void _skel_ov2_gather(const _skel_job *j, size_t esz, unsigned char *t, ptrdiff_t r0, size_t th,
                             ptrdiff_t c0, size_t tw)
{
    static const unsigned char zero[_SKEL_MAX_ELEM];
    const unsigned char *src = (const unsigned char *)j->in[0];
    const unsigned char *cv = j->edge_value ? (const unsigned char *)j->edge_value : zero;
    size_t k, u, at;
    ptrdiff_t lo = c0 < 0 ? -c0 : 0, C = (ptrdiff_t)j->cols;
    ptrdiff_t hi = c0 + (ptrdiff_t)tw <= C ? (ptrdiff_t)tw : C - c0;    /* [lo, hi): inside the row */
    for (k = 0; k < th; ++k, t += tw * esz) {
        const unsigned char *s;
        if (!_skel_edge_at(r0 + (ptrdiff_t)k, j->rows, j->edge, &at)) {
            for (u = 0; u < tw; ++u) memcpy(t + u * esz, cv, esz);
            continue;
        }
        s = src + at * j->cols * esz;
        if (hi > lo) memcpy(t + (size_t)lo * esz, s + (size_t)(c0 + lo) * esz, (size_t)(hi - lo) * esz);
        for (u = 0; u < tw; ++u) {
            if ((ptrdiff_t)u >= lo && (ptrdiff_t)u < hi) { u = (size_t)hi - 1; continue; }
            if (_skel_edge_at(c0 + (ptrdiff_t)u, j->cols, j->edge, &at)) memcpy(t + u * esz, s + at * esz, esz);
            else memcpy(t + u * esz, cv, esz);
        }
    }
}

void _skel_ov2_drive(const _skel_job *j, size_t rlo, size_t rhi, int dr, int dc, size_t esz,
                     _skel_ov2_block_fn blk, void *tile)
{
    const unsigned char *src = (const unsigned char *)j->in[0];
    unsigned char *dst = (unsigned char *)j->out[0];
    size_t R = j->rows, C = j->cols, D = (size_t)dc, cb = _SKEL_OV2_COLS / esz, s0, sh, row, nr, c0, n;
    size_t ew = _SKEL_OV2_EDGE(esz), H = _SKEL_OV2_SLAB(esz);
    size_t cin = C > D ? C - D : 0;     /* windows of columns [dc, cin) stay inside */
    /* the interior ends where the row's last edge block (ew wide) starts,
       so that it computes no column twice, and its blocks, from ew on,
       hold whole strips of the conv block function (ew and cb are
       multiples of them): 2048 columns computed 6% of them twice before */
    if (ew >= D && C >= ew && C - ew > D) cin = C - ew;
    for (s0 = rlo; s0 < rhi; s0 += sh) {    /* slabs of H rows */
        int slab_in, pass;
        sh = rhi - s0 < H ? rhi - s0 : H;
        slab_in = s0 >= (size_t)dr && s0 + sh - 1 + (size_t)dr < R;
        /* pass 0: the blocks in place; pass 1: the edge blocks, gathered
           once the interior has brought their rows into cache (2-vCPU AMD
           EPYC, 2048 x 2048 floats, one thread: 5% faster at 7x7 and 9x9
           than gathering the left one first, each row's first lines
           from memory) */
        for (pass = slab_in ? 0 : 1; pass < 2; ++pass)
        for (c0 = 0; c0 < C; c0 += n) {
            size_t tw;
            if (slab_in && c0 >= D && c0 < cin) {   /* in place, the slab's row pairs down a block */
                n = cin - c0 < cb ? cin - c0 : cb;
                for (row = s0; row < s0 + sh && pass == 0; row += nr) {
                    size_t o = row * C + c0;
                    nr = s0 + sh - row >= 2 ? 2 : 1;
                    blk(j, dst + o * esz, C, src + o * esz, (ptrdiff_t)C, row, c0, nr, n);
                }
                continue;
            }
            /* an edge block of ew columns, gathered once for the slab's
               rows (the gather costs little against the block's taps); the
               last one of a row starts ew before its end, computing some
               outputs again (the same values) rather than leaving a few to
               the block function's slow remainder loop */
            if (C - c0 <= ew) c0 = C > ew ? C - ew : 0;
            n = C - c0 < ew ? C - c0 : ew;
            if (pass == 0) continue;
            tw = n + 2 * D;
            _skel_ov2_gather(j, esz, (unsigned char *)tile, (ptrdiff_t)s0 - dr, sh + 2 * (size_t)dr,
                             (ptrdiff_t)c0 - dc, tw);
            for (row = s0; row < s0 + sh; row += nr) {
                nr = s0 + sh - row >= 2 ? 2 : 1;
                blk(j, dst + (row * C + c0) * esz, C,
                    (unsigned char *)tile + (((row - s0) + (size_t)dr) * tw + D) * esz, (ptrdiff_t)tw, row, c0, nr, n);
            }
        }
    }
}

static void _skel_body_overlap2d(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    size_t end = c->base + 2 * hi;      /* [lo, hi): row pairs */
    (void)t;
    if (lo < hi) c->sk->cpu.overlap2d(&c->job, c->base + 2 * lo, end < c->rhi ? end : c->rhi);
}

/* MapOverlap rows along its elements (flat [lo, hi) of the matrix). */
static void _skel_cpu_overlap_flat(_skel_cpu_ctx *c, size_t lo, size_t hi)
{
    c->base = lo;
    _skel_parallel(&c->par, _skel_parts(&c->par, hi - lo), hi - lo, _skel_body_overlap_rows, c);
}

/* MapOverlap3D planes c->rlo + [lo, hi) (a part's) */
static void _skel_body_overlap3d(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    (void)t;
    if (lo < hi) c->sk->cpu.overlap3d(&c->job, c->rlo + lo, c->rlo + hi);
}

/* MapPairs rows / MapPairsReduce outputs c->rlo + [lo, hi) (a part's) */
static void _skel_body_pairs(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    (void)t;
    if (lo < hi) c->sk->cpu.pairs(&c->job, c->rlo + lo, c->rlo + hi);
}

/* The column pass's tiles over `rows` output rows of nb blocks: their
   count and rows (c->ntile, c->trows: at most _SKEL_COL_TILE rows, all of
   one count), its parts (*parts, at most the threads: a scratch block
   each) and items (returned).  Items are a tile's blocks, tile by tile;
   where that gives a part only a few of them, parts would share rows, and
   the lines where one part's block ends and another's begins go back and
   forth between their cores (a block of 16 floats ends mid-line unless
   the row's bytes are a multiple of 64).  There the tiles are made small
   enough for a tile each (at least _SKEL_COL_MIN_TILE rows, and 4 halos)
   and the items are whole tiles (bench_columns, 2-vCPU VM, the column
   pass of 256 x 34 floats, one tile of three blocks: 10 us on pool/2, 6
   on seq; in two tiles of 128 rows 4-6 us; rows then columns 17, 10 and
   7-11.  The evaluation's random shapes, unlike the tuner's powers of 2,
   mostly have such rows). */
#define _SKEL_COL_MIN_TILE 16
static size_t _skel_col_tiles(_skel_cpu_ctx *c, size_t rows, size_t nb, size_t *parts)
{
    size_t min_tile = 4 * (size_t)c->sk->dr > _SKEL_COL_MIN_TILE ? 4 * (size_t)c->sk->dr : _SKEL_COL_MIN_TILE;
    size_t want = _skel_parts(&c->par, rows * c->cols), most = rows / min_tile;
    if (want > (size_t)c->par.threads) want = (size_t)c->par.threads;
    c->ntile = rows ? (rows + _SKEL_COL_TILE - 1) / _SKEL_COL_TILE : 1;
    c->whole = 0;
    if (nb > 1 && want > 1 && nb * c->ntile < 4 * want) {
        if (c->ntile < want && most > c->ntile) c->ntile = most < want ? most : want;
        c->whole = c->ntile >= want;
    }
    c->trows = rows ? (rows + c->ntile - 1) / c->ntile : 1;     /* tiles of equal rows */
    if (c->whole) { *parts = c->ntile < want ? c->ntile : want; return c->ntile; }
    *parts = _skel_parts_of(&c->par, nb * c->ntile, (size_t)_SKEL_COL_BLOCK * _SKEL_COL_TILE);
    if (*parts > (size_t)c->par.threads) *parts = (size_t)c->par.threads;
    return nb * c->ntile;
}

/* MapOverlap 1D of part sh: a vector's elements or a matrix's rows. */
static int _skel_cpu_overlap(_skel_cpu_ctx *c, const skel_call *call, const _skel_shape *sh, skel_vec *in,
                             const void *src, void **dst)
{
    int dir = call->direction ? call->direction : SKEL_ROWS, k, q;
    size_t nb = (in->cols + _SKEL_COL_BLOCK - 1) / _SKEL_COL_BLOCK, C = in->cols, parts, block_bytes, items;
    c->src = (const unsigned char *)src;
    for (k = 0; k < c->sk->nout; ++k) c->dst[k] = (unsigned char *)dst[k];
    c->rows = in->rows;
    c->cols = C;
    if (!in->is_matrix) { _skel_cpu_overlap_flat(c, sh->lo, sh->hi); return SKEL_OK; }
    if (dir == SKEL_ROWS) { _skel_cpu_overlap_flat(c, sh->lo * C, sh->hi * C); return SKEL_OK; }
    c->rlo = sh->lo;
    c->rhi = sh->hi;
    c->nrr = _skel_halo(sh->lo, sh->hi, (size_t)c->sk->dr, in->rows, (int)call->edge, c->rr_lo, c->rr_hi);
    /* every buffer first, so the call fails before it writes anything: a
       scratch block per part of the columns' phase, and the temporary (rows
       then columns: one output, of the input's type) */
    items = _skel_col_tiles(c, sh->hi - sh->lo, nb, &parts);
    c->cstride = _SKEL_COL_STRIDE(_skel_col_rows(in->rows, (size_t)c->sk->dr, (int)call->edge));
    block_bytes = _skel_col_block_bytes(c);
    if (!(c->scratch = (unsigned char *)SKEL_MALLOC(parts * block_bytes + (dir == SKEL_COLS ? 0 : in->n * c->iesz) + 1)))
        return _skel_fail(SKEL_ENOMEM, "MapOverlap %s: out of memory", dir == SKEL_COLS ? "columns" : "rows+columns");
    if (dir == SKEL_ROWS_COLS) {   /* rows into the temporary (those the columns read), then its columns */
        unsigned char *tmp = c->scratch + parts * block_bytes;
        c->dst[0] = tmp;
        for (q = 0; q < c->nrr; ++q) _skel_cpu_overlap_flat(c, c->rr_lo[q] * C, c->rr_hi[q] * C);
        c->src = tmp;
        c->dst[0] = (unsigned char *)dst[0];
    }
    _skel_parallel(&c->par, parts, items, _skel_body_overlap_cols, c);
    SKEL_FREE(c->scratch);
    return SKEL_OK;
}

/* Threads an omp call uses by default: SKEL_OMP_THREADS, else OpenMP's
   default (OMP_NUM_THREADS, else the CPUs this process may run on). */
static int _skel_omp_default_threads(void)
{
    if (_skel_env.omp_threads > 0) return _skel_env.omp_threads;
#if _SKEL_OMP
    {
        int t = omp_get_max_threads() < omp_get_num_procs() ? omp_get_max_threads() : omp_get_num_procs();
        return t < SKEL_MAX_THREADS ? t : SKEL_MAX_THREADS;
    }
#else
    return 1;
#endif
}

/* Threads a pool call uses by default: SKEL_THREADS, else the CPUs this
   process may use. */
static int _skel_pool_default_threads(void)
{
    return _skel_env.pool_threads > 0 ? _skel_env.pool_threads : _skel_cpu_count();
}

/* Tests: the default's parallel threshold, and the pool width it is for. */
int _skel_test_parallel_threshold(int *threads)
{
    _skel_init();
    *threads = _skel_pool_default_threads();
    return _skel_env.omp_threshold;
}

/* How variant v of CPU backend b runs. */
static _skel_par _skel_par_of(const _skel_variant *v, const _skel_backend *b)
{
    _skel_par par;
    int i = (int)(b - _skel_backends);
    par.how = i == _skel_env.omp_backend ? _SKEL_RUN_OMP : i == _skel_env.pool_backend ? _SKEL_RUN_POOL : _SKEL_RUN_SEQ;
    par.site = NULL;
    par.threads = par.how == _SKEL_RUN_SEQ ? 1 : v->threads > 0 ? v->threads
                : par.how == _SKEL_RUN_OMP ? _skel_omp_default_threads() : _skel_pool_default_threads();
    return par;
}

static void _skel_noop_body(void *ctx, int t, size_t lo, size_t hi) { (void)ctx; (void)t; (void)lo; (void)hi; }

/* Wake variant v's threads (an empty parallel region) before the tuner
   times it.  OpenMP threads that idled while other variants ran sleep;
   waking 16 of them cost the H100 machine's VM tens of microseconds,
   which a first call paid and a call that follows a call of the same
   variant (what a plan makes of a loop) does not: timed cold, omp/16
   lost sizes where it was 2-8 times faster (Taylor, N-body, Mandelbrot).
   The pool's sleeping workers are woken and waited for (at most
   _SKEL_SITE_WAKE): a worker comes 5-70 us after its wake-up, and a call
   timed before they came ran with some of them, at a speed between its
   width's and seq's that depended on the variants timed before it. */
static void _skel_cpu_wake(const _skel_variant *v)
{
    const _skel_backend *b = &_skel_backends[v->backend];
    _skel_par par;
    double t0;
    if (b->run != _skel_cpu_run) return;
    par = _skel_par_of(v, b);
    if (par.threads <= 1) return;
    if (par.how != _SKEL_RUN_POOL) {
        _skel_parallel(&par, (size_t)par.threads, (size_t)par.threads, _skel_noop_body, NULL);
        return;
    }
    _skel_pool_wake(par.threads);       /* the pool's workers spin again */
    for (t0 = _skel_now(); _skel_pool_asleep() > 0 && _skel_now() - t0 < _SKEL_SITE_WAKE;) _SKEL_PAUSE();
}

static size_t _skel_tsize(_skel_tref t) { return t()->size; }

/* Bring the operands part sh of the call reads to the host and allocate
   its outputs there (_skel_part_acquire); c->job points at them. */
static int _skel_cpu_operands(_skel_cpu_ctx *c, const skel_skeleton *sk, const skel_call *call, const _skel_shape *sh,
                              void **out)
{
    _skel_opbufs ops;
    int i;
    _SKEL_TRY(_skel_part_acquire(sk, call, sh, 0, &ops));
    for (i = 0; i < sk->nin; ++i) c->job.in[i] = ops.in[i];
    for (i = 0; i < sk->nview; ++i) {
        skel_vec *v = call->views[i];
        _skel_viewdesc *d = &c->job.view[i];
        d->data = ops.view[i];
        d->size = (skel_index)v->n; d->rows = (skel_index)v->rows;
        d->cols = (skel_index)v->cols; d->depth = (skel_index)v->depth;
    }
    for (i = 0; i < SKEL_MAX_OUT; ++i) {
        out[i] = c->job.out[i] = ops.out[i];
        if (i < sk->nout) c->desz[i] = _skel_tsize(sk->out_t[i]);
    }
    return SKEL_OK;
}

/* The run entry of the seq, omp and pool backends: part sh of the call
   (the whole call, or one part of a split), on the host. */
static int _skel_cpu_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                         const skel_call *call, const _skel_shape *sh)
{
    _skel_cpu_ctx c;
    skel_vec *in0 = call->in[0];
    void *out[SKEL_MAX_OUT], *copy = NULL;
    const void *src;
    size_t nu = sh->hi - sh->lo, U = _skel_unit_elems(sh);
    int i, rc = SKEL_OK;
    long oob = _skel_oob_now();
    memset(&c, 0, sizeof c);
    c.sk = sk;
    c.par = _skel_par_of(v, b);
    c.par.site = sk;
    c.par.units = nu;
    c.par.unit = U;
    c.esz = _skel_tsize(sk->out_t[0]);
    c.iesz = sk->nin ? _skel_tsize(sk->in_t[0]) : 0;
    c.exclusive = call->exclusive;
    _SKEL_TRY(_skel_cpu_operands(&c, sk, call, sh, out));
    c.job.uniform = call->uniform;
    c.job.weights = call->weights;
    c.job.edge = (int)call->edge;
    c.job.edge_value = call->edge_value;
    c.job.dir = call->direction;
    c.job.depth = sh->depth;
    c.job.rows = sh->rows;
    c.job.cols = sh->cols;
    c.base = sh->lo;
    /* MapOverlap and MapArray read neighbours / any element: an in-place
       call gets a private copy of the input first. */
    src = c.job.in[0];
    if (sk->kind == SKEL_KIND_OVERLAP || sk->kind == SKEL_KIND_OVERLAP2D || sk->kind == SKEL_KIND_OVERLAP3D ||
        sk->kind == SKEL_KIND_MAPARRAY)
        for (i = 0; i < sk->nout; ++i)
            if (call->outs[i] == in0 && !copy) {
                if (!(copy = SKEL_MALLOC(in0->n * in0->esz + 1)))
                    return _skel_fail(SKEL_ENOMEM, "%s: out of memory for the in-place copy", sk->name);
                memcpy(copy, src, in0->n * in0->esz);
                c.job.in[0] = src = copy;
            }
    switch (sk->kind) {
    case SKEL_KIND_MAP:
    case SKEL_KIND_MAPARRAY:
        _skel_parallel(&c.par, _skel_parts_of(&c.par, nu, U), nu, _skel_body_map, &c);
        break;
    case SKEL_KIND_REDUCE:
    case SKEL_KIND_MAPREDUCE:
        rc = _skel_cpu_reduce(&c, call, in0, out[0], nu);
        break;
    case SKEL_KIND_SCAN:
        /* the part's own data: the scans index from its first unit */
        c.job.in[0] = (const unsigned char *)c.job.in[0] + sh->lo * U * c.iesz;
        if (c.job.out[0]) c.job.out[0] = (unsigned char *)c.job.out[0] + sh->lo * U * c.esz;
        c.base = 0;
        if (sh->phase == _SKEL_PHASE_TOTAL) {   /* a split scan's carry: the part's total */
            rc = _skel_reduce_range(&c, nu * U, call->result);
            break;
        }
        if (sh->unit == _SKEL_UNIT_ELEMS) {
            rc = _skel_scan_range(&c, 1, nu, call->init);
            break;
        }
        if (nu >= (size_t)c.par.threads && c.par.threads > 1) {   /* many rows: one thread per block of rows */
            c.carry = call->init;
            c.cols = sh->cols;
            _skel_parallel(&c.par, _skel_parts_of(&c.par, nu, U), nu, _skel_body_scan_rows, &c);
            break;
        }
        rc = _skel_scan_range(&c, nu, sh->cols, call->init);     /* few rows: parallel within each */
        break;
    case SKEL_KIND_OVERLAP:
        rc = _skel_cpu_overlap(&c, call, sh, in0, src, out);
        break;
    case SKEL_KIND_OVERLAP2D:
        /* in row pairs (a conv block's two rows share their inputs), the
           chunk count from the elements: a row is heavy, and one chunk a
           thread left a descheduled thread's rows to nobody (2-vCPU VM, 7x7
           on 2048 x 2048 floats, 2 threads: 2 chunks of 1024 rows) */
        c.rows = sh->rows;
        c.rhi = sh->hi;
        _skel_parallel(&c.par, _skel_parts_of(&c.par, (nu + 1) / 2, 2 * sh->cols), (nu + 1) / 2, _skel_body_overlap2d, &c);
        break;
    case SKEL_KIND_OVERLAP3D:           /* the part's planes */
        c.rlo = sh->lo;
        _skel_parallel(&c.par, _skel_parts_of(&c.par, nu, U), nu, _skel_body_overlap3d, &c);
        break;
    case SKEL_KIND_MAPPAIRS:            /* the part's rows */
    case SKEL_KIND_MAPPAIRSREDUCE:      /* the part's outputs (rows or columns) */
        c.rlo = sh->lo;
        _skel_parallel(&c.par, _skel_parts_of(&c.par, nu, U), nu, _skel_body_pairs, &c);
        break;
    default:
        rc = _skel_fail(SKEL_EUNSUPPORTED, "%s: unknown skeleton kind %d", sk->name, sk->kind);
    }
    SKEL_FREE(copy);
    if (rc == SKEL_OK && _skel_oob_now() != oob)
        rc = _skel_fail(SKEL_EINVAL, "%s %s: the function read a view out of bounds (SKEL_DEBUG; see the log)",
                        _skel_kind_name(sk->kind), sk->name);
    return rc;
}

/* ---------------------------------------------------------------------
   portable kernel templates: one template per skeleton kind, shared by
   skel_cuda.h (NVRTC) and skel_cl.h (OpenCL C 1.2 and later).

   ENTRY POINTS (what a GPU backend calls)
       int _skel_kernel_source(const skel_skeleton *sk, int dialect,
                               const _skel_kernel_opts *opts, char **source);
           The complete program text for instance sk: the dialect prelude,
           the instance's defines and types, the user function(s) and every
           kernel the instance may need.  dialect is _SKEL_DIALECT_CUDA or
           _SKEL_DIALECT_OPENCL.  *source is SKEL_MALLOCed; SKEL_FREE it.
           The text depends only on (sk, dialect, opts): hash it for caches.
           SKEL_EUNSUPPORTED when a tile does not fit opts->local_mem.
       int _skel_kernel_plan(const skel_skeleton *sk, const skel_call *call,
                             const _skel_shape *sh, const _skel_kernel_opts *opts,
                             _skel_kplan *plan);
           The launches part sh of one checked call needs (the whole call
           or a split's part), in order, with every argument described (see
           _skel_kplan below).  A backend that executes plans generically
           needs no per-skeleton host code:
             1. bring the ranges the part reads of the inputs and views to
                its space and allocate the outputs there
                (_skel_part_acquire); allocate each scratch
                buffer k with plan->scratch[k] > 0 bytes (contents left
                from earlier calls: the kernels do not read them first);
             2. if plan->copy_in0 >= 0 copy in[0]'s buffer into that scratch
                buffer (in-place MapOverlap/MapArray) -- the steps already
                name the scratch buffer where they read in[0];
             3. if plan->weights_bytes, upload call->weights (that many bytes)
                to a read-only buffer for _SKEL_BUF_WEIGHTS (CUDA: to the
                module's skel_w, and the argument is not passed; weights
                passed by value are a _SKEL_ARG_WEIGHTS argument instead
                and plan->weights_bytes is 0), unless
                it already holds them (_skel_wcache: no upload, no
                wait between calls that share their weights); if
                plan->state, pass the device's state buffer as
                _SKEL_BUF_STATE, after _skel_dstate_begin says whether to
                keep, zero or regrow it (the kernels leave it ready for
                the next call, which runs after them in queue order);
             4. launch each step: a 1-D grid of step.groups work-groups of
                exactly opts->block work-items (OpenCL global size =
                groups * block), arguments in order (_skel_karg_value
                gives _SKEL_ARG_BASE / _EPOCH from the state); then
                _skel_dstate_end;
             5. if plan->result >= 0 copy the first element (sizeof out type)
                of that scratch buffer to call->result (a backend may hand
                the kernel host-mapped memory for that buffer instead);
           The core then records the part's writes of every output in
           their maps (_skel_run_variant, _skel_part_written); a backend
           records nothing.  A plan with nsteps == 0 (empty data) does
           nothing.

   THE DIALECT (each prelude defines these; templates use nothing else)
       SKEL_KERNEL          kernel qualifier      extern "C" __global__ | __kernel
       SKEL_DEVICE          helper functions      static __device__ __forceinline__ | static inline
       SKEL_GLOBAL          global pointer        (empty) | __global
       SKEL_RESTRICT        no alias              __restrict__ | restrict
       SKEL_CONSTANT_PTR    read-only table ptr   (empty) | __constant
       SKEL_LOCAL           group memory decl     __shared__ | __local
       SKEL_LOCAL_PTR       pointer into it       (empty) | __local
       SKEL_BARRIER()       group barrier + local fence
       SKEL_UNROLL          before a constant-count loop: unroll it (may be empty)
       SKEL_LID()           work-item in group (int)
       SKEL_LSIZE()         work-items in this launch's groups (int): at most
                            SKEL_BLOCK; only Map and MapArray are launched
                            with fewer (_skel_kstep.local)
       SKEL_GROUP(), SKEL_NGROUPS()   group id and count (skel_index)
       SKEL_ATOMIC_INC(p)   p: SKEL_GLOBAL skel_uint*; returns the old value
       SKEL_FENCE()         device-wide memory fence
       SKEL_LOCAL_ATOMIC_MAX(p, v)  p: SKEL_LOCAL int*
       SKEL_FAST_INTERIOR   1 where the 2D overlap's interior fast path is
                            used (CUDA, NVIDIA's OpenCL)
       SKEL_HAS_SHUFFLE     1 when SKEL_SHFL_DOWN/SKEL_SHFL_UP(x, k) exist (CUDA
                            with opts->shuffle; warps of 32): group
                            reductions and scans use them
   and the types int8_t .. uint64_t, skel_index (64-bit signed, like the
   host's), skel_uint (32-bit unsigned).  OpenCL also maps the C99 float
   math names (sqrtf, expf, fabsf, ...) to its overloaded built-ins.

   ADDRESS SPACES OF USER FUNCTIONS.  OpenCL C 1.2 has no generic address
   space: an unqualified pointer parameter is __private.  The generator
   therefore inserts a qualifier macro before the user function's pointer
   parameters (_skel_qualify_param): MapOverlap 1D/2D get `SKEL_LOCAL_PTR`
   on `a` (the window lives in a local-memory tile that already applies
   the edge policy), weighted MapOverlap 2D gets `SKEL_CONSTANT_PTR` on `w`
   when the weights are a __constant buffer (none when they are passed by
   value: then they are __private), MapArray gets `SKEL_GLOBAL` on
   `v`, MapOverlap 3D is compiled twice: `SKEL_GLOBAL` on `a` (interior
   points read the data itself) and unqualified (a private window at the
   edges).  In CUDA these macros are empty, so the text is the user's.
   Each user function is also renamed where it is defined (`add` becomes
   `skel_u_add`), so a name like hadd, max or step clashes neither with a
   built-in of either dialect nor with the templates' identifiers; a user
   function therefore cannot call another one (only math functions).

   KERNELS AND THEIR PARAMETERS (in order; T = element type, To/Ti the
   output/input types of Map and MapReduce; `u` (the uniform, by value)
   is present iff sk->has_uniform; every size is skel_index; B = opts->block).
   Every buffer is a whole container's (element i at index i), and every
   kernel computes a range of it (lo / first / r_lo .. ; the whole call's
   range unless the call is a part of a split): indices, edges and halos
   are the whole container's.
       Map        skel_map(To *out, const Ti *a0 .. a{nin-1}, lo, n, cols [, u])
                  elements [lo, n); any number of groups (grid-stride
                  loop); cols serves the (row, col) index.  skel_map_small:
                  the same, for groups of fewer than B work-items
                  (_skel_kstep.local).
       MapArray   skel_maparray(T *out, const T *v, const T *e, lo, n [, u])
                  out[i] = f(v, e[i]) for i in [lo, n); any groups; out
                  must not alias v.
       Reduce, MapReduce (whole, in index order, one pass)
                  skel_reduce_part(To *partial, const Ti *a0 .., first, n, cols, chunk,
                                   skel_uint *count, To *result [, u])
                      groups = ceil((n - first) / chunk); group g reduces the
                      (mapped) elements [first + g*chunk, min(n, first +
                      (g+1)*chunk)) to partial[g];
                      the last group to finish folds partial[0 .. groups-1]
                      in order into result[0].  count (_SKEL_BUF_STATE's
                      zero word) is 0 at launch and 0 again when the
                      kernel ends.
       Reduce only (matrices; Scan instances have skel_reduce_part too, for
       the totals of a split scan's parts)
                  skel_reduce_rows(T *out, const T *a, first, rows, cols)
                      rows [first, rows); any groups; group g does rows
                      first + g, first + g + groups, ...
                  skel_reduce_cols(T *out, const T *a, first, rows, cols, chunk)
                      groups = ceil(cols/B) * ceil((rows - first)/chunk);
                      writes out[k*cols + c] = column c over rows
                      [first + k*chunk, ..); a second launch with first = 0,
                      rows = chunk = the number of those partial rows folds
                      them in order.
       Scan       skel_scan(T *out, const T *in, off, rows, cols, skel_uint *state,
                            T *carries, skel_uint base, skel_uint epoch,
                            int exclusive, T init)
                      rows x cols elements from element off (a part of a
                      split: its rows, or its elements as one row);
                      (exclusive 2: inclusive, starting from init; a split
                      scan passes each part's carry as init)
                      single pass with decoupled look-back; each row (a
                      vector is one row) is cut into tiles of
                      geom.scan_tile elements; groups = rows * tiles per row
                      exactly.  state is _SKEL_BUF_STATE: state[16] (past
                      the zero word) is the tile counter and must equal
                      `base` at launch; the 64-bit word at state + 18 + 2t
                      is tile t's status and must not hold (epoch << 2) | 1
                      or 2 in its low half from an earlier launch.  The
                      backend keeps counting (_skel_dstate: base += groups
                      and ++epoch per launch, zeroing only when epoch
                      reaches 2^30 or a launch failed).  carries:
                      2 * groups elements (aggregates, prefixes; used only
                      by types wider than 4 bytes, whose values cannot
                      share the status word).
                      out may equal in.  Tile ids come from the counter, so
                      a tile only waits for tiles that already run.
       MapOverlap 1D  (edge: 0 constant, 1 cyclic, 2 duplicate = skel_edge)
                  skel_overlap_rows(T *out, const T *in, r0, cols, c_lo, c_hi,
                                    int edge, T edge_value [, u])
                      along rows (a vector is one row): columns [c_lo, c_hi)
                      of rows r0, r0 + 1, ...; tiles of geom.ov_tile outputs
                      of one row; groups = rows * ceil((c_hi - c_lo) / ov_tile).
                  skel_overlap_cols(T *out, const T *in, r_lo, r_hi, rows, cols,
                                    int edge, T edge_value [, u])
                      along columns, output rows [r_lo, r_hi) of rows; tiles
                      of geom.ovc_w columns x geom.ovc_h rows; groups =
                      ceil(cols/ovc_w) * ceil((r_hi - r_lo)/ovc_h).  Rows
                      then columns = rows into a temporary (the rows the
                      column pass reads), then columns.  out must not
                      alias in.
       MapOverlap 2D
                  skel_overlap2d(T *out, const T *in, r_lo, r_hi, rows, cols,
                                 int edge, T edge_value [, skel_w] [, u])
                      output rows [r_lo, r_hi) of rows.
                      skel_w (weighted instances): (2dR+1) x (2dC+1) weights,
                      by value as `skel_wt skel_w` (a struct of that array)
                      where they fit opts->arg_bytes (OpenCL:
                      _skel_weights_by_value), else `SKEL_CONSTANT_PTR
                      const T *skel_w`.
                      CUDA has no such parameter: the weights are the
                      module's `__constant__ T skel_w[]`, which the backend
                      fills through cuModuleGetGlobal, so the unrolled
                      window reads them as constant operands of its
                      multiply-adds instead of holding 25 of them in
                      registers (5x5 at 2^24 floats on an H100: 0.0648 ->
                      0.0574 ms; passing them by value instead measured the
                      same, 2026-11-23).  OpenCL C 1.2 cannot fill a
                      program-scope __constant array at run time, so OpenCL
                      passes them by value where they fit.
                      Tiles of geom.ov2_w x geom.ov2_h outputs; groups =
                      ceil(cols/ov2_w) * ceil((r_hi - r_lo)/ov2_h).  out must
                      not alias in.
   --------------------------------------------------------------------- */
enum { _SKEL_DIALECT_CUDA = 1, _SKEL_DIALECT_OPENCL = 2 };

#ifndef SKEL_GPU_REDUCE_TILE
#define SKEL_GPU_REDUCE_TILE 16384
#endif
#ifndef SKEL_GPU_REDUCE_WIDE_GROUPS   /* groups a compute unit of a MapReduce with a wider accumulator, where
                                        the backend cannot ask how many it holds (OpenCL) */
#define SKEL_GPU_REDUCE_WIDE_GROUPS 2
#endif
#ifndef SKEL_GPU_REDUCE_WIDE_TILE   /* bytes of inputs a group stages a step for a wider accumulator */
#define SKEL_GPU_REDUCE_WIDE_TILE 32768
#endif
#ifndef SKEL_GPU_SCAN_TILE
#define SKEL_GPU_SCAN_TILE 40960
#endif
#ifndef SKEL_GPU_OV2_REGS       /* CUDA: registers a 2D MapOverlap work-item may use (0: the compiler's choice) */
#define SKEL_GPU_OV2_REGS 48
#endif
#ifndef SKEL_GPU_SHUFFLE         /* 0: CUDA group reductions and scans through shared memory */
#define SKEL_GPU_SHUFFLE 1
#endif
#ifndef SKEL_GPU_OV2_W
#define SKEL_GPU_OV2_W 128
#endif
#ifndef SKEL_GPU_OV3_ZRUN        /* planes a 3D MapOverlap group marches through (at most) */
#define SKEL_GPU_OV3_ZRUN 64
#endif
#ifndef SKEL_GPU_REDUCE_PIECES   /* 0: the any-order MapReduce loads element by element (_skel_reduce_pieces) */
#define SKEL_GPU_REDUCE_PIECES 1
#endif
#ifndef SKEL_GPU_REDUCE_PITEMS   /* at most these pieces of every input in flight a step (_skel_put_pieces) */
#define SKEL_GPU_REDUCE_PITEMS 8
#endif
#ifndef SKEL_GPU_OV3_VEC         /* 0: no 16-byte MapOverlap3D kernel (_skel_tpl_overlap3d_vec) */
#define SKEL_GPU_OV3_VEC 1
#endif
#ifndef SKEL_GPU_OV3_ITEMS       /* outputs a 3D MapOverlap work-item computes a step (at most; a power of two) */
#define SKEL_GPU_OV3_ITEMS 4
#endif
#ifndef SKEL_GPU_MAP_ITEMS       /* elements per work-item of a Map, all loaded before any is stored */
#define SKEL_GPU_MAP_ITEMS 2
#endif
#ifndef SKEL_GPU_OV2_ITEMS
#define SKEL_GPU_OV2_ITEMS 16
#endif
#ifndef SKEL_GPU_OV2_DIRECT
#define SKEL_GPU_OV2_DIRECT 1
#endif

/* What the generator may assume about the device.  Zero fields take the
   default; resolve with _skel_kernel_opts_defaults. */
typedef struct _skel_kernel_opts {
    int block;          /* work-items per group: a power of two, 64..1024 (0: 256) */
    int shuffle;        /* CUDA: warp shuffles in group reductions and scans */
    int compute_units;  /* multiprocessors / compute units, for grid sizes (0: 16) */
    size_t local_mem;   /* bytes of local (shared) memory one group may use (0: 32768) */
    size_t arg_bytes;   /* OpenCL: bytes of arguments a kernel may take; a weighted 2D
                           MapOverlap whose weights fit passes them by value
                           (_skel_weights_by_value; 0: never) */
    int tiling;         /* a SKEL_CONV2D's register tiling: skel_variant.tiling */
    /* a compute unit's limits, for the tiling metrics (0: the default in
       parentheses, an NVIDIA sm_80/sm_90 multiprocessor's) */
    int regs_per_unit;          /* 32-bit registers (65536) */
    int regs_per_group;         /* (65536) */
    int threads_per_unit;       /* resident work-items (2048) */
    int groups_per_unit;        /* resident groups (32) */
    size_t local_per_unit;      /* bytes of local memory (local_mem: one group) */
    int reduce_resident;        /* groups of the compiled MapReduce kernel with a wider
                                   accumulator a unit holds at once (0: unknown) */
    int ov3_vec;                /* CUDA: the 16-byte MapOverlap3D kernel (SKEL_GPU_OV3_VEC;
                                   NVIDIA's OpenCL ran it at 0.60 of the copy, its
                                   marching kernel at 0.71) */
} _skel_kernel_opts;

/* Tile sizes the templates use for one instance (depend on opts and types). */
typedef struct _skel_kernel_geom {
    int block, map_items, reduce_items, scan_items, ov_items;
    int reduce_tile, scan_tile, ov_tile, ovc_w, ovc_h, ov2_w, ov2_h;
    int ov3_w, ov3_u;           /* 3D MapOverlap: a group's columns (rows: block / ov3_w), outputs a step */
    int ov3_v, ov3_vu;          /* its 16-byte kernel: elements a piece (0: none), planes a work-item */
    int pairs_rows;             /* MapPairs: rows a work-item computes */
    int ov2_ls;                 /* 2D overlap: row stride of the tile in local memory */
    /* a SKEL_CONV2D's register tiling (conv = 1; _skel_ov2_tiling) */
    int conv, cx, cy, cnx, cwr, regs, groups;
} _skel_kernel_geom;

/* ---- launch plans ---- */
enum { _SKEL_ARG_BUF = 1,       /* a buffer slot (buf) */
       _SKEL_ARG_WEIGHTS,       /* call->weights by value (value: its bytes) */
       _SKEL_ARG_INDEX,         /* skel_index (value) */
       _SKEL_ARG_INT,           /* int (value) */
       _SKEL_ARG_UINT,          /* skel_uint (value) */
       _SKEL_ARG_BASE,          /* skel_uint: the scan counter's value at launch (_skel_dstate) */
       _SKEL_ARG_EPOCH,         /* skel_uint: this launch's scan epoch (_skel_dstate) */
       _SKEL_ARG_ELEM,          /* one element (elem; value: its bytes) */
       _SKEL_ARG_UNIFORM };     /* call->uniform, sk->uniform_size bytes */
enum { _SKEL_BUF_OUT = 0 /* .. + 3: the outputs */, _SKEL_BUF_IN0 = 4 /* .. + 3 */,
       _SKEL_BUF_VIEW0 = 8 /* .. + 3 */, _SKEL_BUF_WEIGHTS = 12, _SKEL_BUF_SCRATCH0 = 13 /* .. + 2 */,
       _SKEL_BUF_STATE = 16,    /* the buffer the backend keeps per device (_skel_dstate):
                                   bytes 0..63 the zero word, zero at launch and left zero
                                   by the kernel; from byte 64 the scan's tile counter and
                                   status words, never reset between calls */
       _SKEL_NBUFS = 17 };
#define _SKEL_KARGS 40
typedef struct _skel_karg {
    int kind, buf;
    int64_t value;
    unsigned char elem[_SKEL_MAX_ELEM];
} _skel_karg;
typedef struct _skel_kstep {
    const char *kernel;         /* entry name in the program */
    size_t groups;              /* work-groups of opts->block work-items ... */
    int local;                  /* ... or of this many (Map, MapArray; 0: the block) */
    int nargs;
    _skel_karg arg[_SKEL_KARGS];
} _skel_kstep;
typedef struct _skel_kplan {
    int nsteps;
    size_t scratch[3];          /* bytes of scratch buffer k (0: unused) */
    int copy_in0;               /* scratch k to receive a copy of in[0] first, or -1 */
    int result;                 /* scratch k whose first element is call->result, or -1 */
    size_t weights_bytes;       /* bytes of call->weights for _SKEL_BUF_WEIGHTS, or 0 */
    size_t state;               /* bytes of _SKEL_BUF_STATE a step uses (0: none) */
    size_t state_tiles;         /* scan: how far the steps advance the tile counter */
    _skel_kstep step[5];        /* last: a new plan clears what is above (_skel_kernel_plan);
                                   rows + columns of a part: up to 3 row passes, the columns */
} _skel_kplan;

/* The per-device state buffer between calls (_SKEL_BUF_STATE).  A scan
   used to zero its tile counter and status words before every launch: one
   more command per call, 2-10 us at small sizes.  Now the counter keeps
   counting (each launch is told its base) and every status word is tagged
   with the launch's epoch, so words of earlier launches read as "not
   ready".  The buffer is zeroed only when it is new, after 2^30 launches,
   or after a call that did not launch all its steps (dirty). */
typedef struct _skel_dstate {
    size_t bytes;               /* of the device buffer (0: none yet) */
    uint32_t base, epoch;       /* the counter's value, the last epoch given out */
    int dirty;
} _skel_dstate;
enum { _SKEL_DSTATE_KEEP = 0, _SKEL_DSTATE_ZERO, _SKEL_DSTATE_GROW };

/* before a plan's first step: KEEP, ZERO (zero ds->bytes), or GROW
   (reallocate to ds->bytes, then zero; on failure set ds->bytes = 0) */
int _skel_dstate_begin(_skel_dstate *ds, const _skel_kplan *p)
{
    int how = ds->dirty || ds->epoch >= (1u << 30) - 1 ? _SKEL_DSTATE_ZERO : _SKEL_DSTATE_KEEP;
    if (p->state > ds->bytes) {
        ds->bytes = p->state < 4096 ? 4096 : (p->state + p->state / 4 + 63) / 64 * 64;
        how = _SKEL_DSTATE_GROW;
    }
    if (how != _SKEL_DSTATE_KEEP) ds->base = ds->epoch = 0;
    ds->epoch++;
    ds->dirty = 1;      /* until every step is launched */
    return how;
}

/* every step launched: the counter moved by the plan's tiles (stream order
   makes the next launch see it) */
void _skel_dstate_end(_skel_dstate *ds, const _skel_kplan *p)
{
    ds->base += (uint32_t)p->state_tiles;
    ds->dirty = 0;
}

/* a launch argument's value */
int64_t _skel_karg_value(const _skel_karg *a, const _skel_dstate *ds)
{
    return a->kind == _SKEL_ARG_BASE ? (int64_t)ds->base : a->kind == _SKEL_ARG_EPOCH ? (int64_t)ds->epoch : a->value;
}

/* The weights a device buffer holds (a host copy of what was uploaded):
   calls with the same weights upload nothing.  An upload per call cost
   more than the kernel itself at 2^24 elements: a synchronous copy makes
   the GPU wait for the host between calls.  (Not static: only the GPU
   backends call these, and a program may include skel.h alone.) */
typedef struct _skel_wcache {
    void *bytes;
    size_t len;
} _skel_wcache;

int _skel_wcache_holds(const _skel_wcache *wc, const void *w, size_t len)
{
    return wc->bytes && wc->len == len && memcmp(wc->bytes, w, len) == 0;
}

void _skel_wcache_forget(_skel_wcache *wc)
{
    SKEL_FREE(wc->bytes);
    wc->bytes = NULL;
    wc->len = 0;
}

/* after the buffer was given w: remember them (without memory, the next
   call just uploads again) */
void _skel_wcache_keep(_skel_wcache *wc, const void *w, size_t len)
{
    _skel_wcache_forget(wc);
    if ((wc->bytes = SKEL_MALLOC(len)) != NULL) {
        memcpy(wc->bytes, w, len);
        wc->len = len;
    }
}

/* The limits of an NVIDIA architecture's reference device (sm_80: A100,
   sm_90: H100; others: the defaults), for kernels generated without a
   device at hand (compile checks) and where a device does not say. */
void _skel_gpu_ref_limits(int arch, _skel_kernel_opts *o)
{
    o->regs_per_unit = o->regs_per_group = 65536;
    o->threads_per_unit = 2048;
    o->groups_per_unit = 32;
    o->compute_units = arch >= 90 ? 132 : arch >= 80 ? 108 : 0;
    o->local_per_unit = arch >= 90 ? 233472 : arch >= 80 ? 167936 : 0;   /* 228 / 164 KiB */
}

static void _skel_kernel_opts_defaults(const _skel_kernel_opts *in, _skel_kernel_opts *o)
{
    memset(o, 0, sizeof *o);
    if (in) *o = *in;
    if (o->block < 64 || o->block > 1024 || (o->block & (o->block - 1))) o->block = 256;
    if (o->compute_units <= 0) o->compute_units = 16;
    if (!o->local_mem) o->local_mem = 32768;
}

/* A weighted 2D MapOverlap's weights: their bytes, and whether they travel
   by value.  Kernel arguments live in the constant bank, so the unrolled
   window can take each weight as an operand of its multiply-add, as CUDA
   does from its __constant__ array; through a __constant pointer argument
   they are loaded first.  5x5 floats on an H100, NVIDIA's OpenCL against
   CUDA: 0.85-0.90 through the pointer, 0.98-1.19 by value (2^20..2^28).
   128 bytes stay free for the other arguments. */
static size_t _skel_weights_bytes(const skel_skeleton *sk)
{
    return (size_t)(2 * sk->dr + 1) * (size_t)(2 * sk->dc + 1) * sk->out_t[0]()->size;
}

static int _skel_weights_by_value(const skel_skeleton *sk, const _skel_kernel_opts *o)
{
    return sk->kind == SKEL_KIND_OVERLAP2D && sk->weighted &&
           _skel_weights_bytes(sk) + sk->uniform_size + 128 <= o->arg_bytes;
}

/* Bytes of local memory the scan kernel declares for a tile of block x
   items elements of esz bytes (its padded tile, two group arrays, flags). */
static size_t _skel_scan_local_bytes(int block, int items, size_t esz)
{
    int tile = block * items;
    return (size_t)(tile + tile / 32 + 2 * block + 2) * esz + 16;
}

/* bytes of one element of every input */
static size_t _skel_reduce_in_bytes(const skel_skeleton *sk)
{
    size_t in = 0;
    int k;
    for (k = 0; k < sk->nin; ++k) in += sk->in_t[k]()->size;
    return in;
}

/* Whether a MapReduce folds in registers per work-item
   (_skel_tpl_reduce_wide): its accumulator is a struct, or wider than the
   elements it is mapped from (Pearson's sums, double from bytes). */
static int _skel_reduce_wide(const skel_skeleton *sk)
{
    const skel_type_info *to = sk->out_t[0]();
    return sk->kind == SKEL_KIND_MAPREDUCE && (to->is_struct || (sk->nin > 0 && to->size > _skel_reduce_in_bytes(sk)));
}

/* Whether the wide MapReduce of sk folds in any order
   (_skel_tpl_reduce_comm): its operator was declared commutative. */
static int _skel_reduce_any_order(const skel_skeleton *sk) { return _skel_reduce_wide(sk) && sk->commutative; }

/* Elements a piece of the any-order MapReduce loads at once
   (_skel_tpl_reduce_comm): 16 bytes of its widest input, where every
   input's elements take 1, 2, 4 or 8 bytes; 0: element by element */
static int _skel_reduce_pieces(const skel_skeleton *sk)
{
    size_t widest = 0, sz;
    int k;
    if (!SKEL_GPU_REDUCE_PIECES || !_skel_reduce_any_order(sk) || sk->nin == 0) return 0;
    for (k = 0; k < sk->nin; ++k) {
        sz = sk->in_t[k]()->size;
        if (sz != 1 && sz != 2 && sz != 4 && sz != 8) return 0;
        if (sz > widest) widest = sz;
    }
    return (int)(16 / widest);
}

/* Bytes of local memory the reduce kernel of sk declares for a tile of
   block x items elements (the staged tile, the group array, the flag). */
static size_t _skel_reduce_local_bytes(const skel_skeleton *sk, int block, int items)
{
    size_t tile = (size_t)block * (size_t)items, esz = sk->out_t[0]()->size;
    if (_skel_reduce_wide(sk)) return (tile + tile / 32) * _skel_reduce_in_bytes(sk) + (size_t)block * esz + 16;
    return (tile + tile / 32 + (size_t)block) * esz + 16;
}

/* Elements per 16-byte piece in which the 2D overlap loads its interior
   tiles (a tile row's width must hold whole pieces); 1: element-wise. */
static int _skel_ov2_vec(int ov2_w, size_t esz)
{
    return (esz == 4 || esz == 8) && ov2_w % (int)(16 / esz) == 0 ? (int)(16 / esz) : 1;
}

/* Columns of the 2D overlap's halo on each side of a tile in local
   memory: dc rounded up to whole pieces, so that every piece is aligned. */
static int _skel_ov2_halo(const _skel_kernel_geom *g, const skel_skeleton *sk, size_t esz)
{
    int ve = _skel_ov2_vec(g->ov2_w, esz);
    return (sk->dc + ve - 1) / ve * ve;
}

/* ---- the register tiling of a wide SKEL_CONV2D (thesis ch. 5) ----
   A work-item computes cy x cx outputs (cy adjacent rows of cx adjacent
   columns: the tiling factors).  For each input row of their windows it
   reads cx + 2 dcp inputs (dcp: dc rounded up to a 16-byte piece of ve
   elements) from local memory into registers once, and each of the cy
   output rows whose window holds it does cx (2 dc + 1) multiply-adds
   with a row of weights (local memory, a broadcast).  Larger factors read
   local memory less often per multiply-add (H100: 32 float inputs a clock
   per SM against 128 multiply-adds) and cost registers, so fewer groups
   fit.  Candidates: cx = ve, 2 ve, 4 ve, 8 ve (4..32 floats) x cy = 1, 2,
   with the block B (the variant's; 256 by default):
     nx = max(8 / (cx / ve), min(B / 16, 512 bytes / esz / cx))
                                   work-items along a tile row, B / nx down
     tile  = nx cx columns x cy B / nx rows, plus the halo (2 dcp, 2 dr)
     local = (rows ls + (rows - 1) / cy ve + (2 dr + 1) wr) esz, rows = the
             tile's + 2 dr (ls: the row stride, an even number of pieces,
             plus a piece every cy rows; wr: 2 dc + 1 rounded up to a piece)
     regs  = 8 ceil((22 + w (2 cy cx - cx / 2 + dcp) + dr) / 8)   (w: 32-bit
             words an element; fitted to the registers ptxas allocated for
             101 kernels for sm_80 and sm_90, rms error 5: _SKEL_OV2_REGS)
     groups = min(R_unit / (regs B), L_unit / (local + 1 KiB), T_unit / B, G_unit)
     occupancy = groups B / T_unit
   from the device's limits (registers R, local memory L, work-items T,
   groups G per compute unit; _skel_kernel_opts).  A candidate fits when
   regs <= 255, regs B <= the registers of a group, local <= a group's
   local memory, and groups >= 1.  Then, as the thesis' two metrics:
     Phi_occupancy (SKEL_TILING_OCCUPANCY): the most groups, then the most
       outputs a work-item (cx cy);
     Phi_tiling (SKEL_TILING_MAX): the most outputs a work-item, then the
       most groups;
   and the default, SKEL_TILING_AUTO: the most groups x min(cx cy,
   _SKEL_OV2_SAT), then the least local-memory traffic a multiply-add,
     lm = (32 (cx + 2 dcp) esz / 128 + cy wr esz / 16) / (cy cx (2 dc + 1))
   cycles of local memory (32 banks of 4 bytes, a 16-byte broadcast a
   cycle) for an input row's reads by 32 work-items -- their segments and
   their cy weight rows, broadcast -- over the multiply-adds that row
   feeds, where it is at least a tenth lower (_SKEL_OV2_LM_GAIN), then the
   fewest registers.  (H100, 4096^2 floats, bench/results/conv2d.md: 1 x
   16 and 2 x 8 both hold 16 outputs in 4 groups by the model from 9x9 to
   13x13, where 2 x 8's lm is 11-18% lower: it ran 4-13% faster, 33.7
   against 31.6 TFLOP/s at 11x11.  From 19x19 up its lm is 0-7% lower and
   it took 1-6 registers more than 1 x 16, which the model, rms error 5,
   cannot tell apart: it lost a group at 19x19, 21x21 and 27x27-31x31 and
   ran 1-7% slower; so a small lm difference does not decide.)  For
   windows of more than _SKEL_OV2_REG_TAPS taps (the
   shared-memory tile kernel, and the direct reads of small windows,
   below: there the copy bandwidth bounds them; H100, bench/results/
   conv2d.md: at 7x7 the shared-memory tile ran at 24.6 TFLOP/s, 81% of
   the copy, the register tiling at 17.7; at 9x9 the register tiling won,
   25.6 to 14.2).  (H100, round 1 there: 16 outputs a work-item were
   within 5% of the best factor from 9x9 to 31x31; 32, with fewer groups,
   lost up to 30%; 4, with more, up to 30% too.)  A variant's tiling >= 4 asks for cx =
   tiling % 100, cy = tiling / 100 (or the next candidate up that fits).
   Returns the chosen candidate's index in *c, or -1: the shared-memory
   tile kernel.  With why, the candidates and the choice are also written
   there as text. */
#define _SKEL_OV2_REG_TAPS 49
/* registers a work-item of cy x cx outputs (w 32-bit words an element,
   halo dcp, dr rows): a least-squares fit to what ptxas allocated for 101
   kernels (floats, ints, doubles, int64; windows 3x3..31x31 and 3x31,
   31x3; cx 2..32, cy 1..2; sm_80 and sm_90): rms error 5 registers */
#define _SKEL_OV2_REGS(cx, cy, dcp, dr, ve, w) (22 + (w) * (2 * (cy) * (cx) - (cx) / 2 + (dcp)) + (dr))
#define _SKEL_OV2_SAT 16        /* outputs a work-item beyond which SKEL_TILING_AUTO counts only occupancy */
#define _SKEL_OV2_LM_GAIN 0.9   /* lm this much lower wins a tie; else fewer registers */
#define _SKEL_OV2_NCAND 8
typedef struct _skel_ov2_cand {
    int cx, cy, cnx, ls, cwr, regs, groups, fits;
    size_t local;
    double occupancy, lm;   /* lm: local-memory cycles a multiply-add (above) */
} _skel_ov2_cand;

static void _skel_ov2_cand_eval(const skel_skeleton *sk, const _skel_kernel_opts *o, size_t esz, int cx, int cy,
                                _skel_ov2_cand *c)
{
    int ve = (int)(16 / esz), pieces = cx / ve, cpa = pieces >= 8 ? 1 : 8 / pieces, w = (int)(esz / 4);
    int dcp = (sk->dc + ve - 1) / ve * ve, ny, rows, b = o->block, gr, gl, gt;
    int ru = o->regs_per_unit > 0 ? o->regs_per_unit : 65536, rg = o->regs_per_group > 0 ? o->regs_per_group : 65536;
    int tu = o->threads_per_unit > 0 ? o->threads_per_unit : 2048, gu = o->groups_per_unit > 0 ? o->groups_per_unit : 32;
    size_t lu = o->local_per_unit > 0 ? o->local_per_unit : o->local_mem;
    memset(c, 0, sizeof *c);
    c->cx = cx;
    c->cy = cy;
    c->cnx = (int)(512 / esz) / cx;
    if (c->cnx > b / 16) c->cnx = b / 16;
    if (c->cnx < cpa) c->cnx = cpa;
    ny = b / c->cnx;
    rows = ny * cy + 2 * sk->dr;
    c->ls = (c->cnx * cx + 2 * dcp + 2 * ve - 1) / (2 * ve) * (2 * ve);    /* an even number of pieces */
    c->cwr = (2 * sk->dc + 1 + ve - 1) / ve * ve;
    c->local = ((size_t)rows * (size_t)c->ls + (size_t)((rows - 1) / cy) * (size_t)ve +
                (size_t)(2 * sk->dr + 1) * (size_t)c->cwr) * esz;
    c->lm = (32.0 * (cx + 2 * dcp) * (double)esz / 128 + (double)cy * c->cwr * (double)esz / 16) /
            ((double)cy * cx * (2 * sk->dc + 1));
    c->regs = _SKEL_OV2_REGS(cx, cy, dcp, sk->dr, ve, w);
    c->regs = (c->regs + 7) / 8 * 8;
    gr = ru / (c->regs * b);
    gl = (int)(lu / (c->local + 1024));
    gt = tu / b;
    c->groups = gr < gl ? gr : gl;
    if (gt < c->groups) c->groups = gt;
    if (gu < c->groups) c->groups = gu;
    c->occupancy = (double)c->groups * b / tu;
    c->fits = ny >= 1 && ny % (8 / cpa) == 0 && c->regs <= 255 && c->regs * b <= rg && c->local <= o->local_mem &&
              c->groups >= 1;
}

static int _skel_ov2_tiling(const skel_skeleton *sk, const _skel_kernel_opts *o, size_t esz, _skel_ov2_cand *out,
                            char *why, size_t size)
{
    static const char *names[] = { "auto", "Phi_occupancy", "Phi_tiling" };
    _skel_ov2_cand c[_SKEL_OV2_NCAND];
    int ve = (int)(16 / esz), mode = o->tiling, taps = (2 * sk->dr + 1) * (2 * sk->dc + 1), k, pick = -1;
    size_t w = 0;
    if (why && size) why[0] = 0;
    if (!sk->conv || !sk->weighted || (esz != 4 && esz != 8) || mode == SKEL_TILING_SHARED ||
        (mode == SKEL_TILING_AUTO && taps <= _SKEL_OV2_REG_TAPS))
        return -1;
    for (k = 0; k < _SKEL_OV2_NCAND; ++k) _skel_ov2_cand_eval(sk, o, esz, ve << (k % 4), 1 + k / 4, &c[k]);
    if (mode >= 4)      /* asked for cx = mode % 100, cy = mode / 100: the first candidate at or above */
        for (k = 0; k < _SKEL_OV2_NCAND && pick < 0; ++k)
            if (c[k].fits && c[k].cx >= mode % 100 && c[k].cy >= (mode >= 100 ? mode / 100 : 1)) pick = k;
    for (k = 0; k < _SKEL_OV2_NCAND && !(mode >= 4 && pick >= 0); ++k) {
        int t = c[k].cx * c[k].cy, better = 0;
        if (!c[k].fits) continue;
        if (pick < 0) better = 1;
        else if (mode == SKEL_TILING_OCCUPANCY)   /* occupancy first, then tiling */
            better = c[k].groups > c[pick].groups || (c[k].groups == c[pick].groups && t > c[pick].cx * c[pick].cy);
        else if (mode == SKEL_TILING_MAX || mode >= 4)   /* tiling first, then occupancy */
            better = t > c[pick].cx * c[pick].cy || (t == c[pick].cx * c[pick].cy && c[k].groups > c[pick].groups);
        else {                                    /* auto: groups x tiling, tiling counted up to _SKEL_OV2_SAT */
            int sk_ = c[k].groups * (t < _SKEL_OV2_SAT ? t : _SKEL_OV2_SAT);
            int sp = c[pick].groups * (c[pick].cx * c[pick].cy < _SKEL_OV2_SAT ? c[pick].cx * c[pick].cy : _SKEL_OV2_SAT);
            better = sk_ > sp || (sk_ == sp && (c[k].lm < _SKEL_OV2_LM_GAIN * c[pick].lm ||
                                                (c[k].lm * _SKEL_OV2_LM_GAIN <= c[pick].lm && c[k].regs < c[pick].regs)));
        }
        if (better) pick = k;
    }
    if (why && size) {
        for (k = 0; k < _SKEL_OV2_NCAND && w < size; ++k)
            w += (size_t)snprintf(why + w, size - w, "%s%dx%d: %d regs, %.1f KiB, %d groups, lm %.2f%s", k ? "; " : "",
                                  c[k].cy, c[k].cx, c[k].regs, c[k].local / 1024.0, c[k].groups, c[k].lm,
                                  c[k].fits ? "" : " (no)");
        if (w < size && pick >= 0)
            snprintf(why + w, size - w, " -> %s: %d x %d outputs a work-item, tile %d x %d, %.0f%% occupancy",
                     mode >= 4 ? "asked for" : names[mode], c[pick].cy, c[pick].cx, c[pick].cnx * c[pick].cx,
                     o->block / c[pick].cnx * c[pick].cy, 100 * c[pick].occupancy);
        else if (w < size)
            snprintf(why + w, size - w, " -> the shared-memory tile (no candidate fits)");
    }
    if (pick >= 0) *out = c[pick];
    return pick;
}

static void _skel_kernel_geometry(const skel_skeleton *sk, const _skel_kernel_opts *opts, _skel_kernel_geom *g)
{
    _skel_kernel_opts o;
    size_t esz = sk->out_t[0]()->size;
    _skel_kernel_opts_defaults(opts, &o);
    memset(g, 0, sizeof *g);
    g->block = o.block;
    g->map_items = SKEL_GPU_MAP_ITEMS;
    /* tiles of a fixed byte size per group, whatever the block; a reduce
       tile's bytes are shared by its inputs (H100: a dot product with 8
       elements of each input per work-item ran at 99% of CUB, with 16 at
       91%; a sum with 8 at 75%) */
    g->reduce_items = (int)(SKEL_GPU_REDUCE_TILE / esz) / g->block / (sk->nin > 1 ? sk->nin : 1);
    if (_skel_reduce_wide(sk)) {   /* the tile holds the inputs, not the accumulators */
        size_t in = _skel_reduce_in_bytes(sk);
        g->reduce_items = (int)(SKEL_GPU_REDUCE_WIDE_TILE / (in ? in : esz)) / g->block;
        if (g->reduce_items > 16) g->reduce_items = 16;
        while (g->reduce_items > 2 && _skel_reduce_local_bytes(sk, g->block, g->reduce_items) > o.local_mem)
            g->reduce_items /= 2;
    }
    g->scan_items = (int)(SKEL_GPU_SCAN_TILE / esz) / g->block;
    /* a small block gets a smaller tile rather than longer unrolled loops
       (registers; PoCL's compile time grows with them): at most 16 reduce
       and 40 scan elements a work-item (scan tiles of 16, 32 and 40 float
       elements a work-item ran at 78%, 91% and 96% of CUB on an H100 at
       2^26 elements: fewer look-backs, more bytes in flight; 40 is the
       most that CUDA's 48 KiB of static shared memory holds) */
    if (g->reduce_items > 16) g->reduce_items = 16;
    if (g->scan_items > 40) g->scan_items = 40;
    /* ... and a device with less local memory a smaller scan tile */
    while (g->scan_items > 2 && _skel_scan_local_bytes(g->block, g->scan_items, esz) > o.local_mem)
        g->scan_items /= 2;
    if (g->reduce_items < 2) g->reduce_items = 2;
    if (g->scan_items < 2) g->scan_items = 2;
    g->ov_items = 4;
    g->reduce_tile = g->block * g->reduce_items;
    g->scan_tile = g->block * g->scan_items;
    g->ov_tile = g->block * g->ov_items;
    g->ovc_w = 32;
    g->ovc_h = 64;
    g->ov2_w = SKEL_GPU_OV2_W;          /* a tile's columns ... */
    if (g->ov2_w > g->block) g->ov2_w = g->block;
    g->ov2_h = g->block / g->ov2_w * SKEL_GPU_OV2_ITEMS;    /* ... and rows per work-item */
    g->ov3_w = 32;      /* a warp's row: 128 bytes of floats */
    /* outputs of a 3D overlap's work-item a step: SKEL_GPU_OV3_ITEMS, or
       fewer where the window's planes would hold more than 96 registers
       of 32 bits */
    for (g->ov3_u = SKEL_GPU_OV3_ITEMS; g->ov3_u > 1; g->ov3_u /= 2)
        if ((size_t)(2 * sk->dd + g->ov3_u) * (size_t)((2 * sk->dr + 1) * (2 * sk->dc + 1)) * esz <= 96 * 4) break;
    /* ... and of its 16-byte kernel (_skel_tpl_overlap3d_vec): 4- and
       8-byte elements, halos no wider than a piece, and a window of at most
       128 registers of 32 bits with one plane a work-item (the function
       reads fewer: those it does not are never loaded) */
    g->ov3_v = opts->ov3_vec && (esz == 4 || esz == 8) ? (int)(16 / esz) : 0;
    if (g->ov3_v && sk->dc > g->ov3_v) g->ov3_v = 0;
    for (g->ov3_vu = SKEL_GPU_OV3_ITEMS; g->ov3_v && g->ov3_vu >= 1; g->ov3_vu /= 2)
        if ((size_t)(2 * sk->dd + g->ov3_vu) * (size_t)((2 * sk->dr + 1) * (g->ov3_v + 2 * sk->dc)) * esz <= 128 * 4) break;
    if (g->ov3_vu < 1) g->ov3_v = 0;
    g->pairs_rows = 8;
    g->ov2_ls = g->ov2_w + 2 * _skel_ov2_halo(g, sk, esz);
    if (sk->kind == SKEL_KIND_OVERLAP2D) {
        _skel_ov2_cand c;
        if (_skel_ov2_tiling(sk, &o, esz, &c, NULL, 0) >= 0) {
            g->conv = 1;
            g->cx = c.cx; g->cy = c.cy; g->cnx = c.cnx; g->cwr = c.cwr; g->regs = c.regs; g->groups = c.groups;
            g->ov2_w = c.cnx * c.cx;
            g->ov2_h = g->block / c.cnx * c.cy;
            g->ov2_ls = c.ls;
        }
    }
}

/* ---- the preludes ---- */
static const char _skel_prelude_cuda[] =
    "#define SKEL_CUDA 1\n"
    "#define SKEL_KERNEL extern \"C\" __global__\n"
    "#define SKEL_MIN_GROUPS(n) __launch_bounds__(SKEL_BLOCK, n)\n"
    "#define SKEL_DEVICE static __device__ __forceinline__\n"
    "#define SKEL_GLOBAL\n"
    "#define SKEL_RESTRICT __restrict__\n"
    "#define SKEL_CONSTANT_PTR\n"
    "#define SKEL_LOCAL __shared__\n"
    "#define SKEL_ALIGN16 __align__(16)\n"
    "#define SKEL_LOCAL_PTR\n"
    "#define SKEL_BARRIER() __syncthreads()\n"
    "#define SKEL_LID() ((int)threadIdx.x)\n"
    "#define SKEL_LSIZE() ((int)blockDim.x)\n"
    "#define SKEL_GROUP() ((skel_index)blockIdx.x)\n"
    "#define SKEL_NGROUPS() ((skel_index)gridDim.x)\n"
    "#define SKEL_ATOMIC_INC(p) atomicAdd((p), 1u)\n"
    "#define SKEL_FENCE() __threadfence()\n"
    "#define SKEL_SHFL_DOWN(x, k) __shfl_down_sync(0xffffffffu, (x), (k))\n"
    "#define SKEL_SHFL_UP(x, k) __shfl_up_sync(0xffffffffu, (x), (k))\n"
    "#define SKEL_UNROLL _Pragma(\"unroll\")\n"
    "#define SKEL_LOCAL_ATOMIC_MAX(p, v) atomicMax((p), (v))\n"
    "#define SKEL_FAST_INTERIOR 1\n"
    "typedef signed char int8_t; typedef unsigned char uint8_t;\n"
    "typedef short int16_t; typedef unsigned short uint16_t;\n"
    "typedef int int32_t; typedef unsigned int uint32_t;\n"
    "typedef long long int64_t; typedef unsigned long long uint64_t;\n"
    "typedef long long skel_index; typedef unsigned int skel_uint;\n";

static const char _skel_prelude_opencl[] =
    "#define SKEL_OPENCL 1\n"
    "#define SKEL_HAS_SHUFFLE 0\n"
    "#define SKEL_KERNEL __kernel\n"
    "#define SKEL_MIN_GROUPS(n)\n"
    "#define SKEL_DEVICE static inline\n"
    "#if defined(cl_nv_pragma_unroll)\n"
    "#define SKEL_UNROLL _Pragma(\"unroll\")\n"
    "#else\n"
    "#define SKEL_UNROLL\n"
    "#endif\n"
    "#define SKEL_GLOBAL __global\n"
    "#define SKEL_RESTRICT restrict\n"
    "#define SKEL_CONSTANT_PTR __constant\n"
    "#define SKEL_LOCAL __local\n"
    "#define SKEL_ALIGN16 __attribute__((aligned(16)))\n"
    "#define SKEL_LOCAL_PTR __local\n"
    "#define SKEL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)\n"
    "#define SKEL_LID() ((int)get_local_id(0))\n"
    "#define SKEL_LSIZE() ((int)get_local_size(0))\n"
    "#define SKEL_GROUP() ((skel_index)get_group_id(0))\n"
    "#define SKEL_NGROUPS() ((skel_index)get_num_groups(0))\n"
    "#define SKEL_ATOMIC_INC(p) atomic_inc(p)\n"
    "#define SKEL_LOCAL_ATOMIC_MAX(p, v) atomic_max((p), (v))\n"
    /* mem_fence orders only as seen from the work-group on NVIDIA's OpenCL;
       the look-back scan needs a device-wide fence (PTX membar.gl) there */
    "#if defined(cl_nv_pragma_unroll) || defined(__NV_CL_C_VERSION)\n"
    "#define SKEL_FENCE() __asm__ volatile(\"membar.gl;\" ::: \"memory\")\n"
    /* the 2D overlap's interior fast path only where it was tested: PoCL
       on a 16-core Xeon computed its tiles wrong (PoCL on this 2-core VM,
       CUDA and NVIDIA's OpenCL right); other devices take the general path */
    "#define SKEL_FAST_INTERIOR 1\n"
    "#else\n"
    "#define SKEL_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)\n"
    "#define SKEL_FAST_INTERIOR 0\n"
    "#endif\n"
    "typedef char int8_t; typedef uchar uint8_t; typedef short int16_t; typedef ushort uint16_t;\n"
    "typedef int int32_t; typedef uint uint32_t; typedef long int64_t; typedef ulong uint64_t;\n"
    "typedef long skel_index; typedef uint skel_uint;\n"
    "#define sqrtf sqrt\n#define rsqrtf rsqrt\n#define cbrtf cbrt\n#define expf exp\n#define exp2f exp2\n"
    "#define logf log\n#define log2f log2\n#define log10f log10\n#define powf pow\n#define fabsf fabs\n"
    "#define floorf floor\n#define ceilf ceil\n#define roundf round\n#define truncf trunc\n#define fmodf fmod\n"
    "#define fminf fmin\n#define fmaxf fmax\n#define fmaf fma\n#define sinf sin\n#define cosf cos\n"
    "#define tanf tan\n#define asinf asin\n#define acosf acos\n#define atanf atan\n#define atan2f atan2\n"
    "#define sinhf sinh\n#define coshf cosh\n#define tanhf tanh\n#define erff erf\n#define hypotf hypot\n";

/* Both dialects: view reads (SKEL_AT; clamped into the view with
   SKEL_DEBUG=1 in the environment: the CPU backends report such reads,
   the kernels read element 0 instead of outside the buffer). */
static const char _skel_prelude_views[] =
    "#ifdef SKEL_DEBUG_VIEWS\n"
    "#define SKEL_AT(v, i) ((v).data[(skel_index)(i) >= 0 && (skel_index)(i) < (v).size ? (skel_index)(i) : 0])\n"
    "#else\n"
    "#define SKEL_AT(v, i) ((v).data[i])\n"
    "#endif\n"
    "#define SKEL_AT2(v, r, c) SKEL_AT(v, (skel_index)(r) * (v).cols + (c))\n"
    "#define SKEL_AT3(v, p, r, c) SKEL_AT(v, ((skel_index)(p) * (v).rows + (r)) * (v).cols + (c))\n";

/* ---- the templates (kernel code in the dialect; the generator defines
   skel_to/skel_ti, SKEL_OP, SKEL_MAPV, SKEL_OVCALL, ... before them) ---- */
/* values other groups wrote: volatile reads and writes (a struct byte by
   byte: C++ has no volatile struct assignment) */
static const char _skel_tpl_volatile[] =
    "#if SKEL_TO_STRUCT\n"
    "typedef union { skel_to v; unsigned char b[sizeof(skel_to)]; } skel_tobytes;\n"
    "SKEL_DEVICE skel_to skel_vget(SKEL_GLOBAL volatile const skel_to *p)\n"
    "{\n"
    "    SKEL_GLOBAL volatile const unsigned char *q = (SKEL_GLOBAL volatile const unsigned char *)p;\n"
    "    skel_tobytes u;\n"
    "    int k;\n"
    "    for (k = 0; k < (int)sizeof(skel_to); ++k) u.b[k] = q[k];\n"
    "    return u.v;\n"
    "}\n"
    "SKEL_DEVICE void skel_vput(SKEL_GLOBAL volatile skel_to *p, skel_to v)\n"
    "{\n"
    "    SKEL_GLOBAL volatile unsigned char *q = (SKEL_GLOBAL volatile unsigned char *)p;\n"
    "    skel_tobytes u;\n"
    "    int k;\n"
    "    u.v = v;\n"
    "    for (k = 0; k < (int)sizeof(skel_to); ++k) q[k] = u.b[k];\n"
    "}\n"
    "#define SKEL_VGET(p) skel_vget(p)\n"
    "#define SKEL_VPUT(p, v) skel_vput((p), (v))\n"
    "#else\n"
    "#define SKEL_VGET(p) (*(p))\n"
    "#define SKEL_VPUT(p, v) (*(p) = (v))\n"
    "#endif\n";
/* skel_to values through warp shuffles (SKEL_SHFL_TO_DOWN/UP) */
static const char _skel_tpl_shfl[] =
    "#if defined(SKEL_SHFL_WORDS) && SKEL_SHFL_WORDS > 0\n"
    "/* a struct through warp shuffles, one 32-bit word at a time */\n"
    "typedef union { skel_to v; int w[SKEL_SHFL_WORDS]; } skel_towords;\n"
    "SKEL_DEVICE skel_to skel_shfl_words(skel_to x, int k, int up)\n"
    "{\n"
    "    skel_towords u;\n"
    "    int i;\n"
    "    u.v = x;\n"
    "    SKEL_UNROLL\n"
    "    for (i = 0; i < SKEL_SHFL_WORDS; ++i) u.w[i] = up ? SKEL_SHFL_UP(u.w[i], k) : SKEL_SHFL_DOWN(u.w[i], k);\n"
    "    return u.v;\n"
    "}\n"
    "#define SKEL_SHFL_TO_DOWN(x, k) skel_shfl_words((x), (k), 0)\n"
    "#define SKEL_SHFL_TO_UP(x, k) skel_shfl_words((x), (k), 1)\n"
    "#else\n"
    "#define SKEL_SHFL_TO_DOWN(x, k) SKEL_SHFL_DOWN(x, k)\n"
    "#define SKEL_SHFL_TO_UP(x, k) SKEL_SHFL_UP(x, k)\n"
    "#endif\n";
static const char _skel_tpl_common[] =
    "#define SKEL_PAD(k) ((k) + ((k) >> 5))\n"

    "#ifdef SKEL_WANT_REDUCE\n"
    "/* Ordered reduction of x over work-items [0, cnt), cnt >= 1: work-item 0\n"
    "   gets x0 + x1 + .. in index order.  Called by the whole group; ends with\n"
    "   a barrier, so r may be reused at once. */\n"
    "SKEL_DEVICE skel_to skel_group_reduce(skel_to x, int cnt, SKEL_LOCAL_PTR skel_to *r)\n"
    "{\n"
    "    int lid = SKEL_LID(), off;\n"
    "#if SKEL_HAS_SHUFFLE\n"
    "    int lane = lid & 31, warp = lid >> 5;\n"
    "    for (off = 1; off < 32; off <<= 1) {\n"
    "        skel_to y = SKEL_SHFL_TO_DOWN(x, off);\n"
    "        if ((lane & (2 * off - 1)) == 0 && lid + off < cnt) x = SKEL_OP(x, y);\n"
    "    }\n"
    "    if (lane == 0) r[warp] = x;\n"
    "    SKEL_BARRIER();\n"
    "    if (warp == 0) {\n"
    "        int wcnt = (cnt + 31) >> 5;\n"
    "        x = r[lane < SKEL_BLOCK / 32 ? lane : 0];\n"
    "        for (off = 1; off < SKEL_BLOCK / 32; off <<= 1) {\n"
    "            skel_to y = SKEL_SHFL_TO_DOWN(x, off);\n"
    "            if ((lane & (2 * off - 1)) == 0 && lane + off < wcnt) x = SKEL_OP(x, y);\n"
    "        }\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "    return x;\n"
    "#else\n"
    "    r[lid] = x;\n"
    "    SKEL_BARRIER();\n"
    "    for (off = 1; off < SKEL_BLOCK; off <<= 1) {\n"
    "        if ((lid & (2 * off - 1)) == 0 && lid + off < cnt) r[lid] = SKEL_OP(r[lid], r[lid + off]);\n"
    "        SKEL_BARRIER();\n"
    "    }\n"
    "    return r[0];\n"
    "#endif\n"
    "}\n"
    "#endif\n"
    "#ifdef SKEL_WANT_SCAN\n"
    "/* Ordered scan over work-items [0, cnt), cnt >= 1: *prefix = x0 + .. +\n"
    "   x(lid-1) (undefined for work-item 0), *total = x0 + .. + x(cnt-1) in\n"
    "   every work-item.  Called by the whole group; ends with a barrier. */\n"
    "SKEL_DEVICE void skel_group_scan(skel_to x, int cnt, SKEL_LOCAL_PTR skel_to *r, skel_to *prefix,\n"
    "                                 skel_to *total)\n"
    "{\n"
    "    int lid = SKEL_LID(), off;\n"
    "#if SKEL_HAS_SHUFFLE\n"
    "    int lane = lid & 31, warp = lid >> 5;\n"
    "    skel_to y, wp;\n"
    "    for (off = 1; off < 32; off <<= 1) {\n"
    "        y = SKEL_SHFL_TO_UP(x, off);\n"
    "        if (lane >= off) x = SKEL_OP(y, x);\n"
    "    }\n"
    "    if (lane == 31) r[warp] = x;\n"
    "    y = SKEL_SHFL_TO_UP(x, 1);\n"
    "    SKEL_BARRIER();\n"
    "    if (warp == 0) {\n"
    "        skel_to w = r[lane < SKEL_BLOCK / 32 ? lane : 0];\n"
    "        for (off = 1; off < SKEL_BLOCK / 32; off <<= 1) {\n"
    "            skel_to z = SKEL_SHFL_TO_UP(w, off);\n"
    "            if (lane >= off) w = SKEL_OP(z, w);\n"
    "        }\n"
    "        if (lane < SKEL_BLOCK / 32) r[SKEL_BLOCK / 32 + lane] = w;\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "    wp = r[SKEL_BLOCK / 32 + (warp > 0 ? warp - 1 : 0)];\n"
    "    if (lane > 0) *prefix = warp > 0 ? SKEL_OP(wp, y) : y;\n"
    "    else *prefix = wp;\n"
    "    *total = r[SKEL_BLOCK / 32 + ((cnt - 1) >> 5)];\n"
    "    if (((cnt - 1) & 31) != 31) {  /* the last warp is partial: its total is lane cnt-1's */\n"
    "        SKEL_BARRIER();\n"
    "        if (lid == cnt - 1) r[0] = (cnt - 1) >> 5 ? SKEL_OP(r[SKEL_BLOCK / 32 + ((cnt - 1) >> 5) - 1], x) : x;\n"
    "        SKEL_BARRIER();\n"
    "        *total = r[0];\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "#else\n"
    "    r[lid] = x;\n"
    "    SKEL_BARRIER();\n"
    "    for (off = 1; off < SKEL_BLOCK; off <<= 1) {\n"
    "        skel_to y = r[lid >= off ? lid - off : lid];\n"
    "        SKEL_BARRIER();\n"
    "        if (lid >= off && lid < cnt) { x = SKEL_OP(y, x); r[lid] = x; }\n"
    "        SKEL_BARRIER();\n"
    "    }\n"
    "    *prefix = r[lid > 0 ? lid - 1 : 0];\n"
    "    *total = r[cnt - 1];\n"
    "    SKEL_BARRIER();\n"
    "#endif\n"
    "}\n"
    "#endif\n"
    "#ifdef SKEL_WANT_EDGE\n"
    "/* Index of position i of a line of n under an edge policy; -1 means the\n"
    "   edge value (constant policy).  |overlap| <= n, so one wrap suffices,\n"
    "   but tiles may ask further out: wrap fully. */\n"
    "SKEL_DEVICE skel_index skel_edge(skel_index i, skel_index n, int edge)\n"
    "{\n"
    "    if (i >= 0 && i < n) return i;\n"
    "    if (edge == 1) { i %= n; return i < 0 ? i + n : i; }\n"
    "    if (edge == 2) return i < 0 ? 0 : n - 1;\n"
    "    return -1;\n"
    "}\n"
    "#endif\n";

/* A Map's work-items take SKEL_MITEMS elements SKEL_MSTRIDE apart.  The
   generator emits this twice: skel_map, whose stride is the constant
   SKEL_BLOCK, and skel_map_small, launched with smaller groups
   (_skel_map_local), whose stride is the launch's group size.  One kernel
   with the stride read from the launch ran 2^28 floats 8% slower on an
   H100, and so did one kernel holding both loops. */
static const char _skel_tpl_map[] =
    "SKEL_KERNEL void SKEL_MAP_NAME(SKEL_OUT_PARAMS SKEL_IN_PARAMS, skel_index lo, skel_index n, skel_index rows,\n"
    "                               skel_index cols SKEL_X_PARAMS)\n"
    "{\n"
    "    skel_index i = lo + SKEL_GROUP() * SKEL_MSTRIDE * SKEL_MITEMS + SKEL_LID(), step = SKEL_NGROUPS() * SKEL_MSTRIDE * SKEL_MITEMS;\n"
    "    SKEL_X_DECL\n"
    "    (void)rows; (void)cols;\n"
    "#if SKEL_MITEMS == 1\n"
    "    for (; i < n; i += step) { SKEL_MRES(1) SKEL_MCOMPUTE(0, i) SKEL_MSTORE(0, i) }\n"
    "#else\n"
    "    for (; i < n; i += step) {   /* every load before the first store: out may alias an input */\n"
    "        SKEL_MRES(SKEL_MITEMS)\n"
    "        int k;\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_MITEMS; ++k) if (i + k * SKEL_MSTRIDE < n) { SKEL_MCOMPUTE(k, i + k * SKEL_MSTRIDE) }\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_MITEMS; ++k) if (i + k * SKEL_MSTRIDE < n) { SKEL_MSTORE(k, i + k * SKEL_MSTRIDE) }\n"
    "    }\n"
    "#endif\n"
    "}\n";

static const char _skel_tpl_maparray[] =
    "SKEL_KERNEL void skel_maparray(SKEL_GLOBAL skel_to *out, SKEL_GLOBAL const skel_to *v,\n"
    "                               SKEL_GLOBAL const skel_to *e, skel_index lo, skel_index n, skel_index rows,\n"
    "                               skel_index cols SKEL_X_PARAMS)\n"
    "{\n"
    "    skel_index i = lo + SKEL_GROUP() * SKEL_LSIZE() + SKEL_LID(), step = SKEL_NGROUPS() * SKEL_LSIZE();\n"
    "    SKEL_X_DECL\n"
    "    (void)rows; (void)cols;\n"
    "    for (; i < n; i += step) out[i] = SKEL_MACALL(v, e[i], i);\n"
    "}\n";

/* The one-pass reduction kernels' parameters, in the order the plan
   passes them (_skel_plan_reduce). */
#define _SKEL_TPL_REDUCE_PART_PARAMS \
    "SKEL_KERNEL void skel_reduce_part(SKEL_GLOBAL skel_to *partial SKEL_IN_PARAMS, skel_index first,\n" \
    "                                  skel_index n, skel_index cols, skel_index chunk, SKEL_GLOBAL skel_uint *count,\n" \
    "                                  SKEL_GLOBAL skel_to *result, skel_index rows SKEL_X_PARAMS)\n"

/* The end of the one-pass reduction kernels below: work-item 0 stores the
   group's value acc in partial[group]; the group that finishes last (the
   counter, zero at launch, reaches groups - 1) folds the partials in order
   into result[0] and sets the counter back to zero for the next launch. */
#define _SKEL_TPL_LAST_GROUP_FOLDS \
    "    if (lid == 0) {\n" \
    "        partial[SKEL_GROUP()] = acc;\n" \
    "        SKEL_FENCE();\n" \
    "        last_s[0] = SKEL_ATOMIC_INC(count) == (skel_uint)(SKEL_NGROUPS() - 1);\n" \
    "    }\n" \
    "    SKEL_BARRIER();\n" \
    "    if (last_s[0]) {   /* work-item k folds the k-th run of partials, then the group */\n" \
    "        SKEL_GLOBAL volatile skel_to *pv = partial;   /* other groups' writes: not through L1 */\n" \
    "        skel_index m = SKEL_NGROUPS(), per = (m + SKEL_BLOCK - 1) / SKEL_BLOCK, j = lid * per, end = j + per;\n" \
    "        skel_to x;\n" \
    "        SKEL_FENCE();\n" \
    "        x = SKEL_VGET(pv + (j < m ? j : 0));\n" \
    "        for (++j; j < end && j < m; ++j) x = SKEL_OP(x, SKEL_VGET(pv + j));\n" \
    "        x = skel_group_reduce(x, (int)((m + per - 1) / per), r);\n" \
    "        if (lid == 0) { result[0] = x; count[0] = 0; }\n" \
    "    }\n"

/* Reductions: a group reads a tile coalesced (striped) into local memory,
   each work-item folds SKEL_RITEMS consecutive elements, and the group folds
   those in order; work-item 0 carries the running value across tiles. */
static const char _skel_tpl_reduce[] =
    "#define SKEL_RTILE (SKEL_BLOCK * SKEL_RITEMS)\n"
    "#define SKEL_REDUCE_RANGE(VALUE, lo, hi, acc, have)                                  \\\n"
    "    for (skel_index t0_ = (lo); t0_ < (hi); t0_ += SKEL_RTILE) {                     \\\n"
    "        skel_index left_ = (hi) - t0_;                                               \\\n"
    "        int valid_ = left_ < SKEL_RTILE ? (int)left_ : SKEL_RTILE, k_, b_, cnt_;       \\\n"
    "        skel_to x_;                                                                  \\\n"
    "        for (k_ = 0; k_ < SKEL_RITEMS; ++k_) {                                       \\\n"
    "            int e_ = k_ * SKEL_BLOCK + lid;                                          \\\n"
    "            if (e_ < valid_) { skel_index i = t0_ + e_; s[SKEL_PAD(e_)] = VALUE; }    \\\n"
    "        }                                                                            \\\n"
    "        SKEL_BARRIER();                                                              \\\n"
    "        b_ = lid * SKEL_RITEMS;                                                      \\\n"
    "        cnt_ = (valid_ + SKEL_RITEMS - 1) / SKEL_RITEMS;                             \\\n"
    "        x_ = s[SKEL_PAD(b_ < valid_ ? b_ : 0)];                                      \\\n"
    "        for (k_ = 1; k_ < SKEL_RITEMS; ++k_)                                         \\\n"
    "            if (b_ + k_ < valid_) x_ = SKEL_OP(x_, s[SKEL_PAD(b_ + k_)]);            \\\n"
    "        x_ = skel_group_reduce(x_, cnt_, r);                                         \\\n"
    "        if (lid == 0) { acc = have ? SKEL_OP(acc, x_) : x_; have = 1; }              \\\n"
    "    }\n"
    "#define SKEL_RLOCALS                                                                 \\\n"
    "    SKEL_LOCAL skel_to s[SKEL_PAD(SKEL_RTILE - 1) + 1];                              \\\n"
    "    SKEL_LOCAL skel_to r[SKEL_BLOCK];                                                \\\n"
    "    int lid = SKEL_LID(), have = 0;                                                  \\\n"
    "    skel_to acc\n"
    "\n"
    "/* One pass over [first, n): each group reduces its chunk to partial[group];\n"
    "   the last group folds the partials (_SKEL_TPL_LAST_GROUP_FOLDS). */\n"
    _SKEL_TPL_REDUCE_PART_PARAMS
    "{\n"
    "    SKEL_RLOCALS;\n"
    "    SKEL_X_DECL\n"
    "    SKEL_LOCAL int last_s[1];\n"
    "    skel_index lo = first + SKEL_GROUP() * chunk, hi = n - lo < chunk ? n : lo + chunk;\n"
    "    (void)cols; (void)rows;\n"
    "    SKEL_REDUCE_RANGE(SKEL_MAPV(i), lo, hi, acc, have)\n"
    _SKEL_TPL_LAST_GROUP_FOLDS
    "}\n";

/* Reductions whose accumulator is wider than the elements it comes from
   (a struct of sums, doubles from bytes): the kernel above stages the
   mapped values, which would move the wide values through local memory.
   This one stages the inputs: a group reads a tile of SKEL_BLOCK x
   SKEL_RITEMS consecutive elements of each input (coalesced, every load
   of a work-item in flight before it stores any: SKEL_WFETCH into
   registers, then SKEL_WSTORE), each work-item maps and folds its
   SKEL_RITEMS consecutive elements in registers, the group reduces those
   in order, and work-item 0 carries the running value across tiles.  The
   next tile's loads are issued before this tile is folded, so they are
   in flight during the fold and the group reduction (H100, 2^28: 0.75 of
   the copy bandwidth without, 0.90 with).  (The kernel before gave
   each work-item a contiguous run of the group's chunk, so a tile read
   32 bytes of each of 256 runs far apart in memory: Pearson's five
   double sums over two float vectors ran at 0.48 of the copy bandwidth
   on an H100 at 2^26-2^28 elements, 0.41 with 16 bytes a run, 0.52 with
   64.)  On CUDA the group reduction shuffles a struct word by word
   (skel_shfl_words).  (A register cap for four groups an SM spilled.) */
static const char _skel_tpl_reduce_wide[] =
    "#define SKEL_RTILE (SKEL_BLOCK * SKEL_RITEMS)\n"
    _SKEL_TPL_REDUCE_PART_PARAMS
    "{\n"
    "    SKEL_LOCAL skel_to r[SKEL_BLOCK];\n"
    "    SKEL_LOCAL int last_s[1];\n"
    "    SKEL_WLOCALS\n"
    "    int lid = SKEL_LID(), have = 0, k, j, b = lid * SKEL_RITEMS;\n"
    "    skel_index lo = first + SKEL_GROUP() * chunk, hi = n - lo < chunk ? n : lo + chunk, t0;\n"
    "    skel_to acc;\n"
    "    SKEL_X_DECL\n"
    "    (void)cols; (void)rows; (void)j;\n"
    "#if SKEL_WSTAGED\n"
    "    SKEL_WREGS\n"
    "#define SKEL_WFETCH(t, valid)   /* every load of a tile in flight before the first store */   \\\n"
    "        SKEL_UNROLL                                                                        \\\n"
    "        for (j = 0; j < SKEL_RITEMS; ++j)                                                  \\\n"
    "            if (j * SKEL_BLOCK + lid < (valid)) { SKEL_WLOAD(j, (t) + j * SKEL_BLOCK + lid) }\n"
    "    if (lo < hi) SKEL_WFETCH(lo, hi - lo < SKEL_RTILE ? (int)(hi - lo) : SKEL_RTILE)\n"
    "#endif\n"
    "    for (t0 = lo; t0 < hi; t0 += SKEL_RTILE) {\n"
    "        int valid = hi - t0 < SKEL_RTILE ? (int)(hi - t0) : SKEL_RTILE;\n"
    "        skel_to x;\n"
    "#if SKEL_WSTAGED\n"
    "        SKEL_UNROLL\n"
    "        for (j = 0; j < SKEL_RITEMS; ++j)\n"
    "            if (j * SKEL_BLOCK + lid < valid) { SKEL_WSTORE(SKEL_PAD(j * SKEL_BLOCK + lid), j) }\n"
    "        SKEL_BARRIER();\n"
    "        if (hi - t0 > SKEL_RTILE) {   /* the next tile's loads in flight while this one is folded */\n"
    "            skel_index t1 = t0 + SKEL_RTILE;\n"
    "            SKEL_WFETCH(t1, hi - t1 < SKEL_RTILE ? (int)(hi - t1) : SKEL_RTILE)\n"
    "        }\n"
    "#endif\n"
    "        x = SKEL_WVALUE(t0 + (b < valid ? b : 0), SKEL_PAD(b < valid ? b : 0));\n"
    "        SKEL_UNROLL\n"
    "        for (k = 1; k < SKEL_RITEMS; ++k)\n"
    "            if (b + k < valid) x = SKEL_OP(x, SKEL_WVALUE(t0 + b + k, SKEL_PAD(b + k)));\n"
    "        x = skel_group_reduce(x, (valid + SKEL_RITEMS - 1) / SKEL_RITEMS, r);   /* (ends with a barrier) */\n"
    "        if (lid == 0) { acc = have ? SKEL_OP(acc, x) : x; have = 1; }\n"
    "    }\n"
    _SKEL_TPL_LAST_GROUP_FOLDS
    "}\n";

/* The steps of _skel_tpl_reduce_comm's pieces that may be partial (the
   first and the last): a step's loads, all in flight, then their fold;
   its first value starts acc where first is 1.  (A string of its own: one
   literal may hold at most 4095 characters in C99.) */
static const char _skel_tpl_reduce_comm_steps[] =
    "#define SKEL_PBATCH(first)                                                                      \\\n"
    "    SKEL_UNROLL                                                                                 \\\n"
    "    for (j = 0; j < SKEL_PITEMS; ++j) if (pi + j * stride < pe) { SKEL_PLOAD(j, pi + j * stride) } \\\n"
    "    if (first) acc = SKEL_PQVALUE(pi * SKEL_PV, 0, 0);                                          \\\n"
    "    SKEL_UNROLL                                                                                 \\\n"
    "    for (j = 0; j < SKEL_PITEMS; ++j)                                                           \\\n"
    "        if (pi + j * stride < pe) {                                                             \\\n"
    "            SKEL_UNROLL                                                                         \\\n"
    "            for (e = (first) && j == 0; e < SKEL_PV; ++e)                                       \\\n"
    "                acc = SKEL_OP(acc, SKEL_PQVALUE((pi + j * stride) * SKEL_PV + e, j, e));        \\\n"
    "        }\n"
    ;

/* A wide MapReduce whose operator was declared commutative
   (SKEL_FUNC_COMMUTATIVE): no staging and no index order.  Work-item w of
   group g folds pieces of SKEL_PV consecutive elements of every input
   (16 bytes of the widest, _skel_reduce_pieces) g * SKEL_BLOCK + w +
   k * stride apart (stride: the grid's work-items) straight from global
   memory, SKEL_PITEMS pieces of each input a step with every load in
   flight before the first is mapped, then one of the elements before the
   first whole piece or after the last; where an input is not aligned to
   its pieces, or its elements are of another size, it folds single
   elements the same way, SKEL_RITEMS a step.  The group reduces once at
   the end and the last group folds the partials.  The plan launches at
   most ceil(pieces / SKEL_BLOCK) groups (elements where there are no
   pieces), so every group has work and its busy work-items are a prefix.
   The grid is fixed per device and variant, so the bits of a result are
   too.  (H100, Pearson's five double sums over two float vectors against
   the device copy, one call, 3 rounds: 2^24 / 2^26 / 2^28 0.84-0.85 /
   0.98-0.99 / 1.01 in pieces, 0.73-0.76 / 0.89-0.92 / 0.94-0.96 element
   by element, where the ordered kernel above ran at 0.75-0.79 / 0.88-0.90
   / 0.94-0.95; ten calls back to back at 2^24: 0.89-0.90.  4 pieces a
   step: 0.81-0.83 at 2^24.  Batching the first and last element steps
   did not help (0.73-0.74).  NVIDIA's OpenCL: 0.75 / 0.96 / 0.98, element
   by element 0.71-0.72 / 0.86-0.88 / 0.98.  bench/results/forms.md.) */
static const char _skel_tpl_reduce_comm[] =
    _SKEL_TPL_REDUCE_PART_PARAMS
    "{\n"
    "    SKEL_LOCAL skel_to r[SKEL_BLOCK];\n"
    "    SKEL_LOCAL int last_s[1];\n"
    "    int lid = SKEL_LID(), j;\n"
    "    skel_index stride = (skel_index)SKEL_NGROUPS() * SKEL_BLOCK, gid = (skel_index)SKEL_GROUP() * SKEL_BLOCK + lid;\n"
    "    skel_index busy = n - first, i = first + gid;\n"
    "    skel_to acc;\n"
    "    SKEL_WREGS\n"
    "    SKEL_X_DECL\n"
    "    (void)cols; (void)rows; (void)chunk; (void)j;\n"
    "#if SKEL_PV\n"
    "    /* whole pieces of SKEL_PV elements [p0, p0 + np) of every input, 16 bytes or less each, where the\n"
    "       inputs are aligned to them: work-item gid folds pieces gid + k stride, then the gid-th of the\n"
    "       loose elements before and after them (the plan launches ceil(np / SKEL_BLOCK) groups or fewer) */\n"
    "    skel_index p0 = (first + SKEL_PV - 1) / SKEL_PV, np = n / SKEL_PV > p0 ? n / SKEL_PV - p0 : 0;\n"
    "    if (np > 0 && SKEL_PALIGNED) {\n"
    "        skel_index head = p0 * SKEL_PV - first, loose = head + n - (p0 + np) * SKEL_PV, pe = p0 + np, pi = p0 + gid;\n"
    "        int e;\n"
    "        SKEL_PREGS\n"
    "        busy = np > loose ? np : loose;\n"
    "        i = gid < head ? first + gid : pe * SKEL_PV + (gid - head);   /* its loose element */\n"
    "        if (pi < pe) {\n"
    "            SKEL_PBATCH(1)\n"
    "            for (pi += SKEL_PITEMS * stride; pi + (SKEL_PITEMS - 1) * stride < pe; pi += SKEL_PITEMS * stride) {\n"
    "                SKEL_UNROLL\n"
    "                for (j = 0; j < SKEL_PITEMS; ++j) { SKEL_PLOAD(j, pi + j * stride) }\n"
    "                SKEL_UNROLL\n"
    "                for (j = 0; j < SKEL_PITEMS; ++j) {\n"
    "                    SKEL_UNROLL\n"
    "                    for (e = 0; e < SKEL_PV; ++e) acc = SKEL_OP(acc, SKEL_PQVALUE((pi + j * stride) * SKEL_PV + e, j, e));\n"
    "                }\n"
    "            }\n"
    "            if (pi < pe) { SKEL_PBATCH(0) }\n"
    "            if (gid < loose) { SKEL_WLOAD(0, i) acc = SKEL_OP(acc, SKEL_WQVALUE(i, 0)); }\n"
    "        } else if (gid < loose) { SKEL_WLOAD(0, i) acc = SKEL_WQVALUE(i, 0); }\n"
    "    } else\n"
    "#endif\n"
    "    {   /* element by element */\n"
    "        if (i < n) { SKEL_WLOAD(0, i) acc = SKEL_WQVALUE(i, 0); i += stride; }\n"
    "        for (; i + (SKEL_RITEMS - 1) * stride < n; i += SKEL_RITEMS * stride) {\n"
    "            SKEL_UNROLL\n"
    "            for (j = 0; j < SKEL_RITEMS; ++j) { SKEL_WLOAD(j, i + j * stride) }\n"
    "            SKEL_UNROLL\n"
    "            for (j = 0; j < SKEL_RITEMS; ++j) acc = SKEL_OP(acc, SKEL_WQVALUE(i + j * stride, j));\n"
    "        }\n"
    "        for (; i < n; i += stride) { SKEL_WLOAD(0, i) acc = SKEL_OP(acc, SKEL_WQVALUE(i, 0)); }\n"
    "    }\n"
    "    busy -= (skel_index)SKEL_GROUP() * SKEL_BLOCK;   /* its busy work-items: a prefix, at least one */\n"
    "    acc = skel_group_reduce(acc, busy < SKEL_BLOCK ? (int)busy : SKEL_BLOCK, r);\n"
    _SKEL_TPL_LAST_GROUP_FOLDS
    "}\n";

static const char _skel_tpl_reduce_matrix[] =
    "#ifndef SKEL_RCOLS_ONLY\n"
    "SKEL_KERNEL void skel_reduce_rows(SKEL_GLOBAL skel_to *out, SKEL_GLOBAL const skel_ti *a,\n"
    "                                  skel_index first, skel_index rows, skel_index cols)\n"
    "{\n"
    "    SKEL_RLOCALS;\n"
    "    skel_index row;\n"
    "    for (row = first + SKEL_GROUP(); row < rows; row += SKEL_NGROUPS()) {\n"
    "        have = 0;\n"
    "        SKEL_REDUCE_RANGE(SKEL_CONV(a[i]), row * cols, row * cols + cols, acc, have)\n"
    "        if (lid == 0) out[row] = acc;\n"
    "    }\n"
    "}\n"
    "#endif\n"
    "SKEL_KERNEL void SKEL_RCOLS_NAME(SKEL_GLOBAL skel_to *out, SKEL_GLOBAL const SKEL_RCOLS_T *a,\n"
    "                                 skel_index first, skel_index rows, skel_index cols, skel_index chunk)\n"
    "{\n"
    "    skel_index cg = (cols + SKEL_BLOCK - 1) / SKEL_BLOCK, g = SKEL_GROUP(), k = g / cg;\n"
    "    skel_index c = (g - k * cg) * SKEL_BLOCK + SKEL_LID(), r0 = first + k * chunk;\n"
    "    skel_index r1 = rows - r0 < chunk ? rows : r0 + chunk, r;\n"
    "    skel_to acc;\n"
    "    if (c >= cols) return;\n"
    "    acc = SKEL_RCOLS_CONV(a[r0 * cols + c]);\n"
    "    for (r = r0 + 1; r < r1; ++r) acc = SKEL_OP(acc, SKEL_RCOLS_CONV(a[r * cols + c]));\n"
    "    out[k * cols + c] = acc;\n"
    "}\n";

/* Scan: one pass.  A tile is loaded striped into local memory, each
   work-item folds its SKEL_SITEMS consecutive elements, the group scans
   those aggregates, work-item 0 publishes the tile aggregate, and the
   whole group looks back over earlier tiles' status words (A: aggregate,
   P: inclusive prefix), SKEL_BLOCK of them a step, for its carry; then
   each work-item rescans its elements from its carry.  Partial results are
   always combined as earlier (+) later.  (The first version looked back
   over one warp's 32 tiles with ballots, CUDA only, and one tile at a time
   in OpenCL: on an H100 the look-back then bounded the scan at 55% of
   CUB's rate, and OpenCL at 41-45% of CUDA's.) */
static const char _skel_tpl_scan[] =
    "#define SKEL_STILE (SKEL_BLOCK * SKEL_SITEMS)\n"
    "/* A tile's status word: low 32 bits (epoch << 2) | 1 (A) or 2 (P); types\n"
    "   of up to 4 bytes keep the value in the high half (one load, no fence),\n"
    "   wider ones in carries[t] (A) / carries[ntiles + t] (P), fenced. */\n"
    "#if SKEL_SCAN_PACKED\n"
    "typedef union { skel_to v; skel_uint u; } skel_pack_t;\n"
    "#endif\n"
    "SKEL_DEVICE void skel_publish(SKEL_GLOBAL volatile uint64_t *st, SKEL_GLOBAL volatile skel_to *vc, skel_index t,\n"
    "                              skel_index ntiles, skel_uint epoch, skel_uint flag, skel_to v)\n"
    "{\n"
    "#if SKEL_SCAN_PACKED\n"
    "    skel_pack_t p;\n"
    "    p.u = 0;\n"
    "    p.v = v;\n"
    "    (void)vc; (void)ntiles;\n"
    "    st[t] = ((uint64_t)p.u << 32) | ((epoch << 2) | flag);\n"
    "#else\n"
    "    SKEL_VPUT(vc + (flag == 2u ? ntiles + t : t), v);\n"
    "    SKEL_FENCE();\n"
    "    st[t] = (epoch << 2) | flag;\n"
    "#endif\n"
    "}\n"
    "/* waits for tile t's status; its value in *q; returns 1 for a P */\n"
    "SKEL_DEVICE int skel_tile_wait(SKEL_GLOBAL volatile uint64_t *st, SKEL_GLOBAL volatile skel_to *vc, skel_index t,\n"
    "                          skel_index ntiles, skel_uint epoch, skel_to *q)\n"
    "{\n"
    "    uint64_t w;\n"
    "    do { w = st[t]; } while (((skel_uint)w >> 2) != epoch);\n"
    "#if SKEL_SCAN_PACKED\n"
    "    {\n"
    "        skel_pack_t p;\n"
    "        p.u = (skel_uint)(w >> 32);\n"
    "        *q = p.v;\n"
    "        (void)vc; (void)ntiles;\n"
    "    }\n"
    "#else\n"
    "    SKEL_FENCE();\n"
    "    *q = SKEL_VGET(vc + (((skel_uint)w & 3u) == 2u ? ntiles + t : t));\n"
    "#endif\n"
    "    return ((skel_uint)w & 3u) == 2u;\n"
    "}\n"
    "SKEL_KERNEL void skel_scan(SKEL_GLOBAL skel_to *out, SKEL_GLOBAL const skel_to *in, skel_index off,\n"
    "                           skel_index rows, skel_index cols, SKEL_GLOBAL skel_uint *state,\n"
    "                           SKEL_GLOBAL skel_to *carries, skel_uint base, skel_uint epoch, int exclusive,\n"
    "                           skel_to init)\n"
    "{\n"
    "    SKEL_LOCAL skel_to s[SKEL_PAD(SKEL_STILE - 1) + 1];\n"
    "    SKEL_LOCAL skel_to r[SKEL_BLOCK];\n"
    "    SKEL_LOCAL skel_to carry_s[1];\n"
    "    SKEL_LOCAL skel_to w_s[SKEL_BLOCK];\n"
    "    SKEL_LOCAL skel_uint tile_s[1];\n"
    "    SKEL_LOCAL int have_s[1], top_s[1];\n"
    "    int lid = SKEL_LID(), valid, b, cnt, k, hc;\n"
    "    skel_index tpr = (cols + SKEL_STILE - 1) / SKEL_STILE, ntiles = rows * tpr, tile, row, seg, lo, left;\n"
    "    skel_to v[SKEL_SITEMS], x, p, agg, c;\n"
    "    in += off;   /* a part of a split call: rows x cols from element off */\n"
    "    out += off;\n"
    "    if (lid == 0) tile_s[0] = SKEL_ATOMIC_INC(state + 16) - base;   /* past the zero word */\n"
    "    SKEL_BARRIER();\n"
    "    tile = (skel_index)tile_s[0];\n"
    "    row = tile / tpr;\n"
    "    seg = tile - row * tpr;\n"
    "    lo = row * cols + seg * SKEL_STILE;\n"
    "    left = cols - seg * SKEL_STILE;\n"
    "    valid = left < SKEL_STILE ? (int)left : SKEL_STILE;\n"
    "    if (valid == SKEL_STILE) {   /* a whole tile: every load issued before any store */\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k) v[k] = in[lo + k * SKEL_BLOCK + lid];\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k) s[SKEL_PAD(k * SKEL_BLOCK + lid)] = v[k];\n"
    "    } else\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k) {\n"
    "            int e = k * SKEL_BLOCK + lid;\n"
    "            if (e < valid) s[SKEL_PAD(e)] = in[lo + e];\n"
    "        }\n"
    "    SKEL_BARRIER();\n"
    "    b = lid * SKEL_SITEMS;\n"
    "    cnt = (valid + SKEL_SITEMS - 1) / SKEL_SITEMS;\n"
    "    for (k = 0; k < SKEL_SITEMS; ++k) v[k] = s[SKEL_PAD(b + k < valid ? b + k : 0)];\n"
    "    x = v[0];\n"
    "    for (k = 1; k < SKEL_SITEMS; ++k) if (b + k < valid) x = SKEL_OP(x, v[k]);\n"
    "    skel_group_scan(x, cnt, r, &p, &agg);\n";
/* (C99 caps a string literal at 4095 characters: the kernel continues in
   the next two strings, which the generator appends in order.) */
static const char _skel_tpl_scan_lookback[] =
    "    /* decoupled look-back, SKEL_BLOCK predecessors a step: each work-item\n"
    "       watches one earlier tile's status word (A: aggregate published, P:\n"
    "       inclusive prefix), the group folds in order the window from the\n"
    "       nearest P up, and walks one window further back if it holds none.\n"
    "       Tiles of earlier rows are never folded: a row's first tile always\n"
    "       publishes a P, which ends the walk. */\n"
    "    {\n"
    "        SKEL_GLOBAL volatile uint64_t *st = (SKEL_GLOBAL volatile uint64_t *)(state + 18);\n"
    "        skel_to pre = init;\n"
    "        int have = exclusive != 0;\n"
    "        if (seg > 0) {\n"
    "            skel_index j = tile - 1, first = row * tpr;\n"
    "            if (lid == 0) skel_publish(st, carries, tile, ntiles, epoch, 1u, agg);\n"
    "            have = 0;\n"
    "            for (;;) {\n"
    "                skel_index t = j - (SKEL_BLOCK - 1) + lid;\n"
    "                int isp = 0, top, found;\n"
    "                skel_to q = agg;\n"
    "                if (t >= first) isp = skel_tile_wait(st, carries, t, ntiles, epoch, &q);\n"
    "                if (lid == 0) top_s[0] = -1;\n"
    "                SKEL_BARRIER();\n"
    "                if (isp) SKEL_LOCAL_ATOMIC_MAX(top_s, lid);\n"
    "                SKEL_BARRIER();\n"
    "                found = top_s[0] >= 0;\n"
    "                top = found ? top_s[0] : 0;\n"
    "                if (lid >= top) w_s[lid - top] = q;\n"
    "                SKEL_BARRIER();\n"
    "                q = skel_group_reduce(w_s[lid < SKEL_BLOCK - top ? lid : 0], SKEL_BLOCK - top, r);\n"
    "                if (lid == 0) { pre = have ? SKEL_OP(q, pre) : q; have = 1; }\n"
    "                if (found) break;\n"
    "                j -= SKEL_BLOCK;\n"
    "            }\n"
    "        }\n"
    "        if (lid == 0) {\n"
    "            skel_publish(st, carries, tile, ntiles, epoch, 2u, have ? SKEL_OP(pre, agg) : agg);\n"
    "            carry_s[0] = pre;\n"
    "            have_s[0] = have;\n"
    "        }\n"
    "    }\n";
static const char _skel_tpl_scan_tail[] =
    "    SKEL_BARRIER();\n"
    "    hc = have_s[0] || lid > 0;\n"
    "    c = lid == 0 ? carry_s[0] : have_s[0] ? SKEL_OP(carry_s[0], p) : p;\n"
    "    if (exclusive == 1) {\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k)\n"
    "            if (b + k < valid) { s[SKEL_PAD(b + k)] = c; c = SKEL_OP(c, v[k]); }\n"
    "    } else {\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k)\n"
    "            if (b + k < valid) { c = hc ? SKEL_OP(c, v[k]) : v[k]; hc = 1; s[SKEL_PAD(b + k)] = c; }\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "    if (valid == SKEL_STILE) {\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k) out[lo + k * SKEL_BLOCK + lid] = s[SKEL_PAD(k * SKEL_BLOCK + lid)];\n"
    "    } else\n"
    "        for (k = 0; k < SKEL_SITEMS; ++k) {\n"
    "            int e = k * SKEL_BLOCK + lid;\n"
    "            if (e < valid) out[lo + e] = s[SKEL_PAD(e)];\n"
    "        }\n"
    "}\n";

/* MapOverlap 1D: a tile plus its halo is loaded into local memory with the
   edge policy applied, so the user function always gets a local window. */
static const char _skel_tpl_overlap[] =
    "#define SKEL_OTILE (SKEL_BLOCK * SKEL_OITEMS)\n"
    "#define SKEL_OCS (SKEL_OCH + 2 * SKEL_D + 1)\n"
    "SKEL_KERNEL void skel_overlap_rows(SKEL_OUT_PARAMS, SKEL_GLOBAL const skel_ti *in, skel_index r0,\n"
    "                                   skel_index rows, skel_index cols, skel_index c_lo, skel_index c_hi,\n"
    "                                   int edge, skel_ti edge_value SKEL_X_PARAMS)\n"
    "{\n"
    "    SKEL_LOCAL skel_ti s[SKEL_OTILE + 2 * SKEL_D];\n"
    "    int lid = SKEL_LID(), e, k;\n"
    "    skel_index spr = (c_hi - c_lo + SKEL_OTILE - 1) / SKEL_OTILE, g = SKEL_GROUP(), row = r0 + g / spr;\n"
    "    skel_index c0 = c_lo + (g - (row - r0) * spr) * SKEL_OTILE;\n"
    "    SKEL_GLOBAL const skel_ti *src = in + row * cols;\n"
    "    SKEL_X_DECL\n"
    "    (void)rows;\n"
    "    for (e = lid; e < SKEL_OTILE + 2 * SKEL_D; e += SKEL_BLOCK) {\n"
    "        skel_index c = c0 - SKEL_D + e;\n"
    "        if (c >= 0 && c < cols) s[e] = src[c];\n"
    "        else { skel_index j = skel_edge(c, cols, edge); s[e] = j < 0 ? edge_value : src[j]; }\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "    for (k = 0; k < SKEL_OITEMS; ++k) {\n"
    "        e = k * SKEL_BLOCK + lid;\n"
    "        if (c0 + e < c_hi) { SKEL_OVSTORE(row * cols + c0 + e, s + e + SKEL_D) }\n"
    "    }\n"
    "}\n"
    "\n"
    "SKEL_KERNEL void skel_overlap_cols(SKEL_OUT_PARAMS, SKEL_GLOBAL const skel_ti *in, skel_index r_lo,\n"
    "                                   skel_index r_hi, skel_index rows, skel_index cols, int edge,\n"
    "                                   skel_ti edge_value SKEL_X_PARAMS)\n"
    "{\n"
    "    SKEL_LOCAL skel_ti s[SKEL_OCW * SKEL_OCS];\n"
    "    int lid = SKEL_LID(), lc = lid % SKEL_OCW, e;\n"
    "    skel_index cg = (cols + SKEL_OCW - 1) / SKEL_OCW, g = SKEL_GROUP(), ty = g / cg;\n"
    "    skel_index r0 = r_lo + ty * SKEL_OCH, c = (g - ty * cg) * SKEL_OCW + lc;\n"
    "    SKEL_X_DECL\n"
    "    for (e = lid / SKEL_OCW; e < SKEL_OCH + 2 * SKEL_D; e += SKEL_BLOCK / SKEL_OCW) {\n"
    "        skel_index rr = r0 - SKEL_D + e, j = c < cols ? skel_edge(rr, rows, edge) : -1;\n"
    "        s[lc * SKEL_OCS + e] = j < 0 ? edge_value : in[j * cols + c];\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "    if (c >= cols) return;\n"
    "    for (e = lid / SKEL_OCW; e < SKEL_OCH; e += SKEL_BLOCK / SKEL_OCW)\n"
    "        if (r0 + e < r_hi) { SKEL_OVSTORE((r0 + e) * cols + c, s + lc * SKEL_OCS + e + SKEL_D) }\n"
    "}\n";

/* MapOverlap 2D: a group computes a tile of SKEL_O2W x SKEL_O2H outputs.
   Groups take the edge tiles first (top and bottom rows of tiles, then
   the left and right columns), the interior tiles after them in row
   order.  Edge tiles take longest (loads through the edge policy, never
   the direct reads below), and in row order the bottom row's groups were
   the last to start, so a launch of few waves ended with them.  H100, 5x5
   on 2^22 floats (1024 tiles over 1.55 waves): 0.0188 -> 0.0165 ms, 78%
   -> 89% of the copy; 2^20 0.0119 -> 0.0107; 2^24-2^28 within 1%.  (The
   two rows of tiles first, the side tiles in row order: 0.0178-0.0184.)
   Tile coordinates are ints: a launch has at most 2^31 - 1 groups.
   With SKEL_O2DIRECT (CUDA, 4-byte elements, small windows; see
   _skel_ov2_direct), an interior tile whose rows hold whole 16-byte
   pieces skips local memory: each work-item loads its own window, 4
   columns + halo by SKEL_O2DI rows + halo, in 16-byte loads into
   registers, and stores 4 x SKEL_O2DI outputs in 16-byte stores.  No
   barrier, so one warp's loads overlap another's arithmetic, and 24
   loads instead of ~100 local-memory reads per 16 outputs.  H100, 5x5 on
   floats, 2^20 / 2^22 / 2^24 / 2^28, ms: 64-column tiles in local memory
   0.0118 / 0.0197 / 0.0568 / 0.7345; 128-column tiles in local memory
   0.0114 / 0.0197 / 0.0558 / 0.7255; 128-column tiles read directly
   0.0108 / 0.0181 / 0.0551 / 0.7258.  (4 x 4 outputs a work-item from
   local memory instead: 1.3x slower, bank conflicts.)
   Otherwise the tile plus its halo goes to local memory, then each
   work-item computes SKEL_O2I vertically adjacent outputs into registers
   before storing any (the calls share most of their window rows, and the
   compiler reuses those local-memory loads).
   The tile is loaded one of three ways, each issuing all of a work-item's
   loads before any store to local memory (one load latency per tile
   instead of one per element):
   - interior tiles whose rows hold whole 16-byte pieces (SKEL_VE elements,
     cols a multiple, the input 16-byte aligned): 16-byte loads and stores,
     a quarter of the instructions for 4-byte types (H100, 5x5 on floats:
     2^20 / 2^22 / 2^28 0.0125 / 0.0208 / 0.7752 -> 0.0111 / 0.0192 /
     0.7633 ms).  So the halo is widened to SKEL_DCP, a whole piece, and
     tiles are at least 64 columns wide, so that it costs 11% of a row or
     less, not 20% (0.0123 / 0.0208 / 0.7639 -> 0.0117 / 0.0194 / 0.7355
     ms);
   - other interior tiles: element loads with no edge policy, the position
     advanced by constants (the kernel is issue-bound: this saves a
     division, a 64-bit multiply and four compares per load; 2^28 floats:
     1.03 -> 0.86 ms);
   - tiles at the edge: element loads through the edge policy. */
static const char _skel_tpl_overlap2d[] =
    "#if SKEL_O2DIRECT\n"
    "#define SKEL_WW (SKEL_VE + 2 * SKEL_DCP)\n"
    "#define SKEL_O2DI (SKEL_O2H / (SKEL_BLOCK / (SKEL_O2W / SKEL_VE)))\n"
    "typedef union { skel_to e[(SKEL_O2DI + 2 * SKEL_DR) * SKEL_WW]; uint4 v[(SKEL_O2DI + 2 * SKEL_DR) * SKEL_WW / SKEL_VE]; } skel_o2win;\n"
    "typedef union { skel_to e[SKEL_VE]; uint4 v; } skel_o2out;\n"
    "#endif\n"
    "#define SKEL_LW (SKEL_O2W + 2 * SKEL_DCP)\n"
    "#define SKEL_LH (SKEL_O2H + 2 * SKEL_DR)\n"
    "#define SKEL_O2I (SKEL_O2H / (SKEL_BLOCK / SKEL_O2W))\n"
    "#define SKEL_LN ((SKEL_LH * SKEL_LW + SKEL_BLOCK - 1) / SKEL_BLOCK)\n"
    "#define SKEL_LV (SKEL_LW / SKEL_VE)\n"
    "#define SKEL_LNV ((SKEL_LH * SKEL_LV + SKEL_BLOCK - 1) / SKEL_BLOCK)\n"
    "#if SKEL_CONV\n"
    "#if SKEL_FAST_INTERIOR && SKEL_VE > 1\n"
    "#define SKEL_CV16 1\n"
    "#define SKEL_CLOAD(u, p, n) { int q_; SKEL_UNROLL for (q_ = 0; q_ < (n) / SKEL_VE; ++q_) (u).v[q_] = ((SKEL_LOCAL_PTR const uint4 *)(p))[q_]; }\n"
    "#else\n"
    "#define SKEL_CV16 0\n"
    "#define SKEL_CLOAD(u, p, n) { int q_; SKEL_UNROLL for (q_ = 0; q_ < (n); ++q_) (u).e[q_] = (p)[q_]; }\n"
    "#endif\n"
    "#define SKEL_CSEG (SKEL_CX + 2 * SKEL_DCP)\n"
    "#define SKEL_CWN ((2 * SKEL_DR + 1) * SKEL_CWR)\n"
    "typedef union { skel_to e[SKEL_CX]; uint4 v[SKEL_CX / SKEL_VE]; } skel_cacc;\n"
    "typedef union { skel_to e[SKEL_CSEG]; uint4 v[SKEL_CSEG / SKEL_VE]; } skel_cseg;\n"
    "typedef union { skel_to e[SKEL_CWR]; uint4 v[SKEL_CWR / SKEL_VE]; } skel_cwrow;\n"
    "#endif\n"
    "/* local memory: row y of the tile at SKEL_LROW(y) (the conv kernel pads\n"
    "   a piece every SKEL_LCY rows); element (piece: k = SKEL_VE) at of the\n"
    "   loaded tile, w elements (pieces) a row */\n"
    "#define SKEL_LROW(y) ((y) * SKEL_LS + (y) / SKEL_LCY * SKEL_LPAD)\n"
    "#define SKEL_LTOT (SKEL_LROW(SKEL_LH - 1) + SKEL_LS)\n"
    "#define SKEL_LAT(at, w, k) (SKEL_LPAD == 0 && (w) * (k) == SKEL_LS ? (at) : SKEL_LROW((at) / (w)) / (k) + (at) % (w))\n"
    "SKEL_KERNEL SKEL_OV2_BOUNDS void skel_overlap2d(SKEL_GLOBAL skel_to *out, SKEL_GLOBAL const skel_to *in, skel_index r_lo,\n"
    "                                skel_index r_hi, skel_index rows, skel_index cols, int edge,\n"
    "                                skel_to edge_value SKEL_W_PARAM SKEL_X_PARAMS)\n"
    "{\n"
    "    SKEL_X_DECL\n"
    "    SKEL_LOCAL SKEL_ALIGN16 skel_to s[SKEL_LTOT];\n"
    "#if SKEL_CONV\n"
    "    SKEL_LOCAL SKEL_ALIGN16 skel_to sw[SKEL_CWN];\n"
    "#endif\n"
    "    int lid = SKEL_LID(), e, g = (int)SKEL_GROUP();\n"
    "    int cg = (int)((cols + SKEL_O2W - 1) / SKEL_O2W), rg = (int)((r_hi - r_lo + SKEL_O2H - 1) / SKEL_O2H), tx = g % cg, ty = g / cg;\n"
    "    skel_index r0, c0;\n"
    "    if (cg > 2 && rg > 2) {\n"
    "        int ne = 2 * (cg + rg - 2);\n"
    "        if (g < 2 * cg) ty = g < cg ? 0 : rg - 1;\n"
    "        else if (g < ne) { tx = (g - 2 * cg) % 2 * (cg - 1); ty = 1 + (g - 2 * cg) / 2; }\n"
    "        else { tx = 1 + (g - ne) % (cg - 2); ty = 1 + (g - ne) / (cg - 2); }\n"
    "    }\n"
    "    r0 = r_lo + (skel_index)ty * SKEL_O2H; c0 = (skel_index)tx * SKEL_O2W;\n"
    "    int inside = r0 >= SKEL_DR && r0 + SKEL_LH - SKEL_DR <= rows && c0 >= SKEL_DCP && c0 + SKEL_LW - SKEL_DCP <= cols;\n"
    "#if SKEL_O2DIRECT\n"
    "    if (inside && r0 + SKEL_O2H <= r_hi && cols % SKEL_VE == 0 && (size_t)in % 16 == 0 && (size_t)out % 16 == 0) {\n"
    "        int lx = lid % (SKEL_O2W / SKEL_VE) * SKEL_VE, ly0 = lid / (SKEL_O2W / SKEL_VE) * SKEL_O2DI, k, y, x;\n"
    "        skel_index rv = cols / SKEL_VE;\n"
    "        SKEL_GLOBAL const uint4 *src = (SKEL_GLOBAL const uint4 *)(in + (r0 + ly0 - SKEL_DR) * cols + c0 + lx - SKEL_DCP);\n"
    "        SKEL_GLOBAL uint4 *dst = (SKEL_GLOBAL uint4 *)(out + (r0 + ly0) * cols + c0 + lx);\n"
    "        skel_o2win w;\n"
    "        SKEL_UNROLL\n"
    "        for (y = 0; y < SKEL_O2DI + 2 * SKEL_DR; ++y)\n"
    "            SKEL_UNROLL\n"
    "            for (k = 0; k < SKEL_WW / SKEL_VE; ++k) w.v[y * (SKEL_WW / SKEL_VE) + k] = src[y * rv + k];\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_O2DI; ++k) {\n"
    "            skel_o2out r;\n"
    "            SKEL_UNROLL\n"
    "            for (x = 0; x < SKEL_VE; ++x) r.e[x] = SKEL_OV2CALL(w.e + (k + SKEL_DR) * SKEL_WW + SKEL_DCP + x, (skel_index)SKEL_WW, r0 + ly0 + k, c0 + lx + x);\n"
    "            dst[k * rv] = r.v;\n"
    "        }\n"
    "        return;\n"
    "    }\n"
    "#endif\n";
static const char _skel_tpl_overlap2d_tile[] =
    "#if SKEL_CONV\n"
    "    for (e = lid; e < SKEL_CWN; e += SKEL_BLOCK) {   /* the weights, rows padded to whole pieces */\n"
    "        int y = e / SKEL_CWR, x = e - y * SKEL_CWR;\n"
    "        sw[e] = x <= 2 * SKEL_DC ? SKEL_WSRC[y * (2 * SKEL_DC + 1) + x] : (skel_to)0;\n"
    "    }\n"
    "#endif\n"
    "#if SKEL_FAST_INTERIOR && SKEL_VE > 1\n"
    "    if (inside && cols % SKEL_VE == 0 && (size_t)in % 16 == 0) {\n"
    "        SKEL_GLOBAL const uint4 *src = (SKEL_GLOBAL const uint4 *)(in + (r0 - SKEL_DR) * cols + (c0 - SKEL_DCP));\n"
    "        skel_index rv = cols / SKEL_VE, off;\n"
    "        int lx = lid % SKEL_LV;\n"
    "        uint4 lv[SKEL_LNV];\n"
    "        off = (lid / SKEL_LV) * rv + lx;\n"
    "        SKEL_UNROLL\n"
    "        for (e = 0; e < SKEL_LNV; ++e) {\n"
    "            if (lid + e * SKEL_BLOCK < SKEL_LH * SKEL_LV) lv[e] = src[off];\n"
    "            lx += SKEL_BLOCK % SKEL_LV;\n"
    "            off += (SKEL_BLOCK / SKEL_LV) * rv + SKEL_BLOCK % SKEL_LV;\n"
    "            if (lx >= SKEL_LV) { lx -= SKEL_LV; off += rv - SKEL_LV; }\n"
    "        }\n"
    "        SKEL_UNROLL\n"
    "        for (e = 0; e < SKEL_LNV; ++e)\n"
    "            if (lid + e * SKEL_BLOCK < SKEL_LH * SKEL_LV)\n"
    "                ((SKEL_LOCAL_PTR uint4 *)s)[SKEL_LAT(lid + e * SKEL_BLOCK, SKEL_LV, SKEL_VE)] = lv[e];\n"
    "    } else\n"
    "#endif\n"
    "    {\n"
    "        skel_to ld[SKEL_LN];\n"
    "#if SKEL_FAST_INTERIOR\n"
    "        if (inside) {\n"
    "            SKEL_GLOBAL const skel_to *src = in + (r0 - SKEL_DR) * cols + (c0 - SKEL_DCP);\n"
    "            int lx = lid % SKEL_LW;\n"
    "            skel_index off = (lid / SKEL_LW) * cols + lx;\n"
    "            SKEL_UNROLL\n"
    "            for (e = 0; e < SKEL_LN; ++e) {\n"
    "                if (lid + e * SKEL_BLOCK < SKEL_LH * SKEL_LW) ld[e] = src[off];\n"
    "                lx += SKEL_BLOCK % SKEL_LW;\n"
    "                off += (SKEL_BLOCK / SKEL_LW) * cols + SKEL_BLOCK % SKEL_LW;\n"
    "                if (lx >= SKEL_LW) { lx -= SKEL_LW; off += cols - SKEL_LW; }\n"
    "            }\n"
    "        } else\n"
    "#endif\n"
    "        {\n"
    "            SKEL_UNROLL\n"
    "            for (e = 0; e < SKEL_LN; ++e) {\n"
    "                int at = lid + e * SKEL_BLOCK, ly = at / SKEL_LW, lx = at - ly * SKEL_LW;\n"
    "                skel_index r = r0 - SKEL_DR + ly, c = c0 - SKEL_DCP + lx;\n"
    "                if (at >= SKEL_LH * SKEL_LW) break;\n"
    "                if (r >= 0 && r < rows && c >= 0 && c < cols) ld[e] = in[r * cols + c];\n"
    "                else {\n"
    "                    skel_index ri = skel_edge(r, rows, edge), ci = skel_edge(c, cols, edge);\n"
    "                    ld[e] = ri < 0 || ci < 0 ? edge_value : in[ri * cols + ci];\n"
    "                }\n"
    "            }\n"
    "        }\n"
    "        SKEL_UNROLL\n"
    "        for (e = 0; e < SKEL_LN; ++e)\n"
    "            if (lid + e * SKEL_BLOCK < SKEL_LH * SKEL_LW) s[SKEL_LAT(lid + e * SKEL_BLOCK, SKEL_LW, 1)] = ld[e];\n"
    "    }\n"
    "    SKEL_BARRIER();\n"
    "#if !SKEL_CONV && SKEL_O2UNROLL\n"
    "    {\n"
    "        int lx = lid % SKEL_O2W, ly0 = (lid / SKEL_O2W) * SKEL_O2I, k;\n"
    "        skel_to res[SKEL_O2I];\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_O2I; ++k)\n"
    "            res[k] = SKEL_OV2CALL(s + (ly0 + k + SKEL_DR) * SKEL_LS + lx + SKEL_DCP, (skel_index)SKEL_LS, r0 + ly0 + k, c0 + lx);\n"
    "        if (c0 + lx < cols) {\n"
    "            SKEL_GLOBAL skel_to *dst = out + (r0 + ly0) * cols + c0 + lx;\n"
    "            SKEL_UNROLL\n"
    "            for (k = 0; k < SKEL_O2I; ++k, dst += cols)\n"
    "                if (r0 + ly0 + k < r_hi) *dst = res[k];\n"
    "        }\n"
    "    }\n"
    "#elif !SKEL_CONV\n"
    "    {   /* a wide window: one call at a time, each stored at once */\n"
    "        int lx = lid % SKEL_O2W, ly0 = (lid / SKEL_O2W) * SKEL_O2I, k;\n"
    "        for (k = 0; k < SKEL_O2I; ++k) {\n"
    "            skel_to v = SKEL_OV2CALL(s + (ly0 + k + SKEL_DR) * SKEL_LS + lx + SKEL_DCP, (skel_index)SKEL_LS, r0 + ly0 + k, c0 + lx);\n"
    "            if (c0 + lx < cols && r0 + ly0 + k < r_hi) out[(r0 + ly0 + k) * cols + c0 + lx] = v;\n"
    "        }\n"
    "    }\n"
    "#endif\n";
/* SKEL_CONV2D with a wide window: register tiling (see _skel_ov2_tiling).
   A work-item computes SKEL_CY x SKEL_CX outputs: SKEL_CY adjacent rows of
   SKEL_CX adjacent columns.  The window's rows stream through registers:
   for each input row its SKEL_CX + 2 SKEL_DCP inputs are loaded from local
   memory once, in 16-byte pieces, and each of the SKEL_CY output rows
   whose window holds that row takes SKEL_CX x (2 dc + 1) multiply-adds
   with the matching row of weights (from local memory, the same address
   for the whole group: a broadcast).  Lanes are laid out so that the 8 of
   a quarter-warp (one 16-byte access phase) read 8 different 16-byte bank
   groups: SKEL_CPA work-items along the row, whose segments start 8 /
   SKEL_CPA pieces apart, and 8 / SKEL_CPA work-items down, whose first
   rows are SKEL_CY rows apart: local rows hold an even number of pieces
   and every SKEL_CY rows one more piece (SKEL_LROW), so those starts
   differ by an odd number of pieces.  Each output sums its window rows in
   order, then its columns, as the user-function form does. */
static const char _skel_tpl_overlap2d_conv[] =
    "#if SKEL_CONV\n"
    "    {\n"
    "        int p8 = lid % 8, g8 = lid / 8, k, r, i, j;\n"
    "        int tx = g8 % (SKEL_CNX / SKEL_CPA) * SKEL_CPA + p8 % SKEL_CPA;\n"
    "        int ty = g8 / (SKEL_CNX / SKEL_CPA) * (8 / SKEL_CPA) + p8 / SKEL_CPA;\n"
    "        skel_index c = c0 + tx * SKEL_CX;\n"
    "        skel_cacc acc[SKEL_CY];\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_CY; ++k) {\n"
    "            SKEL_UNROLL\n"
    "            for (i = 0; i < SKEL_CX; ++i) acc[k].e[i] = 0;\n"
    "        }\n"
    "        for (r = 0; r < 2 * SKEL_DR + SKEL_CY; ++r) {   /* input row r feeds output rows r - 2 dr .. r */\n"
    "            SKEL_LOCAL_PTR const skel_to *sr = s + SKEL_LROW(ty * SKEL_CY + r) + tx * SKEL_CX;\n"
    "            skel_cseg a;\n"
    "            SKEL_CLOAD(a, sr, SKEL_CSEG)\n"
    "            SKEL_UNROLL\n"
    "            for (k = 0; k < SKEL_CY; ++k)\n"
    "                if (r - k >= 0 && r - k <= 2 * SKEL_DR) {\n"
    "                    skel_cwrow w;\n"
    "                    SKEL_CLOAD(w, sw + (r - k) * SKEL_CWR, SKEL_CWR)\n"
    "                    SKEL_UNROLL\n"
    "                    for (j = 0; j <= 2 * SKEL_DC; ++j) {\n"
    "                        SKEL_UNROLL\n"
    "                        for (i = 0; i < SKEL_CX; ++i) acc[k].e[i] += w.e[j] * a.e[SKEL_DCP - SKEL_DC + i + j];\n"
    "                    }\n"
    "                }\n"
    "        }\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < SKEL_CY; ++k) {\n"
    "            skel_index rr = r0 + ty * SKEL_CY + k;\n"
    "            SKEL_GLOBAL skel_to *dst = out + rr * cols + c;\n"
    "            if (rr >= r_hi) break;\n"
    "#if SKEL_CV16\n"
    "            if (c + SKEL_CX <= cols && cols % SKEL_VE == 0 && (size_t)out % 16 == 0) {\n"
    "                SKEL_UNROLL\n"
    "                for (i = 0; i < SKEL_CX / SKEL_VE; ++i) ((SKEL_GLOBAL uint4 *)dst)[i] = acc[k].v[i];\n"
    "            } else\n"
    "#endif\n"
    "            {\n"
    "                SKEL_UNROLL\n"
    "                for (i = 0; i < SKEL_CX; ++i)\n"
    "                    if (c + i < cols) dst[i] = acc[k].e[i];\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "#endif\n"
    "}\n";

/* MapPairs: a group computes SKEL_BLOCK consecutive columns of SKEL_PR
   rows; each work-item loads its column operands once and keeps them in
   registers, the row operands are the same for the whole group (one
   broadcast load per row), and every row's stores are coalesced.  Rows
   [first, rows) (a split call's part). */
static const char _skel_tpl_pairs[] =
    "SKEL_KERNEL void skel_mappairs(SKEL_GLOBAL skel_to *out SKEL_IN_PARAMS, skel_index first, skel_index rows,\n"
    "                               skel_index cols SKEL_X_PARAMS)\n"
    "{\n"
    "    skel_index tc = (cols + SKEL_BLOCK - 1) / SKEL_BLOCK, g = SKEL_GROUP(), rt = g / tc;\n"
    "    skel_index c = (g - rt * tc) * SKEL_BLOCK + SKEL_LID(), r0 = first + rt * SKEL_PR, r;\n"
    "    SKEL_X_DECL\n"
    "    if (c >= cols) return;\n"
    "    {\n"
    "        SKEL_PCOLS(c)\n"
    "        for (r = r0; r < r0 + SKEL_PR && r < rows; ++r) out[r * cols + c] = SKEL_PCALL(r, c);\n"
    "    }\n"
    "}\n";

/* MapPairsReduce: a work-item per output (a row, or a column), folding
   the other side in index order; the other side's operands are staged in
   local memory SKEL_BLOCK at a time (the classic all-pairs N-body kernel).
   The generator emits this twice: skel_pairs_rows (a work-item per row,
   columns streamed) and skel_pairs_cols.  Outputs [first, SKEL_PR_OWN)
   (a split call's part). */
static const char _skel_tpl_pairs_reduce[] =
    "SKEL_KERNEL void SKEL_PR_NAME(SKEL_GLOBAL skel_to *out SKEL_IN_PARAMS, skel_index first, skel_index rows,\n"
    "                              skel_index cols SKEL_X_PARAMS)\n"
    "{\n"
    "    SKEL_PR_LOCALS\n"
    "    int lid = SKEL_LID(), k, cnt;\n"
    "    skel_index own = first + SKEL_GROUP() * SKEL_BLOCK + lid, nown = SKEL_PR_OWN, nstr = SKEL_PR_STREAM, t0;\n"
    "    skel_to acc;\n"
    "    SKEL_X_DECL\n"
    "    {\n"
    "        SKEL_PR_MINE(own < nown ? own : 0)\n"
    "        for (t0 = 0; t0 < nstr; t0 += SKEL_BLOCK) {\n"
    "            cnt = nstr - t0 < SKEL_BLOCK ? (int)(nstr - t0) : SKEL_BLOCK;\n"
    "            SKEL_BARRIER();\n"
    "            if (lid < cnt) { SKEL_PR_STAGE(lid, t0 + lid) }\n"
    "            SKEL_BARRIER();\n"
    "            if (own >= nown) continue;\n"
    "            k = 0;\n"
    "            if (t0 == 0) { acc = SKEL_PR_CALL(own, 0, 0); k = 1; }\n"
    "            if (cnt == SKEL_BLOCK) {\n"
    "                SKEL_PR_UNROLL\n"
    "                for (; k < SKEL_BLOCK; ++k) acc = SKEL_OP(acc, SKEL_PR_CALL(own, t0 + k, k));\n"
    "            } else\n"
    "                for (; k < cnt; ++k) acc = SKEL_OP(acc, SKEL_PR_CALL(own, t0 + k, k));\n"
    "        }\n"
    "        if (own < nown) out[own] = acc;\n"
    "    }\n"
    "}\n";

/* MapOverlap 3D (2.5-D blocking): a group covers SKEL_O3W columns x
   SKEL_O3H rows of zrun planes (a launch argument), a work-item one (row,
   column) marching through the planes with its window in registers: the
   (2 SKEL_DR + 1) x (2 SKEL_DC + 1) slices of SKEL_O3WZ planes in w, the
   2 SKEL_DD planes of the window before the current SKEL_O3U outputs and
   the SKEL_O3U planes after them.  Each step loads the next SKEL_O3U slices
   (all in flight at once: the neighbours in a row and column come from
   the cache, one DRAM read per element), calls the user function on w
   for SKEL_O3U outputs and shifts w down.  The indices into w are
   constants once the loops are unrolled and the function inlined, so w
   lives in registers, and slice elements no function reads are never
   loaded.  The edge policy is applied as a slice is loaded (row and
   column offsets once per work-item, the plane once per slice), so the
   edge and the interior take one path.  (The kernel before, a work-item
   calling the function on the data with one plane's loads in flight and
   a private window near the edges, ran the 7-point step at 512^3 floats
   at 0.27 of the copy bandwidth on an H100; this one at 0.71.  Tried and
   slower: 4 adjacent columns a work-item with a separate path for
   work-items away from the edges, 96-114 registers, 0.51-0.63;
   SKEL_GPU_OV3_ITEMS 2 or 8 and zrun 32 or 128 moved it by 0.05 at most:
   bench/results/forms.md.) */
static const char _skel_tpl_overlap3d[] =
    "#define SKEL_W3 (2 * SKEL_DC + 1)\n"
    "#define SKEL_WP3 (SKEL_W3 * (2 * SKEL_DR + 1))\n"
    "#define SKEL_O3WZ (2 * SKEL_DD + SKEL_O3U)\n"
    "/* the slice of plane q into dst; off: the slice's offsets in a plane (-1: the edge value) */\n"
    "SKEL_DEVICE void skel_o3_slice(skel_to *dst, SKEL_GLOBAL const skel_to *SKEL_RESTRICT in, skel_index q,\n"
    "                               skel_index depth, skel_index ps, const skel_index *off, int edge,\n"
    "                               skel_to edge_value)\n"
    "{\n"
    "    skel_index pz = skel_edge(q, depth, edge);\n"
    "    SKEL_GLOBAL const skel_to *pl = in + (pz < 0 ? 0 : pz * ps);\n"
    "    int k;\n"
    "    SKEL_UNROLL\n"
    "    for (k = 0; k < SKEL_WP3; ++k) dst[k] = pz < 0 || off[k] < 0 ? edge_value : pl[off[k]];\n"
    "}\n"
    "SKEL_KERNEL void skel_overlap3d(SKEL_GLOBAL skel_to *SKEL_RESTRICT out, SKEL_GLOBAL const skel_to *SKEL_RESTRICT in,\n"
    "                                skel_index first, skel_index last, skel_index depth, skel_index zrun,\n"
    "                                skel_index rows, skel_index cols, int edge, skel_to edge_value SKEL_X_PARAMS)\n"
    "{\n"
    "    int lid = SKEL_LID(), y, x, z, j, k;   /* (u: the uniform) */\n"
    "    skel_index cg = (cols + SKEL_O3W - 1) / SKEL_O3W, rg = (rows + SKEL_O3H - 1) / SKEL_O3H, g = SKEL_GROUP();\n"
    "    skel_index zt = g / (cg * rg), rem = g - zt * cg * rg, ty = rem / cg, tx = rem - ty * cg;\n"
    "    skel_index c = tx * SKEL_O3W + lid % SKEL_O3W, r = ty * SKEL_O3H + lid / SKEL_O3W, p = first + zt * zrun;\n"
    "    skel_index pe = last - p < zrun ? last : p + zrun, ps = rows * cols;\n"
    "    skel_index off[SKEL_WP3];\n"
    "    skel_to w[SKEL_O3WZ * SKEL_WP3];\n"
    "    SKEL_X_DECL\n"
    "    if (c >= cols || r >= rows) return;\n"
    "    SKEL_UNROLL\n"
    "    for (y = 0; y <= 2 * SKEL_DR; ++y) {\n"
    "        skel_index ry = skel_edge(r + y - SKEL_DR, rows, edge);\n"
    "        SKEL_UNROLL\n"
    "        for (x = 0; x <= 2 * SKEL_DC; ++x) {\n"
    "            skel_index cx = skel_edge(c + x - SKEL_DC, cols, edge);\n"
    "            off[y * SKEL_W3 + x] = ry < 0 || cx < 0 ? -1 : ry * cols + cx;\n"
    "        }\n"
    "    }\n"
    "    SKEL_UNROLL\n"
    "    for (z = 0; z < 2 * SKEL_DD; ++z)\n"
    "        skel_o3_slice(w + z * SKEL_WP3, in, p - SKEL_DD + z, depth, ps, off, edge, edge_value);\n"
    "    for (; p < pe; p += SKEL_O3U) {\n"
    "        SKEL_UNROLL\n"
    "        for (j = 0; j < SKEL_O3U; ++j)\n"
    "            skel_o3_slice(w + (2 * SKEL_DD + j) * SKEL_WP3, in, p + SKEL_DD + j, depth, ps, off, edge, edge_value);\n"
    "        SKEL_UNROLL\n"
    "        for (j = 0; j < SKEL_O3U; ++j)\n"
    "            if (p + j < pe) {\n"
    "                skel_index o = ((p + j) * rows + r) * cols + c;\n"
    "                out[o] = SKEL_OV3P(w + (SKEL_DD + j) * SKEL_WP3 + SKEL_DR * SKEL_W3 + SKEL_DC, (skel_index)SKEL_W3,\n"
    "                                   (skel_index)SKEL_WP3, o);\n"
    "            }\n"
    "        SKEL_UNROLL\n"
    "        for (k = 0; k < 2 * SKEL_DD * SKEL_WP3; ++k) w[k] = w[k + SKEL_O3U * SKEL_WP3];\n"
    "    }\n"
    "}\n";

/* MapOverlap 3D where a row holds whole 16-byte pieces (4-byte and 8-byte
   elements, cols a multiple of SKEL_O3V = 16 / size, dC <= SKEL_O3V): a
   work-item computes SKEL_O3V adjacent columns of SKEL_O3VU consecutive
   planes, no march.  It loads its whole window first, every load in flight
   at once: each (plane, row) of the window as one 16-byte piece and dC
   elements either side (neighbours' pieces: from the cache), so a 7-point
   step issues 22 loads for 16 outputs where the marching kernel above
   issues 5 an output; then it calls the user function on the window in
   registers for its SKEL_O3V x SKEL_O3VU outputs and stores them 16 bytes
   at a time.  Elements no function reads are never loaded.  The edge
   policy is applied per plane and row (once per piece) and per halo
   column.  Where the data is not 16-byte aligned the same code loads and
   stores element by element (a uniform branch).  (H100, the 7-point step
   on floats against the device copy, 3 rounds in one run: 512^3 0.80-0.81
   where the marching kernel above ran at 0.71-0.72, 256^3 0.92-0.94
   against 0.77-0.79; 2 planes a work-item, 48 registers instead of 62,
   0.78-0.79.  NVIDIA's OpenCL ran this kernel at 0.60 and the marching
   one at 0.71, so only CUDA takes it (_skel_kernel_opts.ov3_vec; the
   tests check it on PoCL too).  bench/results/forms.md.  Not measured: a
   function that reads the whole 3 x 3 x 3 window of int32s keeps all 108
   values in registers, 184 of them, one group an SM, where the marching
   kernel takes 94.)
   It comes twice (_skel_tpl_overlap3d_vec_whole, _part): skel_overlap3d_vec for a
   whole call and skel_overlap3d_vec_part, which takes a split part's
   first and last plane.  One kernel for both, the part's planes as
   parameters, ran the 7-point step at 512^3 at 0.78-0.79 of the copy
   where this code without them ran at 0.81 (H100, 7 runs each in three
   calls; moving where the offset and the bound enter gave 0.75-0.80). */
static const char _skel_tpl_overlap3d_vec_head[] =
    "#define SKEL_VW (SKEL_O3V + 2 * SKEL_DC)\n"
    "#define SKEL_VWP (SKEL_VW * (2 * SKEL_DR + 1))\n"
    "#define SKEL_VWZ (2 * SKEL_DD + SKEL_O3VU)\n"
    "typedef union { skel_to e[SKEL_O3V]; uint4 v; } skel_o3piece;\n";
static const char _skel_tpl_overlap3d_vec_whole[] =  /* names for the whole call's kernel, then the part's */
    "#define SKEL_O3V_NAME skel_overlap3d_vec\n#define SKEL_O3V_RANGE\n"
    "#define SKEL_O3V_FIRST 0\n#define SKEL_O3V_LAST depth\n";
static const char _skel_tpl_overlap3d_vec_part[] =
    "#undef SKEL_O3V_NAME\n#undef SKEL_O3V_RANGE\n#undef SKEL_O3V_FIRST\n#undef SKEL_O3V_LAST\n"
    "#define SKEL_O3V_NAME skel_overlap3d_vec_part\n#define SKEL_O3V_RANGE skel_index first, skel_index last,\n"
    "#define SKEL_O3V_FIRST first\n#define SKEL_O3V_LAST last\n";
static const char _skel_tpl_overlap3d_vec[] =
    "SKEL_KERNEL void SKEL_O3V_NAME(SKEL_GLOBAL skel_to *SKEL_RESTRICT out, SKEL_GLOBAL const skel_to *SKEL_RESTRICT in,\n"
    "                               SKEL_O3V_RANGE skel_index depth, skel_index zrun,\n"
    "                               skel_index rows, skel_index cols, int edge, skel_to edge_value SKEL_X_PARAMS)\n"
    "{\n"
    "    int lid = SKEL_LID(), y, x, z, j, q;   /* (u: the uniform) */\n"
    "    skel_index cg = (cols / SKEL_O3V + SKEL_O3W - 1) / SKEL_O3W, rg = (rows + SKEL_O3H - 1) / SKEL_O3H, g = SKEL_GROUP();\n"
    "    skel_index zt = g / (cg * rg), rem = g - zt * cg * rg, ty = rem / cg, tx = rem - ty * cg;\n"
    "    skel_index c = (tx * SKEL_O3W + lid % SKEL_O3W) * SKEL_O3V, r = ty * SKEL_O3H + lid / SKEL_O3W;\n"
    "    skel_index p = SKEL_O3V_FIRST + zt * SKEL_O3VU, ps = rows * cols, ry[2 * SKEL_DR + 1], cx[2 * SKEL_DC + 1];\n"
    "    int al = (size_t)in % 16 == 0 && (size_t)out % 16 == 0;\n"
    "    skel_to w[SKEL_VWZ * SKEL_VWP];\n"
    "    SKEL_X_DECL\n"
    "    (void)zrun;\n"
    "    if (c >= cols || r >= rows) return;\n"
    "    SKEL_UNROLL\n"
    "    for (y = 0; y <= 2 * SKEL_DR; ++y) ry[y] = skel_edge(r + y - SKEL_DR, rows, edge);\n"
    "    SKEL_UNROLL\n"
    "    for (x = 0; x < SKEL_DC; ++x) {   /* the halo columns: cx[x] left, cx[SKEL_DC + x] right */\n"
    "        cx[x] = skel_edge(c - SKEL_DC + x, cols, edge);\n"
    "        cx[SKEL_DC + x] = skel_edge(c + SKEL_O3V + x, cols, edge);\n"
    "    }\n"
    "    SKEL_UNROLL\n"
    "    for (z = 0; z < SKEL_VWZ; ++z) {\n"
    "        skel_index pz = skel_edge(p - SKEL_DD + z, depth, edge);\n"
    "        SKEL_UNROLL\n"
    "        for (y = 0; y <= 2 * SKEL_DR; ++y) {\n"
    "            int live = pz >= 0 && ry[y] >= 0;\n"
    "            SKEL_GLOBAL const skel_to *rp = in + (live ? pz * ps + ry[y] * cols : 0);\n"
    "            skel_to *d = w + z * SKEL_VWP + y * SKEL_VW;\n"
    "            skel_o3piece u;\n"
    "            if (al) u.v = *(SKEL_GLOBAL const uint4 *)(rp + c);\n"
    "            else {\n"
    "                SKEL_UNROLL\n"
    "                for (q = 0; q < SKEL_O3V; ++q) u.e[q] = rp[c + q];\n"
    "            }\n"
    "            SKEL_UNROLL\n"
    "            for (q = 0; q < SKEL_O3V; ++q) d[SKEL_DC + q] = live ? u.e[q] : edge_value;\n"
    "            SKEL_UNROLL\n"
    "            for (x = 0; x < SKEL_DC; ++x) {   /* unconditional loads (offset 0 where the edge value goes) */\n"
    "                skel_to a = rp[cx[x] < 0 ? 0 : cx[x]], b = rp[cx[SKEL_DC + x] < 0 ? 0 : cx[SKEL_DC + x]];\n"
    "                d[x] = live && cx[x] >= 0 ? a : edge_value;\n"
    "                d[SKEL_DC + SKEL_O3V + x] = live && cx[SKEL_DC + x] >= 0 ? b : edge_value;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    SKEL_UNROLL\n"
    "    for (j = 0; j < SKEL_O3VU; ++j)\n"
    "        if (p + j < SKEL_O3V_LAST) {\n"
    "            skel_index o = ((p + j) * rows + r) * cols + c;\n"
    "            skel_o3piece res;\n"
    "            SKEL_UNROLL\n"
    "            for (q = 0; q < SKEL_O3V; ++q)\n"
    "                res.e[q] = SKEL_OV3P(w + (SKEL_DD + j) * SKEL_VWP + SKEL_DR * SKEL_VW + SKEL_DC + q, (skel_index)SKEL_VW,\n"
    "                                     (skel_index)SKEL_VWP, o + q);\n"
    "            if (al) *(SKEL_GLOBAL uint4 *)(out + o) = res.v;\n"
    "            else {\n"
    "                SKEL_UNROLL\n"
    "                for (q = 0; q < SKEL_O3V; ++q) out[o + q] = res.e[q];\n"
    "            }\n"
    "        }\n"
    "}\n";

/* ---- the generator ---- */
typedef struct _skel_sbuf {
    char *p;
    size_t len, cap;
    int failed;
} _skel_sbuf;

static void _skel_sbuf_put(_skel_sbuf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *np;
        while (cap < b->len + n + 1) cap *= 2;
        np = (char *)SKEL_REALLOC(b->p, cap);
        if (!np) { b->failed = 1; return; }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

static void _skel_sbuf_printf(_skel_sbuf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) { b->failed = 1; return; }
    _skel_sbuf_put(b, tmp, (size_t)n);
}

static void _skel_sbuf_str(_skel_sbuf *b, const char *s) { _skel_sbuf_put(b, s, strlen(s)); }

/* Append user function source src, named skel_u_<name><suffix> (a prefix,
   so that neither a built-in of either dialect (hadd, max) nor an
   identifier of the templates (step, n) can clash with it), with the
   qualifier macro `qual` inserted before parameter number `param`
   (0-based; -1: none) and a second one before `param2`.  Parameters are
   split at top-level commas of the first parenthesised list, which is the
   parameter list of "ret name(params)". */
static void _skel_put_func(_skel_sbuf *b, const char *src, const char *name, const char *suffix, int param,
                           const char *qual, int param2, const char *qual2)
{
    const char *p = strchr(src, '('), *at;
    int depth = 0, k = 0, at_start = 1;
    size_t nl = strlen(name);
    _skel_sbuf_str(b, "SKEL_DEVICE ");
    if (!p) { _skel_sbuf_str(b, src); _skel_sbuf_str(b, "\n"); return; }
    /* the name is the last word before the parenthesis (SKEL_FUNC writes "ret name(") */
    for (at = p; at > src && (at[-1] == ' ' || at[-1] == '\t'); --at) {}
    at -= nl;
    if (at >= src && strncmp(at, name, nl) == 0) {
        _skel_sbuf_put(b, src, (size_t)(at - src));
        _skel_sbuf_printf(b, "skel_u_%s%s", name, suffix);
        _skel_sbuf_put(b, at + nl, (size_t)(p - at - (ptrdiff_t)nl) + 1);
    } else
        _skel_sbuf_put(b, src, (size_t)(p - src) + 1);
    for (++p; *p; ++p) {
        if (at_start && *p != ' ' && *p != '\t' && *p != '\n') {
            if (k == param) { _skel_sbuf_str(b, qual); _skel_sbuf_str(b, " "); }
            if (k == param2) { _skel_sbuf_str(b, qual2); _skel_sbuf_str(b, " "); }
            at_start = 0;
        }
        _skel_sbuf_put(b, p, 1);
        if (*p == ')' && depth == 0) { ++p; break; }
        if (*p == '(') ++depth;
        else if (*p == ')') --depth;
        else if (*p == ',' && depth == 0) { ++k; at_start = 1; }
    }
    _skel_sbuf_str(b, p);
    _skel_sbuf_str(b, "\n");
}

/* A kernel's register cap as CUDA states it: the groups of `block`
   work-items that fit an SM's 64K registers at `regs` each (exact for
   blocks up to 256; nothing where fewer than 2 groups fit, or regs is 0). */
static void _skel_put_bounds(_skel_sbuf *b, const char *name, int block, int regs)
{
    int groups = regs > 0 ? 65536 / (block * regs) : 0;
    if (groups >= 2) _skel_sbuf_printf(b, "#define %s SKEL_MIN_GROUPS(%d)\n", name, groups);
    else _skel_sbuf_printf(b, "#define %s\n", name);
}

/* ---- what the generator emits per instance: types, operands, calls ---- */
static const skel_type_info *_skel_ot(const skel_skeleton *sk, int k) { return sk->out_t[k](); }
static const skel_type_info *_skel_it(const skel_skeleton *sk, int k) { return sk->in_t[k](); }

static int _skel_type_double(const skel_type_info *t)
{
    return strcmp(t->c_name, "double") == 0 || strstr(t->src, "double") != NULL;
}

/* Whether an operand, a field of one or the uniform is a double (OpenCL
   then needs cl_khr_fp64).  (Not static: skel_cl.h asks it.) */
int _skel_uses_double(const skel_skeleton *sk)
{
    int k, d = sk->has_uniform && (strstr(sk->uniform_type, "double") ||
                                   (sk->uniform_src && strstr(sk->uniform_src(), "double")));
    for (k = 0; k < sk->nout; ++k) d |= _skel_type_double(_skel_ot(sk, k));
    for (k = 0; k < sk->nin; ++k) d |= _skel_type_double(_skel_it(sk, k));
    for (k = 0; k < sk->nview; ++k) d |= _skel_type_double(sk->view_t[k]());
    return d;
}

/* Each struct the operands use, once, with a check that the device lays
   it out as the host does (size and alignment; the alignment is the
   padding after a char); the typedefs skel_to (the result, the
   accumulator), skel_ti (in[0]), skel_to<k>, skel_ti<k>, skel_vt<k>; and a
   view type per view element type. */
static void _skel_put_types(_skel_sbuf *b, const skel_skeleton *sk, const char **emitted, int *nemitted)
{
    const skel_type_info *all[SKEL_MAX_OUT + SKEL_MAX_IN + SKEL_MAX_VIEWS];
    int n = 0, k, m;
    for (k = 0; k < sk->nout; ++k) all[n++] = _skel_ot(sk, k);
    for (k = 0; k < sk->nin; ++k) all[n++] = _skel_it(sk, k);
    for (k = 0; k < sk->nview; ++k) all[n++] = sk->view_t[k]();
    *nemitted = 0;
    for (k = 0; k < n; ++k) {
        const skel_type_info *t = all[k];
        if (!t->is_struct) continue;
        for (m = 0; m < *nemitted && strcmp(emitted[m], t->src) != 0; ++m) {}
        if (m < *nemitted) continue;
        emitted[(*nemitted)++] = t->src;
        _skel_sbuf_str(b, t->src);
        _skel_sbuf_printf(b, "struct skel_al_%s { char c; %s x; };\n"
                          "/* the host lays %s out in %zu bytes, aligned to %zu: an error here means this device does not */\n"
                          "typedef char skel_size_of_%s[sizeof(%s) == %zu ? 1 : -1];\n"
                          "typedef char skel_alignment_of_%s[sizeof(struct skel_al_%s) - sizeof(%s) == %zu ? 1 : -1];\n",
                          t->name, t->name, t->name, t->size, t->align, t->name, t->name, t->size, t->name, t->name,
                          t->name, t->align);
    }
    _skel_sbuf_printf(b, "typedef %s skel_to;\ntypedef %s skel_ti;\n", _skel_ot(sk, 0)->c_name,
                      (sk->nin ? _skel_it(sk, 0) : _skel_ot(sk, 0))->c_name);
    for (k = 0; k < sk->nout; ++k) _skel_sbuf_printf(b, "typedef %s skel_to%d;\n", _skel_ot(sk, k)->c_name, k);
    for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(b, "typedef %s skel_ti%d;\n", _skel_it(sk, k)->c_name, k);
    for (k = 0; k < sk->nview; ++k) {
        const skel_type_info *t = sk->view_t[k]();
        for (m = 0; m < k && sk->view_t[m]() != t; ++m) {}
        if (m == k)
            _skel_sbuf_printf(b, "typedef struct { SKEL_GLOBAL const %s *data; skel_index size, rows, cols, depth; } "
                              "skel_view_%s;\n", t->c_name, t->c_name);
        _skel_sbuf_printf(b, "typedef %s skel_vt%d;\n", t->c_name, k);
    }
}

/* SKEL_X_PARAMS: the kernel parameters of the views and the uniform;
   SKEL_X_DECL: the views rebuilt in the kernel (a pointer and its shape) */
static void _skel_put_x(_skel_sbuf *b, const skel_skeleton *sk)
{
    int k;
    _skel_sbuf_str(b, "#define SKEL_X_PARAMS");
    for (k = 0; k < sk->nview; ++k)
        _skel_sbuf_printf(b, " , SKEL_GLOBAL const skel_vt%d *skel_v%d, skel_index skel_v%dd, skel_index skel_v%dr, "
                          "skel_index skel_v%dc", k, k, k, k, k);
    if (sk->has_uniform) _skel_sbuf_printf(b, " , %s u", sk->uniform_type);
    _skel_sbuf_str(b, "\n#define SKEL_X_DECL");
    for (k = 0; k < sk->nview; ++k)
        _skel_sbuf_printf(b, " skel_view_%s skel_x%d; skel_x%d.data = skel_v%d; skel_x%d.depth = skel_v%dd; "
                          "skel_x%d.rows = skel_v%dr; skel_x%d.cols = skel_v%dc; skel_x%d.size = skel_v%dd * skel_v%dr * skel_v%dc;",
                          sk->view_t[k]()->c_name, k, k, k, k, k, k, k, k, k, k, k, k, k);
    _skel_sbuf_str(b, "\n");
}

/* A comma-separated argument list under construction. */
typedef struct _skel_args {
    _skel_sbuf *b;
    int n;
} _skel_args;

static void _skel_arg(_skel_args *a, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) { a->b->failed = 1; return; }
    if (a->n++) _skel_sbuf_str(a->b, ", ");
    _skel_sbuf_str(a->b, tmp);
}

/* index arguments of flat element f (data shaped as the kernel's rows x
   cols), or of the pair (r, c) when r is given */
static void _skel_arg_index(_skel_args *a, int mode, const char *f, const char *r, const char *c)
{
    if (mode == 1 && r) _skel_arg(a, "(skel_index)(%s) * cols + (%s)", r, c);
    else if (mode == 1) _skel_arg(a, "(skel_index)(%s)", f);
    else if (mode == 2 && r) { _skel_arg(a, "(skel_index)(%s)", r); _skel_arg(a, "(skel_index)(%s)", c); }
    else if (mode == 2) { _skel_arg(a, "(skel_index)(%s) / cols", f); _skel_arg(a, "(skel_index)(%s) %% cols", f); }
    else if (mode == 3) {
        _skel_arg(a, "(skel_index)(%s) / (rows * cols)", f);
        _skel_arg(a, "(skel_index)(%s) / cols %% rows", f);
        _skel_arg(a, "(skel_index)(%s) %% cols", f);
    }
}

/* the views and the uniform, last */
static void _skel_arg_x(_skel_args *a, const skel_skeleton *sk)
{
    int k;
    for (k = 0; k < sk->nview; ++k) _skel_arg(a, "skel_x%d", k);
    if (sk->has_uniform) _skel_arg(a, "u");
}

/* the element arguments a0[i], a1[i], .. of inputs lo..hi-1 */
static void _skel_arg_elems(_skel_args *a, int lo, int hi, const char *i)
{
    int k;
    for (k = lo; k < hi; ++k) _skel_arg(a, "a%d[%s]", k, i);
}

/* SKEL_OUT_PARAMS and SKEL_IN_PARAMS */
static void _skel_put_operands(_skel_sbuf *b, const skel_skeleton *sk)
{
    int i;
    _skel_sbuf_str(b, "#define SKEL_OUT_PARAMS ");
    for (i = 0; i < sk->nout; ++i) _skel_sbuf_printf(b, "%sSKEL_GLOBAL skel_to%d *out%d", i ? ", " : "", i, i);
    _skel_sbuf_str(b, "\n#define SKEL_IN_PARAMS ");
    for (i = 0; i < sk->nin; ++i) _skel_sbuf_printf(b, ", SKEL_GLOBAL const skel_ti%d *a%d", i, i);
    _skel_sbuf_str(b, "\n");
}

/* Store the function's results at out<k>[at] (several outputs through
   pointers after every other argument): `name(k, at, ...)` macros with the
   leading arguments given by the caller */
static void _skel_put_store(_skel_sbuf *b, const skel_skeleton *sk, const char *head, const char *at,
                            void (*args)(_skel_args *, const skel_skeleton *, const char *), const char *argp)
{
    _skel_args a;
    int k;
    a.b = b;
    a.n = 0;
    _skel_sbuf_printf(b, "#define %s ", head);
    if (sk->nout == 1) {
        _skel_sbuf_printf(b, "out0[%s] = skel_u_%s(", at, sk->func_name);
        args(&a, sk, argp);
        _skel_sbuf_str(b, ");\n");
        return;
    }
    _skel_sbuf_str(b, "{ ");
    for (k = 0; k < sk->nout; ++k) _skel_sbuf_printf(b, "skel_to%d r%d_; ", k, k);
    _skel_sbuf_printf(b, "skel_u_%s(", sk->func_name);
    args(&a, sk, argp);
    for (k = 0; k < sk->nout; ++k) _skel_arg(&a, "&r%d_", k);
    _skel_sbuf_str(b, "); ");
    for (k = 0; k < sk->nout; ++k) _skel_sbuf_printf(b, "out%d[%s] = r%d_; ", k, at, k);
    _skel_sbuf_str(b, "}\n");
}

/* The any-order MapReduce's pieces (_skel_reduce_pieces): SKEL_PV
   elements a piece (0: none), SKEL_PITEMS pieces of every input in flight
   a step (twice the elements of an element step, at most 8 pieces), the
   registers, a piece's loads, the function on element e of piece j (index
   i), and whether every input is aligned to its pieces. */
static void _skel_put_pieces(_skel_sbuf *b, const skel_skeleton *sk, const _skel_kernel_geom *g)
{
    static const char *const uint_of[17] = { 0, "unsigned char", "unsigned short", 0, "skel_uint", 0, 0, 0, "uint2",
                                             0, 0, 0, 0, 0, 0, 0, "uint4" };   /* by bytes */
    const char *vt[SKEL_MAX_IN];
    int pv = _skel_reduce_pieces(sk), items, k;
    _skel_args a;
    _skel_sbuf_printf(b, "#define SKEL_PV %d\n", pv);
    if (!pv) return;
    items = 2 * g->reduce_items / pv;
    if (items > SKEL_GPU_REDUCE_PITEMS) items = SKEL_GPU_REDUCE_PITEMS;
    if (items < 1) items = 1;
    for (k = 0; k < sk->nin; ++k) vt[k] = uint_of[(size_t)pv * sk->in_t[k]()->size];
    _skel_sbuf_printf(b, "#define SKEL_PITEMS %d\n#define SKEL_PREGS", items);
    for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(b, " union { skel_ti%d el[SKEL_PV]; %s v; } pq%d[SKEL_PITEMS];", k, vt[k], k);
    _skel_sbuf_str(b, "\n#define SKEL_PLOAD(j, p)");
    for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(b, " pq%d[j].v = ((SKEL_GLOBAL const %s *)a%d)[p];", k, vt[k], k);
    _skel_sbuf_str(b, "\n#define SKEL_PALIGNED (1");
    for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(b, " && (size_t)a%d %% %zu == 0", k, (size_t)pv * sk->in_t[k]()->size);
    _skel_sbuf_printf(b, ")\n#define SKEL_PQVALUE(i, j, q) skel_u_%s(", sk->func_name);
    a.b = b;
    a.n = 0;
    _skel_arg_index(&a, sk->index_mode, "i", NULL, NULL);
    for (k = 0; k < sk->nin; ++k) _skel_arg(&a, "pq%d[j].el[q]", k);
    _skel_arg_x(&a, sk);
    _skel_sbuf_str(b, ")\n");
}

/* argument lists of the kinds that store through _skel_put_store */
static void _skel_args_overlap(_skel_args *a, const skel_skeleton *sk, const char *p)
{
    _skel_arg_index(a, sk->index_mode, "at", NULL, NULL);
    _skel_arg(a, "%s", p);
    _skel_arg_x(a, sk);
}

/* Whether the 2D overlap reads interior tiles straight into registers:
   CUDA (OpenCL would need the user function for private pointers too),
   4-byte elements, and a work-item's window (SKEL_O2DI + 2 dr rows of
   SKEL_WW) small enough for registers: 96 elements, a 5x5's */
static int _skel_ov2_direct(const _skel_kernel_geom *g, const skel_skeleton *sk, size_t esz, int dialect)
{
    int ve = _skel_ov2_vec(g->ov2_w, esz);
    int rows = g->ov2_h / (g->block / (g->ov2_w / ve)) + 2 * sk->dr;   /* SKEL_O2DI + 2 dr */
    return SKEL_GPU_OV2_DIRECT && dialect == _SKEL_DIALECT_CUDA && ve == 4 && !g->conv &&
           rows * (ve + 2 * _skel_ov2_halo(g, sk, esz)) <= 96;
}

/* Bytes of local memory the 2D overlap's tile (and a conv's weights) take. */
static size_t _skel_ov2_local(const _skel_kernel_geom *g, const skel_skeleton *sk, size_t esz)
{
    size_t rows = (size_t)(g->ov2_h + 2 * sk->dr), w = 0;
    if (g->conv)    /* the weights, and a piece of padding every cy rows (SKEL_LROW) */
        w = (size_t)(2 * sk->dr + 1) * (size_t)g->cwr + (rows - 1) / (size_t)g->cy * (16 / esz);
    return ((size_t)g->ov2_ls * rows + w) * esz;
}

/* The 2D overlap's macros beyond the tile's: the local row stride, the
   register tiling's factors, how far the shared-memory kernel unrolls,
   and the register cap.  wsrc: the weights array's expression. */
static void _skel_put_ov2(_skel_sbuf *b, const skel_skeleton *sk, const _skel_kernel_geom *g, size_t esz,
                          const char *wsrc)
{
    int taps = (2 * sk->dr + 1) * (2 * sk->dc + 1), ve = (int)(16 / esz);
    _skel_sbuf_printf(b, "#define SKEL_LS %d\n#define SKEL_LCY %d\n#define SKEL_LPAD %d\n#define SKEL_CONV %d\n"
                      "#define SKEL_O2UNROLL %d\n", g->ov2_ls, g->conv ? g->cy : 1, g->conv ? ve : 0, g->conv, taps <= 49);
    if (g->conv) {
        int pieces = g->cx / ve;
        _skel_sbuf_printf(b, "#define SKEL_CX %d\n#define SKEL_CY %d\n#define SKEL_CNX %d\n#define SKEL_CPA %d\n"
                          "#define SKEL_CWR %d\n#define SKEL_WSRC %s\n",
                          g->cx, g->cy, g->cnx, pieces >= 8 ? 1 : 8 / pieces, g->cwr, wsrc);
        /* no register bounds: without them ptxas used at most the metric's
           estimate; capped at the estimate some spilled, and with
           __launch_bounds__(block, 1) it took up to 1.8 times more */
        _skel_sbuf_str(b, "#define SKEL_OV2_BOUNDS\n");
    } else {
        /* the cap helps small windows (more groups an SM); a wide one, all
           its calls unrolled, spilled under it (H100: 11x11-15x15 at a
           third of their neighbours' speed) */
        _skel_put_bounds(b, "SKEL_OV2_BOUNDS", g->block, taps <= 49 ? SKEL_GPU_OV2_REGS : 0);
    }
}

int _skel_kernel_source(const skel_skeleton *sk, int dialect, const _skel_kernel_opts *opts, char **source)
{
    _skel_kernel_opts o;
    _skel_kernel_geom g;
    _skel_sbuf b;
    _skel_args a;
    const char *emitted[SKEL_MAX_OUT + SKEL_MAX_IN + SKEL_MAX_VIEWS];
    const skel_type_info *to, *ti;
    size_t esz, need = 0;
    int fp64, k, nemitted = 0, scalar;
    if (!sk || !source || (dialect != _SKEL_DIALECT_CUDA && dialect != _SKEL_DIALECT_OPENCL))
        return _skel_fail(SKEL_EINVAL, "kernel source: bad arguments");
    *source = NULL;
    _skel_kernel_opts_defaults(opts, &o);
    _skel_kernel_geometry(sk, &o, &g);
    to = _skel_ot(sk, 0);
    ti = sk->nin ? _skel_it(sk, 0) : to;
    esz = to->size;
    /* local memory of the largest kernel of this kind */
    switch (sk->kind) {
    case SKEL_KIND_REDUCE: case SKEL_KIND_MAPREDUCE:   /* (+ the last-group flag) */
        need = _skel_reduce_local_bytes(sk, g.block, g.reduce_items);
        break;
    case SKEL_KIND_SCAN:
        need = _skel_scan_local_bytes(g.block, g.scan_items, esz); break;
    case SKEL_KIND_OVERLAP: {
        size_t rowsz = (size_t)(g.ov_tile + 2 * sk->dr), colsz = (size_t)g.ovc_w * (size_t)(g.ovc_h + 2 * sk->dr + 1);
        need = (rowsz > colsz ? rowsz : colsz) * ti->size;
        break;
    }
    case SKEL_KIND_OVERLAP2D:
        need = _skel_ov2_local(&g, sk, esz);
        break;
    case SKEL_KIND_MAPPAIRSREDUCE: {   /* the larger side's operands staged */
        size_t rb = 0, cb = 0;
        for (k = 0; k < sk->nin; ++k) *(k < sk->nrow ? &rb : &cb) += _skel_it(sk, k)->size;
        need = (size_t)g.block * (rb > cb ? rb : cb);
        break;
    }
    default: break;
    }
    if (need > o.local_mem)
        return _skel_fail(SKEL_EUNSUPPORTED, "%s %s: its tile needs %zu bytes of local memory, the device has %zu%s",
                          _skel_kind_name(sk->kind), sk->name, need, o.local_mem,
                          sk->kind == SKEL_KIND_OVERLAP || sk->kind == SKEL_KIND_OVERLAP2D
                              ? " (the overlap is too wide for the GPU kernels: a limit of the GPU backends; run it on a CPU backend)"
                              : " (use a smaller block)");
    if (sk->kind == SKEL_KIND_OVERLAP2D && sk->conv) {   /* the tiling metric's inputs and choice */
        char why[1024];
        _skel_ov2_cand c;
        _skel_ov2_tiling(sk, &o, esz, &c, why, sizeof why);
        _skel_log(SKEL_LOG_INFO, "%s %s %dx%d %s, tiling %d, block %d; a unit: %d registers, %zu KiB local memory, "
                  "%d work-items, %d groups: %s", _skel_kind_name(sk->kind), sk->name, 2 * sk->dr + 1, 2 * sk->dc + 1,
                  to->name, o.tiling, o.block, o.regs_per_unit ? o.regs_per_unit : 65536,
                  (o.local_per_unit ? o.local_per_unit : o.local_mem) / 1024,
                  o.threads_per_unit ? o.threads_per_unit : 2048, o.groups_per_unit ? o.groups_per_unit : 32,
                  why[0] ? why : "the shared-memory tile (window of 49 taps or less, or asked for)");
    }
    memset(&b, 0, sizeof b);
    a.b = &b;
    fp64 = _skel_uses_double(sk);
    if (dialect == _SKEL_DIALECT_OPENCL && fp64) _skel_sbuf_str(&b, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    _skel_sbuf_str(&b, dialect == _SKEL_DIALECT_CUDA ? _skel_prelude_cuda : _skel_prelude_opencl);
    if (_skel_env_int("SKEL_DEBUG", 0) > 0) _skel_sbuf_str(&b, "#define SKEL_DEBUG_VIEWS 1\n");
    _skel_sbuf_str(&b, _skel_prelude_views);
    /* warp shuffles move 4- and 8-byte scalars, and the struct of a wide
       MapReduce word by word (SKEL_SHFL_WORDS) */
    scalar = !to->is_struct && (esz == 4 || esz == 8);
    _skel_sbuf_printf(&b, "#define SKEL_TO_STRUCT %d\n", to->is_struct);
    if (dialect == _SKEL_DIALECT_CUDA) {
        int words = !scalar && _skel_reduce_wide(sk) && esz % 4 == 0;
        _skel_sbuf_printf(&b, "#define SKEL_HAS_SHUFFLE %d\n#define SKEL_SHFL_WORDS %d\n", o.shuffle && (scalar || words),
                          o.shuffle && words ? (int)(esz / 4) : 0);
    }
    _skel_sbuf_printf(&b, "/* skel %s %s */\n", _skel_kind_name(sk->kind), sk->name);
    _skel_sbuf_printf(&b, "#define SKEL_BLOCK %d\n#define SKEL_MITEMS %d\n#define SKEL_RITEMS %d\n#define SKEL_SITEMS %d\n"
                      "#define SKEL_OITEMS %d\n#define SKEL_OCW %d\n#define SKEL_OCH %d\n"
                      "#define SKEL_O2W %d\n#define SKEL_O2H %d\n",
                      g.block, g.map_items, g.reduce_items, g.scan_items, g.ov_items, g.ovc_w, g.ovc_h, g.ov2_w,
                      g.ov2_h);
    _skel_put_types(&b, sk, emitted, &nemitted);
    if (sk->has_uniform && sk->uniform_src) {      /* unless it is an element type too */
        const char *u = sk->uniform_src();
        for (k = 0; k < nemitted && strcmp(emitted[k], u) != 0; ++k) {}
        if (k == nemitted) _skel_sbuf_str(&b, u);
    }
    _skel_put_x(&b, sk);
    _skel_put_operands(&b, sk);
    /* user functions, pointer parameters qualified for their address space
       (the parameter after the index arguments) */
    k = sk->index_mode == 1 ? 1 : sk->index_mode;
    switch (sk->kind) {
    case SKEL_KIND_OVERLAP:
        _skel_put_func(&b, sk->func_src(), sk->func_name, "", k, "SKEL_LOCAL_PTR", -1, NULL); break;
    case SKEL_KIND_OVERLAP2D:    /* weights by value are __private in OpenCL */
        _skel_put_func(&b, sk->func_src(), sk->func_name, "", k, "SKEL_LOCAL_PTR", sk->weighted ? k + 2 : -1,
                       _skel_weights_by_value(sk, &o) ? "" : "SKEL_CONSTANT_PTR");
        break;
    case SKEL_KIND_OVERLAP3D:    /* on a private window */
        _skel_put_func(&b, sk->func_src(), sk->func_name, "_p", -1, NULL, -1, NULL);
        break;
    case SKEL_KIND_MAPARRAY:
        _skel_put_func(&b, sk->func_src(), sk->func_name, "", k, "SKEL_GLOBAL", -1, NULL); break;
    default:
        if (sk->func_src) _skel_put_func(&b, sk->func_src(), sk->func_name, "", -1, NULL, -1, NULL);
        if (sk->red_src && !(sk->func_name && strcmp(sk->func_name, sk->red_name) == 0))
            _skel_put_func(&b, sk->red_src(), sk->red_name, "", -1, NULL, -1, NULL);
    }
    if (sk->red_name) _skel_sbuf_printf(&b, "#define SKEL_OP(a, b) skel_u_%s(a, b)\n", sk->red_name);
    if (sk->kind == SKEL_KIND_REDUCE || sk->kind == SKEL_KIND_MAPREDUCE) _skel_sbuf_str(&b, "#define SKEL_WANT_REDUCE 1\n");
    if (sk->kind == SKEL_KIND_SCAN)
        _skel_sbuf_printf(&b, "#define SKEL_WANT_SCAN 1\n#define SKEL_WANT_REDUCE 1\n#define SKEL_SCAN_PACKED %d\n",
                          esz <= 4);
    if (sk->kind == SKEL_KIND_OVERLAP || sk->kind == SKEL_KIND_OVERLAP2D || sk->kind == SKEL_KIND_OVERLAP3D)
        _skel_sbuf_str(&b, "#define SKEL_WANT_EDGE 1\n");
    _skel_sbuf_str(&b, _skel_tpl_volatile);
    _skel_sbuf_str(&b, _skel_tpl_shfl);
    _skel_sbuf_str(&b, _skel_tpl_common);
    switch (sk->kind) {
    case SKEL_KIND_MAP:
        _skel_sbuf_str(&b, "#define SKEL_MRES(m)");
        for (k = 0; k < sk->nout; ++k) _skel_sbuf_printf(&b, " skel_to%d r%d[m];", k, k);
        _skel_sbuf_printf(&b, "\n#define SKEL_MCOMPUTE(k, i) %sskel_u_%s(", sk->nout == 1 ? "r0[k] = " : "", sk->func_name);
        a.n = 0;
        _skel_arg_index(&a, sk->index_mode, "i", NULL, NULL);
        _skel_arg_elems(&a, 0, sk->nin, "i");
        _skel_arg_x(&a, sk);
        for (k = 0; sk->nout > 1 && k < sk->nout; ++k) _skel_arg(&a, "&r%d[k]", k);
        _skel_sbuf_str(&b, ");\n#define SKEL_MSTORE(k, i)");
        for (k = 0; k < sk->nout; ++k) _skel_sbuf_printf(&b, " out%d[i] = r%d[k];", k, k);
        _skel_sbuf_str(&b, "\n#define SKEL_MAP_NAME skel_map\n#define SKEL_MSTRIDE SKEL_BLOCK\n");
        _skel_sbuf_str(&b, _skel_tpl_map);
        _skel_sbuf_str(&b, "#undef SKEL_MAP_NAME\n#undef SKEL_MSTRIDE\n"
                           "#define SKEL_MAP_NAME skel_map_small\n#define SKEL_MSTRIDE ((skel_index)SKEL_LSIZE())\n");
        _skel_sbuf_str(&b, _skel_tpl_map);
        break;
    case SKEL_KIND_MAPREDUCE:
        if (_skel_reduce_wide(sk)) {
            _skel_sbuf_printf(&b, "#define SKEL_WSTAGED %d\n#define SKEL_WLOCALS", sk->nin > 0);
            for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(&b, " SKEL_LOCAL skel_ti%d s%d[SKEL_PAD(SKEL_RTILE - 1) + 1];", k, k);
            _skel_sbuf_str(&b, "\n#define SKEL_WREGS");
            for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(&b, " skel_ti%d q%d[SKEL_RITEMS];", k, k);
            _skel_sbuf_str(&b, "\n#define SKEL_WLOAD(j, i)");
            for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(&b, " q%d[j] = a%d[i];", k, k);
            _skel_sbuf_str(&b, "\n#define SKEL_WSTORE(e, j)");
            for (k = 0; k < sk->nin; ++k) _skel_sbuf_printf(&b, " s%d[e] = q%d[j];", k, k);
            _skel_sbuf_printf(&b, "\n#define SKEL_WVALUE(i, e) skel_u_%s(", sk->func_name);
            a.n = 0;
            _skel_arg_index(&a, sk->index_mode, "i", NULL, NULL);
            for (k = 0; k < sk->nin; ++k) _skel_arg(&a, "s%d[e]", k);
            _skel_arg_x(&a, sk);
            _skel_sbuf_printf(&b, ")\n#define SKEL_WQVALUE(i, j) skel_u_%s(", sk->func_name);   /* from registers */
            a.n = 0;
            _skel_arg_index(&a, sk->index_mode, "i", NULL, NULL);
            for (k = 0; k < sk->nin; ++k) _skel_arg(&a, "q%d[j]", k);
            _skel_arg_x(&a, sk);
            _skel_sbuf_str(&b, ")\n");
            if (_skel_reduce_any_order(sk)) {
                _skel_put_pieces(&b, sk, &g);
                _skel_sbuf_str(&b, _skel_tpl_reduce_comm_steps);
            }
            _skel_sbuf_str(&b, _skel_reduce_any_order(sk) ? _skel_tpl_reduce_comm : _skel_tpl_reduce_wide);
            break;
        }
        _skel_sbuf_printf(&b, "#define SKEL_MAPV(i) skel_u_%s(", sk->func_name);
        a.n = 0;
        _skel_arg_index(&a, sk->index_mode, "i", NULL, NULL);
        _skel_arg_elems(&a, 0, sk->nin, "i");
        _skel_arg_x(&a, sk);
        _skel_sbuf_str(&b, ")\n");
        _skel_sbuf_str(&b, _skel_tpl_reduce);
        break;
    case SKEL_KIND_REDUCE:
        /* elements become accumulators by a C conversion (none for one type) */
        _skel_sbuf_str(&b, _skel_type_same(to, ti) ? "#define SKEL_CONV(x) (x)\n" : "#define SKEL_CONV(x) ((skel_to)(x))\n");
        _skel_sbuf_str(&b, "#define SKEL_MAPV(i) SKEL_CONV(a0[i])\n");
        _skel_sbuf_str(&b, _skel_tpl_reduce);
        _skel_sbuf_str(&b, "#define SKEL_RCOLS_NAME skel_reduce_cols\n#define SKEL_RCOLS_T skel_ti\n"
                           "#define SKEL_RCOLS_CONV(x) SKEL_CONV(x)\n");
        _skel_sbuf_str(&b, _skel_tpl_reduce_matrix);
        _skel_sbuf_str(&b, "#undef SKEL_RCOLS_NAME\n#undef SKEL_RCOLS_T\n#undef SKEL_RCOLS_CONV\n"
                           "#define SKEL_RCOLS_NAME skel_reduce_cols2\n#define SKEL_RCOLS_T skel_to\n"
                           "#define SKEL_RCOLS_CONV(x) (x)\n#define SKEL_RCOLS_ONLY 1\n");
        _skel_sbuf_str(&b, _skel_tpl_reduce_matrix);
        break;
    case SKEL_KIND_SCAN:       /* and the totals of a split's parts */
        _skel_sbuf_str(&b, "#define SKEL_IN_PARAMS , SKEL_GLOBAL const skel_ti *a0\n#define SKEL_MAPV(i) a0[i]\n");
        _skel_sbuf_str(&b, _skel_tpl_reduce);
        _skel_sbuf_str(&b, _skel_tpl_scan);
        _skel_sbuf_str(&b, _skel_tpl_scan_lookback);
        _skel_sbuf_str(&b, _skel_tpl_scan_tail);
        break;
    case SKEL_KIND_OVERLAP:
        _skel_sbuf_printf(&b, "#define SKEL_D %d\n", sk->dr);
        _skel_put_store(&b, sk, "SKEL_OVSTORE(at, p)", "at", _skel_args_overlap, "p");
        _skel_sbuf_str(&b, _skel_tpl_overlap);
        break;
    case SKEL_KIND_OVERLAP2D:
        _skel_sbuf_printf(&b, "#define SKEL_DR %d\n#define SKEL_DC %d\n#define SKEL_VE %d\n#define SKEL_DCP %d\n",
                          sk->dr, sk->dc, _skel_ov2_vec(g.ov2_w, esz), _skel_ov2_halo(&g, sk, esz));
        _skel_sbuf_printf(&b, "#define SKEL_OV2CALL(p, st, r, c) skel_u_%s(", sk->func_name);
        a.n = 0;
        _skel_arg_index(&a, sk->index_mode, NULL, "r", "c");
        _skel_arg(&a, "p");
        _skel_arg(&a, "st");
        if (sk->weighted) {
            /* the unrolled calls should read the weights as constant
               operands of their multiply-adds, not load 25 of them into
               registers.  By value (a struct argument: the argument
               bank) where they fit; else CUDA: a __constant__ array of
               the module (the backend fills it through
               cuModuleGetGlobal); OpenCL: a __constant argument */
            _skel_arg(&a, "%s + SKEL_DR * (2 * SKEL_DC + 1) + SKEL_DC",
                      _skel_weights_by_value(sk, &o) ? "skel_w.v" : "skel_w");
        }
        _skel_arg_x(&a, sk);
        _skel_sbuf_str(&b, ")\n");
        if (sk->weighted) {
            int nw = (2 * sk->dr + 1) * (2 * sk->dc + 1);
            if (_skel_weights_by_value(sk, &o))
                _skel_sbuf_printf(&b, "typedef struct { skel_to v[%d]; } skel_wt;\n#define SKEL_W_PARAM , skel_wt skel_w\n", nw);
            else if (dialect == _SKEL_DIALECT_CUDA)
                _skel_sbuf_printf(&b, "__constant__ skel_to skel_w[%d];\n#define SKEL_W_PARAM\n", nw);
            else
                _skel_sbuf_str(&b, "#define SKEL_W_PARAM , SKEL_CONSTANT_PTR const skel_to *skel_w\n");
        } else
            _skel_sbuf_str(&b, "#define SKEL_W_PARAM\n");
        _skel_put_ov2(&b, sk, &g, esz, !sk->weighted ? "" : _skel_weights_by_value(sk, &o) ? "skel_w.v" : "skel_w");
        _skel_sbuf_printf(&b, "#define SKEL_O2DIRECT %d\n", _skel_ov2_direct(&g, sk, esz, dialect));
        _skel_sbuf_str(&b, _skel_tpl_overlap2d);
        _skel_sbuf_str(&b, _skel_tpl_overlap2d_tile);
        _skel_sbuf_str(&b, _skel_tpl_overlap2d_conv);
        break;
    case SKEL_KIND_OVERLAP3D:
        _skel_sbuf_printf(&b, "#define SKEL_DD %d\n#define SKEL_DR %d\n#define SKEL_DC %d\n#define SKEL_O3W %d\n"
                          "#define SKEL_O3H %d\n#define SKEL_O3U %d\n", sk->dd, sk->dr, sk->dc, g.ov3_w, g.block / g.ov3_w,
                          g.ov3_u);
        _skel_sbuf_printf(&b, "#define SKEL_OV3P(pt, rs, ps, o) skel_u_%s_p(", sk->func_name);
        a.n = 0;
        _skel_arg_index(&a, sk->index_mode, "o", NULL, NULL);
        _skel_arg(&a, "pt");
        _skel_arg(&a, "rs");
        _skel_arg(&a, "ps");
        _skel_arg_x(&a, sk);
        _skel_sbuf_str(&b, ")\n");
        _skel_sbuf_str(&b, _skel_tpl_overlap3d);
        if (g.ov3_v) {
            _skel_sbuf_printf(&b, "#define SKEL_O3V %d\n#define SKEL_O3VU %d\n", g.ov3_v, g.ov3_vu);
            _skel_sbuf_str(&b, _skel_tpl_overlap3d_vec_head);
            _skel_sbuf_str(&b, _skel_tpl_overlap3d_vec_whole);
            _skel_sbuf_str(&b, _skel_tpl_overlap3d_vec);
            _skel_sbuf_str(&b, _skel_tpl_overlap3d_vec_part);
            _skel_sbuf_str(&b, _skel_tpl_overlap3d_vec);
        }
        break;
    case SKEL_KIND_MAPARRAY:
        _skel_sbuf_printf(&b, "#define SKEL_MACALL(v, e, i) skel_u_%s(", sk->func_name);
        a.n = 0;
        _skel_arg_index(&a, sk->index_mode, "i", NULL, NULL);
        _skel_arg(&a, "v");
        _skel_arg(&a, "e");
        _skel_arg_x(&a, sk);
        _skel_sbuf_str(&b, ")\n");
        _skel_sbuf_str(&b, _skel_tpl_maparray);
        break;
    case SKEL_KIND_MAPPAIRS:
        _skel_sbuf_printf(&b, "#define SKEL_PR %d\n#define SKEL_PCOLS(c)", g.pairs_rows);
        for (k = sk->nrow; k < sk->nin; ++k) _skel_sbuf_printf(&b, " skel_ti%d b%d = a%d[c];", k, k, k);
        _skel_sbuf_printf(&b, "\n#define SKEL_PCALL(r, c) skel_u_%s(", sk->func_name);
        a.n = 0;
        _skel_arg_index(&a, sk->index_mode, NULL, "r", "c");
        _skel_arg_elems(&a, 0, sk->nrow, "r");
        for (k = sk->nrow; k < sk->nin; ++k) _skel_arg(&a, "b%d", k);
        _skel_arg_x(&a, sk);
        _skel_sbuf_str(&b, ")\n");
        _skel_sbuf_str(&b, _skel_tpl_pairs);
        break;
    case SKEL_KIND_MAPPAIRSREDUCE:
        _skel_sbuf_printf(&b, "#define SKEL_PR_UNROLL %s\n", dialect == _SKEL_DIALECT_CUDA ? "_Pragma(\"unroll 4\")" : "");
        for (k = 0; k < 2; ++k) {   /* 0: a work-item per row, columns streamed; 1: the reverse */
            int i, mine_lo = k ? sk->nrow : 0, mine_hi = k ? sk->nin : sk->nrow;
            if (k) _skel_sbuf_str(&b, "#undef SKEL_PR_NAME\n#undef SKEL_PR_OWN\n#undef SKEL_PR_STREAM\n#undef SKEL_PR_LOCALS\n"
                                      "#undef SKEL_PR_MINE\n#undef SKEL_PR_STAGE\n#undef SKEL_PR_CALL\n");
            _skel_sbuf_printf(&b, "#define SKEL_PR_NAME %s\n#define SKEL_PR_OWN %s\n#define SKEL_PR_STREAM %s\n",
                              k ? "skel_pairs_cols" : "skel_pairs_rows", k ? "cols" : "rows", k ? "rows" : "cols");
            _skel_sbuf_str(&b, "#define SKEL_PR_LOCALS");
            for (i = 0; i < sk->nin; ++i)
                if (i < mine_lo || i >= mine_hi) _skel_sbuf_printf(&b, " SKEL_LOCAL skel_ti%d s%d[SKEL_BLOCK];", i, i);
            _skel_sbuf_str(&b, "\n#define SKEL_PR_MINE(o)");
            for (i = mine_lo; i < mine_hi; ++i) _skel_sbuf_printf(&b, " skel_ti%d m%d = a%d[o];", i, i, i);
            _skel_sbuf_str(&b, "\n#define SKEL_PR_STAGE(l, t)");
            for (i = 0; i < sk->nin; ++i)
                if (i < mine_lo || i >= mine_hi) _skel_sbuf_printf(&b, " s%d[l] = a%d[t];", i, i);
            _skel_sbuf_printf(&b, "\n#define SKEL_PR_CALL(o, t, k) skel_u_%s(", sk->func_name);
            a.n = 0;
            _skel_arg_index(&a, sk->index_mode, NULL, k ? "t" : "o", k ? "o" : "t");
            for (i = 0; i < sk->nin; ++i) {
                if (i >= mine_lo && i < mine_hi) _skel_arg(&a, "m%d", i);
                else _skel_arg(&a, "s%d[k]", i);
            }
            _skel_arg_x(&a, sk);
            _skel_sbuf_str(&b, ")\n");
            _skel_sbuf_str(&b, _skel_tpl_pairs_reduce);
        }
        break;
    default:
        SKEL_FREE(b.p);
        return _skel_fail(SKEL_EUNSUPPORTED, "kernel source: unknown skeleton kind %d", sk->kind);
    }
    if (b.failed) { SKEL_FREE(b.p); return _skel_fail(SKEL_ENOMEM, "kernel source: out of memory"); }
    *source = b.p;
    return SKEL_OK;
}

/* ---- launch plans ---- */
/* (A plan is 29 KB, nearly all of it argument slots: a step and an
   argument are set field by field as they are added, never cleared whole.
   Clearing the plan took 0.5 us of a CUDA call's 4.1 us on the H100's
   host.) */
static _skel_kstep *_skel_kstep_new(_skel_kplan *p, const char *kernel, size_t groups)
{
    _skel_kstep *s = &p->step[p->nsteps++];
    s->kernel = kernel;
    s->groups = groups ? groups : 1;
    s->local = 0;
    s->nargs = 0;
    return s;
}
static _skel_karg *_skel_karg_add(_skel_kstep *s, int kind)
{
    _skel_karg *a = &s->arg[s->nargs++];
    a->kind = kind;
    a->buf = 0;
    a->value = 0;
    return a;
}
static void _skel_karg_buf(_skel_kstep *s, int buf) { _skel_karg_add(s, _SKEL_ARG_BUF)->buf = buf; }
static void _skel_karg_num(_skel_kstep *s, int kind, int64_t v) { _skel_karg_add(s, kind)->value = v; }
static void _skel_karg_elem(_skel_kstep *s, const void *v, size_t esz)
{
    _skel_karg *a = _skel_karg_add(s, _SKEL_ARG_ELEM);
    a->value = (int64_t)esz;
    memset(a->elem, 0, esz);
    if (v) memcpy(a->elem, v, esz);
}
/* the views (a buffer and its depth, rows, cols each) and the uniform */
static void _skel_karg_x(_skel_kstep *s, const skel_skeleton *sk, const skel_call *c)
{
    int k;
    for (k = 0; k < sk->nview; ++k) {
        _skel_karg_buf(s, _SKEL_BUF_VIEW0 + k);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)c->views[k]->depth);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)c->views[k]->rows);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)c->views[k]->cols);
    }
    if (sk->has_uniform) _skel_karg_add(s, _SKEL_ARG_UNIFORM);
}
static void _skel_karg_ins(_skel_kstep *s, const skel_skeleton *sk)
{
    int i;
    for (i = 0; i < sk->nin; ++i) _skel_karg_buf(s, _SKEL_BUF_IN0 + i);
}
static size_t _skel_cdiv(size_t a, size_t b) { return (a + b - 1) / b; }

/* Work-items a group of a Map or MapArray over n elements (items each):
   the block, halved (down to a warp of 32) while that leaves fewer than 4
   groups a compute unit.  A small Map in groups of the block would run on
   a few SMs while the rest idle: on an H100, a Map of 5888 floats through
   a 32-term Taylor series took 17.7 us in groups of 128 (23 groups on 132
   SMs) and 25.3 us in groups of 512 (6 groups). */
static int _skel_map_local(size_t n, size_t items, int block, int compute_units)
{
    size_t want = (size_t)4 * (size_t)(compute_units > 0 ? compute_units : 1);
    while (block > 32 && _skel_cdiv(n, (size_t)block * items) < want) block /= 2;
    return block;
}

/* Whether call c writes in[0] in place (some output is in[0]). */
static int _skel_in_place(const skel_skeleton *sk, const skel_call *c)
{
    int k;
    for (k = 0; k < sk->nout; ++k)
        if (c->outs[k] && c->outs[k] == c->in[0]) return 1;
    return 0;
}

/* A whole Reduce/MapReduce over elements [first, n) (a split scan's
   part total too): one pass, its value into call.out (left on the device)
   or scratch 1 (call.result). */
static void _skel_plan_reduce(const skel_skeleton *sk, const skel_call *c, const _skel_kernel_geom *g, size_t maxg,
                              size_t first, size_t n, size_t R, size_t C, _skel_kplan *p)
{
    size_t esz = sk->out_t[0]()->size, len = n - first;
    size_t tiles = _skel_cdiv(len, (size_t)g->reduce_tile), groups = tiles < maxg ? tiles : maxg;
    size_t chunk = _skel_cdiv(tiles, groups ? groups : 1) * (size_t)g->reduce_tile;
    _skel_kstep *s;
    groups = _skel_cdiv(len, chunk);
    if (_skel_reduce_any_order(sk)) {   /* _skel_tpl_reduce_comm: strided, every group busy */
        size_t pv = (size_t)_skel_reduce_pieces(sk), p0 = pv ? _skel_cdiv(first, pv) : 0;
        size_t np = pv && n / pv > p0 ? n / pv - p0 : 0;     /* its whole pieces, as the kernel counts them */
        groups = _skel_cdiv(np ? np : len, (size_t)g->block);
        if (groups > maxg) groups = maxg;
        chunk = 0;
    }
    p->scratch[0] = groups * esz;
    p->scratch[1] = c->out ? 0 : esz;
    p->result = c->out ? -1 : 1;        /* into call.out: left on the device, nothing to wait for */
    p->state = 64;
    s = _skel_kstep_new(p, "skel_reduce_part", groups);
    _skel_karg_buf(s, _SKEL_BUF_SCRATCH0);
    _skel_karg_ins(s, sk);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)first);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)n);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)chunk);
    _skel_karg_buf(s, _SKEL_BUF_STATE);
    _skel_karg_buf(s, c->out ? _SKEL_BUF_OUT : _SKEL_BUF_SCRATCH0 + 1);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)R);
    _skel_karg_x(s, sk, c);
}

/* A 1-D MapOverlap pass along rows: rows [r0, r1), columns [c_lo, c_hi),
   into every output (dst _SKEL_BUF_OUT) or the rows+columns temporary. */
static void _skel_plan_ov_rows(const skel_skeleton *sk, const skel_call *c, const _skel_kernel_geom *g, int dst,
                               int src, size_t r0, size_t r1, size_t R, size_t C, size_t c_lo, size_t c_hi,
                               _skel_kplan *p)
{
    _skel_kstep *s = _skel_kstep_new(p, "skel_overlap_rows", (r1 - r0) * _skel_cdiv(c_hi - c_lo, (size_t)g->ov_tile));
    int i;
    if (dst != _SKEL_BUF_OUT) _skel_karg_buf(s, dst);
    else for (i = 0; i < sk->nout; ++i) _skel_karg_buf(s, _SKEL_BUF_OUT + i);
    _skel_karg_buf(s, src);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)r0);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)R);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)c_lo);
    _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)c_hi);
    _skel_karg_num(s, _SKEL_ARG_INT, (int64_t)c->edge);
    _skel_karg_elem(s, c->edge_value, sk->nin ? sk->in_t[0]()->size : sk->out_t[0]()->size);
    _skel_karg_x(s, sk, c);
}

/* Whether a 3D MapOverlap of cols columns takes the 16-byte kernel */
static int _skel_ov3_vec(const _skel_kernel_geom *g, size_t cols)
{
    return g->ov3_v && cols % (size_t)g->ov3_v == 0;
}

int _skel_kernel_plan(const skel_skeleton *sk, const skel_call *c, const _skel_shape *sh,
                      const _skel_kernel_opts *opts, _skel_kplan *p)
{
    _skel_kernel_opts o;
    _skel_kernel_geom g;
    _skel_kstep *s;
    size_t esz = sk->out_t[0]()->size, n = sh->n, R = sh->rows, C = sh->cols;
    size_t ie = sk->nin ? sk->in_t[0]()->size : esz;
    size_t U = _skel_unit_elems(sh), lo = sh->lo * U, hi = sh->hi * U;   /* the part, in elements */
    size_t maxg;
    int i, in0;
    _skel_kernel_opts_defaults(opts, &o);
    _skel_kernel_geometry(sk, &o, &g);
    memset(p, 0, offsetof(_skel_kplan, step));   /* (not the steps: _skel_kstep_new) */
    p->copy_in0 = p->result = -1;
    /* a MapReduce with a wider accumulator: as many groups as the device
       holds at once, each folding one long chunk (its first tile's loads
       and its fold are paid once; H100, Pearson at 2^24: 0.55 of the copy
       bandwidth in 4 waves of groups, 0.77 in one) */
    maxg = (size_t)o.compute_units * 8;
    if (_skel_reduce_wide(sk)) {
        size_t tiles = _skel_cdiv(hi - lo, (size_t)g.reduce_tile), wave;
        if (o.reduce_resident > 0) maxg = (size_t)o.compute_units * (size_t)o.reduce_resident;
        else {  /* unknown (OpenCL): SKEL_GPU_REDUCE_WIDE_GROUPS a unit, more (up to 8) once
                   chunks pass 64 tiles, for devices that hold more (NVIDIA's OpenCL on an
                   H100, 2^28: 0.77 of the copy with 2 a unit, 0.83 with 8; 2^24: 0.60, 0.48) */
            wave = (size_t)o.compute_units * SKEL_GPU_REDUCE_WIDE_GROUPS;
            maxg = tiles / 64 > wave ? tiles / 64 : wave;
            if (maxg > (size_t)o.compute_units * 8) maxg = (size_t)o.compute_units * 8;
        }
    }
    in0 = _SKEL_BUF_IN0;
    if (sh->phase == _SKEL_PHASE_TOTAL) {       /* a split scan's part: its total */
        if (hi > lo) _skel_plan_reduce(sk, c, &g, maxg, lo, hi, C, 1, p);
        return SKEL_OK;
    }
    switch (sk->kind) {
    case SKEL_KIND_MAP:
    case SKEL_KIND_MAPARRAY: {
        size_t items = sk->kind == SKEL_KIND_MAP ? (size_t)g.map_items : 1, groups, cap = (size_t)1 << 30;
        int local = _skel_map_local(hi - lo, items, g.block, o.compute_units);
        groups = _skel_cdiv(hi - lo, (size_t)local * items);
        if (hi == lo) return SKEL_OK;
        if (sk->kind == SKEL_KIND_MAPARRAY && c->out == c->in[0]) {
            p->scratch[0] = c->in[0]->n * esz;
            p->copy_in0 = 0;
            in0 = _SKEL_BUF_SCRATCH0;
        }
        s = _skel_kstep_new(p, sk->kind == SKEL_KIND_MAPARRAY ? "skel_maparray" : local < g.block ? "skel_map_small" : "skel_map",
                            groups < cap ? groups : cap);
        if (local < g.block) s->local = local;
        if (sk->kind == SKEL_KIND_MAPARRAY) {
            _skel_karg_buf(s, _SKEL_BUF_OUT);
            _skel_karg_buf(s, in0);
            _skel_karg_buf(s, _SKEL_BUF_IN0 + 1);
        } else {
            for (i = 0; i < sk->nout; ++i) _skel_karg_buf(s, _SKEL_BUF_OUT + i);
            _skel_karg_ins(s, sk);
        }
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)lo);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)hi);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)R);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
        _skel_karg_x(s, sk, c);
        return SKEL_OK;
    }
    case SKEL_KIND_REDUCE:
    case SKEL_KIND_MAPREDUCE:
        if (c->direction == SKEL_WHOLE) {
            _skel_plan_reduce(sk, c, &g, maxg, lo, hi, R, C, p);
            return SKEL_OK;
        }
        if (!c->out->n || sh->hi == sh->lo) return SKEL_OK;
        if (c->direction == SKEL_ROWS) {
            size_t rows = sh->hi - sh->lo;
            s = _skel_kstep_new(p, "skel_reduce_rows", rows < maxg * 4 ? rows : maxg * 4);
            _skel_karg_buf(s, _SKEL_BUF_OUT);
            _skel_karg_buf(s, _SKEL_BUF_IN0);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->lo);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->hi);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
            return SKEL_OK;
        } else {
            /* enough groups to fill the device: split the rows into chunks */
            size_t rows = sh->hi - sh->lo, cg = _skel_cdiv(C, (size_t)g.block), want = maxg * 4;
            size_t nch = cg >= want ? 1 : _skel_cdiv(want, cg), chunk;
            if (nch > rows / 64) nch = rows / 64 ? rows / 64 : 1;
            chunk = _skel_cdiv(rows, nch);
            nch = _skel_cdiv(rows, chunk);
            s = _skel_kstep_new(p, "skel_reduce_cols", cg * nch);
            _skel_karg_buf(s, nch > 1 ? _SKEL_BUF_SCRATCH0 : _SKEL_BUF_OUT);
            _skel_karg_buf(s, _SKEL_BUF_IN0);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->lo);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->hi);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)chunk);
            if (nch > 1) {  /* the partial rows are accumulators already */
                p->scratch[0] = nch * C * esz;
                s = _skel_kstep_new(p, "skel_reduce_cols2", cg);
                _skel_karg_buf(s, _SKEL_BUF_OUT);
                _skel_karg_buf(s, _SKEL_BUF_SCRATCH0);
                _skel_karg_num(s, _SKEL_ARG_INDEX, 0);
                _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)nch);
                _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
                _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)nch);
            }
            return SKEL_OK;
        }
    case SKEL_KIND_SCAN: {
        /* the part as rows x cols from element lo: its rows, or (a
           vector's part) its elements as one row */
        size_t rows = sh->unit == _SKEL_UNIT_ROWS ? sh->hi - sh->lo : 1, cols = sh->unit == _SKEL_UNIT_ROWS ? C : hi - lo;
        size_t tiles = rows * _skel_cdiv(cols, (size_t)g.scan_tile);
        if (hi == lo) return SKEL_OK;
        p->state = 64 + (1 + tiles) * sizeof(uint64_t);    /* after the zero word: counter, status words */
        p->state_tiles = tiles;
        p->scratch[1] = 2 * tiles * esz;
        s = _skel_kstep_new(p, "skel_scan", tiles);
        _skel_karg_buf(s, _SKEL_BUF_OUT);
        _skel_karg_buf(s, _SKEL_BUF_IN0);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)lo);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)rows);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)cols);
        _skel_karg_buf(s, _SKEL_BUF_STATE);
        _skel_karg_buf(s, _SKEL_BUF_SCRATCH0 + 1);
        _skel_karg_num(s, _SKEL_ARG_BASE, 0);
        _skel_karg_num(s, _SKEL_ARG_EPOCH, 0);
        /* 1 exclusive, 2 inclusive starting from init, 0 plain inclusive */
        _skel_karg_num(s, _SKEL_ARG_INT, c->exclusive ? 1 : c->init ? 2 : 0);
        _skel_karg_elem(s, c->init, esz);
        return SKEL_OK;
    }
    case SKEL_KIND_OVERLAP: {
        int dir = c->direction ? c->direction : SKEL_ROWS, k, nr;
        int src = _SKEL_BUF_IN0;
        size_t a[3], b[3];
        if (hi == lo) return SKEL_OK;
        if (_skel_in_place(sk, c) && (dir != SKEL_ROWS_COLS || !c->in[0]->is_matrix)) {
            p->scratch[0] = n * ie;
            p->copy_in0 = 0;
            src = _SKEL_BUF_SCRATCH0;
        }
        if (!c->in[0]->is_matrix) {             /* a vector: one row, the part's columns */
            _skel_plan_ov_rows(sk, c, &g, _SKEL_BUF_OUT, src, 0, 1, 1, C, lo, hi, p);
            return SKEL_OK;
        }
        if (dir == SKEL_ROWS) {
            _skel_plan_ov_rows(sk, c, &g, _SKEL_BUF_OUT, src, sh->lo, sh->hi, R, C, 0, C, p);
            return SKEL_OK;
        }
        if (dir == SKEL_ROWS_COLS) {            /* the rows the column pass reads, into scratch 0 */
            p->scratch[0] = n * esz;
            nr = _skel_halo(sh->lo, sh->hi, (size_t)sk->dr, R, (int)c->edge, a, b);
            for (k = 0; k < nr; ++k) _skel_plan_ov_rows(sk, c, &g, _SKEL_BUF_SCRATCH0, src, a[k], b[k], R, C, 0, C, p);
            src = _SKEL_BUF_SCRATCH0;
        }
        s = _skel_kstep_new(p, "skel_overlap_cols", _skel_cdiv(C, (size_t)g.ovc_w) * _skel_cdiv(sh->hi - sh->lo, (size_t)g.ovc_h));
        for (i = 0; i < sk->nout; ++i) _skel_karg_buf(s, _SKEL_BUF_OUT + i);
        _skel_karg_buf(s, src);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->lo);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->hi);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)R);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
        _skel_karg_num(s, _SKEL_ARG_INT, (int64_t)c->edge);
        _skel_karg_elem(s, c->edge_value, ie);
        _skel_karg_x(s, sk, c);
        return SKEL_OK;
    }
    case SKEL_KIND_OVERLAP2D:
    case SKEL_KIND_OVERLAP3D:
        if (hi == lo) return SKEL_OK;
        if (c->out == c->in[0]) {
            p->scratch[0] = n * esz;
            p->copy_in0 = 0;
            in0 = _SKEL_BUF_SCRATCH0;
        }
        if (sk->kind == SKEL_KIND_OVERLAP3D) {  /* the part's planes [sh->lo, sh->hi) */
            /* planes a group marches: SKEL_GPU_OV3_ZRUN (its window's extra
               planes cost 2 dD / zrun more reads), fewer while that leaves
               fewer than 8 groups a compute unit; a multiple of ov3_u */
            size_t tiles = _skel_cdiv(C, (size_t)g.ov3_w) * _skel_cdiv(R, (size_t)(g.block / g.ov3_w));
            size_t zrun = SKEL_GPU_OV3_ZRUN, want = (size_t)o.compute_units * 8;
            size_t planes = sh->hi - sh->lo;
            int range = 1;                      /* the kernel takes the part's first and last plane */
            while (zrun > (size_t)g.ov3_u && tiles * _skel_cdiv(planes, zrun) < want) zrun /= 2;
            if (_skel_ov3_vec(&g, C)) {         /* rows of whole 16-byte pieces */
                range = planes != sh->depth;
                tiles = _skel_cdiv(C / (size_t)g.ov3_v, (size_t)g.ov3_w) * _skel_cdiv(R, (size_t)(g.block / g.ov3_w));
                s = _skel_kstep_new(p, range ? "skel_overlap3d_vec_part" : "skel_overlap3d_vec",
                                    tiles * _skel_cdiv(planes, (size_t)g.ov3_vu));
            } else
                s = _skel_kstep_new(p, "skel_overlap3d", tiles * _skel_cdiv(planes, zrun));
            _skel_karg_buf(s, _SKEL_BUF_OUT);
            _skel_karg_buf(s, in0);
            if (range) {
                _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->lo);
                _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->hi);
            }
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->depth);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)zrun);
        } else {                                /* output rows [lo, hi) of the part */
            s = _skel_kstep_new(p, "skel_overlap2d", _skel_cdiv(C, (size_t)g.ov2_w) * _skel_cdiv(sh->hi - sh->lo, (size_t)g.ov2_h));
            _skel_karg_buf(s, _SKEL_BUF_OUT);
            _skel_karg_buf(s, in0);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->lo);
            _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->hi);
        }
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)R);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)C);
        _skel_karg_num(s, _SKEL_ARG_INT, (int64_t)c->edge);
        _skel_karg_elem(s, c->edge_value, esz);
        if (_skel_weights_by_value(sk, &o))
            _skel_karg_num(s, _SKEL_ARG_WEIGHTS, (int64_t)_skel_weights_bytes(sk));
        else if (sk->weighted) {
            _skel_karg_buf(s, _SKEL_BUF_WEIGHTS);
            p->weights_bytes = _skel_weights_bytes(sk);
        }
        _skel_karg_x(s, sk, c);
        return SKEL_OK;
    case SKEL_KIND_MAPPAIRS:            /* the part's rows [sh->lo, sh->hi) */
    case SKEL_KIND_MAPPAIRSREDUCE: {    /* its outputs [sh->lo, sh->hi): rows, or columns */
        int by_cols = sk->kind == SKEL_KIND_MAPPAIRSREDUCE && c->direction == SKEL_COLS;
        size_t own = sh->hi - sh->lo;
        if (!own || (sk->kind == SKEL_KIND_MAPPAIRS && !C)) return SKEL_OK;
        if (sk->kind == SKEL_KIND_MAPPAIRS)
            s = _skel_kstep_new(p, "skel_mappairs", _skel_cdiv(C, (size_t)g.block) * _skel_cdiv(own, (size_t)g.pairs_rows));
        else
            s = _skel_kstep_new(p, by_cols ? "skel_pairs_cols" : "skel_pairs_rows", _skel_cdiv(own, (size_t)g.block));
        _skel_karg_buf(s, _SKEL_BUF_OUT);
        _skel_karg_ins(s, sk);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)sh->lo);
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)(by_cols ? R : sh->hi));     /* rows, or rows to compute */
        _skel_karg_num(s, _SKEL_ARG_INDEX, (int64_t)(by_cols ? sh->hi : C));
        _skel_karg_x(s, sk, c);
        return SKEL_OK;
    }
    default:
        return _skel_fail(SKEL_EUNSUPPORTED, "%s: unknown skeleton kind %d", sk->name, sk->kind);
    }
}
/* ---------------------------------------------------------------------
   skeletons and dispatch: check the operands once, at the public
   boundary, then choose a variant and run it.
   --------------------------------------------------------------------- */
/* A split variant's shares refined at one context point (see splits). */
#define _SKEL_SPLIT_POINTS 8
typedef struct _skel_refine {
    uint64_t key;               /* the variant's places and plan shares, and the context point */
    double share[SKEL_MAX_PARTS];
    long calls;
    size_t moved;               /* the bytes the last call's parts copied in first */
} _skel_refine;

/* An instance is shared by every thread that calls it: its state is made
   once (under _skel_state_lock, published with _SKEL_STORE), and its plan
   is one pointer that skel_set_plan replaces atomically; backend_data is
   guarded by each backend's own lock. */
/* What skel_run's fast path needs of an instance, derived once (see "the
   fast path" below): whether its form may take it, and its operands'
   element types as built-in type ids (SKEL_NOTYPE: a struct, whose
   operands take the full check). */
typedef struct _skel_fastinfo {
    int form;                   /* 1: a Map with one output, a Reduce, a MapReduce with inputs; no views */
    skel_type in[SKEL_MAX_IN], out;
} _skel_fastinfo;

struct _skel_inst_state {
    skel_plan *plan;                            /* _SKEL_LOAD / _SKEL_STORE */
    void *backend_data[_SKEL_MAX_BACKENDS];   /* e.g. compiled kernels, per backend */
    _skel_refine refine[_SKEL_SPLIT_POINTS];  /* guarded by _skel_refine_lock */
    _skel_fastinfo fast;                        /* written before the state is published, then read-only */
};
static pthread_mutex_t _skel_state_lock = PTHREAD_MUTEX_INITIALIZER;

static void _skel_fastinfo_make(const skel_skeleton *sk, _skel_fastinfo *f)
{
    int i;
    f->form = sk->nview == 0 && ((sk->kind == SKEL_KIND_MAP && sk->nout == 1 && sk->nin > 0) ||
                                 sk->kind == SKEL_KIND_REDUCE || (sk->kind == SKEL_KIND_MAPREDUCE && sk->nin > 0));
    for (i = 0; i < sk->nin; ++i) f->in[i] = _skel_builtin_type(sk->in_t[i]());
    f->out = _skel_builtin_type(sk->out_t[0]());
}

/* The instance's mutable state, made on first use (NULL when out of memory). */
static struct _skel_inst_state *_skel_state(skel_skeleton *sk)
{
    struct _skel_inst_state *st = _SKEL_LOAD(&sk->state);
    if (st) return st;
    pthread_mutex_lock(&_skel_state_lock);
    if (!(st = sk->state) && (st = (struct _skel_inst_state *)SKEL_MALLOC(sizeof *st)) != NULL) {
        memset(st, 0, sizeof *st);
        _skel_fastinfo_make(sk, &st->fast);
        _SKEL_STORE(&sk->state, st);
    }
    pthread_mutex_unlock(&_skel_state_lock);
    return st;
}

/* The plan attached to sk now, or NULL. */
static skel_plan *_skel_plan_of(skel_skeleton *sk)
{
    struct _skel_inst_state *st = _SKEL_LOAD(&sk->state);
    return st ? _SKEL_LOAD(&st->plan) : NULL;
}

static const char *_skel_kind_name(int kind)
{
    static const char *names[] = { "?", "Map", "Reduce", "MapReduce", "Scan", "MapOverlap",
                                   "MapOverlap2D", "MapArray", "MapPairs", "MapPairsReduce", "MapOverlap3D" };
    return kind >= SKEL_KIND_MAP && kind <= _SKEL_KIND_LAST ? names[kind] : names[0];
}

static const char *_skel_shape_str(const skel_vec *v, char *buf, size_t size)
{
    if (v->dims == 3) snprintf(buf, size, "a %zu x %zu x %zu container", v->depth, v->rows, v->cols);
    else if (v->is_matrix) snprintf(buf, size, "a %zu x %zu matrix", v->rows, v->cols);
    else snprintf(buf, size, "a vector of %zu", v->n);
    return buf;
}

static const char *_skel_tname(const skel_type_info *ti) { return ti ? ti->name : "an invalid type"; }

/* operand `what` must have type t and, if ref is given, ref's shape
   (ref_what names it) */
static int _skel_check_operand_as(const skel_skeleton *sk, const char *what, const skel_vec *v,
                                  _skel_tref t, const skel_vec *ref, const char *ref_what)
{
    char a[64], b[64];
    const skel_type_info *have, *want = t();
    if (!v) return _skel_fail(SKEL_EINVAL, "%s %s: %s is NULL", _skel_kind_name(sk->kind), sk->name, what);
    have = skel_type_get(v->type);
    if (!_skel_type_same(have, want))
        return _skel_fail(SKEL_ETYPE, "%s %s: %s holds %s, the instance needs %s%s", _skel_kind_name(sk->kind),
                          sk->name, what, _skel_tname(have), want->name,
                          have && want->is_struct && have->is_struct && !strcmp(have->name, want->name)
                              ? " (a struct of that name declared differently)" : "");
    if (ref && ref->dims != v->dims)
        return _skel_fail(SKEL_ESHAPE, "%s %s: %s is %s but %s is %s", _skel_kind_name(sk->kind), sk->name,
                          what, _skel_shape_str(v, a, sizeof a), ref_what, _skel_shape_str(ref, b, sizeof b));
    if (ref && (ref->rows != v->rows || ref->cols != v->cols || ref->depth != v->depth))
        return _skel_fail(SKEL_ESIZE, "%s %s: %s is %s but %s is %s", _skel_kind_name(sk->kind), sk->name,
                          what, _skel_shape_str(v, a, sizeof a), ref_what, _skel_shape_str(ref, b, sizeof b));
    return SKEL_OK;
}


static int _skel_check_operand(const skel_skeleton *sk, const char *what, const skel_vec *v,
                               _skel_tref t, const skel_vec *ref)
{
    return _skel_check_operand_as(sk, what, v, t, ref, "in[0]");
}

static int _skel_check_overlap(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    const skel_vec *in = c->in[0];
    int dir = c->direction;
    const char *kn = _skel_kind_name(sk->kind);
    if ((unsigned)c->edge > SKEL_EDGE_DUPLICATE) _SKEL_BAD(SKEL_EINVAL, "%s %s: unknown edge policy %d", kn, sk->name, (int)c->edge);
    if (sk->kind == SKEL_KIND_OVERLAP3D) {
        if (in->dims != 3) _SKEL_BAD(SKEL_ESHAPE, "%s %s: in[0] must be a 3-D container (skel_ten_new)", kn, sk->name);
        if (in->n && ((size_t)sk->dd > in->depth || (size_t)sk->dr > in->rows || (size_t)sk->dc > in->cols))
            _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d x %d x %d is wider than the %zu x %zu x %zu container", kn, sk->name,
                      sk->dd, sk->dr, sk->dc, in->depth, in->rows, in->cols);
        /* context point: planes x rows as rows, and columns */
        sh->dims = 2; sh->point[0] = in->depth * in->rows; sh->point[1] = in->cols;
        return SKEL_OK;
    }
    if (sk->kind == SKEL_KIND_OVERLAP2D) {
        if (!in->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "%s %s: in[0] must be a matrix, got %s", kn, sk->name,
                                      in->dims == 3 ? "a 3-D container" : "a vector");
        if (in->n && ((size_t)sk->dr > in->rows || (size_t)sk->dc > in->cols))
            _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d x %d is wider than the %zu x %zu matrix", kn, sk->name,
                      sk->dr, sk->dc, in->rows, in->cols);
        if (sk->weighted && !c->weights) _SKEL_BAD(SKEL_EINVAL, "%s %s: weighted instance needs call.weights", kn, sk->name);
        sh->dims = 2; sh->point[0] = in->rows; sh->point[1] = in->cols;
        return SKEL_OK;
    }
    if (in->dims == 3) _SKEL_BAD(SKEL_ESHAPE, "%s %s: a 3-D container needs MapOverlap3D", kn, sk->name);
    if (!in->is_matrix && dir != SKEL_WHOLE)
        _SKEL_BAD(SKEL_ESHAPE, "%s %s: direction %d needs a matrix, in[0] is a vector", kn, sk->name, dir);
    if (dir < SKEL_WHOLE || dir > SKEL_ROWS_COLS) _SKEL_BAD(SKEL_EINVAL, "%s %s: unknown direction %d", kn, sk->name, dir);
    if (dir == SKEL_ROWS_COLS && (sk->nout > 1 || !_skel_type_same(sk->out_t[0](), sk->in_t[0]())))
        _SKEL_BAD(SKEL_EUNSUPPORTED, "%s %s: rows then columns feeds the first pass's result to the second: "
                  "it needs one output of the input's type", kn, sk->name);
    if (in->n && (dir != SKEL_COLS) && (size_t)sk->dr > in->cols)
        _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d is wider than the %zu elements it runs along", kn, sk->name, sk->dr, in->cols);
    if (in->n && (dir == SKEL_COLS || dir == SKEL_ROWS_COLS) && (size_t)sk->dr > in->rows)
        _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d is taller than the %zu rows it runs along", kn, sk->name, sk->dr, in->rows);
    if (in->is_matrix) { sh->dims = 2; sh->point[0] = in->rows; sh->point[1] = in->cols; }
    return SKEL_OK;
}

static int _skel_check_reduce(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    const skel_vec *in = c->in[0];
    const char *kn = _skel_kind_name(sk->kind);
    int dir = c->direction;
    if (sk->kind == SKEL_KIND_MAPREDUCE && dir != SKEL_WHOLE)
        _SKEL_BAD(SKEL_EUNSUPPORTED, "%s %s: MapReduce reduces whole only (direction 0), on every backend", kn, sk->name);
    if (c->count && sk->nin)
        _SKEL_BAD(SKEL_EINVAL, "%s %s: call.count is for MapReduce without inputs", kn, sk->name);
    if (dir == SKEL_WHOLE) {
        if (c->result && c->out)
            _SKEL_BAD(SKEL_EINVAL, "%s %s: a whole reduction writes call.result or call.out, not both", kn, sk->name);
        if (!c->result && !c->out)
            _SKEL_BAD(SKEL_EINVAL, "%s %s: call.result is NULL (or give call.out, a 1-element vector)", kn, sk->name);
        if (c->out) {
            _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], NULL));
            if (c->out->dims != 1 || c->out->n != 1)
                _SKEL_BAD(SKEL_ESIZE, "%s %s: call.out of a whole reduction must be a 1-element vector, got %zu elements",
                          kn, sk->name, c->out->n);
        }
        if (sh->n == 0) _SKEL_BAD(SKEL_EEMPTY, "%s %s: reduction of an empty %s has no value", kn, sk->name,
                                  sk->nin ? "container" : "index range (call.count, or call.rows x call.cols, is 0)");
        return SKEL_OK;
    }
    if (dir != SKEL_ROWS && dir != SKEL_COLS) _SKEL_BAD(SKEL_EINVAL, "%s %s: unknown direction %d", kn, sk->name, dir);
    if (!in->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "%s %s: row/column reduction needs a matrix, in[0] is %s", kn, sk->name,
                                  in->dims == 3 ? "a 3-D container" : "a vector");
    if (!c->out) _SKEL_BAD(SKEL_EINVAL, "%s %s: row/column reduction needs call.out", kn, sk->name);
    _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], NULL));
    if (c->out->dims != 1) _SKEL_BAD(SKEL_ESHAPE, "%s %s: call.out must be a vector", kn, sk->name);
    if (c->out->n != (dir == SKEL_ROWS ? in->rows : in->cols))
        _SKEL_BAD(SKEL_ESIZE, "%s %s: call.out has %zu elements, needs %zu", kn, sk->name, c->out->n,
                  dir == SKEL_ROWS ? in->rows : in->cols);
    if (c->out->n && (dir == SKEL_ROWS ? in->cols : in->rows) == 0)
        _SKEL_BAD(SKEL_EEMPTY, "%s %s: the %s to reduce are empty", kn, sk->name, dir == SKEL_ROWS ? "rows" : "columns");
    sh->dims = 2; sh->point[0] = in->rows; sh->point[1] = in->cols;
    return SKEL_OK;
}

/* The index grid of an index-only MapReduce: call.count (1 x count), or
   call.rows x call.cols, which a 2-D index function needs (with count
   alone every row index would be 0). */
static int _skel_check_index_grid(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    const char *kn = _skel_kind_name(sk->kind);
    if (c->rows || c->cols) {
        if (c->count) _SKEL_BAD(SKEL_EINVAL, "%s %s: give call.count or call.rows x call.cols, not both", kn, sk->name);
        if (c->cols && c->rows > SIZE_MAX / c->cols)
            _SKEL_BAD(SKEL_EINVAL, "%s %s: %zu x %zu indices overflow", kn, sk->name, c->rows, c->cols);
        sh->rows = c->rows;
        sh->cols = c->cols;
    } else {
        if (sk->index_mode == 2 && c->count)
            _SKEL_BAD(SKEL_EINVAL, "%s %s: a 2-D index function (SKEL_INDEX2D) needs call.rows and call.cols; "
                      "call.count has no rows", kn, sk->name);
        sh->rows = 1;
        sh->cols = c->count;
    }
    sh->n = sh->point[0] = sh->rows * sh->cols;
    sh->dims = sh->depth = sh->flex = 1;        /* a 2-D plan answers at rows x cols */
    return _skel_check_reduce(sk, c, sh);
}

static int _skel_mem_overlap(const skel_vec *a, const skel_vec *b)
{
    uintptr_t alo, blo;
    if (!a || !b || a == b || !a->n || !b->n) return 0;
    alo = (uintptr_t)a->host;
    blo = (uintptr_t)b->host;
    return alo < blo + b->n * b->esz && blo < alo + a->n * a->esz;
}

/* Different containers a call both reads and writes may not share memory
   (wrapped buffers): the call would read what it already wrote, and the
   two would hold diverging copies on a GPU.  The same container for input
   and output is the in-place call (a view is never written: the same
   container as an output is refused by _skel_check_views). */
static int _skel_check_overlaps(const skel_skeleton *sk, const skel_call *c)
{
    static const char *onames[SKEL_MAX_OUT] = { "out", "outs[1]", "outs[2]", "outs[3]" };
    int i, k;
    for (k = 0; k < SKEL_MAX_OUT; ++k) {
        const skel_vec *o = c->outs[k];
        if (!o || !o->n) continue;
        for (i = 0; i < SKEL_MAX_IN; ++i)
            if (_skel_mem_overlap(o, c->in[i]))
                _SKEL_BAD(SKEL_EINVAL, "%s %s: %s and in[%d] are different containers over overlapping memory (wrapped "
                          "buffers); an in-place call passes one container as both", _skel_kind_name(sk->kind),
                          sk->name, onames[k], i);
        for (i = 0; i < SKEL_MAX_VIEWS; ++i)
            if (_skel_mem_overlap(o, c->views[i]))
                _SKEL_BAD(SKEL_EINVAL, "%s %s: %s and views[%d] are different containers over overlapping memory "
                          "(wrapped buffers)", _skel_kind_name(sk->kind), sk->name, onames[k], i);
        for (i = 0; i < k; ++i)
            if (_skel_mem_overlap(o, c->outs[i]))
                _SKEL_BAD(SKEL_EINVAL, "%s %s: %s and %s are different containers over overlapping memory "
                          "(wrapped buffers)", _skel_kind_name(sk->kind), sk->name, onames[i], onames[k]);
    }
    return SKEL_OK;
}

/* MapPairs / MapPairsReduce: row operands of one length R, column operands
   of one length C; the result is R x C, or R (rows) / C (columns) reduced. */
static int _skel_check_pairs(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    static const char *names[SKEL_MAX_IN] = { "in[0]", "in[1]", "in[2]", "in[3]" };
    const char *kn = _skel_kind_name(sk->kind);
    const skel_vec *rref = sk->nrow ? c->in[0] : NULL, *cref = sk->nrow < sk->nin ? c->in[sk->nrow] : NULL;
    size_t R, C;
    int i, dir = c->direction;
    for (i = 0; i < sk->nin; ++i) {
        const skel_vec *ref = i < sk->nrow ? rref : cref;
        _SKEL_TRY(_skel_check_operand(sk, names[i], c->in[i], sk->in_t[i], NULL));
        if (c->in[i]->dims != 1) _SKEL_BAD(SKEL_ESHAPE, "%s %s: %s must be a vector", kn, sk->name, names[i]);
        if (c->in[i]->n != ref->n)
            _SKEL_BAD(SKEL_ESIZE, "%s %s: %s has %zu elements, the other %s operands %zu", kn, sk->name, names[i],
                      c->in[i]->n, i < sk->nrow ? "row" : "column", ref->n);
    }
    /* without operands on a side, the result's shape gives its length */
    if (!c->out) _SKEL_BAD(SKEL_EINVAL, "%s %s: needs call.out", kn, sk->name);
    _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], NULL));
    if (sk->kind == SKEL_KIND_MAPPAIRS) {
        if (!c->out->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "%s %s: call.out must be a matrix", kn, sk->name);
        R = rref ? rref->n : c->out->rows;
        C = cref ? cref->n : c->out->cols;
        if (c->out->rows != R || c->out->cols != C)
            _SKEL_BAD(SKEL_ESIZE, "%s %s: call.out is %zu x %zu, the operands make %zu x %zu", kn, sk->name,
                      c->out->rows, c->out->cols, R, C);
    } else {
        if (dir != SKEL_ROWS && dir != SKEL_COLS)
            _SKEL_BAD(SKEL_EINVAL, "%s %s: direction must be SKEL_ROWS or SKEL_COLS, got %d", kn, sk->name, dir);
        if (c->out->dims != 1) _SKEL_BAD(SKEL_ESHAPE, "%s %s: call.out must be a vector", kn, sk->name);
        if (!rref || !cref) _SKEL_BAD(SKEL_EINVAL, "%s %s: needs row and column operands", kn, sk->name);
        R = rref->n;
        C = cref->n;
        if (c->out->n != (dir == SKEL_ROWS ? R : C))
            _SKEL_BAD(SKEL_ESIZE, "%s %s: call.out has %zu elements, needs %zu", kn, sk->name, c->out->n,
                      dir == SKEL_ROWS ? R : C);
        if (c->out->n && (dir == SKEL_ROWS ? C : R) == 0)
            _SKEL_BAD(SKEL_EEMPTY, "%s %s: the %s to reduce are empty", kn, sk->name, dir == SKEL_ROWS ? "rows" : "columns");
    }
    sh->rows = R; sh->cols = C; sh->n = R * C; sh->depth = 1;
    sh->dims = 2; sh->point[0] = R; sh->point[1] = C;
    return SKEL_OK;
}

/* views: any shape, the instance's types; none may be written by the call */
static int _skel_check_views(const skel_skeleton *sk, const skel_call *c)
{
    static const char *names[SKEL_MAX_VIEWS] = { "views[0]", "views[1]", "views[2]", "views[3]" };
    int i, k;
    for (i = sk->nview; i < SKEL_MAX_VIEWS; ++i)
        if (c->views[i]) _SKEL_BAD(SKEL_EINVAL, "%s %s: takes %d view(s), views[%d] is set", _skel_kind_name(sk->kind),
                                   sk->name, sk->nview, i);
    for (i = 0; i < sk->nview; ++i) {
        _SKEL_TRY(_skel_check_operand(sk, names[i], c->views[i], sk->view_t[i], NULL));
        for (k = 0; k < SKEL_MAX_OUT; ++k)
            if (c->outs[k] == c->views[i])
                _SKEL_BAD(SKEL_EINVAL, "%s %s: views[%d] is also output %d: a view is read-only during the call",
                          _skel_kind_name(sk->kind), sk->name, i, k);
    }
    return SKEL_OK;
}

/* outputs 1.. of a several-output instance (output 0 is checked with the
   skeleton): each with its type and the shape of output 0, all distinct */
static int _skel_check_outs(const skel_skeleton *sk, const skel_call *c)
{
    static const char *names[SKEL_MAX_OUT] = { "outs[0]", "outs[1]", "outs[2]", "outs[3]" };
    int i, k;
    for (i = sk->nout; i < SKEL_MAX_OUT; ++i)
        if (c->outs[i]) _SKEL_BAD(SKEL_EINVAL, "%s %s: has %d output(s), outs[%d] is set", _skel_kind_name(sk->kind),
                                  sk->name, sk->nout, i);
    for (i = 1; i < sk->nout; ++i) {
        if (!c->outs[i]) _SKEL_BAD(SKEL_EINVAL, "%s %s: has %d outputs, outs[%d] is NULL", _skel_kind_name(sk->kind),
                                   sk->name, sk->nout, i);
        _SKEL_TRY(_skel_check_operand_as(sk, names[i], c->outs[i], sk->out_t[i], c->outs[0], "the first output"));
        for (k = 0; k < i; ++k)
            if (c->outs[k] == c->outs[i])
                _SKEL_BAD(SKEL_EINVAL, "%s %s: outs[%d] and outs[%d] are the same container", _skel_kind_name(sk->kind),
                          sk->name, k, i);
    }
    return SKEL_OK;
}

static int _skel_check_operands(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh);

/* Check every operand of a call; fill the shape. No container is touched.
   The call is normalised first (_skel_call_norm): out == outs[0]. */
static int _skel_check_ops(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    _SKEL_TRY(_skel_check_operands(sk, c, sh));
    return _skel_check_overlaps(sk, c);
}

static int _skel_check_operands(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    static const char *names[SKEL_MAX_IN] = { "in[0]", "in[1]", "in[2]", "in[3]" };
    const char *kn;
    const skel_vec *ref;
    int i;
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_run: NULL skeleton instance");
    if (sk->kind < SKEL_KIND_MAP || sk->kind > _SKEL_KIND_LAST)
        _SKEL_BAD(SKEL_EINVAL, "skel_run: %s is not a skeleton instance (kind %d)", sk->name ? sk->name : "?", sk->kind);
    kn = _skel_kind_name(sk->kind);
    if (!c) return _skel_fail(SKEL_EINVAL, "%s %s: NULL call", kn, sk->name);
    if (sk->has_uniform && !c->uniform) _SKEL_BAD(SKEL_EINVAL, "%s %s: needs a uniform argument (%s)", kn, sk->name, sk->uniform_type);
    if (!sk->has_uniform && c->uniform) _SKEL_BAD(SKEL_EINVAL, "%s %s: takes no uniform argument", kn, sk->name);
    for (i = sk->nin; i < SKEL_MAX_IN; ++i)
        if (c->in[i]) _SKEL_BAD(SKEL_EINVAL, "%s %s: takes %d input(s), in[%d] is set", kn, sk->name, sk->nin, i);
    if ((c->rows || c->cols) && !(sk->nin == 0 && sk->kind == SKEL_KIND_MAPREDUCE))
        _SKEL_BAD(SKEL_EINVAL, "%s %s: call.rows and call.cols are for a MapReduce without inputs", kn, sk->name);
    _SKEL_TRY(_skel_check_outs(sk, c));
    _SKEL_TRY(_skel_check_views(sk, c));
    memset(sh, 0, sizeof *sh);
    if (sk->kind == SKEL_KIND_MAPPAIRS || sk->kind == SKEL_KIND_MAPPAIRSREDUCE) return _skel_check_pairs(sk, c, sh);
    if (sk->kind == SKEL_KIND_MAPARRAY) {
        _SKEL_TRY(_skel_check_operand(sk, "in[0]", c->in[0], sk->in_t[0], NULL));
        _SKEL_TRY(_skel_check_operand(sk, "in[1]", c->in[1], sk->in_t[1], NULL));
        if (c->in[0]->dims != 1) _SKEL_BAD(SKEL_ESHAPE, "MapArray %s: in[0] must be a vector", sk->name);
        ref = c->in[1];
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], ref));
        sh->dims = 2; sh->point[0] = c->in[0]->n; sh->point[1] = ref->n;
    } else if (sk->nin == 0 && sk->kind == SKEL_KIND_MAPREDUCE) {
        return _skel_check_index_grid(sk, c, sh);
    } else if (sk->nin == 0) {
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], NULL));
        ref = c->out;
    } else {
        ref = c->in[0];
        for (i = 0; i < sk->nin; ++i)
            _SKEL_TRY(_skel_check_operand(sk, names[i], c->in[i], sk->in_t[i], i ? ref : NULL));
    }
    sh->n = ref->n; sh->depth = ref->depth; sh->rows = ref->rows; sh->cols = ref->cols;
    sh->dims = sh->dims ? sh->dims : 1;
    if (sh->dims == 1) sh->point[0] = ref->n;
    sh->flex = sk->kind == SKEL_KIND_MAP || sk->kind == SKEL_KIND_SCAN || sk->kind == SKEL_KIND_MAPREDUCE;
    switch (sk->kind) {
    case SKEL_KIND_MAP:
        if (sk->nin) _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], ref));
        return SKEL_OK;
    case SKEL_KIND_MAPARRAY:
        return SKEL_OK;
    case SKEL_KIND_REDUCE:
    case SKEL_KIND_MAPREDUCE:
        return _skel_check_reduce(sk, c, sh);
    case SKEL_KIND_SCAN:
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], ref));
        if (ref->dims == 3) _SKEL_BAD(SKEL_ESHAPE, "Scan %s: scans vectors and matrix rows, not 3-D containers", sk->name);
        if (c->direction != SKEL_WHOLE && c->direction != SKEL_ROWS)
            _SKEL_BAD(c->direction == SKEL_COLS ? SKEL_EUNSUPPORTED : SKEL_EINVAL,
                      "Scan %s: direction %d: a matrix scans row-wise only, on every backend", sk->name, c->direction);
        if (c->direction == SKEL_ROWS && !ref->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "Scan %s: SKEL_ROWS needs a matrix", sk->name);
        if (c->exclusive && !c->init) _SKEL_BAD(SKEL_EINVAL, "Scan %s: an exclusive scan needs call.init", sk->name);
        return SKEL_OK;
    case SKEL_KIND_OVERLAP:
    case SKEL_KIND_OVERLAP2D:
    case SKEL_KIND_OVERLAP3D:
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_t[0], ref));
        return _skel_check_overlap(sk, c, sh);
    default:
        _SKEL_BAD(SKEL_EINVAL, "skel_run: %s is not a skeleton instance (kind %d)", sk->name ? sk->name : "?", sk->kind);
    }
}

/* The parallel CPU backend of the default and of SKEL_FALLBACK: pool,
   else omp, else seq. */
static int _skel_cpu_parallel_backend(void)
{
    return _skel_env.pool_backend >= 0 ? _skel_env.pool_backend : _skel_env.omp_backend >= 0 ? _skel_env.omp_backend : 0;
}

/* The size a range plan or the default looks at: a 1-D point, or the
   product of a 2-D one, saturated at SIZE_MAX ({2^33, 2^33} must not wrap
   to a small size). */
static size_t _skel_point_size(const size_t *point, int dims)
{
    if (dims == 1) return point[0];
    return point[1] && point[0] > SIZE_MAX / point[1] ? SIZE_MAX : point[0] * point[1];
}

/* The call as the backends see it: out and outs[0] name the same
   container (an instance with several outputs may leave out NULL).  A
   call that sets out and another outs[0] is refused. */
static int _skel_call_norm(const skel_skeleton *sk, const skel_call *call, skel_call *c)
{
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_run: NULL skeleton instance");
    if (!call) return _skel_fail(SKEL_EINVAL, "%s %s: NULL call", _skel_kind_name(sk->kind), sk->name ? sk->name : "?");
    *c = *call;
    if (c->out && c->outs[0] && c->out != c->outs[0])
        return _skel_fail(SKEL_EINVAL, "%s %s: call.out and call.outs[0] name different containers",
                          _skel_kind_name(sk->kind), sk->name);
    if (!c->out) c->out = c->outs[0];
    c->outs[0] = c->out;
    return SKEL_OK;
}
/* The unit a call splits in and how many there are (SPLIT CALLS): rows
   for row / column reductions, matrix scans, matrix MapOverlaps,
   MapOverlap2D and MapPairs; a MapPairsReduce's outputs (rows or
   columns); MapOverlap3D's planes; elements for the rest. */
static void _skel_split_unit(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    int rows = (sk->kind == SKEL_KIND_REDUCE && c->direction != SKEL_WHOLE) ||
               (sk->kind == SKEL_KIND_SCAN && sh->rows > 1) || sk->kind == SKEL_KIND_OVERLAP2D ||
               (sk->kind == SKEL_KIND_OVERLAP && c->in[0]->is_matrix) || sk->kind == SKEL_KIND_MAPPAIRS;
    sh->unit = rows ? _SKEL_UNIT_ROWS : _SKEL_UNIT_ELEMS;
    sh->units = rows ? sh->rows : sk->kind == SKEL_KIND_MAPPAIRSREDUCE ? c->out->n : sh->n;
    if (sk->kind == SKEL_KIND_OVERLAP3D) {
        sh->unit = _SKEL_UNIT_PLANES;
        sh->units = sh->depth;
    }
    sh->lo = 0;
    sh->hi = sh->units;
    sh->phase = _SKEL_PHASE_RUN;
}

static int _skel_check(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    _SKEL_TRY(_skel_check_ops(sk, c, sh));
    _skel_split_unit(sk, c, sh);
    return SKEL_OK;
}

/* The default CPU backend for a call of `size` elements: seq, or the
   parallel CPU backend from the threshold. */
static int _skel_default_cpu(size_t size)
{
    return size >= (size_t)_skel_env.omp_threshold ? _skel_cpu_parallel_backend() : 0;
}

/* The default variant without a plan (see BACKENDS at the top). */
static void _skel_choose_default(const skel_call *c, const _skel_shape *sh, _skel_variant *v)
{
    int i, s;
    size_t size = _skel_point_size(sh->point, sh->dims);
    /* data already on a GPU stays there */
    for (i = 0; i < SKEL_MAX_IN && c->in[i]; ++i)
        if (!_skel_map_valid(c->in[i], 0))
            for (s = 0; s < _SKEL_LOAD(&_skel_nbackends); ++s)
                if (_skel_backends[s].is_gpu && _skel_map_valid(c->in[i], _skel_backends[s].space)) {
                    v->backend = s;
                    return;
                }
    v->backend = _skel_default_cpu(size);
}

/* execution plans (defined with the plans, below) */
static int _skel_plan_pick(const skel_plan *p, const _skel_shape *sh, _skel_variant *v);
static const _skel_variant *_skel_plan_variant(const skel_plan *p, const _skel_shape *sh, _skel_variant *buf);
static const _skel_variant *_skel_plan_range(const skel_plan *p, size_t n);
static int _skel_plan_tree(const skel_plan *p);
static int _skel_plan_at(const skel_plan *p, const _skel_shape *sh, int place, _skel_variant *v, double *time);
static void _skel_group_apply(int group, _skel_variant *v);

/* The variant a call runs at place p: the plan's best there, else the
   place's default (see "places"). */
static int _skel_choose_at(skel_skeleton *sk, const _skel_shape *sh, int p, _skel_variant *v)
{
    size_t size = sh->dims == 1 ? sh->point[0] : sh->point[0] * sh->point[1];
    skel_plan *plan = _skel_plan_of(sk);
    double t;
    memset(v, 0, sizeof *v);
    if (plan && _skel_plan_at(plan, sh, p, v, &t)) return SKEL_OK;
    memset(v, 0, sizeof *v);
    v->backend = p > 0 ? _skel_place_backend(p) : _skel_default_cpu(size);
    v->device = p > 0 ? _skel_spaces[p].device : 0;
    if (v->backend < 0)
        return _skel_fail(SKEL_EBACKEND, "%s %s: place %d (%s) has no backend", _skel_kind_name(sk->kind), sk->name, p,
                          _skel_place_name(p));
    return SKEL_OK;
}

/* Which variant runs this call: SKEL_BACKEND, else the plan (at the call's
   context point), else the default; then a bulk group's memory space;
   then this thread's place binding. */
static int _skel_choose(skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, _skel_variant *v)
{
    skel_plan *plan;
    int bound = _skel_place_bound();
    memset(v, 0, sizeof *v);
    if (_skel_env.forced == -2) {
        char why[300];
        return _skel_fail(SKEL_EBACKEND, "SKEL_BACKEND=%s: backend %s", _skel_env.forced_name,
                          _skel_backend_why(_skel_env.forced_name, why, sizeof why));
    }
    if (_skel_env.forced >= 0 && (bound < 0 || _skel_place_of(_skel_env.forced, 0) == bound)) {
        v->backend = _skel_env.forced;
        if (v->backend == _skel_env.split_backend) _skel_split_default(v);   /* SKEL_BACKEND=split: every place */
        if (bound < 0 || v->backend != _skel_env.split_backend) return SKEL_OK;
    }
    if (!((plan = _skel_plan_of(sk)) && _skel_plan_pick(plan, sh, v)))
        _skel_choose_default(c, sh, v);
    if (c->group) _skel_group_apply(c->group, v);
    /* a thread bound to a place computes there alone: no split either */
    if (bound >= 0 && (_skel_place_of(v->backend, v->device) != bound || v->backend == _skel_env.split_backend))
        return _skel_choose_at(sk, sh, bound, v);
    return SKEL_OK;
}

int skel_choose(skel_skeleton *sk, const skel_call *call, skel_variant *out)
{
    _skel_shape sh;
    _skel_variant v;
    skel_call c;
    _skel_init();
    if (!out) return _skel_fail(SKEL_EINVAL, "skel_choose: NULL out");
    _SKEL_TRY(_skel_call_norm(sk, call, &c));
    _SKEL_TRY(_skel_check(sk, &c, &sh));
    _SKEL_TRY(_skel_choose(sk, &c, &sh, &v));
    _skel_variant_public(&v, out);
    return SKEL_OK;
}

/* SKEL_FALLBACK=1: a call a GPU backend could not run (out of device
   memory, a device error) runs again on the CPU: omp when present, else
   seq.  The GPU backends leave every container valid when they fail, so
   the CPU run sees the caller's data.  Compile errors are not retried:
   they are the user's to fix. */
void _skel_test_fallback(int on) { _skel_init(); _skel_env.fallback = on; }
/* Run part sh of checked call c on variant v and record its writes in
   the outputs' maps at the place it ran (a split records its parts' own). */
static int _skel_run_variant(skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, const _skel_variant *v)
{
    const _skel_backend *b = &_skel_backends[v->backend];
    _skel_variant split;
    int rc;
    if (b->is_gpu && v->devices > 1) {
        _skel_split_devices(v, &split);
        return _skel_split_run(&_skel_backends[split.backend], &split, sk, c, sh);
    }
    if ((rc = b->run(b, v, sk, c, sh)) != SKEL_OK || v->backend == _skel_env.split_backend) return rc;
    _skel_part_written(sk, c, sh, _skel_place_of(v->backend, v->device));
    return SKEL_OK;
}

static int _skel_fall_back(skel_skeleton *sk, const skel_call *call, const _skel_shape *sh, const char *gpu, int rc)
{
    _skel_variant v;
    char why[sizeof _skel_errbuf];
    memset(&v, 0, sizeof v);
    v.backend = _skel_cpu_parallel_backend();
    memcpy(why, _skel_errbuf, sizeof why);     /* the log call below may overwrite it */
    _skel_log(SKEL_LOG_WARN, "%s %s: %s failed (%s: %s); running it on %s (SKEL_FALLBACK)", _skel_kind_name(sk->kind),
              sk->name, gpu, skel_error_string(rc), why, _skel_backends[v.backend].name);
    return _skel_run_variant(sk, call, sh, &v);
}

/* After the tasks submitted before the call (see "tasks"): wait for its
   operands; an input or view whose writer failed stops it.  An output's
   earlier failure stops it only where it is read too (in place); it is
   otherwise replaced. */
static int _skel_tasks_settle_call(const skel_skeleton *sk, const skel_call *c)
{
    int orc[SKEL_MAX_OUT], i, k;
    for (k = 0; k < SKEL_MAX_OUT; ++k) orc[k] = c->outs[k] ? _skel_tasks_settle(c->outs[k], _SKEL_READWRITE) : SKEL_OK;
    for (i = 0; i < sk->nin; ++i) {
        for (k = 0; k < SKEL_MAX_OUT && !(c->in[i] == c->outs[k] && orc[k] == SKEL_OK); ++k) {}
        if (c->in[i] && k == SKEL_MAX_OUT) _SKEL_TRY(_skel_tasks_settle(c->in[i], _SKEL_READ));
    }
    for (i = 0; i < sk->nview; ++i)
        if (c->views[i]) _SKEL_TRY(_skel_tasks_settle(c->views[i], _SKEL_READ));
    return SKEL_OK;
}

/* Run checked call c, its operands settled, on variant v. */
static int _skel_run_chosen(skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, const _skel_variant *v)
{
    const _skel_backend *b = &_skel_backends[v->backend];
    int rc, i;
    /* empty data (a 2^64 x 0 matrix has rows, but no element): nothing to
       compute, and nothing to loop over */
    if (sh->n == 0) rc = SKEL_OK;
    else {
        if (_skel_verbose >= 2)
            _skel_log(SKEL_LOG_DEBUG, "%s %s: %zu elements on %s", _skel_kind_name(sk->kind), sk->name, sh->n, b->name);
        rc = _skel_run_variant(sk, c, sh, v);
        if (rc != SKEL_OK && (b->is_gpu || v->backend == _skel_env.split_backend) && _skel_env.fallback &&
            (rc == SKEL_ENOMEM || rc == SKEL_EDEVICE))
            rc = _skel_fall_back(sk, c, sh, b->name, rc);
    }
    for (i = 0; rc == SKEL_OK && i < sk->nout; ++i)     /* written: an earlier failure is replaced */
        if (c->outs[i]) _skel_tasks_clear(c->outs[i]);
    return rc;
}

/* ---- the fast path of skel_run -----------------------------------------
   Most calls are a Map, a whole Reduce or a MapReduce of data the host
   holds, on a CPU variant.  On small data the full path cost more than
   the work (a callgrind count, 16-element seq calls: 1500-1900
   instructions a call, in the checks, the normalised copy of the call,
   each operand's map read three times and an output's lock taken twice):
   a 2^10-float sum ran at 0.3-0.6 of an `omp simd` loop.  The fast path
   takes a call only where the full path would do nothing more than check
   it, pick its variant and run it in one piece:
     - the instance: one of those forms, no views, built-in types (its
       _skel_fastinfo, derived once with its state);
     - the call: checked field by field against it (any doubt, an error
       included, is left to the full path, which names it);
     - no SKEL_BACKEND, no place binding, no bulk group, SKEL_VERBOSE < 2;
     - every operand valid on the host and never named by a task (no
       task state: nothing to wait for, no failure to clear); the output
       valid on the host alone, so writing it there changes no map: no
       lock is taken and no map is touched (THREADS: an output belongs to
       its call, and readers of a map without the lock read its summary,
       which stays as it is);
     - a variant (the plan's, else the default's, as _skel_choose) of a
       CPU backend whose call is one chunk (seq; the pool under two
       chunks): the instance's function runs here on the whole range.
   Otherwise a call the fast path checked goes on through _skel_run_chosen
   (no check again), and one it did not take through the full path, with
   nothing changed.  Results are the bits the full path gives (the same
   function on the same range).  The shorthands (skel_map1, skel_reduce,
   skel_mapreduce2, ...) set only operands and a result, so they take the
   fast path without making a skel_call or checking its other fields, and
   a plan of size ranges is looked up by the size alone: a call that runs
   here costs about 230 instructions besides its work (callgrind, a
   16-element sum or dot on seq through a plan; 320 before, and 1500-1900
   before the fast path), about 10 ns on the 2-vCPU VM. */
#define _SKEL_FULL_PATH 1      /* (not a status: the full path takes the call) */
static int _skel_fast_off;              /* tests: every call takes the full path (set between calls) */
static _SKEL_TLS unsigned long _skel_fast_runs;     /* this thread's calls run by the fast path itself */
void _skel_test_fast_path(int on) { _SKEL_STORE(&_skel_fast_off, !on); }
unsigned long _skel_test_fast_runs(void) { return _skel_fast_runs; }

/* Whether operand v has ref's shape and built-in type t. */
static int _skel_fast_like(const skel_vec *v, skel_type t, const skel_vec *ref)
{
    return v && v->type == t && v->dims == ref->dims && v->rows == ref->rows && v->cols == ref->cols &&
           v->depth == ref->depth;
}

/* The fields of call c other than its operands, for an instance of a fast
   form with output out (NULL but for a Map): 0 where the full path must
   look. */
static int _skel_fast_fields(const skel_skeleton *sk, const skel_call *c, const skel_vec *out)
{
    int i;
    if (c->group || c->count || c->rows || c->cols || !sk->has_uniform != !c->uniform) return 0;
    for (i = 0; i < SKEL_MAX_VIEWS; ++i)
        if (c->views[i]) return 0;
    for (i = 1; i < SKEL_MAX_OUT; ++i)
        if (c->outs[i]) return 0;
    return sk->kind == SKEL_KIND_MAP || (!out && c->direction == SKEL_WHOLE && c->result);
}

/* The operands in[] (the instance's inputs, then NULLs) and, for a Map,
   the output out of a call of an instance of a fast form (f), checked as
   the full path checks them: 0 where the full path must look. */
static int _skel_fast_operands(const skel_skeleton *sk, const _skel_fastinfo *f, skel_vec *const *in,
                               const skel_vec *out)
{
    const skel_vec *ref = in[0], *v;
    int i, nin = sk->nin;
    if (!ref || ref->type != f->in[0] || !(_SKEL_LOAD(&ref->all) & 1u) || _SKEL_LOAD(&ref->tasks) || ref->n == 0)
        return 0;
    for (i = 1; i < nin; ++i)
        if (!_skel_fast_like(v = in[i], f->in[i], ref) || !(_SKEL_LOAD(&v->all) & 1u) || _SKEL_LOAD(&v->tasks)) return 0;
    for (; i < SKEL_MAX_IN; ++i)
        if (in[i]) return 0;
    if (sk->kind == SKEL_KIND_MAP) {
        if (!_skel_fast_like(out, f->out, ref) || _SKEL_LOAD(&out->all) != 1u || _SKEL_LOAD(&out->any) != 1u ||
            _SKEL_LOAD(&out->tasks))
            return 0;
        for (i = 0; i < nin; ++i)
            if (_skel_mem_overlap(out, in[i])) return 0;
    }
    return 1;
}

/* The shape of a whole call over ref (checked by the fast path), as
   _skel_check makes it. */
static void _skel_fast_shape(const skel_skeleton *sk, const skel_vec *ref, _skel_shape *sh)
{
    sh->n = sh->units = sh->hi = sh->point[0] = ref->n;
    sh->depth = ref->depth; sh->rows = ref->rows; sh->cols = ref->cols;
    sh->point[1] = sh->lo = 0;
    sh->dims = 1;
    sh->flex = sk->kind != SKEL_KIND_REDUCE;
    sh->unit = _SKEL_UNIT_ELEMS;
    sh->phase = _SKEL_PHASE_RUN;
}

/* A call the fast path checked whose variant *pv computes it in parts: the
   full path's run, without its checks (call: as for _skel_fast_go). */
static int _skel_fast_parts(skel_skeleton *sk, skel_vec *const *in, skel_vec *out, void *result, const void *uniform,
                            const skel_call *call, const _skel_variant *pv)
{
    _skel_variant v = *pv;
    _skel_shape sh;
    skel_call c;
    if (call) {
        c = *call;
    } else {
        memset(&c, 0, sizeof c);
        memcpy(c.in, in, sizeof c.in);
        c.result = result;
        c.uniform = uniform;
    }
    c.out = c.outs[0] = out;
    _skel_fast_shape(sk, in[0], &sh);
    return _skel_run_chosen(sk, &c, &sh, &v);
}

/* A call the fast path checked (its operands in[], out for a Map, result
   and uniform; call: the caller's, or NULL for a shorthand's, which sets
   nothing else): run here when its variant computes it in one piece. */
static int _skel_fast_go(skel_skeleton *sk, const struct _skel_inst_state *st, skel_vec *const *in, skel_vec *out,
                         void *result, const void *uniform, const skel_call *call)
{
    const _skel_variant *pv = NULL;
    const _skel_backend *b;
    skel_plan *plan = _SKEL_LOAD(&st->plan);
    size_t n = in[0]->n;
    int i;
    _skel_variant v;
    _skel_shape sh;
    _skel_par par;
    _skel_job j;
    /* the variant, as _skel_choose picks it for this call: a plan of
       ranges is looked up by the size alone */
    if (plan && !_skel_plan_tree(plan)) {
        pv = _skel_plan_range(plan, n);
    } else if (plan) {
        _skel_fast_shape(sk, in[0], &sh);
        pv = _skel_plan_variant(plan, &sh, &v);
    }
    if (!pv) {
        memset(&v, 0, sizeof v);
        v.backend = _skel_default_cpu(n);  /* (_skel_choose_default: host data) */
        pv = &v;
    }
    /* seq, or a CPU variant that runs this call as one chunk (_skel_cpu_run's _skel_parallel) */
    if (pv->backend != 0 && !((b = &_skel_backends[pv->backend])->run == _skel_cpu_run &&
                              (par = _skel_par_of(pv, b), _skel_parts(&par, n) <= 1)))
        return _skel_fast_parts(sk, in, out, result, uniform, call, pv);
    /* the job, as _skel_cpu_run makes it */
    for (i = 0; i < SKEL_MAX_IN; ++i) j.in[i] = i < sk->nin ? in[i]->host : NULL;
    for (i = 0; i < SKEL_MAX_OUT; ++i) j.out[i] = NULL;
    j.uniform = uniform;
    j.weights = j.edge_value = NULL;
    j.edge = 0;
    j.dir = SKEL_WHOLE;
    j.depth = in[0]->depth; j.rows = in[0]->rows; j.cols = in[0]->cols;
    if (sk->kind == SKEL_KIND_MAP) {
        j.out[0] = out->host;
        sk->cpu.map(&j, 0, n);
    } else {
        sk->cpu.reduce(&j, 0, n, result);
    }
    ++_skel_fast_runs;
    return SKEL_OK;
}

/* The instance's state where the fast path may take its calls, else NULL. */
static const struct _skel_inst_state *_skel_fast_state(skel_skeleton *sk)
{
    const struct _skel_inst_state *st;
    if (_SKEL_LOAD(&_skel_fast_off) || !sk) return NULL;
    if (!(st = _SKEL_LOAD(&sk->state)) && !(st = _skel_state(sk))) return NULL;
    if (!st->fast.form || _skel_env.forced != -1 || _skel_verbose >= 2 || _skel_place_bound() >= 0) return NULL;
    return st;
}

static int _skel_run_fast(skel_skeleton *sk, const skel_call *call)
{
    const struct _skel_inst_state *st;
    skel_vec *out;
    if (!call || !(st = _skel_fast_state(sk))) return _SKEL_FULL_PATH;
    out = call->out ? call->out : call->outs[0];
    if (call->out && call->outs[0] && call->out != call->outs[0]) return _SKEL_FULL_PATH;
    if (!_skel_fast_fields(sk, call, out) || !_skel_fast_operands(sk, &st->fast, call->in, out)) return _SKEL_FULL_PATH;
    return _skel_fast_go(sk, st, call->in, out, call->result, call->uniform, call);
}

/* A shorthand's call (inputs a, b: NULL where not given; out or result;
   nothing else set): the fast path without a skel_call (the shorthands
   took a sixth of a 2^10-float sum's time to make one and check its
   fields), else skel_run. */
static int _skel_run_short(skel_skeleton *sk, skel_vec *out, skel_vec *a, skel_vec *b, void *result)
{
    const struct _skel_inst_state *st;
    skel_vec *in[SKEL_MAX_IN] = { NULL };
    skel_call c;
    _skel_init();
    in[0] = a; in[1] = b;
    if ((st = _skel_fast_state(sk)) != NULL && !sk->has_uniform &&
        (sk->kind == SKEL_KIND_MAP ? out && !result : !out && result) && _skel_fast_operands(sk, &st->fast, in, out))
        return _skel_fast_go(sk, st, in, out, result, NULL, NULL);
    memset(&c, 0, sizeof c);
    c.out = out; c.in[0] = a; c.in[1] = b; c.result = result;
    return skel_run(sk, &c);
}

int skel_run(skel_skeleton *sk, const skel_call *call)
{
    _skel_shape sh;
    _skel_variant v;
    skel_call c;
    int rc;
    _skel_init();
    if ((rc = _skel_run_fast(sk, call)) != _SKEL_FULL_PATH) return rc;
    _SKEL_TRY(_skel_call_norm(sk, call, &c));
    _SKEL_TRY(_skel_check(sk, &c, &sh));
    _SKEL_TRY(_skel_tasks_settle_call(sk, &c));
    _SKEL_TRY(_skel_choose(sk, &c, &sh, &v));
    return _skel_run_chosen(sk, &c, &sh, &v);
}

int skel_map1(skel_skeleton *sk, skel_vec *out, skel_vec *a) { return _skel_run_short(sk, out, a, NULL, NULL); }
int skel_map2(skel_skeleton *sk, skel_vec *out, skel_vec *a, skel_vec *b) { return _skel_run_short(sk, out, a, b, NULL); }
int skel_reduce(skel_skeleton *sk, skel_vec *in, void *result) { return skel_mapreduce1(sk, in, result); }
int skel_mapreduce1(skel_skeleton *sk, skel_vec *a, void *result) { return _skel_run_short(sk, NULL, a, NULL, result); }
int skel_mapreduce2(skel_skeleton *sk, skel_vec *a, skel_vec *b, void *result) { return _skel_run_short(sk, NULL, a, b, result); }
int skel_scan(skel_skeleton *sk, skel_vec *out, skel_vec *in) { return skel_map1(sk, out, in); }
int skel_overlap(skel_skeleton *sk, skel_vec *out, skel_vec *in, skel_edge edge, const void *edge_value)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.out = out; c.in[0] = in; c.edge = edge; c.edge_value = edge_value;
    return skel_run(sk, &c);
}

/* ---------------------------------------------------------------------
   splits: one call over several places at the same time
   (DESIGN.md "Threads, places and parts"; manual: SPLIT CALLS).

   A split variant lists parts in index order, each a place (the host with
   a CPU backend, or a GPU backend's device) with a share.  _skel_split_run:
     1. layout: the call's units (elements, or rows: _skel_split_unit) cut
        at the cumulative shares (refined ones, see below); empty parts
        left out.  An in-place MapOverlap or MapArray (whose parts would
        read what other parts write) runs whole on its largest part's place;
     2. prepare: every GPU part's kernels, device copies and scratch
        (backend prepare), room in call.out's map for every part's write,
        before any data moves: a failure here leaves every container as it
        was and names the part (a test hook injects one);
     3. a vector scan runs steps 4-5 twice: first each part's total
        (_SKEL_PHASE_TOTAL), from which the parts' carries follow in index
        order, then the parts' scans, each from its carry;
     4. host parts first get the ranges they read onto the host (they must
        be there before the part starts); then the GPU parts run from the
        calling thread (each uploads only the ranges its place lacks, then
        queues its kernels) and the host parts on the worker pool: as
        tasks started first when the GPU parts upload 1 MiB or more (the
        uploads overlap the host's work), else on the calling thread once
        the kernels are queued (no task hand-over);
     5. wait once: the host parts (spinning briefly first: a waiter woken
        from sleep lost tens of microseconds), then each GPU place (its
        finish time from the space's time marks, where it has them);
     6. combine: whole and column reductions' part results in index order,
        on the host (GPU parts leave theirs in their own call.out there);
        record each part's write of call.out at its place (the ranges stay
        where they were computed);
     7. refine: the places' times adjust the shares the next call of this
        instance at this context point uses (_skel_refine).
   --------------------------------------------------------------------- */
typedef struct _skel_spart {
    _skel_variant v;            /* the backend variant computing it (device = its place) */
    int space, host;            /* its place; 1: the host (runs as a pool task) */
    _skel_shape sh;             /* the call's shape with the part's units [lo, hi) */
    skel_call call;             /* the part's call: its own result or out for reductions, its carry */
    union { double d; int64_t i; unsigned char b[_SKEL_MAX_ELEM]; } result;  /* a host part's reduction value or scan total */
    skel_vec *tmp;              /* a part's own call.out (GPU reductions; column reductions) */
    _skel_task task;
    double t0, done;            /* the parts' start; seconds from it to its place's finish */
    const skel_skeleton *sk;
    int rc;
} _skel_spart;

typedef struct _skel_split {
    skel_skeleton *sk;
    const skel_call *call;
    int np;
    _skel_spart part[SKEL_MAX_PARTS];
    double t0;
    size_t moved;               /* bytes the parts copied in first (their places lacked them) */
} _skel_split;

/* tests: the preparation of parts on place `space` fails with rc (-1: none) */
static int _skel_split_fail_space = -1, _skel_split_fail_rc;
void _skel_test_split_fail(int space, int rc) { _skel_split_fail_space = space; _skel_split_fail_rc = rc; }
/* benchmarks: 0 starts the host parts only after the GPU parts' uploads
   (and launches) also when those are large, to measure what overlapping
   the transfers with the CPU's work buys (1: the default) */
static int _skel_split_overlap = 1;
void _skel_test_split_overlap(int on) { _SKEL_STORE(&_skel_split_overlap, on); }

/* SKEL_TRACE: step `name` of a split call ran from t0 to now on this
   thread (a profile of the call's fixed costs); returns now, or t0 (0)
   when no trace is recorded. */
static double _skel_split_step(int place, double t0, const char *name)
{
    double now;
    if (!_skel_trace_on()) return t0;
    now = _skel_now();
    _skel_trace_event(_SKEL_TR_TASK, place, -1, t0, now, 0, 0, name);
    return now;
}

static int _skel_split_host_task(void *arg)
{
    _skel_spart *p = (_skel_spart *)arg;
    const _skel_backend *b = &_skel_backends[p->v.backend];
    double t = _skel_split_step(p->space, p->t0, "split: host part queued");
    p->rc = b->run(b, &p->v, (skel_skeleton *)p->sk, &p->call, &p->sh);
    p->done = _skel_now() - p->t0;
    _skel_split_step(p->space, t, "split: host part");
    return p->rc;
}

/* Steps 4 and 5 for every part.  When the GPU parts have much to upload
   first (_SKEL_SPLIT_UPLOADS bytes or more), the host parts run as pool
   tasks from the start, so that the uploads overlap their work; else the
   GPU parts' kernels are queued first and this thread runs the host parts
   itself (no task hand-over: a chain of split calls, whose parts find
   their data in place, pays no more than a single call).  Each part's
   finish time goes to done: a host part's when it returned; a GPU
   place's, when its part ended on the device's clock (its time marks,
   from just before its first part) if that was before the host parts
   ended, else when its wait returned (it was the later one). */
#define _SKEL_SPLIT_UPLOADS ((size_t)1 << 20)
#define _SKEL_SPLIT_SPIN 2e-3
static int _skel_split_go(_skel_split *S)
{
    int k, j, rc = SKEL_OK, tasks;
    size_t uploads = 0;
    _skel_opbufs bufs;
    void *mark[SKEL_MAX_PARTS];     /* a GPU place's time marks, at its first part */
    double at[SKEL_MAX_PARTS], tt = _skel_trace_on() ? _skel_now() : 0;
    for (S->moved = 0, k = 0; k < S->np; ++k)
        S->moved += _skel_part_missing(S->sk, &S->part[k].call, &S->part[k].sh, S->part[k].space);
    for (k = 0; k < S->np; ++k)     /* the host parts' data first: they start at once */
        if (S->part[k].host && (rc = _skel_part_acquire(S->sk, &S->part[k].call, &S->part[k].sh, 0, &bufs)) != SKEL_OK)
            return _skel_fail(rc, "split part %d (host): %s", k, _skel_errbuf);
    tt = _skel_split_step(0, tt, "split: host data");
    for (k = 0; k < S->np; ++k)
        if (!S->part[k].host) uploads += _skel_part_missing(S->sk, &S->part[k].call, &S->part[k].sh, S->part[k].space);
    tasks = uploads >= _SKEL_SPLIT_UPLOADS && _SKEL_LOAD(&_skel_split_overlap);
    S->t0 = _skel_now();
    for (k = 0; k < S->np; ++k) {
        S->part[k].t0 = S->t0;
        if (S->part[k].host && tasks) _skel_pool_submit(&S->part[k].task, _skel_split_host_task, &S->part[k]);
    }
    tt = _skel_split_step(0, tt, "split: submit");
    for (k = 0; k < S->np; ++k) {   /* each GPU place's start mark, before its first part */
        const _skel_space *sp = &_skel_spaces[S->part[k].space];
        mark[k] = NULL;
        at[k] = 0;
        for (j = 0; j < k && S->part[j].space != S->part[k].space; ++j) {}
        if (S->part[k].host || j < k || !sp->mark) continue;
        at[k] = _skel_now() - S->t0;
        if (sp->mark(sp->ctx, &mark[k]) != SKEL_OK) mark[k] = NULL;
    }
    tt = _skel_split_step(0, tt, "split: marks");
    for (k = 0; k < S->np; ++k) {
        _skel_spart *p = &S->part[k];
        const _skel_backend *b = &_skel_backends[p->v.backend];
        if (p->host || rc != SKEL_OK) continue;
        if ((p->rc = b->run(b, &p->v, S->sk, &p->call, &p->sh)) != SKEL_OK)
            rc = _skel_fail(p->rc, "split part %d (%s): %s", k, _skel_spaces[p->space].name, _skel_errbuf);
        tt = _skel_split_step(p->space, tt, "split: gpu part");
    }
    for (k = 0; k < S->np; ++k)     /* its end mark, after its last part */
        if (mark[k]) _skel_spaces[S->part[k].space].mark(_skel_spaces[S->part[k].space].ctx, &mark[k]);
    tt = _skel_split_step(0, tt, "split: end marks");
    for (k = 0; k < S->np; ++k) {
        _skel_spart *p = &S->part[k];
        if (!p->host) continue;
        if (tasks) _skel_task_join(&p->task, _SKEL_SPLIT_SPIN);
        else _skel_split_host_task(p);
        if (p->rc != SKEL_OK && rc == SKEL_OK) rc = _skel_fail(p->rc, "split part %d (host): %s", k, _skel_errbuf);
        tt = _skel_split_step(0, tt, tasks ? "split: wait host" : "split: host inline");
    }
    for (k = 0; k < S->np; ++k) {   /* each GPU place once (its first part holds its marks) */
        _skel_spart *p = &S->part[k];
        const _skel_space *sp = &_skel_spaces[p->space];
        int w;
        double end, secs = -1;
        if (p->host || p->done > 0) continue;
        if (mark[k] && sp->marked(sp->ctx, mark[k], &secs)) mark[k] = NULL;    /* it ended before the host parts */
        /* its end mark passed cleanly: all of its parts are done (a wait
           on an idle device still cost 12-16 us on the H100 host) */
        w = secs >= 0 || !sp->wait ? SKEL_OK : sp->wait(sp->ctx);
        end = _skel_now() - S->t0;
        if (mark[k]) sp->marked(sp->ctx, mark[k], &secs);      /* (frees it) it ended last: end is its time */
        else if (secs >= 0) end = at[k] + secs;
        if (w != SKEL_OK && rc == SKEL_OK) rc = _skel_fail(w, "split part %d (%s): %s", k, sp->name, _skel_errbuf);
        for (j = 0; j < S->np; ++j)
            if (S->part[j].space == p->space) S->part[j].done = end > 1e-9 ? end : 1e-9;
        tt = _skel_split_step(p->space, tt, "split: wait gpu");
        if (tt > 0) _skel_trace_event(_SKEL_TR_TASK, p->space, -1, S->t0, S->t0 + end, 0, 0, "split: gpu finish");
    }
    for (k = 0; rc == SKEL_OK && k < S->np; ++k)    /* a part's own call.out holds its value where it ran */
        if (S->part[k].tmp) _skel_mark_written(S->part[k].tmp, S->part[k].space);
    return rc;
}

/* A part's own call.out for a reduction's value (whole: 1 element) or
   partial row (columns: cols elements), made where the part runs. */
static int _skel_split_tmp(_skel_split *S, _skel_spart *p, size_t n)
{
    _SKEL_TRY(skel_vec_new(&p->tmp, skel_type_of(S->sk->out_t[0]()), n));
    p->call.out = p->call.outs[0] = p->tmp;
    p->call.result = NULL;
    return SKEL_OK;
}

/* The parts of call c for units cut[k] .. cut[k + 1] of variant v's parts
   (empty ones left out), each with its own call. */
static int _skel_split_parts(_skel_split *S, const _skel_variant *v, const _skel_shape *sh, const size_t *cut, int phase)
{
    const skel_skeleton *sk = S->sk;
    int k, whole = (sk->kind == SKEL_KIND_REDUCE || sk->kind == SKEL_KIND_MAPREDUCE) && S->call->direction == SKEL_WHOLE;
    int cols = sk->kind == SKEL_KIND_REDUCE && S->call->direction == SKEL_COLS;
    S->np = 0;
    for (k = 0; k < v->nparts; ++k) {
        _skel_spart *p = &S->part[S->np];
        if (cut[k + 1] <= cut[k]) continue;
        memset(p, 0, sizeof *p);
        p->sk = sk;
        p->v.backend = v->part[k].backend;
        p->v.device = v->part[k].device;
        p->v.threads = v->part[k].threads; p->v.block = v->part[k].block; p->v.grid = v->part[k].grid;
        p->space = _skel_place_of(p->v.backend, p->v.device);
        p->host = !_skel_backends[p->v.backend].is_gpu;
        p->sh = *sh;
        p->sh.lo = cut[k];
        p->sh.hi = cut[k + 1];
        p->sh.phase = phase;
        p->call = *S->call;
        S->np++;
        if (whole || phase == _SKEL_PHASE_TOTAL) {     /* its own value: on the host, or where it runs */
            if (p->host) { p->call.out = p->call.outs[0] = NULL; p->call.result = p->result.b; }
            else _SKEL_TRY(_skel_split_tmp(S, p, 1));
        } else if (cols) {
            _SKEL_TRY(_skel_split_tmp(S, p, sh->cols));
        }
    }
    return SKEL_OK;
}

static void _skel_split_free(_skel_split *S)
{
    int k;
    for (k = 0; k < S->np; ++k) skel_free(S->part[k].tmp);
}

/* Step 2: what can fail for want of resources, before any data moves. */
static int _skel_split_prepare(_skel_split *S)
{
    skel_vec *o;
    int k, rc;
    for (k = 0; k < S->sk->nout && (o = _skel_out_k(S->call, k)) != NULL; ++k) _SKEL_TRY(_skel_map_reserve(o, S->np));
    for (k = 0; k < S->np; ++k) {
        _skel_spart *p = &S->part[k];
        const _skel_backend *b = &_skel_backends[p->v.backend];
        rc = p->space == _skel_split_fail_space ? _skel_fail(_skel_split_fail_rc, "injected failure (test)") : SKEL_OK;
        if (rc == SKEL_OK && b->prepare) rc = b->prepare(b, &p->v, S->sk, &p->call, &p->sh);
        if (rc != SKEL_OK)
            return _skel_fail(rc, "%s %s: split part %d of %d (%s, units %zu..%zu) cannot run: %s",
                              _skel_kind_name(S->sk->kind), S->sk->name, k, S->np, _skel_spaces[p->space].name,
                              p->sh.lo, p->sh.hi, _skel_errbuf);
    }
    return SKEL_OK;
}

/* The value part p computed (a reduction's, a scan part's total) into dst. */
static int _skel_split_value(const _skel_spart *p, void *dst, size_t esz)
{
    const void *v = p->tmp ? skel_read(p->tmp) : (const void *)p->result.b;
    if (!v) return SKEL_EDEVICE;
    memcpy(dst, v, esz);
    return SKEL_OK;
}

/* Step 6 for whole and column reductions: the parts' values (rows of
   them), folded in index order into call.result or call.out (on the host)
   with the instance's combine (accumulators, not elements). */
static int _skel_split_combine(_skel_split *S)
{
    const skel_skeleton *sk = S->sk;
    const skel_call *c = S->call;
    size_t esz = _skel_tsize(sk->out_t[0]), C = c->in[0] ? c->in[0]->cols : 0, x;
    unsigned char *buf, *col;
    _skel_job j;
    int k, rc = SKEL_OK, cols = sk->kind == SKEL_KIND_REDUCE && c->direction == SKEL_COLS;
    size_t each = cols ? C * esz : esz;
    void *dst = NULL;
    if (!(buf = (unsigned char *)SKEL_MALLOC((size_t)S->np * (each + esz) + 1)))
        return _skel_fail(SKEL_ENOMEM, "split: out of memory");
    col = buf + (size_t)S->np * each;           /* one column's values, contiguous */
    for (k = 0; k < S->np && rc == SKEL_OK; ++k) {
        if (cols) {
            const void *row = skel_read(S->part[k].tmp);
            if (row) memcpy(buf + (size_t)k * each, row, each);
            else rc = SKEL_EDEVICE;
        } else {
            rc = _skel_split_value(&S->part[k], buf + (size_t)k * each, esz);
        }
    }
    if (rc == SKEL_OK && c->out && !(dst = _skel_acquire(c->out, 0, _SKEL_WRITE))) rc = _skel_acquire_rc;
    if (rc == SKEL_OK) {
        if (!c->out) dst = c->result;
        memset(&j, 0, sizeof j);
        j.in[0] = cols ? col : buf;
        for (x = 0; x < (cols ? C : 1); ++x) {
            for (k = 0; cols && k < S->np; ++k) memcpy(col + (size_t)k * esz, buf + (size_t)k * each + x * esz, esz);
            sk->cpu.combine(&j, 0, (size_t)S->np, (unsigned char *)dst + x * esz);
        }
        if (c->out) _skel_mark_written(c->out, 0);
    }
    SKEL_FREE(buf);
    return rc == SKEL_OK ? SKEL_OK : _skel_fail(rc, "%s %s: split: cannot combine the parts: %s", _skel_kind_name(sk->kind),
                                                sk->name, _skel_errbuf);
}

/* Step 3: each part's carry from the parts' totals (phase 1 ran them):
   part k starts from init (+) total 0 (+) .. (+) total k-1, in order. */
static int _skel_split_carries(_skel_split *S, unsigned char *carry)
{
    const skel_skeleton *sk = S->sk;
    size_t esz = _skel_tsize(sk->out_t[0]);
    unsigned char pair[2 * _SKEL_MAX_ELEM];
    _skel_job j;
    int k, have = S->call->init != NULL;
    memset(&j, 0, sizeof j);
    j.in[0] = pair;
    if (have) memcpy(carry, S->call->init, esz);
    for (k = 0; k + 1 < S->np; ++k) {
        unsigned char *next = carry + (size_t)(k + 1) * esz;
        _SKEL_TRY(_skel_split_value(&S->part[k], have ? pair + esz : next, esz));
        if (have) {
            memcpy(pair, carry + (size_t)k * esz, esz);
            sk->cpu.combine(&j, 0, 2, next);
        }
        have = 1;
    }
    return SKEL_OK;
}

/* ---- refinement: a call repeated at one context point corrects its
   shares from its places' times.  Each place's rate is its share over its
   time; the next shares move halfway towards the rates' proportions, at
   most 0.1 a call and 0.25 away from the plan's shares in all, and only
   when the slowest place took 50 us or more (shorter calls are mostly
   fixed costs), and only from a call that copied about as many bytes
   between places as the one before it at this point (within a quarter,
   or 64 KiB): the times of a call that distributes the data (the first
   of a chain of calls, a change of split) say nothing of the calls after
   it, which move only halos.  Kept per instance for _SKEL_SPLIT_POINTS points
   (the latest replace the oldest); SKEL_SPLIT_REFINE=0 turns it off
   (and the balance for the call's point, _skel_tree_shares);
   SKEL_VERBOSE=1 logs each change. ---- */
static pthread_mutex_t _skel_refine_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t _skel_refine_key(const _skel_variant *v, const _skel_shape *sh)
{
    uint64_t h = _skel_hash(_SKEL_HASH_SEED, sh->point, sizeof sh->point);
    int k;
    for (k = 0; k < v->nparts; ++k) {
        int id[2];
        id[0] = v->part[k].backend;
        id[1] = v->part[k].device;
        h = _skel_hash(h, id, sizeof id);
        h = _skel_hash(h, &v->part[k].share, sizeof v->part[k].share);
    }
    return h;
}

/* SKEL_SPLIT_REFINE, read once; tests set it: 2 also learns from calls
   shorter than 50 us (a fast GPU finishes a test's part in a few) */
static int _skel_refine_state = -1;
static int _skel_refine_on(void)
{
    int v = _SKEL_LOAD(&_skel_refine_state);
    if (v < 0) _SKEL_STORE(&_skel_refine_state, v = _skel_env_int_max("SKEL_SPLIT_REFINE", 1, 1));
    return v;
}
void _skel_test_split_refine(int on) { _SKEL_STORE(&_skel_refine_state, on); }

/* The shares this call uses: a refinement of v's for this point, or v's. */
static void _skel_refine_get(skel_skeleton *sk, const _skel_variant *v, const _skel_shape *sh, double *share)
{
    struct _skel_inst_state *st = _skel_state(sk);
    uint64_t key = _skel_refine_key(v, sh);
    int k, i;
    for (k = 0; k < v->nparts; ++k) share[k] = v->part[k].share;
    if (!st || !_skel_refine_on()) return;
    pthread_mutex_lock(&_skel_refine_lock);
    for (i = 0; i < _SKEL_SPLIT_POINTS; ++i)
        if (st->refine[i].calls && st->refine[i].key == key) {
            for (k = 0; k < v->nparts; ++k) share[k] = st->refine[i].share[k];
            break;
        }
    pthread_mutex_unlock(&_skel_refine_lock);
}

/* After a split call: the shares of the next one at this point.  A place
   with several parts (logical partitions of one GPU) has one rate: its
   parts' shares over the time its last part ended. */
static void _skel_refine_put(skel_skeleton *sk, const _skel_variant *v, const _skel_shape *sh, const double *used,
                             const _skel_split *S)
{
    struct _skel_inst_state *st = _skel_state(sk);
    uint64_t key = _skel_refine_key(v, sh);
    double t[SKEL_MAX_PARTS], ps[SKEL_MAX_PARTS], rate_sum = 0, tmax = 0, next[SKEL_MAX_PARTS], sum = 0, moved = 0;
    int space[SKEL_MAX_PARTS], k, j, i, slot = 0;
    char msg[512];
    size_t len = 0;
    if (!st || !_skel_refine_on() || v->nparts < 2) return;
    for (k = 0; k < v->nparts; ++k) space[k] = _skel_place_of(v->part[k].backend, v->part[k].device);
    for (k = 0; k < v->nparts; ++k) {      /* part k's place: its time and its shares */
        t[k] = ps[k] = 0;
        for (j = 0; j < S->np; ++j)
            if (S->part[j].space == space[k] && S->part[j].done > t[k]) t[k] = S->part[j].done;
        for (j = 0; j < v->nparts; ++j)
            if (space[j] == space[k]) ps[k] += used[j];
        if (t[k] > tmax) tmax = t[k];
        if (ps[k] <= 0 || t[k] <= 0) return;    /* a place without work: no rate to learn */
    }
    if (tmax < 50e-6 && _skel_refine_on() < 2) return;
    for (k = 0; k < v->nparts; ++k) {      /* each place once */
        for (j = 0; j < k && space[j] != space[k]; ++j) {}
        if (j == k) rate_sum += ps[k] / t[k];
    }
    for (k = 0; k < v->nparts; ++k) {
        /* the place's share at its rate, this part's fraction of it; halfway there, bounded */
        double target = (ps[k] / t[k]) / rate_sum * (used[k] / ps[k]), x;
        x = used[k] + 0.5 * (target - used[k]);
        if (x > used[k] + 0.1) x = used[k] + 0.1;
        if (x < used[k] - 0.1) x = used[k] - 0.1;
        if (x > v->part[k].share + 0.25) x = v->part[k].share + 0.25;
        if (x < v->part[k].share - 0.25) x = v->part[k].share - 0.25;
        next[k] = x > 0 ? x : 0;
        sum += next[k];
    }
    if (!(sum > 0)) return;
    pthread_mutex_lock(&_skel_refine_lock);
    for (i = 0; i < _SKEL_SPLIT_POINTS; ++i) {
        if (st->refine[i].calls && st->refine[i].key == key) { slot = i; break; }
        if (st->refine[i].calls < st->refine[slot].calls) slot = i;
    }
    if (i == _SKEL_SPLIT_POINTS) {  /* a new point: the least used slot; no step from the first call */
        st->refine[slot].calls = 0;
        st->refine[slot].moved = ~(size_t)0;
        for (k = 0; k < v->nparts; ++k) st->refine[slot].share[k] = used[k];
    }
    st->refine[slot].key = key;
    st->refine[slot].calls++;
    {   /* another regime of data movement than the call before: record it, no step */
        size_t a = st->refine[slot].moved, b = S->moved, d = a > b ? a - b : b - a, m = a > b ? a : b;
        st->refine[slot].moved = S->moved;
        if (a == ~(size_t)0 || d > m / 4 + 65536) {
            pthread_mutex_unlock(&_skel_refine_lock);
            return;
        }
    }
    for (k = 0; k < v->nparts; ++k) {
        st->refine[slot].share[k] = next[k] / sum;
        moved += fabs(next[k] / sum - used[k]);
    }
    pthread_mutex_unlock(&_skel_refine_lock);
    if (moved < 0.002 || !_skel_log_wanted(SKEL_LOG_INFO)) return;     /* (formatting cost 5-10 us a call) */
    for (k = 0; k < v->nparts && len < sizeof msg; ++k)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s %s %.3f -> %.3f (%.3g ms)", k ? "," : "",
                                _skel_spaces[space[k]].name, used[k], next[k] / sum, 1e3 * t[k]);
    _skel_log(SKEL_LOG_INFO, "%s %s: split shares refined:%s", _skel_kind_name(sk->kind), sk->name, msg);
}

/* Why call c runs whole on one place although its variant is a split
   (SPLIT CALLS: the fallback rule), or NULL when it splits: an in-place
   MapOverlap (any dimension)
   or MapArray (an output that is in[0]) would have its parts read what
   other parts write. */
static const char *_skel_split_whole(const skel_skeleton *sk, const skel_call *c)
{
    int k;
    switch (sk->kind) {
    case SKEL_KIND_OVERLAP3D:
    case SKEL_KIND_OVERLAP:
    case SKEL_KIND_OVERLAP2D:
    case SKEL_KIND_MAPARRAY:
        for (k = 0; k < sk->nout; ++k)
            if (_skel_out_k(c, k) == c->in[0]) return "in place";
        return NULL;
    default: return NULL;
    }
}

/* The split backend's run: call c over v's parts (see the banner). */
static int _skel_split_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *c,
                           const _skel_shape *sh)
{
    _skel_split S;
    size_t cut[SKEL_MAX_PARTS + 1];
    double share[SKEL_MAX_PARTS], acc = 0;
    union { double d; unsigned char b[SKEL_MAX_PARTS * _SKEL_MAX_ELEM]; } carry;
    const char *why;
    int k, rc;
    double t0 = _skel_trace_on() ? _skel_now() : 0, tt = t0;
    (void)b;
    if (v->nparts < 1) return _skel_fail(SKEL_EINVAL, "%s %s: a split variant without parts", _skel_kind_name(sk->kind), sk->name);
    memset(&S, 0, sizeof S);
    S.sk = sk;
    S.call = c;
    if ((why = _skel_split_whole(sk, c)) != NULL) {    /* one place: the largest part's */
        _skel_variant one;
        int big = 0;
        for (k = 1; k < v->nparts; ++k)
            if (v->part[k].share > v->part[big].share) big = k;
        memset(&one, 0, sizeof one);
        one.backend = v->part[big].backend;
        one.device = v->part[big].device;
        one.threads = v->part[big].threads; one.block = v->part[big].block; one.grid = v->part[big].grid;
        if (_skel_verbose >= 2)
            _skel_log(SKEL_LOG_DEBUG, "%s %s: not split (%s): whole on %s", _skel_kind_name(sk->kind), sk->name, why,
                      _skel_backends[one.backend].name);
        return _skel_run_variant(sk, c, sh, &one);
    }
    _skel_refine_get(sk, v, sh, share);
    tt = _skel_split_step(0, tt, "split: layout");
    cut[0] = 0;
    for (k = 0; k < v->nparts; ++k) {
        acc += share[k];
        cut[k + 1] = k + 1 == v->nparts ? sh->units : (size_t)(acc * (double)sh->units + 0.5);
        if (cut[k + 1] > sh->units) cut[k + 1] = sh->units;
        if (cut[k + 1] < cut[k]) cut[k + 1] = cut[k];
    }
    if (sk->kind == SKEL_KIND_SCAN && sh->unit == _SKEL_UNIT_ELEMS) {
        int nonempty = 0;
        for (k = 0; k < v->nparts; ++k) nonempty += cut[k + 1] > cut[k];
        if (nonempty > 1) {     /* phase 1: the parts' totals, then their carries */
            rc = _skel_split_parts(&S, v, sh, cut, _SKEL_PHASE_TOTAL);
            if (rc == SKEL_OK) rc = _skel_split_prepare(&S);
            if (rc == SKEL_OK) rc = _skel_split_go(&S);
            if (rc == SKEL_OK) rc = _skel_split_carries(&S, carry.b);
            _skel_split_free(&S);
            if (rc != SKEL_OK) return rc;
        }
    }
    rc = _skel_split_parts(&S, v, sh, cut, _SKEL_PHASE_RUN);
    if (rc == SKEL_OK && sk->kind == SKEL_KIND_SCAN && sh->unit == _SKEL_UNIT_ELEMS)
        for (k = 1; k < S.np; ++k) S.part[k].call.init = carry.b + (size_t)k * _skel_tsize(sk->out_t[0]);
    if (rc == SKEL_OK) rc = _skel_split_prepare(&S);
    tt = _skel_split_step(0, tt, "split: prepare");
    if (rc == SKEL_OK) rc = _skel_split_go(&S);
    tt = tt > 0 ? _skel_now() : 0;
    if (rc == SKEL_OK && (sk->kind == SKEL_KIND_REDUCE || sk->kind == SKEL_KIND_MAPREDUCE) && c->direction != SKEL_ROWS)
        rc = _skel_split_combine(&S);
    else if (rc == SKEL_OK)
        for (k = 0; k < S.np; ++k) _skel_part_written(sk, &S.part[k].call, &S.part[k].sh, S.part[k].space);
    if (rc == SKEL_OK) {
        if (_skel_verbose >= 2)
            for (k = 0; k < S.np; ++k)
                _skel_log(SKEL_LOG_DEBUG, "%s %s: split part %d: units %zu..%zu on %s (%s), %.3g ms",
                          _skel_kind_name(sk->kind), sk->name, k, S.part[k].sh.lo, S.part[k].sh.hi,
                          _skel_spaces[S.part[k].space].name, _skel_backends[S.part[k].v.backend].name,
                          1e3 * S.part[k].done);
        tt = _skel_split_step(0, tt, "split: record");
        _skel_refine_put(sk, v, sh, share, &S);
        _skel_split_step(0, tt, "split: refine");
    }
    _skel_split_free(&S);
    _skel_split_step(0, t0, "split: call");
    return rc;
}

/* ---------------------------------------------------------------------
   execution plans: a list of ranges (thesis Fig. 4.3) or a dispatch tree
   (seed 000 §3.2) that the tuner builds or a plan file holds.
   --------------------------------------------------------------------- */
typedef struct _skel_range {
    size_t lo, hi;
    _skel_variant v;
} _skel_range;

#define _SKEL_MAX_PVARS 256         /* variants a tuning or plan file may hold */
/* One entry of a tree's variant table, by name so that a file carries it;
   a split's parts likewise. */
typedef struct _skel_ppart {
    char backend[16];
    int device, threads, block, grid;
    double share;
    int index;                  /* registry index; -1: not on this machine */
} _skel_ppart;
typedef struct _skel_pvar {
    char backend[16];
    int threads, block, grid, devices, tiling, device;
    int nparts;                 /* a split's parts (shares summing to 1) */
    _skel_ppart part[SKEL_MAX_PARTS];
    int index;                  /* registry index; -1: not on this machine (nor, for a split, a part's) */
    int pruned;                 /* depth after which the tuner dropped it; -1: kept */
} _skel_pvar;

/* A measured context point; its times live in tree->times. */
typedef struct _skel_ppoint {
    uint64_t x[2];
    int winner;                 /* least R*r + F; -1: no variant ran here */
} _skel_ppoint;

/* A box of context space with its 2^D corners and 2^D children (consecutive
   nodes; child c takes the upper half in dimension d iff bit d of c). */
typedef struct _skel_pnode {
    uint64_t lo[2], hi[2];
    int first_child;            /* -1: a leaf */
    int corner[4];              /* corner k is at hi in dimension d iff bit d of k */
    int winner;                 /* a closed leaf's variant, else -1 */
    int depth, closed;
    int part[4];                /* open leaf, 1-D: the variant for the part nearest corner k
                                   (_skel_open_pick); 2-D: the variants that may win in it (-1
                                   ends; _skel_interp_pick); set by _skel_tree_index, not stored */
} _skel_pnode;

#define _SKEL_MAX_ID 1023             /* characters of a tuning id */

/* times[] codes below 0 */
enum { _SKEL_T_UNMEASURED = -1, _SKEL_T_TIMEOUT = -2, _SKEL_T_FAILED = -3 };

/* The tuning configuration as stored in a plan file. */
typedef struct _skel_tconf {
    char id[_SKEL_MAX_ID + 1], inst[64], func[64], red[64];
    int dims;
    uint64_t lower[2], upper[2];
    int kind, in_type, out_type, nin, index_mode, dr, dc, weighted, has_uniform;
    int direction, edge, exclusive;
    int max_depth, min_depth, max_nodes, reps, repeats, in_loc[SKEL_MAX_IN], out_to_host, split, cost_model;
    int splits;                 /* split candidates made: 1 yes, 0 no (format 4) */
    double time_budget, timeout, tolerance, prune;
    uint64_t variants_hash;     /* hash of an explicit variant list; 0: every backend */
    int nout, nview, nrow, dd;  /* (version 3) the instance's form; -1: not stored (versions 1, 2) */
} _skel_tconf;

#define _SKEL_TREE_MEMO 16
typedef struct _skel_tree {
    _skel_tconf conf;
    char *fingerprint;          /* machine: lines "key: value" */
    int nvar, npoints, nnodes, cap_points, cap_nodes;
    _skel_pvar *vars;
    _skel_ppoint *points;
    double *times;              /* [point][variant][R, F]; R < 0: a _SKEL_T_ code */
    _skel_pnode *nodes;
    int loaded, measurements;
    int rechecks;               /* second looks this tuning took (_skel_recheck_order; not saved) */
    double tune_seconds;
    double wall_seconds;        /* skel_tune's wall time (not saved) */
    double steal;               /* the share of the CPUs' time other guests took while it tuned (not
                                   saved; -1: not known, or not tuned in this process) */
    /* 1-D: the tree flattened to sorted ranges (lookups binary-search them) */
    uint64_t *rstart;
    int *rvar, nreg;
    /* 2-D: the answers of recent lookups (_skel_tree_lookup), each a word
       packing the point and the variant (0: empty); filled once indexed */
    uint64_t memo[_SKEL_TREE_MEMO];
    int parts;                  /* nodes[].part are set */
    double *pcost;              /* seconds each point took to measure (tuned now only; not saved) */
    unsigned version;           /* the plan file format it was read from (tuned: the current one) */
} _skel_tree;

struct skel_plan {
    _skel_range *ranges;
    int count, cap;
    _skel_tree *tree;           /* a tuned plan (its ranges stay empty) */
};

static int _skel_tree_shares(const _skel_tree *t, const size_t *pt, _skel_pvar *pv);

static void _skel_tree_free(_skel_tree *t)
{
    if (!t) return;
    SKEL_FREE(t->fingerprint);
    SKEL_FREE(t->vars);
    SKEL_FREE(t->points);
    SKEL_FREE(t->times);
    SKEL_FREE(t->nodes);
    SKEL_FREE(t->rstart);
    SKEL_FREE(t->rvar);
    SKEL_FREE(t->pcost);
    SKEL_FREE(t);
}

/* T(r) = R*r + F of variant v at point p, or -1 where it did not run. */
static double _skel_tree_time(const _skel_tree *t, int p, int v)
{
    const double *rf = t->times + ((size_t)p * (size_t)t->nvar + (size_t)v) * 2;
    return rf[0] < 0 ? -1.0 : rf[0] * (double)t->conf.repeats + rf[1];
}

/* The fastest variant at p; -1 if none ran. */
static int _skel_tree_best(const _skel_tree *t, int p)
{
    int v, best = -1;
    double bt = 0, tv;
    for (v = 0; v < t->nvar; ++v) {
        tv = _skel_tree_time(t, p, v);
        if (tv < 0) continue;
        if (best < 0 || tv < bt) { best = v; bt = tv; }
    }
    return best;
}

/* The threads a variant brings to a tie on the CPU: seq 1, pool/k k,
   anything else 0 (no preference). */
static int _skel_tie_threads(const _skel_tree *t, int v)
{
    const _skel_pvar *pv = &t->vars[v];
    if (strcmp(pv->backend, "seq") == 0) return 1;
    if (strcmp(pv->backend, "pool") == 0) return pv->threads > 1 ? pv->threads : 1;
    return 0;
}

/* 1: variant v of t is a split. */
static int _skel_pvar_split(const _skel_tree *t, int v)
{
    return t->vars[v].nparts > 0 || strcmp(t->vars[v].backend, "split") == 0;
}

/* A split wins only by more than twice `tolerance`: best (the least of
   the times tv[]), or where best is a split and the fastest single place
   is within 2 x tolerance of it, that place.  A split's time has two
   places' noise in it and its parts' balance is set at one measurement:
   on the H100 machine, plans that chose splits measured a few percent
   faster than the better place alone ran 1.06-1.12 times its time in the
   sweep's timed rounds (bench/results/splits.md), where the issue asks
   for 1.03 at most. */
static int _skel_split_margin(const _skel_tree *t, int best, const double *tv)
{
    int v, one = -1;
    if (!_skel_pvar_split(t, best)) return best;
    for (v = 0; v < t->nvar; ++v)
        if (tv[v] >= 0 && !_skel_pvar_split(t, v) && (one < 0 || tv[v] < tv[one])) one = v;
    return one >= 0 && tv[one] <= tv[best] * (1 + 2 * t->conf.tolerance) ? one : best;
}

static int _skel_tie_break(const _skel_tree *t, int best, const double *tv);
/* Tests: _skel_tie_break over n variants (backend names, threads, parts)
   with times tv (-1: did not run) and the given tolerance. */
int _skel_test_tie_break(int n, const char *const *backend, const int *threads, const int *nparts, const double *tv,
                         double tolerance)
{
    _skel_pvar vars[8];
    _skel_tree t;
    int v, best = -1;
    if (n > 8) return -2;
    memset(&t, 0, sizeof t);
    memset(vars, 0, sizeof vars);
    for (v = 0; v < n; ++v) {
        snprintf(vars[v].backend, sizeof vars[v].backend, "%s", backend[v]);
        vars[v].threads = threads[v];
        vars[v].nparts = nparts[v];
        if (tv[v] >= 0 && (best < 0 || tv[v] < tv[best])) best = v;
    }
    t.vars = vars;
    t.nvar = n;
    t.conf.tolerance = tolerance;
    return _skel_tie_break(&t, best, tv);
}

/* Ties on the CPU go to the pool variant with the most threads: best (the
   least of the times tv[], -1: none), or, where best is seq or a pool
   variant, the pool variant with the most threads within `tolerance` of
   it.  The pool's caller takes the chunks its workers have not claimed,
   so where its threads find no free core (a shared machine in a busy
   phase, the usual way they tie) pool/k mostly costs seq's time (or
   pool/j's, j < k) plus a wake-up, and up to k/j times less in the phases
   where they do find one.  On the 2-vCPU VM with a spinner, Sobel's
   pool/2 tied seq (11.96 against 11.93 us) at a point tuned in one phase
   and took half of seq's time in the next; the plan had answered seq.
   (A worker descheduled while it holds a chunk can make pool/k slower
   than seq: the manual's TUNER section.) */
static int _skel_tie_break(const _skel_tree *t, int best, const double *tv)
{
    int v, b;
    if (best < 0 || t->conf.tolerance <= 0) return best;
    best = b = _skel_split_margin(t, best, tv);
    if (!_skel_tie_threads(t, best)) return best;
    for (v = 0; v < t->nvar; ++v)
        if (tv[v] >= 0 && tv[v] <= tv[best] * (1 + t->conf.tolerance) && _skel_tie_threads(t, v) > _skel_tie_threads(t, b))
            b = v;
    return b;
}

/* The winner at p: the fastest, ties on the CPU broken by _skel_tie_break. */
static int _skel_point_winner(const _skel_tree *t, int p)
{
    double tv[_SKEL_MAX_PVARS];
    int v;
    for (v = 0; v < t->nvar; ++v) tv[v] = _skel_tree_time(t, p, v);
    return _skel_tie_break(t, _skel_tree_best(t, p), tv);
}

/* Descend to the leaf holding x (clamped into the root box). */
static int _skel_tree_leaf(const _skel_tree *t, const uint64_t *x)
{
    int n = 0, d, c;
    while (t->nodes[n].first_child >= 0) {
        const _skel_pnode *ch = &t->nodes[t->nodes[n].first_child];
        for (c = 0, d = 0; d < t->conf.dims; ++d)
            if (x[d] >= ch->hi[d]) c |= 1 << d;
        n = t->nodes[n].first_child + c;
    }
    return n;
}

/* Squared distance of x to point p in log space normalised by the root box. */
static double _skel_tree_dist(const _skel_tree *t, const uint64_t *x, int p)
{
    double s = 0, span, q;
    int d;
    for (d = 0; d < t->conf.dims; ++d) {
        span = log((double)t->conf.upper[d]) - log((double)t->conf.lower[d]);
        q = (log((double)x[d]) - log((double)t->points[p].x[d])) / (span > 0 ? span : 1);
        s += q * q;
    }
    return s;
}

/* Sum over the corners of open leaf nd of v's time / the best's there
   (a variant that did not run at a corner counts 10). */
static double _skel_leaf_score(const _skel_tree *t, const _skel_pnode *nd, int v)
{
    double sc = 0, tv, tb;
    int c, b;
    for (c = 0; c < 1 << t->conf.dims; ++c) {
        b = t->points[nd->corner[c]].winner;
        if (b < 0) continue;
        tv = _skel_tree_time(t, nd->corner[c], v);
        tb = _skel_tree_time(t, nd->corner[c], b);
        sc += tv < 0 ? 10 : tb > 0 ? tv / tb : 1;
    }
    return sc;
}

/* The variant for the part of open leaf nd nearest its corner k: the
   winner there, unless other variants are within `tolerance` of it at
   that corner - a tie within the timing noise, where one disturbed
   measurement picks the winner - and then the tied variant that does best
   over all the leaf's corners.  -1: none ran at that corner. */
static int _skel_open_pick(const _skel_tree *t, const _skel_pnode *nd, int k)
{
    int p = nd->corner[k], w, v, best;
    double tw, bs, sc, tv;
    w = t->points[p].winner;
    if (w < 0 || t->conf.tolerance <= 0) return w;
    tw = _skel_tree_time(t, p, w);
    best = w;
    bs = -1;
    for (v = 0; v < t->nvar; ++v) {
        tv = _skel_tree_time(t, p, v);
        if (v == w || tv < 0 || tv > tw * (1 + t->conf.tolerance)) continue;
        if (_skel_tie_threads(t, v) && _skel_tie_threads(t, v) < _skel_tie_threads(t, w)) continue;   /* _skel_tie_break */
        if (_skel_pvar_split(t, v) && !_skel_pvar_split(t, w)) continue;                               /* _skel_split_margin */
        if (bs < 0) bs = _skel_leaf_score(t, nd, w);
        if ((sc = _skel_leaf_score(t, nd, v)) < bs) { best = v; bs = sc; }
    }
    return best;
}

/* The weight of corner k of node nd at x (inside it) in a multilinear
   interpolation: the product over the axes of the share of the way from
   the other end. */
static double _skel_corner_weight(const _skel_tree *t, const _skel_pnode *nd, const uint64_t *x, int k)
{
    double w = 1, f;
    int d;
    for (d = 0; d < t->conf.dims; ++d) {
        f = nd->hi[d] > nd->lo[d] ? (double)(x[d] - nd->lo[d]) / (double)(nd->hi[d] - nd->lo[d]) : 0;
        w *= (k >> d) & 1 ? f : 1 - f;
    }
    return w;
}

/* 1: splits v and w run over the same places (each part's backend,
   device and threads; their shares and GPU launch shapes may differ).
   The tuner makes one such split at each point it measures, balanced for
   that point and measured only there (_skel_tune_splits): these are one
   family, each member made for its own point. */
static int _skel_split_kin(const _skel_tree *t, int v, int w)
{
    const _skel_pvar *a = &t->vars[v], *b = &t->vars[w];
    int k;
    if (a->nparts != b->nparts || !a->nparts) return 0;
    for (k = 0; k < a->nparts; ++k)
        if (a->part[k].device != b->part[k].device || a->part[k].threads != b->part[k].threads ||
            strcmp(a->part[k].backend, b->part[k].backend) != 0)
            return 0;
    return 1;
}

/* The splits measured at the corners of 2-D leaf nd: at[k][0..] for
   corner k, -1 ended (at most 3 a corner: one per GPU backend). */
typedef struct { int at[4][4]; } _skel_corner_splits;
static void _skel_corner_splits_of(const _skel_tree *t, const _skel_pnode *nd, _skel_corner_splits *cs)
{
    int k, v, n;
    for (k = 0; k < 4; ++k) {
        for (v = 0, n = 0; v < t->nvar && n < 3; ++v)
            if (t->vars[v].nparts && _skel_tree_time(t, nd->corner[k], v) >= 0) cs->at[k][n++] = v;
        cs->at[k][n] = -1;
    }
}

/* Corner k's (point p's) measured member of v's family: v itself if
   measured there, else its fastest kin there; -1: none. */
static int _skel_kin_at(const _skel_tree *t, const _skel_corner_splits *cs, int k, int p, int v)
{
    int i, w, best = -1;
    for (i = 0; (w = cs->at[k][i]) >= 0; ++i) {
        if (w == v) return v;
        if (_skel_split_kin(t, v, w) && (best < 0 || _skel_tree_time(t, p, w) < _skel_tree_time(t, p, best))) best = w;
    }
    return best;
}

/* The member that stands for v's family in nd (the first measured at a
   corner); v where v is no split or has none there. */
static int _skel_family_head(const _skel_tree *t, const _skel_corner_splits *cs, int v)
{
    int k, i, w;
    if (v < 0 || !t->vars[v].nparts) return v;
    for (k = 0; k < 4; ++k)
        for (i = 0; (w = cs->at[k][i]) >= 0; ++i)
            if (w == v || _skel_split_kin(t, v, w)) return w;
    return v;
}

/* 2-D open leaf nd: variant v's T(r) at x, interpolated bilinearly in
   rows and cols from the leaf's corners.  That is exact for costs a +
   b*rows + c*cols + d*rows*cols (a fixed cost, costs per row, per column
   and per element), which is how skeleton calls cost; the nearest corner
   (seed 000's rule, kept for 1-D) is not: a crossover at rows*cols = k
   runs diagonally through a leaf, and on the H100 machine a 5x5 dilation
   at 377 x 28 took the winner of 256 x 16 (seq, 6% ahead of CUDA there),
   2.1 times slower than CUDA.  A split not measured at a corner takes its
   family member's time there (_skel_split_kin: the split the tuner made
   for that corner); any other variant not measured at a corner counts
   twice the best time there (it lost there by that much, or was pruned);
   -1: it timed out or failed at a corner.  Before families, each corner's
   split counted twice the best at the three others: on the H100 machine
   moment's leaf [2048, 4096] x [256, 512], a split 13-38% ahead of
   pool/16 at all four corners, answered pool/16 (0.71 of the split's
   speed at 2864 x 278). */
static double _skel_interp_time(const _skel_tree *t, const _skel_pnode *nd, const _skel_corner_splits *cs, int v,
                                const uint64_t *x)
{
    double s = 0;
    int k, w;
    for (k = 0; k < 4; ++k) {
        int p = nd->corner[k], b = t->points[p].winner;
        double r0 = t->times[((size_t)p * (size_t)t->nvar + (size_t)v) * 2], tv = -1;
        if (r0 >= 0) tv = _skel_tree_time(t, p, v);
        else if (r0 == _SKEL_T_UNMEASURED && t->vars[v].nparts && (w = _skel_kin_at(t, cs, k, p, v)) >= 0)
            tv = _skel_tree_time(t, p, w);          /* its family member made for this corner */
        else if (r0 == _SKEL_T_UNMEASURED && b >= 0) tv = 2 * _skel_tree_time(t, p, b);
        if (tv < 0) return -1;
        s += tv * _skel_corner_weight(t, nd, x, k);
    }
    return s;
}

/* v, or where v is a split, its family's member made for the corner of
   nd that weighs most at x (its shares were balanced nearest x). */
static int _skel_family_pick(const _skel_tree *t, const _skel_pnode *nd, const _skel_corner_splits *cs, int v,
                             const uint64_t *x)
{
    int k, w, best = v;
    double bw = -1, cw;
    if (v < 0 || !t->vars[v].nparts) return v;
    for (k = 0; k < 4; ++k)
        if ((w = _skel_kin_at(t, cs, k, nd->corner[k], v)) >= 0 && (cw = _skel_corner_weight(t, nd, x, k)) > bw) {
            best = w;
            bw = cw;
        }
    return best;
}

/* The least interpolated T(r) at x in 2-D open leaf nd among the variants
   cand[0..] (-1 ends; NULL: all but splits measured at none of its
   corners: a corner's member stands for its family); given: nd's
   _skel_corner_splits_of, or NULL.  -1: none can run there. */
static int _skel_interp_pick(const _skel_tree *t, const _skel_pnode *nd, const int *cand, const _skel_corner_splits *given,
                             const uint64_t *x)
{
    int i, k, v, best = -1;
    double tv[_SKEL_MAX_PVARS];
    _skel_corner_splits own;
    const _skel_corner_splits *cs = given ? given : &own;
    if (!given) _skel_corner_splits_of(t, nd, &own);
    for (v = 0; v < t->nvar; ++v) tv[v] = -1;
    for (i = 0; cand ? i < 4 && cand[i] >= 0 : i < t->nvar; ++i) {
        v = cand ? cand[i] : i;
        if (!cand && t->vars[v].nparts) {
            for (k = 0; k < 4 && _skel_tree_time(t, nd->corner[k], v) < 0; ++k) {}
            if (k == 4) continue;
        }
        if ((tv[v] = _skel_interp_time(t, nd, cs, v, x)) >= 0 && (best < 0 || tv[v] < tv[best])) best = v;
    }
    return _skel_family_pick(t, nd, cs, _skel_tie_break(t, best, tv), x);
}

/* The variant for x: a closed leaf's winner; in a 2-D open leaf the least
   interpolated time (_skel_interp_pick); in a 1-D one the winner at the
   nearest corner of the leaf (ties broken by _skel_open_pick).  In log
   space normalised per axis the distance is a sum over axes, so the
   nearest corner takes, per axis, the end x is nearer to: x^2 <= lo*hi
   picks lo.  That needs no logarithm.  -1: none. */
static int _skel_tree_pick(const _skel_tree *t, const size_t *point)
{
    uint64_t x[2] = { 0, 0 };
    const _skel_pnode *nd;
    int d, k = 0, v, best = -1, i;
    double bd = 0, dist;
    for (d = 0; d < t->conf.dims; ++d) {
        x[d] = point[d] < t->conf.lower[d] ? t->conf.lower[d] : point[d];
        if (x[d] > t->conf.upper[d]) x[d] = t->conf.upper[d];
    }
    nd = &t->nodes[_skel_tree_leaf(t, x)];
    if (nd->closed) return nd->winner;
    if (t->conf.dims == 2 && (v = _skel_interp_pick(t, nd, t->parts ? nd->part : NULL, NULL, x)) >= 0) return v;
    for (d = 0; d < t->conf.dims; ++d)
        if ((double)x[d] * (double)x[d] > (double)nd->lo[d] * (double)nd->hi[d]) k |= 1 << d;
    v = t->parts ? nd->part[k] : _skel_open_pick(t, nd, k);
    if (v >= 0) return v;
    /* that corner has no usable winner: the nearest corner that has one */
    for (i = 0; i < 1 << t->conf.dims; ++i) {
        int w = t->points[nd->corner[i]].winner;
        if (w < 0) continue;
        dist = _skel_tree_dist(t, x, nd->corner[i]);
        if (best < 0 || dist < bd) { best = w; bd = dist; }
    }
    return best;
}

static void _skel_interp_cands(const _skel_tree *t, _skel_pnode *nd);
/* Tests: a 2-D tree whose root, [16, 4096]^2, is an open leaf with
   corners k = 0..3 (rows high iff bit 0, cols iff bit 1).  Variant v is
   backend[v] with threads[v]; where gpu[v] is set it is a split of
   pool/threads[v] and that GPU backend (shares 0.5).  times[k * n + v]:
   its time at corner k (< 0: not measured there). */
typedef struct _skel_test_root {
    _skel_pvar vars[8];
    _skel_ppoint pts[4];
    _skel_pnode nd;
    double tm[4 * 8 * 2];
    _skel_tree t;
} _skel_test_root;
static int _skel_test_root_tree(_skel_test_root *R, int n, const char *const *backend, const int *threads,
                                const char *const *gpu, const double *times, double tolerance)
{
    _skel_tree *t = &R->t;
    int v, k;
    if (n > 8) return -2;
    memset(R, 0, sizeof *R);
    for (v = 0; v < n; ++v) {
        _skel_pvar *u = &R->vars[v];
        snprintf(u->backend, sizeof u->backend, "%s", gpu[v] ? "split" : backend[v]);
        u->threads = threads[v];
        if (!gpu[v]) continue;
        u->nparts = 2;
        snprintf(u->part[0].backend, sizeof u->part[0].backend, "pool");
        u->part[0].threads = threads[v];
        snprintf(u->part[1].backend, sizeof u->part[1].backend, "%s", gpu[v]);
        u->part[0].share = u->part[1].share = 0.5;
    }
    t->conf.dims = 2;
    t->conf.lower[0] = t->conf.lower[1] = 16;
    t->conf.upper[0] = t->conf.upper[1] = 4096;
    t->conf.repeats = 1;
    t->conf.tolerance = tolerance;
    t->vars = R->vars;
    t->nvar = n;
    t->points = R->pts;
    t->npoints = 4;
    t->times = R->tm;
    t->nodes = &R->nd;
    t->nnodes = 1;
    R->nd.first_child = -1;
    R->nd.winner = -1;
    for (k = 0; k < 4; ++k) {
        R->pts[k].x[0] = k & 1 ? 4096 : 16;
        R->pts[k].x[1] = k & 2 ? 4096 : 16;
        R->nd.corner[k] = k;
        for (v = 0; v < n; ++v) {
            R->tm[(k * n + v) * 2] = times[k * n + v] >= 0 ? times[k * n + v] : _SKEL_T_UNMEASURED;
            R->tm[(k * n + v) * 2 + 1] = 0;
        }
    }
    for (k = 0; k < 4; ++k) R->pts[k].winner = _skel_point_winner(t, k);
    for (k = 0; k < 2; ++k) { R->nd.lo[k] = 16; R->nd.hi[k] = 4096; }
    return 0;
}

/* Tests: the answer at x of that tree; indexed: through the leaf's
   candidates (_skel_interp_cands) as a loaded plan answers.  The
   variant's index, or -1. */
int _skel_test_interp_pick(int n, const char *const *backend, const int *threads, const char *const *gpu,
                           const double *times, const size_t *x, double tolerance, int indexed)
{
    _skel_test_root R;
    if (_skel_test_root_tree(&R, n, backend, threads, gpu, times, tolerance) < 0) return -2;
    if (indexed) { _skel_interp_cands(&R.t, &R.nd); R.t.parts = 1; }
    return _skel_tree_pick(&R.t, x);
}

/* Tests: the shares split variant v of that tree takes at x
   (_skel_tree_shares) in share[0..1]; 1 if rebalanced, 0 if it keeps
   its own, -2 on a bad argument.  Each backend name stands for one
   registry index (that of its first variant). */
int _skel_test_tree_shares(int n, const char *const *backend, const int *threads, const char *const *gpu,
                           const double *times, int v, const size_t *x, double *share)
{
    _skel_test_root R;
    _skel_pvar pv;
    int u, w, k, rc;
    if (v < 0 || v >= n || !gpu[v] || _skel_test_root_tree(&R, n, backend, threads, gpu, times, 0) < 0) return -2;
    for (u = 0; u < n; ++u)
        for (R.vars[u].index = u, w = 0; w < u; ++w)
            if (strcmp(R.vars[w].backend, R.vars[u].backend) == 0) { R.vars[u].index = w; break; }
    pv = R.vars[v];
    for (k = 0; k < 2; ++k)
        for (pv.part[k].index = -1, u = 0; u < n; ++u)
            if (strcmp(R.vars[u].backend, pv.part[k].backend) == 0) { pv.part[k].index = R.vars[u].index; break; }
    rc = _skel_tree_shares(&R.t, x, &pv);
    for (k = 0; k < 2; ++k) share[k] = pv.part[k].share;
    return rc;
}

/* A 2-D lookup remembered: rows and cols below 2^26 each, the variant + 1
   below 2^12 (_SKEL_MAX_PVARS is far less); 0 where it does not fit. */
static uint64_t _skel_memo_key(const size_t *point)
{
    return point[0] < (1u << 26) && point[1] < (1u << 26) ? (uint64_t)point[0] | (uint64_t)point[1] << 26 : 0;
}

/* The plan's answer at point: 1-D trees binary-search their flattened
   ranges (built from _skel_tree_pick, so the answers are the same).  2-D
   trees remember their last answers by point in t->memo (a direct-mapped
   cache of whole words, so that concurrent callers read an answer whole
   or miss): a 2-D pick interpolates the times of a leaf's candidates and
   breaks CPU ties over the variant table, 0.1-0.75 us on the H100
   machine's host with 26 variants against 0.07 us for a one-range plan
   (bench/pool_probe.c --tuned), which a program calling one shape over
   and over need pay once.  The tree is fixed once indexed (t->parts):
   the memo is used from then on and cleared by _skel_tree_index. */
static int _skel_tree_lookup(const _skel_tree *t, const size_t *point)
{
    uint64_t x = point[0];
    int lo = 0, hi = t->nreg - 1;
    if (t->nreg <= 0 && t->conf.dims == 2 && t->parts) {
        uint64_t key = _skel_memo_key(point), *slot, w;
        int v;
        if (!key) return _skel_tree_pick(t, point);
        slot = (uint64_t *)&t->memo[(key * 0x9E3779B97F4A7C15ULL) >> 60];   /* the cache, not the plan, changes */
        w = _SKEL_LOAD(slot);
        if (w && (w & ((1ULL << 52) - 1)) == key) return (int)(w >> 52) - 1;
        v = _skel_tree_pick(t, point);
        if (v >= -1 && v < (1 << 12) - 1) _SKEL_STORE(slot, key | (uint64_t)(v + 1) << 52);
        return v;
    }
    if (t->nreg <= 0) return _skel_tree_pick(t, point);
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t->rstart[mid] <= x) lo = mid;
        else hi = mid - 1;
    }
    return t->rvar[lo];
}

/* For tests: a tuned plan's answer at a point through the lookup (the
   memo of a 2-D tree) and computed afresh; -2 for a range plan. */
void _skel_test_tree_answers(const skel_plan *p, const size_t *point, int *lookup, int *fresh)
{
    *lookup = p && p->tree ? _skel_tree_lookup(p->tree, point) : -2;
    *fresh = p && p->tree ? _skel_tree_pick(p->tree, point) : -2;
}

int skel_plan_new(skel_plan **p)
{
    if (!p) return _skel_fail(SKEL_EINVAL, "skel_plan_new: NULL result pointer");
    *p = (skel_plan *)SKEL_MALLOC(sizeof **p);
    if (!*p) return _skel_fail(SKEL_ENOMEM, "skel_plan_new: out of memory");
    memset(*p, 0, sizeof **p);
    return SKEL_OK;
}

void skel_plan_free(skel_plan *p)
{
    if (!p) return;
    SKEL_FREE(p->ranges);
    _skel_tree_free(p->tree);
    SKEL_FREE(p);
}

int skel_plan_add(skel_plan *p, size_t lo, size_t hi, const skel_variant *v)
{
    _skel_variant rv;
    if (!p) return _skel_fail(SKEL_EINVAL, "skel_plan_add: NULL plan");
    if (p->tree) return _skel_fail(SKEL_EINVAL, "skel_plan_add: a tuned plan takes no ranges");
    if (lo > hi) return _skel_fail(SKEL_EINVAL, "skel_plan_add: range %zu..%zu is empty", lo, hi);
    _SKEL_TRY(_skel_variant_resolve(v, &rv));
    if (p->count == p->cap) {
        int cap = p->cap ? 2 * p->cap : 4;
        _skel_range *r = (_skel_range *)SKEL_REALLOC(p->ranges, (size_t)cap * sizeof *r);
        if (!r) return _skel_fail(SKEL_ENOMEM, "skel_plan_add: out of memory");
        p->ranges = r;
        p->cap = cap;
    }
    p->ranges[p->count].lo = lo;
    p->ranges[p->count].hi = hi;
    p->ranges[p->count].v = rv;
    p->count++;
    return SKEL_OK;
}

static void _skel_pvar_public(const _skel_pvar *pv, skel_variant *out)
{
    int k;
    memset(out, 0, sizeof *out);
    out->backend = pv->backend;
    out->threads = pv->threads; out->block = pv->block;
    out->grid = pv->grid; out->devices = pv->devices; out->tiling = pv->tiling;
    out->device = pv->device;
    for (k = 0; k < pv->nparts; ++k) {
        const _skel_ppart *p = &pv->part[k];
        out->parts[k].backend = p->backend;
        out->parts[k].device = p->device;
        out->parts[k].share = p->share;
        out->parts[k].threads = p->threads; out->parts[k].block = p->block; out->parts[k].grid = p->grid;
    }
}

/* The variant a (resolved) table entry names. */
static void _skel_pvar_variant(const _skel_pvar *pv, _skel_variant *v)
{
    int k;
    memset(v, 0, sizeof *v);
    v->backend = pv->index;
    v->threads = pv->threads; v->block = pv->block;
    v->grid = pv->grid; v->devices = pv->devices; v->tiling = pv->tiling;
    v->device = pv->device;
    v->nparts = pv->nparts;
    for (k = 0; k < pv->nparts; ++k) {
        const _skel_ppart *p = &pv->part[k];
        v->part[k].backend = p->index;
        v->part[k].device = p->device;
        v->part[k].threads = p->threads; v->part[k].block = p->block; v->part[k].grid = p->grid;
        v->part[k].share = p->share;
    }
}

/* A table entry for public variant v (names copied; not resolved); 0, or
   why not. */
static const char *_skel_pvar_from(const skel_variant *v, _skel_pvar *pv)
{
    int k;
    double sum = 0;
    memset(pv, 0, sizeof *pv);
    pv->pruned = -1;
    if (!v->backend || !*v->backend || strlen(v->backend) >= sizeof pv->backend) return "no (or too long a) backend name";
    if (v->threads < 0 || v->block < 0 || v->grid < 0 || v->devices < 0 || v->device < 0 || v->tiling < 0)
        return "a negative parameter";
    if (v->threads > SKEL_MAX_THREADS) return "more threads than SKEL_MAX_THREADS (1024 unless redefined)";
    snprintf(pv->backend, sizeof pv->backend, "%s", v->backend);
    pv->threads = v->threads; pv->block = v->block;
    pv->grid = v->grid; pv->devices = v->devices; pv->tiling = v->tiling;
    pv->device = v->device;
    for (k = 0; k < SKEL_MAX_PARTS && v->parts[k].backend && strcmp(v->backend, "split") == 0; ++k) {
        const skel_part *p = &v->parts[k];
        _skel_ppart *q = &pv->part[k];
        if (!*p->backend || strlen(p->backend) >= sizeof q->backend) return "a part with no (or too long a) backend name";
        if (p->threads < 0 || p->threads > SKEL_MAX_THREADS || p->block < 0 || p->grid < 0 || p->device < 0 ||
            !(p->share >= 0 && p->share <= 1e9))
            return "a part with a parameter out of range";
        snprintf(q->backend, sizeof q->backend, "%s", p->backend);
        q->device = p->device;
        q->threads = p->threads; q->block = p->block; q->grid = p->grid;
        q->share = p->share;
        sum += p->share;
    }
    pv->nparts = k;
    if (k && !(sum > 0)) return "a split whose shares sum to 0";
    for (k = 0; k < pv->nparts; ++k) pv->part[k].share /= sum;
    return NULL;
}

/* A range plan's variant for size n (the last range added that covers
   it), or NULL. */
/* Whether p is a tree plan (else a plan of ranges: looked up by size). */
static int _skel_plan_tree(const skel_plan *p) { return p->tree != NULL; }

static const _skel_variant *_skel_plan_range(const skel_plan *p, size_t n)
{
    int i;
    for (i = p->count - 1; i >= 0; --i)
        if (n >= p->ranges[i].lo && n <= p->ranges[i].hi) return &p->ranges[i].v;
    return NULL;
}

int skel_plan_lookup_point(const skel_plan *p, const size_t *point, int dims, skel_variant *out)
{
    const _skel_variant *rv;
    int v;
    size_t n;
    if (!p || !point) return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: NULL plan or point");
    if (dims < 1 || dims > 2) return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: %d dimensions (1 or 2)", dims);
    if (p->tree) {
        if (dims != p->tree->conf.dims)
            return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: a %d-D point for a %d-D plan", dims, p->tree->conf.dims);
        v = _skel_tree_lookup(p->tree, point);
        if (v < 0) return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: no variant ran near this point");
        if (out) _skel_pvar_public(&p->tree->vars[v], out);
        if (out && p->tree->vars[v].nparts && _skel_refine_on()) {    /* a split: the shares a call there takes */
            _skel_pvar pv = p->tree->vars[v];
            int k;
            if (_skel_tree_shares(p->tree, point, &pv))
                for (k = 0; k < pv.nparts; ++k) out->parts[k].share = pv.part[k].share;
        }
        return SKEL_OK;
    }
    n = _skel_point_size(point, dims);
    if ((rv = _skel_plan_range(p, n)) != NULL) {
        if (out) _skel_variant_public(rv, out);
        return SKEL_OK;
    }
    return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: no range covers size %zu", n);
}

int skel_plan_lookup(const skel_plan *p, size_t n, skel_variant *out)
{
    return skel_plan_lookup_point(p, &n, 1, out);
}

/* The context point of a checked call for a plan of `dims` dimensions in
   pt: its own, or for Map, Scan and MapReduce (1-D points n) rows x cols
   (a vector: 1 x n).  0: the call has no such point. */
static int _skel_shape_point(const _skel_shape *sh, int dims, size_t *pt)
{
    if (sh->dims == dims) { pt[0] = sh->point[0]; pt[1] = sh->point[1]; return 1; }
    if (!sh->flex || dims != 2) return 0;
    pt[0] = sh->rows;
    pt[1] = sh->cols;
    return 1;
}

/* The plan's variant for a checked call (a tree answers at the call's
   context point, a range plan at its element count): a range's own, or
   one made in *buf; NULL if it has none. */
static const _skel_variant *_skel_plan_variant(const skel_plan *p, const _skel_shape *sh, _skel_variant *buf)
{
    const _skel_tree *t = p->tree;
    size_t pt[2];
    int i;
    if (!t) return _skel_plan_range(p, _skel_point_size(sh->point, sh->dims));
    if (!_skel_shape_point(sh, t->conf.dims, pt)) return NULL;
    i = _skel_tree_lookup(t, pt);
    if (i < 0 || t->vars[i].index < 0) return NULL;
    if (t->vars[i].nparts && _skel_refine_on()) {     /* a split: its shares for this point */
        _skel_pvar pv = t->vars[i];
        _skel_tree_shares(t, pt, &pv);
        _skel_pvar_variant(&pv, buf);
    } else
        _skel_pvar_variant(&t->vars[i], buf);
    if (buf->backend == _skel_env.split_backend && !buf->nparts) _skel_split_default(buf);
    return buf;
}

/* The same into *v: 1 if the plan has one. */
static int _skel_plan_pick(const skel_plan *p, const _skel_shape *sh, _skel_variant *v)
{
    const _skel_variant *rv = _skel_plan_variant(p, sh, v);
    if (rv && rv != v) *v = *rv;
    return rv != NULL;
}

/* Per-call time R of variant v at x (clamped into the box): interpolated
   between the corners of the leaf holding it, linearly along each axis
   (costs grow about linearly with size between measured points), and
   beyond the box's upper end scaled by size.  -1 where v did not run at
   every corner. */
static double _skel_tree_predict(const _skel_tree *t, const size_t *point, int v)
{
    uint64_t x[2] = { 0, 0 };
    const _skel_pnode *nd;
    double total = 0, scale = 1, r;
    int d, k;
    for (d = 0; d < t->conf.dims; ++d) {
        x[d] = point[d] < t->conf.lower[d] ? t->conf.lower[d] : point[d];
        if (x[d] > t->conf.upper[d]) {
            scale *= (double)point[d] / (double)t->conf.upper[d];
            x[d] = t->conf.upper[d];
        }
    }
    nd = &t->nodes[_skel_tree_leaf(t, x)];
    for (k = 0; k < 1 << t->conf.dims; ++k) {
        r = t->times[((size_t)nd->corner[k] * (size_t)t->nvar + (size_t)v) * 2];
        if (r < 0) return -1;
        total += _skel_corner_weight(t, nd, x, k) * r;
    }
    return total * scale;
}

/* Each place's cost of a part of s units, a + b * s; the shares s_i
   (summing to 1) at which every place with work finishes at the same
   time.  A place whose fixed cost alone exceeds that time gets none. */
static void _skel_balance(int n, const double *a, const double *b, double *s)
{
    int i, use[SKEL_MAX_PARTS], again = 1;
    double num, den = 0, tau = 0;
    for (i = 0; i < n; ++i) use[i] = b[i] > 0;
    while (again) {
        again = 0;
        num = 1;
        den = 0;
        for (i = 0; i < n; ++i)
            if (use[i]) { num += a[i] / b[i]; den += 1 / b[i]; }
        if (den <= 0) break;
        tau = num / den;
        for (i = 0; i < n; ++i)
            if (use[i] && tau < a[i]) { use[i] = 0; again = 1; }
    }
    for (i = 0; i < n; ++i) s[i] = use[i] && den > 0 ? (tau - a[i]) / b[i] : 0;
}

/* A split's shares at point pt, balanced there (_skel_balance) by its
   places' costs that the plan predicts (_skel_tree_predict): each part's
   place is the table's single-place variant the tuner made it of, its
   cost a + b * share through its prediction at pt and at pt with half the
   rows (the dimension a split cuts; columns where rows cannot halve
   within the box).  The tuner balances a split for the point where it
   made it, and a plan answers it over a leaf (a 2-D leaf: the member of
   the split's family made for the nearest corner), so without this a
   call far from that corner ran at that corner's shares: on the H100
   machine a moment at 870 x 3881 ran pool/16 | CUDA at 0.56 / 0.44, 544
   us, where 0.21 / 0.79 took 255 (CUDA alone 282), and refinement moves
   shares at most 0.25; balanced here, 293 us (CUDA 278) in the next run.  1 if pv's shares were rewritten; 0 where a
   part's variant was not measured at every corner of the leaf. */
static int _skel_tree_shares(const _skel_tree *t, const size_t *pt, _skel_pvar *pv)
{
    double a[SKEL_MAX_PARTS], b[SKEL_MAX_PARTS], s[SKEL_MAX_PARTS], f = 1, sum = 0;
    size_t half[2] = { 0, 0 };
    int k, v, d;
    if (pv->nparts < 2) return 0;
    for (d = 0; d < t->conf.dims; ++d) half[d] = pt[d];
    for (d = 0; d < t->conf.dims; ++d)
        if (pt[d] / 2 >= t->conf.lower[d]) {
            half[d] = pt[d] / 2;
            f = (double)half[d] / (double)pt[d];
            break;
        }
    for (k = 0; k < pv->nparts; ++k) {
        const _skel_ppart *q = &pv->part[k];
        double whole = -1, part = -1, w, h;
        for (v = 0; v < t->nvar; ++v) {     /* the least predicted of the variants the part names */
            const _skel_pvar *u = &t->vars[v];
            if (u->nparts || u->devices > 1 || u->device || u->index != q->index || u->threads != q->threads ||
                u->block != q->block || u->grid != q->grid || (w = _skel_tree_predict(t, pt, v)) < 0)
                continue;
            if (whole < 0 || w < whole) { whole = w; part = f < 1 ? _skel_tree_predict(t, half, v) : -1; }
        }
        if (!(whole > 0)) return 0;
        b[k] = whole;
        a[k] = 0;
        if (part > 0 && (h = (whole - part) / (1 - f)) > 0 && h < whole) {     /* a fixed cost a, b per whole call */
            b[k] = h;
            a[k] = whole - h;
        }
    }
    _skel_balance(pv->nparts, a, b, s);
    for (k = 0; k < pv->nparts; ++k) sum += s[k];
    if (!(sum > 0)) return 0;
    for (k = 0; k < pv->nparts; ++k) pv->part[k].share = s[k] / sum;
    return 1;
}

/* The plan's best variant for a checked call at place p: 1 and *v, with
   *time its predicted per-call time (data already at p) where a tuned
   plan measured it, -1 for a range plan; 0 when the plan has none there. */
static int _skel_plan_at(const skel_plan *p, const _skel_shape *sh, int place, _skel_variant *v, double *time)
{
    const _skel_tree *t = p->tree;
    int i, best = -1, b;
    double bt = -1, ti;
    size_t pt[2];
    *time = -1;
    if (!t) {
        if (!_skel_plan_pick(p, sh, v) || v->nparts || _skel_place_of(v->backend, v->device) != place) return 0;
        return 1;
    }
    if (!_skel_shape_point(sh, t->conf.dims, pt)) return 0;
    for (i = 0; i < t->nvar; ++i) {     /* single-place variants only: a split is no place's */
        if ((b = t->vars[i].index) < 0 || t->vars[i].nparts || t->vars[i].devices > 1 ||
            _skel_place_of(b, t->vars[i].device) != place)
            continue;
        if ((ti = _skel_tree_predict(t, pt, i)) >= 0 && (best < 0 || ti < bt)) { best = i; bt = ti; }
    }
    if (best < 0) return 0;
    _skel_pvar_variant(&t->vars[best], v);
    *time = bt;
    return 1;
}

int skel_set_plan(skel_skeleton *sk, skel_plan *p)
{
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_set_plan: NULL skeleton instance");
    if (!_skel_state(sk)) return _skel_fail(SKEL_ENOMEM, "skel_set_plan: out of memory");
    _SKEL_STORE(&sk->state->plan, p);
    return SKEL_OK;
}

/* ---- bulk selection (seed 000 §4.2): the first call of a group fixes the
   memory space; a later call whose own plan picks another space runs on
   the first call's variant instead.  (Its own plan's ranking in that space
   is a poor guide: variants that lose there by far were pruned early.  On
   the H100 machine Pearson's Reduce calls, moved to the host behind an
   omp/16 MapReduce, ran on a host variant their plan had measured at few
   points, 3 times slower.  The same thread count also keeps each thread on
   the part of the data it read in the call before.) ---- */
#define _SKEL_MAX_GROUPS 64
static struct { int id; _skel_variant v; } _skel_groups[_SKEL_MAX_GROUPS];
static int _skel_ngroups;
static pthread_mutex_t _skel_group_lock = PTHREAD_MUTEX_INITIALIZER;

void skel_group_reset(int group)
{
    int i;
    pthread_mutex_lock(&_skel_group_lock);
    for (i = 0; i < _skel_ngroups; ++i)
        if (group == 0 || _skel_groups[i].id == group) _skel_groups[i--] = _skel_groups[--_skel_ngroups];
    pthread_mutex_unlock(&_skel_group_lock);
}

static void _skel_group_apply(int group, _skel_variant *v)
{
    int i;
    pthread_mutex_lock(&_skel_group_lock);
    for (i = 0; i < _skel_ngroups; ++i)
        if (_skel_groups[i].id == group) {
            if (_skel_backends[_skel_groups[i].v.backend].space != _skel_backends[v->backend].space &&
                v->backend != _skel_env.split_backend && _skel_groups[i].v.backend != _skel_env.split_backend)
                *v = _skel_groups[i].v;
            break;
        }
    if (i == _skel_ngroups && _skel_ngroups < _SKEL_MAX_GROUPS) {
        _skel_groups[_skel_ngroups].id = group;
        _skel_groups[_skel_ngroups++].v = *v;
    }
    pthread_mutex_unlock(&_skel_group_lock);
}

int skel_plan_stats_get(const skel_plan *p, skel_plan_stats *out)
{
    const _skel_tree *t;
    int i, d;
    double space = 1;
    if (!p || !out) return _skel_fail(SKEL_EINVAL, "skel_plan_stats_get: NULL argument");
    memset(out, 0, sizeof *out);
    out->steal = -1;
    if (!(t = p->tree)) return SKEL_OK;
    out->tuned = 1;
    out->loaded = t->loaded;
    out->dims = t->conf.dims;
    for (d = 0; d < t->conf.dims; ++d) {
        out->lower[d] = (size_t)t->conf.lower[d];
        out->upper[d] = (size_t)t->conf.upper[d];
        space *= (double)(t->conf.upper[d] - t->conf.lower[d] + 1);
    }
    out->variants = t->nvar;
    for (i = 0; i < t->nvar; ++i) out->pruned += t->vars[i].pruned >= 0;
    out->points = t->npoints;
    out->measurements = t->measurements;
    out->rechecks = t->rechecks;
    out->nodes = t->nnodes;
    for (i = 0; i < t->nnodes; ++i) {
        const _skel_pnode *nd = &t->nodes[i];
        if (nd->first_child < 0) {
            if (nd->closed) out->closed_leaves++;
            else out->open_leaves++;
        }
        if (nd->depth > out->depth) out->depth = nd->depth;
    }
    out->explored = (double)t->npoints / space;
    out->tune_seconds = t->tune_seconds;
    out->wall_seconds = t->wall_seconds;
    out->steal = t->steal;
    return SKEL_OK;
}

/* ---------------------------------------------------------------------
   tuner and plan files: the dispatch-tree tuner of seed 000 §3 with the
   T = R*r + F split of thesis §4.3, the machine fingerprint, and the
   versioned binary plan files (format at the top of this header).
   --------------------------------------------------------------------- */

#define _SKEL_PLAN_MAGIC "SKELPLAN"
#define _SKEL_PLAN_VERSION 4u        /* 2: 2-D open leaves interpolate; 2-D Map, Scan, MapReduce;
                                        3: the instance's form (outputs, views, row operands, dD),
                                           each variant's tiling;
                                        4: variants carry a device and a split's parts; desc.splits */
#define _SKEL_PLAN_HEADER 24        /* magic, version, flags, payload length */
#define _SKEL_MAX_TREE (1 << 20)    /* points or nodes a file may hold */

/* ---- little-endian buffers ---- */
typedef struct _skel_buf {
    unsigned char *p;
    size_t len, cap;
    int oom;
} _skel_buf;

static void _skel_buf_put(_skel_buf *b, const void *src, size_t n)
{
    if (b->oom) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        unsigned char *q;
        while (cap < b->len + n) cap *= 2;
        if (!(q = (unsigned char *)SKEL_REALLOC(b->p, cap))) { b->oom = 1; return; }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
/* Plan files are little-endian whatever the host: bytes are written and
   read one at a time. */
static void _skel_put_le(_skel_buf *b, uint64_t x, int bytes)
{
    unsigned char c[8];
    int i;
    for (i = 0; i < bytes; ++i) c[i] = (unsigned char)(x >> (8 * i));
    _skel_buf_put(b, c, (size_t)bytes);
}
static void _skel_put_u64(_skel_buf *b, uint64_t x) { _skel_put_le(b, x, 8); }
static void _skel_put_u32(_skel_buf *b, uint32_t x) { _skel_put_le(b, x, 4); }
static void _skel_put_i32(_skel_buf *b, int x) { _skel_put_u32(b, (uint32_t)x); }
static void _skel_put_f64(_skel_buf *b, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    _skel_put_u64(b, u);
}
static void _skel_put_str(_skel_buf *b, const char *s)
{
    size_t n = strlen(s);
    _skel_put_u32(b, (uint32_t)n);
    _skel_buf_put(b, s, n);
}

typedef struct _skel_rd {
    const unsigned char *p;
    size_t len, pos;
    int bad;
} _skel_rd;

/* A truncated read marks the reader bad and yields 0; callers check bad once. */
static uint64_t _skel_get_le(_skel_rd *r, int bytes)
{
    uint64_t x = 0;
    int i;
    if (r->bad || r->len - r->pos < (size_t)bytes) { r->bad = 1; return 0; }
    for (i = 0; i < bytes; ++i) x |= (uint64_t)r->p[r->pos + (size_t)i] << (8 * i);
    r->pos += (size_t)bytes;
    return x;
}
static uint64_t _skel_get_u64(_skel_rd *r) { return _skel_get_le(r, 8); }
static uint32_t _skel_get_u32(_skel_rd *r) { return (uint32_t)_skel_get_le(r, 4); }
static int _skel_get_i32(_skel_rd *r)
{
    uint32_t u = _skel_get_u32(r);
    return u <= 0x7fffffffu ? (int)u : -(int)(~u) - 1;
}
static double _skel_get_f64(_skel_rd *r)
{
    uint64_t u = _skel_get_u64(r);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
/* A string into dst[cap]; too long, or with a NUL or newline-free control
   character in it, is bad. */
static void _skel_get_str(_skel_rd *r, char *dst, size_t cap)
{
    uint32_t n = _skel_get_u32(r), i;
    dst[0] = 0;
    if (r->bad || n >= cap || r->len - r->pos < n) { r->bad = 1; return; }
    for (i = 0; i < n; ++i) {
        unsigned char c = r->p[r->pos + i];
        if (c == 0 || (c < 32 && c != '\n')) { r->bad = 1; return; }
        dst[i] = (char)c;
    }
    dst[n] = 0;
    r->pos += n;
}


/* skel's binary files (plans, models) share a frame: an 8-byte magic, u32
   version, u32 flags (0), u64 payload bytes, the payload, then u64 FNV-1a
   of every byte before it.  _skel_file_begin writes the header;
   _skel_file_end patches the length and appends the checksum (SKEL_ENOMEM
   when the buffer ran out, then freed).  _skel_file_check checks a whole
   file's frame, leaves r at its payload and the format version in
   *version: 0, or why it is refused. */
static void _skel_file_begin(_skel_buf *b, const char *magic, uint32_t version)
{
    memset(b, 0, sizeof *b);
    _skel_buf_put(b, magic, 8);
    _skel_put_u32(b, version);
    _skel_put_u32(b, 0);
    _skel_put_u64(b, 0);                        /* payload length, patched by _skel_file_end */
}

static int _skel_file_end(_skel_buf *b)
{
    int i;
    if (b->oom) { SKEL_FREE(b->p); b->p = NULL; return SKEL_ENOMEM; }
    for (i = 0; i < 8; ++i) b->p[16 + i] = (unsigned char)((uint64_t)(b->len - _SKEL_PLAN_HEADER) >> (8 * i));
    _skel_put_u64(b, _skel_fnv1a(b->p, b->len, _SKEL_FNV_SEED));
    if (b->oom) { SKEL_FREE(b->p); b->p = NULL; return SKEL_ENOMEM; }
    return SKEL_OK;
}

static int _skel_file_check(const unsigned char *buf, size_t len, const char *magic, uint32_t maxver, const char *what,
                            _skel_rd *r, uint32_t *version_out, char *why, size_t whylen)
{
    uint32_t version, flags;
    uint64_t plen, sum = 0;
    int i;
#define _SKEL_FBAD(...) do { snprintf(why, whylen, __VA_ARGS__); return 1; } while (0)
    if (len < 8 || memcmp(buf, magic, 8) != 0) _SKEL_FBAD("not a skel %s file (bad magic)", what);
    if (len < _SKEL_PLAN_HEADER + 8) _SKEL_FBAD("truncated (%zu bytes)", len);
    r->p = buf; r->len = len; r->pos = 8; r->bad = 0;
    version = _skel_get_u32(r);
    if (version > maxver) _SKEL_FBAD("written by a newer skel (format version %u; this one reads %u)", version, maxver);
    if (version < 1) _SKEL_FBAD("bad format version 0");
    if ((flags = _skel_get_u32(r)) != 0) _SKEL_FBAD("unknown flags 0x%x in the header (this version writes 0)", flags);
    plen = _skel_get_u64(r);
    if (plen != len - _SKEL_PLAN_HEADER - 8)
        _SKEL_FBAD("%s (header says %llu payload bytes, the file has %zu)",
                   plen > len - _SKEL_PLAN_HEADER - 8 ? "truncated" : "trailing bytes",
                   (unsigned long long)plen, len - _SKEL_PLAN_HEADER - 8);
    r->len = len - 8;
    for (i = 0; i < 8; ++i) sum |= (uint64_t)buf[len - 8 + (size_t)i] << (8 * i);
    if (sum != _skel_fnv1a(buf, len - 8, _SKEL_FNV_SEED)) _SKEL_FBAD("checksum mismatch (corrupted)");
#undef _SKEL_FBAD
    *version_out = version;
    return 0;
}

/* ---- configuration and fingerprint ---- */
static void _skel_conf_put(_skel_buf *b, const _skel_tconf *c)
{
    int d, i;
    _skel_put_str(b, c->id);
    _skel_put_str(b, c->inst);
    _skel_put_str(b, c->func);
    _skel_put_str(b, c->red);
    _skel_put_u32(b, (uint32_t)c->dims);
    for (d = 0; d < c->dims; ++d) { _skel_put_u64(b, c->lower[d]); _skel_put_u64(b, c->upper[d]); }
    _skel_put_i32(b, c->kind); _skel_put_i32(b, c->in_type); _skel_put_i32(b, c->out_type);
    _skel_put_i32(b, c->nin); _skel_put_i32(b, c->index_mode); _skel_put_i32(b, c->dr);
    _skel_put_i32(b, c->dc); _skel_put_i32(b, c->weighted); _skel_put_i32(b, c->has_uniform);
    _skel_put_i32(b, c->direction); _skel_put_i32(b, c->edge); _skel_put_i32(b, c->exclusive);
    _skel_put_i32(b, c->max_depth); _skel_put_i32(b, c->min_depth); _skel_put_i32(b, c->max_nodes);
    _skel_put_i32(b, c->reps);
    _skel_put_i32(b, c->repeats);
    for (i = 0; i < SKEL_MAX_IN; ++i) _skel_put_i32(b, c->in_loc[i]);
    _skel_put_i32(b, c->out_to_host); _skel_put_i32(b, c->split); _skel_put_i32(b, c->cost_model);
    _skel_put_i32(b, c->splits);
    _skel_put_f64(b, c->time_budget); _skel_put_f64(b, c->timeout);
    _skel_put_f64(b, c->tolerance); _skel_put_f64(b, c->prune);
    _skel_put_u64(b, c->variants_hash);
    _skel_put_i32(b, c->nout); _skel_put_i32(b, c->nview); _skel_put_i32(b, c->nrow); _skel_put_i32(b, c->dd);
}

static const char *_skel_conf_get(_skel_rd *r, _skel_tconf *c, uint32_t version)
{
    int d, i;
    memset(c, 0, sizeof *c);
    _skel_get_str(r, c->id, sizeof c->id);
    _skel_get_str(r, c->inst, sizeof c->inst);
    _skel_get_str(r, c->func, sizeof c->func);
    _skel_get_str(r, c->red, sizeof c->red);
    c->dims = (int)_skel_get_u32(r);
    if (r->bad) return "truncated configuration";
    if (c->dims < 1 || c->dims > 2) return "context dimensions not 1 or 2";
    for (d = 0; d < c->dims; ++d) {
        c->lower[d] = _skel_get_u64(r);
        c->upper[d] = _skel_get_u64(r);
        if (!r->bad && (c->lower[d] < 1 || c->upper[d] < c->lower[d] || c->upper[d] > ((uint64_t)1 << 52)))
            return "bad bounds";
    }
    c->kind = _skel_get_i32(r); c->in_type = _skel_get_i32(r); c->out_type = _skel_get_i32(r);
    c->nin = _skel_get_i32(r); c->index_mode = _skel_get_i32(r); c->dr = _skel_get_i32(r);
    c->dc = _skel_get_i32(r); c->weighted = _skel_get_i32(r); c->has_uniform = _skel_get_i32(r);
    c->direction = _skel_get_i32(r); c->edge = _skel_get_i32(r); c->exclusive = _skel_get_i32(r);
    c->max_depth = _skel_get_i32(r); c->min_depth = _skel_get_i32(r); c->max_nodes = _skel_get_i32(r);
    c->reps = _skel_get_i32(r);
    c->repeats = _skel_get_i32(r);
    for (i = 0; i < SKEL_MAX_IN; ++i) c->in_loc[i] = _skel_get_i32(r);
    c->out_to_host = _skel_get_i32(r); c->split = _skel_get_i32(r); c->cost_model = _skel_get_i32(r);
    if (version >= 4) c->splits = _skel_get_i32(r);
    c->time_budget = _skel_get_f64(r); c->timeout = _skel_get_f64(r);
    c->tolerance = _skel_get_f64(r); c->prune = _skel_get_f64(r);
    c->variants_hash = _skel_get_u64(r);
    c->nout = c->nview = c->nrow = c->dd = -1;
    if (version >= 3) {
        c->nout = _skel_get_i32(r); c->nview = _skel_get_i32(r); c->nrow = _skel_get_i32(r); c->dd = _skel_get_i32(r);
        if (!r->bad && (c->nout < 0 || c->nout > SKEL_MAX_OUT || c->nview < 0 || c->nview > SKEL_MAX_VIEWS ||
                        c->nrow < 0 || c->nrow > SKEL_MAX_IN || c->dd < 0))
            return "bad instance form";
    }
    if (r->bad) return "truncated configuration";
    if (c->kind < 0 || c->kind > _SKEL_KIND_LAST || c->in_type < 0 || c->in_type >= SKEL_TYPE_COUNT ||
        c->out_type < 0 || c->out_type >= SKEL_TYPE_COUNT || c->nin < 0 || c->nin > SKEL_MAX_IN)
        return "bad instance description";
    if (c->repeats < 1 || c->repeats > (1 << 30) || c->max_depth < 0 || c->max_depth > 64 || c->reps < 1 ||
        c->reps > 64 || c->min_depth < 0 || c->min_depth > 64)
        return "bad tuning options";
    if (!(c->tolerance >= 0 && c->tolerance < 1e6) || !(c->prune >= -1 && c->prune < 1e6) ||
        !(c->time_budget >= 0 && c->time_budget < 1e12) || !(c->timeout >= 0 && c->timeout < 1e12))
        return "bad tuning options";
    return NULL;
}

/* The first "model name" of /proc/cpuinfo (the machine's CPU). */
static void _skel_cpu_model(char *buf, size_t size)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    snprintf(buf, size, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f)) {
        char *c = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !c) continue;
        for (++c; *c == ' ' || *c == '\t'; ++c) {}
        c[strcspn(c, "\n")] = 0;
        snprintf(buf, size, "%s", c);
        break;
    }
    fclose(f);
}

/* From /proc/stat's first line ("cpu  user nice system idle iowait irq
   softirq steal ..." in clock ticks): the ticks every CPU has spent and
   those stolen by the hypervisor for other guests.  0, or -1 where the
   line cannot be read (not Linux) or has no steal field. */
int _skel_steal_parse(const char *line, double *steal, double *total)
{
    double v[8];
    int k, used = 0;
    if (strncmp(line, "cpu ", 4) != 0) return -1;
    line += 4;
    for (k = 0; k < 8; ++k, line += used)
        if (sscanf(line, "%lf%n", &v[k], &used) != 1 || !(v[k] >= 0)) return -1;
    for (*total = 0, k = 0; k < 8; ++k) *total += v[k];
    *steal = v[7];
    return 0;
}

static int _skel_steal_now(double *steal, double *total)
{
    char line[512];
    FILE *f = fopen("/proc/stat", "r");
    int rc = f && fgets(line, sizeof line, f) ? _skel_steal_parse(line, steal, total) : -1;
    if (f) fclose(f);
    return rc;
}

static int _skel_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* "cpu: ...\ncores: N\nbackend NAME: INFO\n..." (malloc'd) */
static char *_skel_fingerprint(void)
{
    _skel_buf b;
    char line[800], cpu[256];
    int i;
    memset(&b, 0, sizeof b);
    _skel_init_gpus();      /* the fingerprint names every backend */
    _skel_cpu_model(cpu, sizeof cpu);
    snprintf(line, sizeof line, "cpu: %s\ncores: %d\n", cpu, _skel_cores());
    _skel_buf_put(&b, line, strlen(line));
    for (i = 0; i < _SKEL_LOAD(&_skel_nbackends); ++i) {
        snprintf(line, sizeof line, "backend %s: %s\n", _skel_backends[i].name, _skel_backends[i].info);
        _skel_buf_put(&b, line, strlen(line));
    }
    _skel_buf_put(&b, "", 1);
    if (b.oom) { SKEL_FREE(b.p); return NULL; }
    return (char *)b.p;
}

/* ---- plan files ---- */
static int _skel_tree_serialize(const _skel_tree *t, _skel_buf *b)
{
    int i, v, d, k, D = t->conf.dims;
    _skel_file_begin(b, _SKEL_PLAN_MAGIC, _SKEL_PLAN_VERSION);
    _skel_conf_put(b, &t->conf);
    _skel_put_str(b, t->fingerprint);
    _skel_put_u32(b, (uint32_t)t->nvar);
    for (v = 0; v < t->nvar; ++v) {
        const _skel_pvar *pv = &t->vars[v];
        int k;
        _skel_put_str(b, pv->backend);
        _skel_put_i32(b, pv->threads); _skel_put_i32(b, pv->block);
        _skel_put_i32(b, pv->grid); _skel_put_i32(b, pv->devices); _skel_put_i32(b, pv->pruned);
        _skel_put_i32(b, pv->tiling);
        _skel_put_i32(b, pv->device);
        _skel_put_u32(b, (uint32_t)pv->nparts);
        for (k = 0; k < pv->nparts; ++k) {
            const _skel_ppart *q = &pv->part[k];
            _skel_put_str(b, q->backend);
            _skel_put_i32(b, q->device); _skel_put_i32(b, q->threads);
            _skel_put_i32(b, q->block); _skel_put_i32(b, q->grid);
            _skel_put_f64(b, q->share);
        }
    }
    _skel_put_u32(b, (uint32_t)t->npoints);
    for (i = 0; i < t->npoints; ++i) {
        for (d = 0; d < D; ++d) _skel_put_u64(b, t->points[i].x[d]);
        _skel_put_i32(b, t->points[i].winner);
        for (v = 0; v < 2 * t->nvar; ++v) _skel_put_f64(b, t->times[(size_t)i * 2 * (size_t)t->nvar + (size_t)v]);
    }
    _skel_put_u32(b, (uint32_t)t->nnodes);
    for (i = 0; i < t->nnodes; ++i) {
        const _skel_pnode *nd = &t->nodes[i];
        for (d = 0; d < D; ++d) { _skel_put_u64(b, nd->lo[d]); _skel_put_u64(b, nd->hi[d]); }
        _skel_put_i32(b, nd->first_child);
        for (k = 0; k < 1 << D; ++k) _skel_put_i32(b, nd->corner[k]);
        _skel_put_i32(b, nd->winner);
        _skel_put_i32(b, nd->depth);
        _skel_put_i32(b, nd->closed);
    }
    _skel_put_f64(b, t->tune_seconds);
    _skel_put_u32(b, (uint32_t)t->measurements);
    return _skel_file_end(b);
}

/* Every structural promise lookups rely on: indices in range, children
   after their parent and halving it, corners on the box. */
static const char *_skel_tree_validate(const _skel_tree *t)
{
    int i, k, d, D = t->conf.dims, C = 1 << D, v;
    for (i = 0; i < t->npoints; ++i) {
        const _skel_ppoint *p = &t->points[i];
        if (p->winner < -1 || p->winner >= t->nvar) return "a point's winner is out of range";
        for (d = 0; d < D; ++d)
            if (p->x[d] < t->conf.lower[d] || p->x[d] > t->conf.upper[d]) return "a point lies outside the bounds";
        for (v = 0; v < 2 * t->nvar; ++v) {
            double x = t->times[(size_t)i * 2 * (size_t)t->nvar + (size_t)v];
            if (!(x >= -3 && x < 1e9) || (x < 0 && x != -1 && x != -2 && x != -3)) return "a bad time";
        }
    }
    for (i = 0; i < t->nvar; ++i)
        if (t->vars[i].pruned < -1 || t->vars[i].pruned > 64) return "a bad variant entry";
    for (d = 0; d < D; ++d)
        if (t->nodes[0].lo[d] != t->conf.lower[d] || t->nodes[0].hi[d] != t->conf.upper[d])
            return "the root box is not the configured range";
    if (t->nodes[0].depth != 0) return "the root is not at depth 0";
    for (i = 0; i < t->nnodes; ++i) {
        const _skel_pnode *nd = &t->nodes[i];
        if (nd->winner < -1 || nd->winner >= t->nvar || (nd->closed != 0 && nd->closed != 1) ||
            (nd->closed && (nd->winner < 0 || nd->first_child >= 0)) || nd->depth < 0 || nd->depth > 64)
            return "a node's winner, depth or state is out of range";
        for (k = 0; k < C; ++k) {
            const _skel_ppoint *p;
            if (nd->corner[k] < 0 || nd->corner[k] >= t->npoints) return "a corner index is out of range";
            p = &t->points[nd->corner[k]];
            for (d = 0; d < D; ++d)
                if (p->x[d] != ((k >> d) & 1 ? nd->hi[d] : nd->lo[d])) return "a corner is not on its box";
        }
        if (nd->first_child < 0) continue;
        if (nd->first_child <= i || nd->first_child > t->nnodes - C) return "a child index is out of range";
        for (k = 0; k < C; ++k) {
            const _skel_pnode *ch = &t->nodes[nd->first_child + k];
            if (ch->depth != nd->depth + 1) return "a child's depth is wrong";
            for (d = 0; d < D; ++d) {
                uint64_t m = t->nodes[nd->first_child].hi[d];
                if (m <= nd->lo[d] || m >= nd->hi[d]) return "a split point lies outside its box";
                if (ch->lo[d] != ((k >> d) & 1 ? m : nd->lo[d]) || ch->hi[d] != ((k >> d) & 1 ? nd->hi[d] : m))
                    return "a child box does not halve its parent";
            }
        }
    }
    return NULL;
}

/* Registry indices of every entry (and part); an entry whose backend, a
   part's backend or device is not on this machine gets -1.  Returns how
   many did. */
static int _skel_resolve_pvars(_skel_tree *t)
{
    int v, k, missing = 0;
    _skel_init();
    for (v = 0; v < t->nvar; ++v) {
        _skel_pvar *pv = &t->vars[v];
        pv->index = _skel_backend_find(pv->backend);
        if (pv->index >= 0 && pv->device && _skel_place_of(pv->index, pv->device) < 0) pv->index = -1;
        for (k = 0; k < pv->nparts; ++k) {
            _skel_ppart *q = &pv->part[k];
            q->index = _skel_backend_find(q->backend);
            if (q->index < 0 || _skel_place_of(q->index, q->device) < 0 || q->index == _skel_env.split_backend)
                pv->index = -1;
        }
        missing += pv->index < 0;
    }
    return missing;
}

static int _skel_tree_index(_skel_tree *t);

/* Parse a whole plan file image; on failure say why in why[]. */
static int _skel_plan_parse(const unsigned char *buf, size_t len, skel_plan **out, char *why, size_t whylen)
{
    _skel_rd r;
    _skel_tree *t = NULL;
    const char *err = NULL;
    char tmp[4096];
    uint32_t version;
    int i, v, d, k, D, rc = SKEL_EFORMAT;
    *out = NULL;
    why[0] = 0;
#define _SKEL_PBAD(...) do { snprintf(why, whylen, __VA_ARGS__); goto bad; } while (0)
#define _SKEL_PNOMEM() do { rc = SKEL_ENOMEM; _SKEL_PBAD("out of memory"); } while (0)
    if (_skel_file_check(buf, len, _SKEL_PLAN_MAGIC, _SKEL_PLAN_VERSION, "plan", &r, &version, why, whylen)) goto bad;

    if (!(t = (_skel_tree *)SKEL_MALLOC(sizeof *t))) _SKEL_PNOMEM();
    memset(t, 0, sizeof *t);
    t->steal = -1;
    if ((err = _skel_conf_get(&r, &t->conf, version))) _SKEL_PBAD("%s", err);
    D = t->conf.dims;
    _skel_get_str(&r, tmp, sizeof tmp);
    if (r.bad) _SKEL_PBAD("bad machine fingerprint");
    if (!(t->fingerprint = (char *)SKEL_MALLOC(strlen(tmp) + 1))) _SKEL_PNOMEM();
    strcpy(t->fingerprint, tmp);
    t->nvar = (int)_skel_get_u32(&r);
    if (r.bad || t->nvar < 1 || t->nvar > _SKEL_MAX_PVARS || (size_t)t->nvar * 24 > r.len - r.pos)
        _SKEL_PBAD("bad variant count");
    if (!(t->vars = (_skel_pvar *)SKEL_MALLOC((size_t)t->nvar * sizeof *t->vars))) _SKEL_PNOMEM();
    memset(t->vars, 0, (size_t)t->nvar * sizeof *t->vars);
    for (v = 0; v < t->nvar; ++v) {
        _skel_pvar *pv = &t->vars[v];
        double sum = 0;
        _skel_get_str(&r, pv->backend, sizeof pv->backend);
        pv->threads = _skel_get_i32(&r); pv->block = _skel_get_i32(&r);
        pv->grid = _skel_get_i32(&r); pv->devices = _skel_get_i32(&r); pv->pruned = _skel_get_i32(&r);
        pv->tiling = version >= 3 ? _skel_get_i32(&r) : 0;
        if (r.bad || !pv->backend[0] || pv->threads < 0 || pv->threads > SKEL_MAX_THREADS || pv->block < 0 ||
            pv->grid < 0 || pv->devices < 0 || pv->tiling < 0)
            _SKEL_PBAD("bad variant %d", v);
        if (version >= 4) {
            pv->device = _skel_get_i32(&r);
            pv->nparts = (int)_skel_get_u32(&r);
            if (r.bad || pv->device < 0 || pv->nparts < 0 || pv->nparts > SKEL_MAX_PARTS) _SKEL_PBAD("bad variant %d", v);
            for (k = 0; k < pv->nparts; ++k) {
                _skel_ppart *q = &pv->part[k];
                _skel_get_str(&r, q->backend, sizeof q->backend);
                q->device = _skel_get_i32(&r); q->threads = _skel_get_i32(&r);
                q->block = _skel_get_i32(&r); q->grid = _skel_get_i32(&r);
                q->share = _skel_get_f64(&r);
                if (r.bad || !q->backend[0] || q->device < 0 || q->threads < 0 || q->block < 0 || q->grid < 0 ||
                    !(q->share >= 0 && q->share <= 1))
                    _SKEL_PBAD("bad part %d of variant %d", k, v);
                sum += q->share;
            }
            if (pv->nparts && !(sum > 0.999 && sum < 1.001)) _SKEL_PBAD("variant %d: its shares sum to %g", v, sum);
        }
    }
    t->npoints = (int)_skel_get_u32(&r);
    if (r.bad || t->npoints < 1 || t->npoints > _SKEL_MAX_TREE ||
        (size_t)t->npoints * (8 * (size_t)D + 4 + 16 * (size_t)t->nvar) > r.len - r.pos)
        _SKEL_PBAD("bad point count");
    t->points = (_skel_ppoint *)SKEL_MALLOC((size_t)t->npoints * sizeof *t->points);
    t->times = (double *)SKEL_MALLOC((size_t)t->npoints * 2 * (size_t)t->nvar * sizeof *t->times);
    if (!t->points || !t->times) _SKEL_PNOMEM();
    memset(t->points, 0, (size_t)t->npoints * sizeof *t->points);
    for (i = 0; i < t->npoints; ++i) {
        for (d = 0; d < D; ++d) t->points[i].x[d] = _skel_get_u64(&r);
        t->points[i].winner = _skel_get_i32(&r);
        for (v = 0; v < 2 * t->nvar; ++v) t->times[(size_t)i * 2 * (size_t)t->nvar + (size_t)v] = _skel_get_f64(&r);
    }
    t->nnodes = (int)_skel_get_u32(&r);
    if (r.bad || t->nnodes < 1 || t->nnodes > _SKEL_MAX_TREE ||
        (size_t)t->nnodes * (16 * (size_t)D + 16 + 4 * ((size_t)1 << D)) > r.len - r.pos)
        _SKEL_PBAD("bad node count");
    if (!(t->nodes = (_skel_pnode *)SKEL_MALLOC((size_t)t->nnodes * sizeof *t->nodes))) _SKEL_PNOMEM();
    memset(t->nodes, 0, (size_t)t->nnodes * sizeof *t->nodes);
    for (i = 0; i < t->nnodes; ++i) {
        _skel_pnode *nd = &t->nodes[i];
        for (d = 0; d < D; ++d) { nd->lo[d] = _skel_get_u64(&r); nd->hi[d] = _skel_get_u64(&r); }
        nd->first_child = _skel_get_i32(&r);
        for (k = 0; k < 1 << D; ++k) nd->corner[k] = _skel_get_i32(&r);
        nd->winner = _skel_get_i32(&r);
        nd->depth = _skel_get_i32(&r);
        nd->closed = _skel_get_i32(&r);
    }
    t->tune_seconds = _skel_get_f64(&r);
    t->measurements = (int)_skel_get_u32(&r);
    if (r.bad) _SKEL_PBAD("truncated");
    if (r.pos != r.len) _SKEL_PBAD("%zu unexpected bytes after the tree", r.len - r.pos);
    if (!(t->tune_seconds >= 0 && t->tune_seconds < 1e12) || t->measurements < 0) _SKEL_PBAD("bad statistics");
    if ((err = _skel_tree_validate(t))) _SKEL_PBAD("%s", err);
    _skel_resolve_pvars(t);
    t->loaded = 1;
    t->version = version;
    if (_skel_tree_index(t) == SKEL_ENOMEM || skel_plan_new(out) != SKEL_OK) _SKEL_PNOMEM();
#undef _SKEL_PBAD
#undef _SKEL_PNOMEM
    (*out)->tree = t;
    return SKEL_OK;
bad:
    _skel_tree_free(t);
    return rc;
}

int skel_plan_save(const skel_plan *p, const char *path)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* one writer at a time in this process */
    _skel_buf b;
    int rc;
    if (!p || !path) return _skel_fail(SKEL_EINVAL, "skel_plan_save: NULL plan or path");
    if (!p->tree) return _skel_fail(SKEL_EINVAL, "skel_plan_save: only tuned plans have a file format");
    if (_skel_tree_serialize(p->tree, &b) != SKEL_OK) return _skel_fail(SKEL_ENOMEM, "skel_plan_save: out of memory");
    /* a new temporary file, then rename: a reader sees the old file or the new one */
    pthread_mutex_lock(&lock);
    rc = _skel_write_atomic(path, b.p, b.len, NULL, 0, 1);
    pthread_mutex_unlock(&lock);
    SKEL_FREE(b.p);
    return rc;
}

int skel_plan_load(skel_plan **p, const char *path)
{
    unsigned char *buf = NULL;
    size_t len = 0;
    char why[256];
    int rc;
    if (!p || !path) return _skel_fail(SKEL_EINVAL, "skel_plan_load: NULL argument");
    *p = NULL;
    if ((rc = _skel_load_file(path, (size_t)64 << 20, &buf, &len, why, sizeof why)) != SKEL_OK)
        return _skel_fail(rc, "plan file %s: %s", path, why);
    rc = _skel_plan_parse(buf, len, p, why, sizeof why);
    SKEL_FREE(buf);
    if (rc != SKEL_OK) return _skel_fail(rc, "plan file %s: %s", path, why);
    return SKEL_OK;
}

int skel_plan_path(const char *id, const char *dir, char *buf, size_t size)
{
    char name[101], exe[4096];
    const char *env = getenv("SKEL_PLAN_DIR");
    size_t i;
    long n = -1;
    int w, changed = 0;
    if (!id || !*id || !buf) return _skel_fail(SKEL_EINVAL, "skel_plan_path: NULL or empty id");
    for (i = 0; id[i] && i < sizeof name - 1; ++i) {
        char c = id[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                 (c == '.' && i > 0);
        name[i] = ok ? c : '_';
        changed |= !ok;
    }
    name[i] = 0;
    /* a shortened or changed name gets a hash of the whole id, so ids with
       a long common prefix, or "a/b" and "a_b", get files of their own */
    if (changed || id[i])
        snprintf(name + (i < 83 ? i : 83), sizeof name - (i < 83 ? i : 83), "-%016llx",
                 (unsigned long long)_skel_hash_str(_SKEL_HASH_SEED, id));
    if (!dir && env && *env) dir = env;
    if (dir) {
        w = snprintf(buf, size, "%s/%s.plan", dir, name);
    } else {
#if _SKEL_POSIX2001
        n = (long)readlink("/proc/self/exe", exe, sizeof exe - 1);
#endif
        if (n <= 0) {
            w = snprintf(buf, size, "skel.skelplans/%s.plan", name);
        } else {
            char *slash;
            exe[n] = 0;
            slash = strrchr(exe, '/');
            if (slash) { *slash = 0; w = snprintf(buf, size, "%s/%s.skelplans/%s.plan", exe, slash + 1, name); }
            else w = snprintf(buf, size, "%s.skelplans/%s.plan", exe, name);
        }
    }
    if (w < 0 || (size_t)w >= size) return _skel_fail(SKEL_EINVAL, "skel_plan_path: path too long");
    return SKEL_OK;
}

/* mkdir -p of the folder that holds path: SKEL_OK, or SKEL_EIO saying which
   folder and why */
static int _skel_mkdirs_for(const char *path)
{
    char tmp[4096];
    char *s;
    struct stat st;
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return _skel_fail(SKEL_EIO, "cannot create the folder of %s: path too long", path);
    if (!(s = strrchr(tmp, '/')) || s == tmp) return SKEL_OK;
    *s = 0;
    for (s = tmp + 1;; ++s)
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
                return _skel_fail(SKEL_EIO, "cannot create folder %s: %s", tmp, strerror(errno));
            if (stat(tmp, &st) != 0 || !S_ISDIR(st.st_mode))
                return _skel_fail(SKEL_EIO, "cannot create folder %s: a file of that name is in the way", tmp);
            if (!c) return SKEL_OK;
            *s = c;
        }
}

/* ---- the tuner ---- */
/* A variant's samples at a point (see _skel_sample): q[k] a repeated call,
   f[k] the first call of the same round (< 0: q followed its backend's lead,
   or a first call that lost by far alone, then q[k] = that call). */
#define _SKEL_MAX_SAMPLES 12
typedef struct _skel_samples {
    float q[_SKEL_MAX_SAMPLES], f[_SKEL_MAX_SAMPLES];
    int n;
} _skel_samples;

typedef struct _skel_tuner {
    const skel_tune_desc *d;
    skel_skeleton *sk;
    _skel_tree *t;
    double *pcost;              /* seconds spent measuring each point */
    unsigned char *looked;      /* per point and variant: had its second look (_skel_recheck_order) */
    _skel_samples *smp;         /* per point and variant */
    char *share;                /* per point and variant: its backend shares F there (_skel_shares) */
    int *group;                 /* per variant: the first variant of its backend (and device count) */
    double *scratch;            /* nvar * _SKEL_MAX_SAMPLES values for the estimates */
    double wall_start;          /* when skel_tune began (the wall time includes warm-up, compiles) */
    int last_group;             /* the group of the variant sampled last (-1: none) */
    int last_var;               /* the variant sampled last (-1: none) */
    int settle;                 /* the next sample starts with an untimed call (_skel_round) */
    double start, vclock;       /* vclock: modelled seconds (cost model) */
    double one_off;             /* seconds of one-off first calls (JIT compiles): not budget */
    int progress;               /* 0 none, 1 a terminal line, 2 log lines */
    double last_progress;
    int cur_node;               /* breadth-first position, for progress */
    int dev_space;              /* where SKEL_ON_DEVICE inputs live */
    uint64_t rng;
    skel_call tmpl;
} _skel_tuner;

static double _skel_tune_elapsed(const _skel_tuner *T)
{
    return T->d->cost ? T->vclock : _skel_now() - T->start - T->one_off;
}

/* Kinds whose calls always reduce to 2-D context points (see TUNER). */
static int _skel_kind_2d(int k)
{
    return k == SKEL_KIND_OVERLAP2D || k == SKEL_KIND_MAPARRAY || k == SKEL_KIND_MAPPAIRS ||
           k == SKEL_KIND_MAPPAIRSREDUCE || k == SKEL_KIND_OVERLAP3D;
}

/* A type as a plan file records it: a built-in type's id; 0 for a struct
   (its name and layout live in the instance, which the file names). */
static int _skel_type_code(_skel_tref t)
{
    const skel_type_info *ti = t();
    return ti->is_struct ? 0 : (int)skel_type_of(ti);
}

static void _skel_tune_defaults(const skel_tune_desc *d, _skel_tconf *c)
{
    const skel_skeleton *sk = d->sk;
    int i;
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "%s", d->id);
    if (sk) {
        snprintf(c->inst, sizeof c->inst, "%s", sk->name ? sk->name : "");
        snprintf(c->func, sizeof c->func, "%s", sk->func_name ? sk->func_name : "");
        snprintf(c->red, sizeof c->red, "%s", sk->red_name ? sk->red_name : "");
        c->kind = sk->kind;
        c->in_type = sk->nin ? _skel_type_code(sk->in_t[0]) : 0;
        c->out_type = _skel_type_code(sk->out_t[0]);
        c->nin = sk->nin; c->index_mode = sk->index_mode; c->dr = sk->dr; c->dc = sk->dc;
        c->weighted = sk->weighted; c->has_uniform = sk->has_uniform;
        c->nout = sk->nout; c->nview = sk->nview; c->nrow = sk->nrow; c->dd = sk->dd;
    }
    if (d->call) { c->direction = d->call->direction; c->edge = (int)d->call->edge; c->exclusive = d->call->exclusive; }
    c->dims = d->dims;
    if (!c->dims) {
        c->dims = 1;
        if (sk && _skel_kind_2d(sk->kind)) c->dims = 2;
        if (sk && (sk->kind == SKEL_KIND_OVERLAP || sk->kind == SKEL_KIND_REDUCE) && c->direction) c->dims = 2;
        /* a (row, col) index: the cost per element may depend on the shape */
        if (sk && sk->index_mode == 2 && (sk->kind == SKEL_KIND_MAP || sk->kind == SKEL_KIND_MAPREDUCE))
            c->dims = 2;
        if (sk && sk->kind == SKEL_KIND_SCAN && c->direction == SKEL_ROWS) c->dims = 2;
    }
    if (sk && (sk->kind == SKEL_KIND_REDUCE || sk->kind == SKEL_KIND_MAPPAIRSREDUCE) && c->dims == 2 && !c->direction)
        c->direction = SKEL_ROWS;
    for (i = 0; i < c->dims && i < 2; ++i) { c->lower[i] = d->lower[i]; c->upper[i] = d->upper[i]; }
    c->max_depth = d->max_depth > 0 ? (d->max_depth < 40 ? d->max_depth : 40) : 10;
    c->min_depth = d->min_depth > 0 ? (d->min_depth < c->max_depth ? d->min_depth : c->max_depth)
                 : d->min_depth < 0 ? 0 : (c->dims == 1 ? 3 : 2);
    if (c->min_depth > c->max_depth) c->min_depth = c->max_depth;
    c->max_nodes = d->max_nodes > 0 ? (d->max_nodes < _SKEL_MAX_TREE ? d->max_nodes : _SKEL_MAX_TREE) : 2048;
    c->time_budget = d->time_budget > 0 ? d->time_budget : 60;
    c->timeout = d->timeout > 0 ? d->timeout : 2;
    c->reps = d->reps > 0 ? (d->reps < 64 ? d->reps : 64) : 5;
    c->repeats = d->repeats > 0 ? d->repeats : 1;
    for (i = 0; i < SKEL_MAX_IN; ++i) c->in_loc[i] = d->in_loc[i] == SKEL_ON_DEVICE;
    /* default: the result goes where the (first) input came from */
    c->out_to_host = d->out_to_host > 0 || (d->out_to_host == 0 && c->in_loc[0] == SKEL_ON_HOST);
    c->tolerance = d->tolerance > 0 ? d->tolerance : d->tolerance < 0 ? 0 : 0.03;
    c->prune = d->prune > 0 ? d->prune : d->prune < 0 ? -1 : 0.25;
    c->split = d->split == SKEL_SPLIT_LINEAR;
    c->cost_model = d->cost != NULL;
    c->splits = !d->cost && (d->splits > 0 || (d->splits == 0 && !(d->variants && d->nvariants > 0)));
    if ((d->variants && d->nvariants > 0) || (d->backends && *d->backends)) {
        uint64_t h = _SKEL_FNV_SEED;
        if (d->backends && *d->backends) h = _skel_fnv1a(d->backends, strlen(d->backends) + 1, h);
        for (i = 0; d->variants && i < d->nvariants; ++i) {
            const skel_variant *v = &d->variants[i];
            int prm[5], k;
            prm[0] = v->threads; prm[1] = v->block; prm[2] = v->grid; prm[3] = v->devices; prm[4] = v->tiling;
            h = _skel_fnv1a(v->backend ? v->backend : "", v->backend ? strlen(v->backend) + 1 : 1, h);
            h = _skel_fnv1a(prm, sizeof prm, h);
            if (v->device) h = _skel_fnv1a(&v->device, sizeof v->device, h);     /* (device 0 hashes as before) */
            for (k = 0; k < SKEL_MAX_PARTS && v->parts[k].backend; ++k) {
                const skel_part *p = &v->parts[k];
                prm[0] = p->threads; prm[1] = p->block; prm[2] = p->grid; prm[3] = p->device; prm[4] = 0;
                h = _skel_fnv1a(p->backend, strlen(p->backend) + 1, h);
                h = _skel_fnv1a(prm, sizeof prm, h);
                h = _skel_fnv1a(&p->share, sizeof p->share, h);
            }
        }
        c->variants_hash = h;
    }
}

/* Is name one of the comma-separated names in list? */
static int _skel_name_in(const char *list, const char *name, size_t len)
{
    while (*list) {
        size_t k = strcspn(list, ",");
        const char *a = list, *z = list + k;
        while (a < z && *a == ' ') ++a;
        while (z > a && z[-1] == ' ') --z;
        if ((size_t)(z - a) == len && strncmp(a, name, len) == 0) return 1;
        list += k + (list[k] == ',');
    }
    return 0;
}

/* desc.backends: every name must be a backend skel knows (or, with a cost
   model, anything); a typo would otherwise tune over fewer variants
   without a word. */
static int _skel_check_backends(const skel_tune_desc *d)
{
    const char *l = d->backends;
    char name[32], why[300];
    while (l && *l) {
        size_t k = strcspn(l, ","), a = 0;
        while (a < k && l[a] == ' ') ++a;
        while (k > a && l[k - 1] == ' ') --k;
        snprintf(name, sizeof name, "%.*s", (int)(k - a < 31 ? k - a : 31), l + a);
        if (!name[0] || (!d->cost && _skel_backend_find(name) < 0 &&
                         strncmp(_skel_backend_why(name, why, sizeof why), "unknown", 7) == 0))
            return _skel_fail(SKEL_EINVAL, "skel_tune %s: backends \"%s\": unknown backend \"%s\"", d->id, d->backends, name);
        l += strcspn(l, ",");
        l += *l == ',';
    }
    return SKEL_OK;
}

/* A GPU backend's candidates for a SKEL_CONV2D: its block sizes (a 2D
   overlap's grid follows from its tiles, so grid sizes are dropped) x
   the tiling metrics Phi_occupancy, Phi_tiling and none (the shared-memory
   tile kernel); at most max.  Returns the new count. */
static int _skel_tune_tilings(skel_variant *cand, int m, int max)
{
    static const int tilings[] = { SKEL_TILING_OCCUPANCY, SKEL_TILING_MAX, SKEL_TILING_SHARED };
    skel_variant blocks[_SKEL_MAX_PVARS];
    int nb = 0, i, k, n = 0;
    for (i = 0; i < m; ++i) {
        for (k = 0; k < nb && blocks[k].block != cand[i].block; ++k) {}
        if (k == nb && cand[i].devices <= 1) blocks[nb++] = cand[i];
    }
    for (i = 0; i < nb; ++i)
        for (k = 0; k < 3 && n < max; ++k) {
            cand[n] = blocks[i];
            cand[n].grid = 0;
            cand[n++].tiling = tilings[k];
        }
    return n;
}

/* The variant table: the desc's list, or every backend x its candidates
   (pool: 2, 4, ... threads up to the core count, and the core count;
   omp, only where there is no pool: 1, 2, 4, ... and the core count).
   omp and pool compute the same thing on the same threads; measuring
   both would halve what the budget buys for each, and omp's team stalls
   whenever one of its threads is descheduled (bench/results/cpu.md).
   Of those, the variants of desc.backends' backends when it is set. */
static int _skel_tune_variants(const skel_tune_desc *d, _skel_tree *t)
{
    skel_variant cand[_SKEL_MAX_PVARS];
    int n = 0, b, i, k;
    _SKEL_TRY(_skel_check_backends(d));
    if (d->variants && d->nvariants > 0) {
        for (i = 0; i < d->nvariants && n < _SKEL_MAX_PVARS; ++i) cand[n++] = d->variants[i];
    } else {
        _skel_init_gpus();
        for (b = 0; b < _SKEL_LOAD(&_skel_nbackends); ++b) {
            const _skel_backend *be = &_skel_backends[b];
            int m = 0;
            if (b == _skel_env.split_backend) continue;     /* the tuner makes its splits itself */
            if (be->candidates) {
                m = be->candidates(be, cand + n, _SKEL_MAX_PVARS - n);
                if (m < 0) m = 0;
                for (k = 0; k < m; ++k) cand[n + k].backend = be->name;
                if (be->is_gpu && d->sk && d->sk->kind == SKEL_KIND_OVERLAP2D && d->sk->conv)
                    m = _skel_tune_tilings(cand + n, m, _SKEL_MAX_PVARS - n);
            } else if (strcmp(be->name, "omp") == 0) {
                if (_skel_env.pool_backend >= 0) continue;
                /* up to the threads this process may use, not the machine's cores */
                int cores = _skel_omp_default_threads(), th;
                for (th = 1; th < cores && n + m < _SKEL_MAX_PVARS; th *= 2) {
                    memset(&cand[n + m], 0, sizeof cand[0]);
                    cand[n + m].backend = be->name;
                    cand[n + m++].threads = th;
                }
                if (n + m < _SKEL_MAX_PVARS) {
                    memset(&cand[n + m], 0, sizeof cand[0]);
                    cand[n + m].backend = be->name;
                    cand[n + m++].threads = cores;
                }
            }
            if (m == 0 && n < _SKEL_MAX_PVARS) {
                memset(&cand[n], 0, sizeof cand[0]);
                cand[n].backend = be->name;
                m = 1;
            }
            n += m;
        }
    }
    if (d->backends && *d->backends) {
        for (i = k = 0; i < n; ++i)
            if (cand[i].backend && _skel_name_in(d->backends, cand[i].backend, strlen(cand[i].backend)))
                cand[k++] = cand[i];
        n = k;
    }
    if (n == 0) return _skel_fail(SKEL_EINVAL, "skel_tune %s: no variants to tune%s%s", d->id,
                                  d->backends && *d->backends ? " on " : "", d->backends ? d->backends : "");
    if (!(t->vars = (_skel_pvar *)SKEL_MALLOC((size_t)n * sizeof *t->vars)))
        return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    memset(t->vars, 0, (size_t)n * sizeof *t->vars);
    for (i = 0; i < n; ++i) {
        const char *why = _skel_pvar_from(&cand[i], &t->vars[i]);
        if (why) return _skel_fail(SKEL_EINVAL, "skel_tune: variant %d has %s", i, why);
    }
    t->nvar = n;
    if (_skel_resolve_pvars(t) && !d->cost) {
        char why[300];
        for (i = 0; i < n && t->vars[i].index >= 0; ++i) {}
        return _skel_fail(SKEL_EBACKEND, "skel_tune: variant backend '%s' is %s", t->vars[i].backend,
                          _skel_backend_why(t->vars[i].backend, why, sizeof why));
    }
    return SKEL_OK;
}

/* A short label: "seq", "omp/2", "cuda/b256/g1024", "cuda:1",
   "split[pool/16 .31|cuda .69]". */
static int _skel_place_label(char *buf, size_t size, const char *backend, int device, int threads, int block, int grid)
{
    int w = snprintf(buf, size, "%s", backend);
    if (device && w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, ":%d", device);
    if (threads && w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, "/%d", threads);
    if (block && w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, "/b%d", block);
    if (grid && w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, "/g%d", grid);
    return w;
}

#define _SKEL_LABEL 128
static const char *_skel_pvar_label(const _skel_pvar *pv, char *buf, size_t size)
{
    int w = _skel_place_label(buf, size, pv->backend, pv->device, pv->threads, pv->block, pv->grid), k;
    if (pv->devices > 1 && w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, "/d%d", pv->devices);
    if (pv->tiling && w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, "/t%d", pv->tiling);
    for (k = 0; k < pv->nparts && w >= 0 && (size_t)w < size; ++k) {
        const _skel_ppart *q = &pv->part[k];
        w += snprintf(buf + w, size - (size_t)w, "%s", k ? "|" : "[");
        if (w >= 0 && (size_t)w < size) w += _skel_place_label(buf + w, size - (size_t)w, q->backend, q->device, q->threads, q->block, q->grid);
        if (w >= 0 && (size_t)w < size) w += snprintf(buf + w, size - (size_t)w, " %.3g%s", q->share, k + 1 == pv->nparts ? "]" : "");
    }
    return buf;
}

/* ---- synthetic operands ---- */
typedef struct _skel_synth {
    skel_vec *in[SKEL_MAX_IN], *out, *more[SKEL_MAX_OUT], *view[SKEL_MAX_VIEWS];   /* more: outputs 1.. */
    double result[_SKEL_MAX_ELEM / sizeof(double)];
    skel_call call;
    _skel_shape sh;
} _skel_synth;

static void _skel_synth_free(_skel_synth *s)
{
    int i;
    for (i = 0; i < SKEL_MAX_IN; ++i) skel_free(s->in[i]);
    for (i = 0; i < SKEL_MAX_OUT; ++i) skel_free(s->more[i]);
    for (i = 0; i < SKEL_MAX_VIEWS; ++i) skel_free(s->view[i]);
    skel_free(s->out);
    memset(s, 0, sizeof *s);
}

/* Random values: floats in [0,1), integers 0..99 (small types too); the
   bytes of a struct stay zero (desc.prepare may fill them). */
static void _skel_fill_random(skel_vec *v, uint64_t *rng)
{
    size_t i;
    unsigned char *p = (unsigned char *)v->host;
    if (v->type >= SKEL_TYPE_COUNT) { memset(p, 0, v->n * v->esz); return; }
    for (i = 0; i < v->n; ++i) {
        uint64_t x;
        double u;
        *rng ^= *rng >> 12; *rng ^= *rng << 25; *rng ^= *rng >> 27;
        x = *rng * 0x2545F4914F6CDD1DULL;
        u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
        switch (v->type) {
        case SKEL_FLOAT: ((float *)p)[i] = (float)u; break;
        case SKEL_DOUBLE: ((double *)p)[i] = u; break;
        case SKEL_INT32: ((int32_t *)p)[i] = (int32_t)(x % 100); break;
        case SKEL_UINT32: ((uint32_t *)p)[i] = (uint32_t)(x % 100); break;
        case SKEL_INT64: ((int64_t *)p)[i] = (int64_t)(x % 100); break;
        case SKEL_INT8: ((int8_t *)p)[i] = (int8_t)(x % 100); break;
        case SKEL_UINT8: ((uint8_t *)p)[i] = (uint8_t)(x % 100); break;
        case SKEL_INT16: ((int16_t *)p)[i] = (int16_t)(x % 100); break;
        case SKEL_UINT16: ((uint16_t *)p)[i] = (uint16_t)(x % 100); break;
        default: ((uint64_t *)p)[i] = x % 100; break;
        }
    }
}

/* A container of operand type t shaped n (1-D), n x m (2-D) or, for a
   3-D MapOverlap, n/depth planes x m with planes of 8 rows (the context
   point is planes * rows x cols; see TUNER). */
static int _skel_synth_new(skel_vec **v, _skel_tref t, int shape, size_t n, size_t m)
{
    skel_type id = skel_type_of(t());
    if (shape == 3) return skel_ten_new(v, id, n / 8 ? n / 8 : 1, n < 8 ? n : 8, m);
    return shape == 2 ? skel_mat_new(v, id, n, m) : skel_vec_new(v, id, n);
}

/* Operands of the instance's types and shapes for point x (see TUNER). */
static int _skel_synth_make(_skel_tuner *T, const uint64_t *x, _skel_synth *s)
{
    skel_skeleton *sk = T->sk;
    const _skel_tconf *c = &T->t->conf;
    size_t n = (size_t)x[0], m = c->dims == 2 ? (size_t)x[1] : 1, pt[2];
    int i, rc = SKEL_OK, nin = sk->nin;
    /* Map, Scan, MapReduce: a rows x cols matrix in 2-D (a row-wise Scan: 1 x n in 1-D) */
    int shape = c->dims == 2 || (sk->kind == SKEL_KIND_SCAN && T->tmpl.direction == SKEL_ROWS) ? 2 : 1;
    if (c->dims == 1 && shape == 2) { m = n; n = 1; }
    memset(s, 0, sizeof *s);
    s->call = T->tmpl;
    switch (sk->kind) {
    case SKEL_KIND_MAPARRAY:
        rc = _skel_synth_new(&s->in[0], sk->in_t[0], 1, n, 1);
        if (rc == SKEL_OK) rc = _skel_synth_new(&s->in[1], sk->in_t[1], 1, m, 1);
        if (rc == SKEL_OK) rc = _skel_synth_new(&s->out, sk->out_t[0], 1, m, 1);
        break;
    case SKEL_KIND_MAPPAIRS:
    case SKEL_KIND_MAPPAIRSREDUCE:
        for (i = 0; i < nin && rc == SKEL_OK; ++i) rc = _skel_synth_new(&s->in[i], sk->in_t[i], 1, i < sk->nrow ? n : m, 1);
        if (sk->kind == SKEL_KIND_MAPPAIRS) {
            if (rc == SKEL_OK) rc = _skel_synth_new(&s->out, sk->out_t[0], 2, n, m);
        } else {
            s->call.direction = c->direction == SKEL_COLS ? SKEL_COLS : SKEL_ROWS;
            if (rc == SKEL_OK) rc = _skel_synth_new(&s->out, sk->out_t[0], 1, c->direction == SKEL_COLS ? m : n, 1);
        }
        break;
    case SKEL_KIND_REDUCE:
    case SKEL_KIND_MAPREDUCE:
        for (i = 0; i < nin && rc == SKEL_OK; ++i) rc = _skel_synth_new(&s->in[i], sk->in_t[i], c->dims, n, m);
        if (c->dims == 2 && sk->kind == SKEL_KIND_REDUCE) {
            s->call.direction = c->direction;
            if (rc == SKEL_OK) rc = _skel_synth_new(&s->out, sk->out_t[0], 1, c->direction == SKEL_COLS ? m : n, 1);
        } else {
            s->call.direction = SKEL_WHOLE;
            s->call.result = s->result;
            s->call.count = nin ? 0 : n;
        }
        if (nin == 0 && c->dims == 2) {            /* index only, 2-D: the point's grid */
            s->call.count = 0;
            s->call.rows = n;
            s->call.cols = m;
        } else if (nin == 0 && sk->index_mode == 2) {     /* index only, (row, col): a grid of n, near square */
            size_t r = (size_t)sqrt((double)n);
            while (r > 1 && n % r) --r;
            s->call.count = 0;
            s->call.rows = r ? r : 1;
            s->call.cols = n / s->call.rows;
        } else if (nin == 0) {
            s->call.count = n;
            s->call.rows = s->call.cols = 0;
        }
        break;
    default:    /* Map, Scan, MapOverlap 1-D / 2-D / 3-D */
        if (sk->kind == SKEL_KIND_OVERLAP3D) shape = 3;
        for (i = 0; i < nin && rc == SKEL_OK; ++i) rc = _skel_synth_new(&s->in[i], sk->in_t[i], shape, n, m);
        if (rc == SKEL_OK) rc = _skel_synth_new(&s->out, sk->out_t[0], shape, n, m);
        for (i = 1; i < sk->nout && rc == SKEL_OK; ++i) rc = _skel_synth_new(&s->more[i], sk->out_t[i], shape, n, m);
        break;
    }
    /* views: the template call's, else one shaped like the first input */
    for (i = 0; i < sk->nview && rc == SKEL_OK; ++i)
        if (!s->call.views[i]) {
            rc = _skel_synth_new(&s->view[i], sk->view_t[i], sk->nin ? s->in[0]->dims : 1, sk->nin ? s->in[0]->rows : n,
                                 sk->nin ? s->in[0]->cols : 1);
            if (rc == SKEL_OK) _skel_fill_random(s->view[i], &T->rng);
            s->call.views[i] = s->view[i];
        }
    if (rc != SKEL_OK) {
        char why[sizeof _skel_errbuf];
        memcpy(why, _skel_errbuf, sizeof why);
        _skel_synth_free(s);
        if (c->dims == 2)
            return _skel_fail(rc, "skel_tune %s: no synthetic operands for point %zu x %zu: %s", c->id, n, m, why);
        return _skel_fail(rc, "skel_tune %s: no synthetic operands for point %zu: %s", c->id, n, why);
    }
    for (i = 0; i < nin; ++i) {
        _skel_fill_random(s->in[i], &T->rng);
        s->call.in[i] = s->in[i];
    }
    s->call.out = s->call.outs[0] = s->out;
    for (i = 1; i < sk->nout; ++i) s->call.outs[i] = s->more[i];
    pt[0] = (size_t)x[0];
    pt[1] = c->dims == 2 ? (size_t)x[1] : 1;
    if (T->d->prepare) T->d->prepare(&s->call, pt, T->d->user);
    s->call.outs[0] = s->call.out;
    if ((rc = _skel_check(sk, &s->call, &s->sh)) != SKEL_OK) { _skel_synth_free(s); return rc; }
    if (!_skel_shape_point(&s->sh, c->dims, pt)) {
        _skel_synth_free(s);
        return _skel_fail(SKEL_EINVAL, "skel_tune %s: the calls reduce to %d-D points, the tuning is %d-D",
                          c->id, s->sh.dims, c->dims);
    }
    return SKEL_OK;
}

/* Put the operands where the configuration says they are before the first
   call on fresh data: inputs valid on the host only or on the device
   only, the results nowhere yet (on the host, as never read).  (Views
   stay where they are.)  Device buffers are kept, only marked stale, as
   in a program's loop that writes new data with skel_write before each
   call: that is what the plan will serve.  Releasing them (skel_flush,
   before) charged every sample a fresh allocation and, with
   SKEL_CUDA_PINNED, page-locking the host data again (its lifetime is
   the device buffer's): the tuner's cuda F stayed at pageable levels
   (1.5-2.1 ms at 4M floats on the H100) where the program's calls took
   0.4-0.5 ms, and plans kept the host or a split 1.9 x slower. */
static int _skel_synth_reset(_skel_tuner *T, _skel_synth *s)
{
    int i;
    for (i = 0; i < SKEL_MAX_IN; ++i) {
        skel_vec *v = s->in[i];
        if (!v) continue;
        if (!_skel_acquire(v, 0, _SKEL_READ)) return SKEL_EDEVICE;
        _skel_mark_written(v, 0);
        if (T->t->conf.in_loc[i] == SKEL_ON_DEVICE && T->dev_space > 0) {
            if (!_skel_acquire(v, T->dev_space, _SKEL_READ)) return SKEL_EDEVICE;
            _skel_map_reset(v, T->dev_space);
        }
    }
    for (i = 0; i < SKEL_MAX_OUT; ++i) {
        skel_vec *o = i ? s->more[i] : s->out;
        if (o) _skel_mark_written(o, 0);
    }
    return SKEL_OK;
}

/* Wait until the call that wrote out has finished.  GPU launches return
   before the kernel ends (CUDA's default stream, OpenCL's in-order queue):
   a Map whose result stays on the device would otherwise be timed as its
   launch only.  A blocking copy of one element waits for every earlier
   launch in that queue (a few microseconds); host results need nothing. */
static int _skel_tune_sync(skel_vec *out)
{
    unsigned char tmp[16];
    int s;
    if (!out || _skel_map_valid(out, 0) || !out->n || out->esz > sizeof tmp || !(s = _skel_map_device(out)))
        return SKEL_OK;
    return _skel_spaces[s].download(_skel_spaces[s].ctx, tmp, out->dev[s], 0, out->esz);
}

/* ---- measurement: samples in interleaved rounds ----
   A sample of a variant at a point is a repeated call on data already in
   place (q), after, when it leads its backend in the round, the first
   call on fresh data (f).  Variants of one backend (and device count)
   differ in kernel geometry or thread count, not in what moves the data,
   so they share F: the first call's extra cost f - q is timed once per
   backend and round, by the variant that leads it there, and the others
   time only q, on the data it left in place.  (On the H100 machine a
   4096 x 4096 point with host data cost every CUDA and OpenCL variant a
   64 MB upload and download per repetition, most of a 5 s budget; and
   their F differed by up to 30% from upload noise alone.)  R is the
   lower median of a variant's q, F the lower median of its backend's
   f - q: a burst that slows fewer than half of the samples does not
   move them, and rounds put other variants between one variant's
   samples, so that one burst rarely hits most of them. */

static _skel_samples *_skel_smp(const _skel_tuner *T, int p, int v)
{
    return &T->smp[(size_t)p * (size_t)T->t->nvar + (size_t)v];
}

/* The lower median of x[0..n-1], n > 0 (sorts them): the least of one or
   two, the middle of three. */
static double _skel_lower_median(double *x, int n)
{
    int i, j;
    for (i = 1; i < n; ++i) {
        double y = x[i];
        for (j = i; j > 0 && x[j - 1] > y; --j) x[j] = x[j - 1];
        x[j] = y;
    }
    return x[(n - 1) / 2];
}

/* R and F of every variant of v's backend at point p from their samples. */
static void _skel_estimate(_skel_tuner *T, int p, int v)
{
    _skel_tree *t = T->t;
    double *buf = T->scratch, F = 0;
    int u, k, nf = 0;
    for (u = 0; u < t->nvar; ++u) {
        const _skel_samples *su = _skel_smp(T, p, u);
        if (T->group[u] != T->group[v]) continue;
        for (k = 0; k < su->n; ++k)
            if (su->f[k] >= 0) buf[nf++] = su->f[k] > su->q[k] ? su->f[k] - su->q[k] : 0;
    }
    if (nf) F = _skel_lower_median(buf, nf);
    for (u = 0; u < t->nvar; ++u) {
        const _skel_samples *su = _skel_smp(T, p, u);
        double *rf = t->times + ((size_t)p * (size_t)t->nvar + (size_t)u) * 2;
        if (T->group[u] != T->group[v] || su->n == 0 || rf[0] == _SKEL_T_TIMEOUT || rf[0] == _SKEL_T_FAILED) continue;
        for (k = 0; k < su->n; ++k) buf[k] = su->q[k];
        rf[0] = _skel_lower_median(buf, su->n);
        rf[1] = F;
    }
}

/* The least T(r) measured at point p so far (1e300: none). */
static double _skel_point_best(const _skel_tree *t, int p)
{
    int w = _skel_tree_best(t, p);
    return w < 0 ? 1e300 : _skel_tree_time(t, p, w);
}

/* One timed sample of variant v at point p on operands s (the cost model
   when the description has one).  full: the operands put back where
   in_loc says, then the first call (with the copy back when out_to_host)
   and a repeated call; otherwise the repeated call only, on the data its
   backend's lead left in place.  A first call over `cut` seconds is the
   whole sample (*q = *f, *f = -1: T(r) = R*r + F >= R + F = f, so the
   variant loses here by f alone, and a slow variant at a dear point costs
   one call instead of two).  Calls under 20 us are timed in batches.
   With T->settle an untimed call of v comes first (set where v follows
   another backend's calls and calls are cheap), as bench/eval.c starts
   its samples: what the other backend left behind is not charged to v.
   (In one H100 run a CUDA first call with 16 KB of host data measured
   F = 164 us at 256 x 16 of a dilation, 14 us in the run before, and the
   evaluation's calls, which start so, 35 us at 940 x 43.) */
static int _skel_sample(_skel_tuner *T, _skel_synth *s, int p, int v, int full, double cut, double *f, double *q)
{
    int settle = T->settle;
    _skel_tree *t = T->t;
    const _skel_tconf *c = &t->conf;
    const _skel_pvar *pv = &t->vars[v];
    _skel_variant var;
    double t0;
    int i, batch;
    t->measurements++;
    *f = -1;
    if (T->d->cost) {
        skel_variant pub;
        size_t pt[2];
        double F = 0, R;
        pt[0] = (size_t)t->points[p].x[0];
        pt[1] = c->dims == 2 ? (size_t)t->points[p].x[1] : 1;
        _skel_pvar_public(pv, &pub);
        R = T->d->cost(&pub, pt, &F, T->d->user);
        if (F < 0) F = 0;
        if (R < 0) return _SKEL_T_FAILED;
        *q = R;
        if (full) *f = R + F;
        T->vclock += full ? R + F : 0;
        if (full && *f > cut) { *q = *f; *f = -1; return SKEL_OK; }
        T->vclock += R;
        return SKEL_OK;
    }
    _skel_pvar_variant(pv, &var);       /* with its tiling, device and, for a split, its parts */
    T->settle = 0;
    if (settle && (_skel_run_variant(T->sk, &s->call, &s->sh, &var) != SKEL_OK || _skel_tune_sync(s->out) != SKEL_OK))
        return _SKEL_T_FAILED;
    _skel_cpu_wake(&var);
    if (full) {
        if (_skel_synth_reset(T, s) != SKEL_OK) return _SKEL_T_FAILED;
        t0 = _skel_now();
        if (_skel_run_variant(T->sk, &s->call, &s->sh, &var) != SKEL_OK) return _SKEL_T_FAILED;
        if (c->out_to_host && s->out && !skel_read(s->out)) return _SKEL_T_FAILED;
        if (_skel_tune_sync(s->out) != SKEL_OK) return _SKEL_T_FAILED;
        *f = _skel_now() - t0;
        if (*f > cut) { *q = *f; *f = -1; return SKEL_OK; }
    }
    t0 = _skel_now();
    if (_skel_run_variant(T->sk, &s->call, &s->sh, &var) != SKEL_OK || _skel_tune_sync(s->out) != SKEL_OK)
        return _SKEL_T_FAILED;
    *q = _skel_now() - t0;
    if (*q < 20e-6) {           /* below the clock's comfort: average a batch */
        batch = *q > 1e-8 ? (int)(50e-6 / *q) : 256;
        if (batch > 256) batch = 256;
        if (batch < 2) batch = 2;
        t0 = _skel_now();
        for (i = 0; i < batch; ++i)
            if (_skel_run_variant(T->sk, &s->call, &s->sh, &var) != SKEL_OK) return _SKEL_T_FAILED;
        if (_skel_tune_sync(s->out) != SKEL_OK) return _SKEL_T_FAILED;
        *q = (_skel_now() - t0) / batch;
    }
    return SKEL_OK;
}

/* Does point a lie below or on point b in every dimension?  *ratio: how
   many times more elements b has. */
static int _skel_point_below(const _skel_tree *t, int a, int b, double *ratio)
{
    int d;
    *ratio = 1;
    for (d = 0; d < t->conf.dims; ++d) {
        if (t->points[a].x[d] > t->points[b].x[d]) return 0;
        *ratio *= (double)t->points[b].x[d] / (double)t->points[a].x[d];
    }
    return 1;
}

/* The most a call of v at point p should take: v's least T(r) at a
   measured point as large as p in every dimension (more elements do not
   cost less), else twice its T(r) at the nearest measured point times how
   many more elements p has (k times the elements cost at most k times as
   much, and twice that where p's data outgrow a cache).  0: v ran at no
   other point. */
static double _skel_expect(const _skel_tuner *T, int p, int v)
{
    const _skel_tree *t = T->t;
    int q, b = -1, d;
    double bd = 0, dq, k = 1, up = 0, tq, ratio;
    for (q = 0; q < t->npoints; ++q) {
        if (q == p || (tq = _skel_tree_time(t, q, v)) < 0) continue;
        if (_skel_point_below(t, p, q, &ratio) && (up <= 0 || tq < up)) up = tq;
        dq = _skel_tree_dist(t, t->points[p].x, q);
        if (b < 0 || dq < bd) { b = q; bd = dq; }
    }
    if (up > 0 || b < 0) return up;
    for (d = 0; d < t->conf.dims; ++d) k *= (double)t->points[p].x[d] / (double)t->points[b].x[d];
    return 2 * _skel_tree_time(t, b, v) * (k > 1 ? k : 1);
}

/* A sample of v at p, kept in its samples and folded into its backend's
   R and F.  A sample whose first call took over twice what v should take
   there (_skel_expect) plus 1 ms, or over the timeout, is taken again at
   once: the first call of a kernel compiled only now (a size class the
   warm-up did not reach, a split over several GPUs: on the H100 machine
   a 256 x 256 point of a 5x5 dilation took 0.8 s where its calls took
   0.03-0.6 ms) or a stall.  Where the second is over twice as fast plus
   1 ms, it replaces the first, and the difference is a one-off, not
   charged to the budget; else both are kept.  Returns SKEL_OK, or the
   _SKEL_T code now stored for v at p. */
static void _skel_keep(_skel_samples *sv, double f, double q)
{
    if (sv->n == _SKEL_MAX_SAMPLES) return;
    sv->q[sv->n] = (float)q;
    sv->f[sv->n++] = (float)f;
}
static int _skel_take(_skel_tuner *T, _skel_synth *s, int p, int v, int full, double cut)
{
    _skel_tree *t = T->t;
    _skel_samples *sv = _skel_smp(T, p, v);
    double *rf = t->times + ((size_t)p * (size_t)t->nvar + (size_t)v) * 2, f, q, f2, q2, first, again;
    double expect = T->d->cost ? 0 : _skel_expect(T, p, v);
    int rc = _skel_sample(T, s, p, v, full, cut, &f, &q), late;
    first = f >= 0 ? f : q;
    late = rc == SKEL_OK && (f > t->conf.timeout || q > t->conf.timeout || (expect > 0 && first > 2 * expect + 1e-3));
    if (late && (rc = _skel_sample(T, s, p, v, full, cut, &f2, &q2)) == SKEL_OK) {
        again = f2 >= 0 ? f2 : q2;
        if (first > 2 * again + 1e-3) {     /* a one-off */
            if (!T->d->cost) T->one_off += first - again;
        } else {
            _skel_keep(sv, f, q);
        }
        f = f2;
        q = q2;
        if (f > t->conf.timeout || q > t->conf.timeout) rc = _SKEL_T_TIMEOUT;
    }
    if (rc != SKEL_OK) {
        rf[0] = rc;
        rf[1] = 0;
        return rc;
    }
    _skel_keep(sv, f, q);
    _skel_estimate(T, p, v);
    return SKEL_OK;
}

static void _skel_tune_progress(_skel_tuner *T, int final)
{
    const _skel_tree *t = T->t;
    double now, el, left, per;
    int i, open = 0, closed = 0, depth = 0, pending;
    if (!T->progress) return;
    now = _skel_now();
    if (!final && now - T->last_progress < (T->progress == 1 ? 0.1 : 2.0)) return;
    T->last_progress = now;
    for (i = 0; i < t->nnodes; ++i) {
        if (t->nodes[i].first_child >= 0) continue;
        if (t->nodes[i].closed) closed++;
        else open++;
        if (t->nodes[i].depth > depth) depth = t->nodes[i].depth;
    }
    el = _skel_tune_elapsed(T);
    pending = t->nnodes - T->cur_node;
    per = t->npoints ? el / t->npoints : 0;
    left = final ? 0 : pending * per * (t->conf.dims == 2 ? 5 : 1);
    if (left > t->conf.time_budget - el) left = t->conf.time_budget - el;
    if (left < 0) left = 0;
    fprintf(stderr, "%sskel tune %s: %d points measured, %d nodes (%d closed, %d open leaves), depth %d, "
            "%.1f s elapsed, ~%.1f s left%s", T->progress == 1 ? "\r" : "skel: ", t->conf.id, t->npoints,
            t->nnodes, closed, open, depth, el, left, T->progress == 1 ? (final ? "\n" : "   ") : "\n");
    fflush(stderr);
}

/* Has variant v timed out at a point that x dominates (>= in every
   dimension)?  Costs grow with size, so it is not run at x. */
static int _skel_timed_out_below(const _skel_tree *t, const uint64_t *x, int v)
{
    int p, d;
    for (p = 0; p < t->npoints; ++p) {
        if (t->times[((size_t)p * (size_t)t->nvar + (size_t)v) * 2] != _SKEL_T_TIMEOUT) continue;
        for (d = 0; d < t->conf.dims && x[d] >= t->points[p].x[d]; ++d) {}
        if (d == t->conf.dims) return 1;
    }
    return 0;
}

/* How widely variant pv spreads a call's work: a GPU (times its devices),
   CPU threads (omp, pool), 1 for the rest. */
static double _skel_pvar_width(const _skel_pvar *pv)
{
    if (pv->nparts) return 1e6 * pv->nparts;
    if (pv->index >= 0 && _skel_backends[pv->index].is_gpu) return 1e6 * (pv->devices > 1 ? pv->devices : 1);
    if (strcmp(pv->backend, "omp") == 0) return pv->threads > 0 ? pv->threads : _skel_omp_default_threads();
    if (strcmp(pv->backend, "pool") == 0) return pv->threads > 0 ? pv->threads : _skel_pool_default_threads();
    return 1;
}

/* The order in which to measure the variants at a new point x: the likely
   fastest first, so that `best` is small early and every slower variant
   loses after one call (_skel_round).  The guess is the ranking at
   the nearest measured point; at a point over 64 times as large the
   widest variants go first (GPUs, then CPU threads: omp, pool; then seq; that
   ranking within each), as they win large calls.  On the GPU machine the
   first large corner of a Taylor tuning measured seq, then omp/1, omp/2
   ... fully, 4 s of a 5 s budget, before a GPU variant showed what "best"
   was.  Reversing the ranking at the small point, the rule before this
   one, put the GPU variants last where they were also fastest at n = 10
   (inputs on the device: the CPU variants download them first): the
   root corners of dot, MSE and Taylor took the whole 5 s budget (session
   15).  Variants not measured there go last, in table order. */
static void _skel_point_order(const _skel_tree *t, const uint64_t *x, int *order)
{
    int p, q = -1, v, i, j, n = 0;
    double dq = 0, sx = 1, sq = 1;
    for (p = 0; p < t->npoints; ++p) {
        double dp = _skel_tree_dist(t, x, p);
        if (q < 0 || dp < dq) { q = p; dq = dp; }
    }
    for (v = 0; v < t->nvar; ++v) order[v] = v;
    if (q < 0) return;
    for (i = 0; i < t->conf.dims; ++i) { sx *= (double)x[i]; sq *= (double)t->points[q].x[i]; }
    for (v = 0; v < t->nvar; ++v)       /* the measured ones first, then the rest */
        if (_skel_tree_time(t, q, v) >= 0) order[n++] = v;
    for (v = 0, j = n; v < t->nvar; ++v)
        if (_skel_tree_time(t, q, v) < 0) order[j++] = v;
    for (i = 1; i < n; ++i) {           /* insertion sort of the measured ones by time there */
        int w = order[i];
        double tw = _skel_tree_time(t, q, w);
        for (j = i; j > 0 && _skel_tree_time(t, q, order[j - 1]) > tw; --j) order[j] = order[j - 1];
        order[j] = w;
    }
    if (sx > 64 * sq)
        for (i = 1; i < n; ++i) {       /* stable: by width, the ranking within a width */
            int w = order[i];
            double ww = _skel_pvar_width(&t->vars[w]);
            for (j = i; j > 0 && _skel_pvar_width(&t->vars[order[j - 1]]) < ww; --j) order[j] = order[j - 1];
            order[j] = w;
        }
}

/* order[0..n-1] with each backend's variants moved up behind its first
   (so that they follow their lead, on the data it placed); reversed when
   `reverse` (later rounds alternate, so that what runs before a variant
   changes).  Writes out[], returns n. */
static int _skel_group_order(const _skel_tuner *T, const int *order, int n, int reverse, int *out)
{
    int i, j, m = 0;
    for (i = 0; i < n; ++i) {
        int g = T->group[order[i]], seen = 0;
        for (j = 0; j < m && !seen; ++j) seen = T->group[out[j]] == g;
        if (seen) continue;
        for (j = i; j < n; ++j)
            if (T->group[order[j]] == g) out[m++] = order[j];
    }
    if (reverse)
        for (i = 0; i < m / 2; ++i) { j = out[i]; out[i] = out[m - 1 - i]; out[m - 1 - i] = j; }
    return m;
}

/* Does variant v's backend share F at point x (see _skel_sample)?  Where
   it moves data (F over R at the nearest point it ran at: uploads,
   downloads), its variants differ only in R, and one first call a round
   is enough; where it does not (the CPU backends with host data), each
   variant times its own calls, and with r = 1 only the first: T(1) = f
   (a 4096 x 4096 blur on the 2-vCPU VM took 0.37 s a call; the repeated
   call doubled what every round there cost). */
static int _skel_shares(const _skel_tuner *T, const uint64_t *x, int v)
{
    const _skel_tree *t = T->t;
    int p, q = -1, u, b = -1;
    double dq = 0, dp;
    const double *rf;
    for (p = 0; p < t->npoints; ++p)
        if ((dp = _skel_tree_dist(t, x, p)) >= 0 && (q < 0 || dp < dq)) {
            for (u = 0; u < t->nvar && !(T->group[u] == T->group[v] && _skel_tree_time(t, p, u) >= 0); ++u) {}
            if (u < t->nvar) { q = p; dq = dp; }
        }
    if (q < 0) return 1;
    for (u = 0; u < t->nvar; ++u)
        if (T->group[u] == T->group[v] && _skel_tree_time(t, q, u) >= 0 &&
            (b < 0 || _skel_tree_time(t, q, u) < _skel_tree_time(t, q, b))) b = u;
    rf = t->times + ((size_t)q * (size_t)t->nvar + (size_t)b) * 2;
    return rf[1] > rf[0];
}

/* Does v's next sample start with an untimed call (_skel_sample)?  Where
   its calls are cheap (`cheap`): after another backend's calls, so that
   what they left behind is not charged to v, and for a CPU variant of
   several threads after any other variant, as a loop of v's calls runs
   with its workers awake.  Workers that slept while the other variants
   ran come 5-70 us after _skel_cpu_wake's signal, and the call timed
   right after it ran without them. */
static void _skel_settle_for(_skel_tuner *T, int v, int cheap)
{
    T->settle = cheap && (T->last_group != T->group[v] || (T->last_var != v && T->t->vars[v].threads > 1));
    T->last_group = T->group[v];
    T->last_var = v;
}

/* One round at point p over the variants list[0..n-1] (grouped).  Where
   a backend shares F (share[v]), its first variant takes a full sample
   and the others a repeated call on the data it left; elsewhere every
   variant takes a full sample.  In the first round (cut), a sample whose
   T(r) is over twice the best so far at p loses here, and after two such
   losses in a row of over 1 ms each the rest of that backend is not
   measured at p (it is ranked slower still: at a 4096 x 4096 point every
   call of omp/4, 2, 1 costs tens of milliseconds).  A lead that loses before its repeated
   call passes the lead to the next variant; where calls are cheap (best
   < 1 ms, that call < 20 ms) it first gets a second try, the lesser kept:
   one call can be a stall (a busy vCPU holds one of 16 OpenMP threads for
   a time slice: omp/16 took 6 ms at a Taylor point where it needed 10 us). */
static void _skel_round(_skel_tuner *T, _skel_synth *s, int p, const int *list, int n, const char *share, int cut)
{
    _skel_tree *t = T->t;
    int i = 0, j;
    while (i < n) {
        int g = T->group[list[i]], led = 0, lost = 0;
        for (j = i; j < n && T->group[list[j]] == g; ++j) {
            int v = list[j], full = !share[v] || !led, losing;
            double best = _skel_point_best(t, p), lim = cut && best < 1e299 ? 2 * best : 1e300, first;
            double stop = !full ? 1e300 : !share[v] && t->conf.repeats == 1 ? 0 : lim;
            _skel_samples *sv = _skel_smp(T, p, v);
            if (lost >= 2) break;
            if (!cut && !led && _skel_tune_elapsed(T) > t->conf.time_budget) return;
            _skel_settle_for(T, v, best < 1e-3 || (best > 1e299 && _skel_expect(T, p, v) < 1e-3));
            if (_skel_take(T, s, p, v, full, stop) != SKEL_OK) continue;
            losing = cut && _skel_tree_time(t, p, v) > lim;
            first = sv->q[sv->n - 1];
            if (losing && full && first < 0.02 && best < 1e-3) {   /* a second try; keep the lesser */
                sv->n--;
                if (_skel_take(T, s, p, v, full, stop) != SKEL_OK) continue;
                if (sv->q[sv->n - 1] > first && sv->f[sv->n - 1] < 0) {
                    sv->q[sv->n - 1] = (float)first;
                    _skel_estimate(T, p, v);
                }
                losing = _skel_tree_time(t, p, v) > lim;
            }
            if (sv->f[sv->n - 1] >= 0) led = 1;     /* a first call with its repeated call: F known */
            /* only dear losses stop the backend: where calls are cheap, skipping saves
               little, and the ranking that orders a backend's variants may be a guess */
            if (!losing) lost = 0;
            else if (first >= 1e-3) lost++;
        }
        for (; j < n && T->group[list[j]] == g; ++j) {}
        i = j;
    }
}

/* The variants worth another round at p: those within twice the best
   T(r) there, or, where the best is under 1 ms, within a scheduler time
   slice (4 ms) of it (a stalled barrier costs a slice whatever the size:
   omp/16 measured 1987 us at n = 10 of a Taylor tuning, where it takes 6,
   and lost sizes up to 457), with fewer than `most` samples, and the best
   itself while any other is; `close` > 0 narrows that to within close of
   the best.  Grouped as the ranking at p orders them.  Returns how many
   (the best alone needs no more rounds). */
static int _skel_contenders(const _skel_tuner *T, int p, double close, int most, int reverse, int *out)
{
    const _skel_tree *t = T->t;
    int v, n = 0, *tmp = out + t->nvar, w = _skel_tree_best(t, p);
    double best = w < 0 ? 1e300 : _skel_tree_time(t, p, w);
    for (v = 0; v < t->nvar; ++v) {
        double tv = _skel_tree_time(t, p, v);
        if (tv < 0 || v == w || _skel_smp(T, p, v)->n >= most) continue;
        if (close > 0 ? tv <= best * (1 + close) : (tv <= 2 * best || (best < 1e-3 && tv - best < 4e-3))) tmp[n++] = v;
    }
    if (n == 0) return 0;
    tmp[n++] = w;
    for (v = 1; v < n; ++v) {          /* by time at p */
        int w = tmp[v], j;
        for (j = v; j > 0 && _skel_tree_time(t, p, tmp[j - 1]) > _skel_tree_time(t, p, w); --j) tmp[j] = tmp[j - 1];
        tmp[j] = w;
    }
    return _skel_group_order(T, tmp, n, reverse, out);
}

/* A first call of a variant's first round at p that took over twice its
   later first calls plus 1 ms did something once (compiled or loaded a
   kernel, first-touched memory): its excess is not charged to the time
   budget (the lower median keeps it out of F once later rounds exist). */
static void _skel_point_one_offs(_skel_tuner *T, int p)
{
    int v, k;
    if (T->d->cost) return;
    for (v = 0; v < T->t->nvar; ++v) {
        const _skel_samples *sv = _skel_smp(T, p, v);
        double later = -1;
        if (sv->n < 2 || sv->f[0] < 0) continue;
        for (k = 1; k < sv->n; ++k)
            if (sv->f[k] > later) later = sv->f[k];
        if (later >= 0 && sv->f[0] > 2 * later + 1e-3) T->one_off += sv->f[0] - later;
    }
}

#define _SKEL_ORDER_SLACK 1.5   /* how far two points' times may break the order (plus 1 us) */

/* Variant v at point p (operands *s, made here when NULL and needed)
   measured again: two more full samples, unless they would cost over an
   eighth of the budget left (where a large point is in memory and a small
   one in cache, the cost per element rises and the rule below calls for
   looks that a 4096 x 4096 point pays dearly).  0 when the budget is
   spent. */
static int _skel_look_again(_skel_tuner *T, int p, int v, _skel_synth **s, _skel_synth *store)
{
    _skel_tree *t = T->t;
    double before = _skel_tree_time(t, p, v), left = t->conf.time_budget - _skel_tune_elapsed(T);
    _skel_samples *sv = _skel_smp(T, p, v), old;
    int k;
    if (left <= 0) return 0;
    if (2 * before > left / 8) return 1;
    T->looked[(size_t)p * (size_t)t->nvar + (size_t)v] = 1;
    if (!*s && !T->d->cost) {
        if (_skel_synth_make(T, t->points[p].x, store) != SKEL_OK) return 1;
        *s = store;
    }
    /* two samples: a stall is one event, and the first look had its own.
       Where both are over 1.5 times faster than the samples before, those
       were one burst (the points around said so): the look replaces them */
    _skel_settle_for(T, v, before < 1e-3);
    old = *sv;
    sv->n = 0;
    for (k = 0; k < 2; ++k)
        if (_skel_take(T, *s, p, v, 1, 1e300) != SKEL_OK) return 1;
    if (sv->n < 2 || _skel_tree_time(t, p, v) * _SKEL_ORDER_SLACK > before)
        for (k = 0; k < old.n; ++k) _skel_keep(sv, old.f[k], old.q[k]);
    _skel_estimate(T, p, v);
    t->rechecks++;
    _skel_log(SKEL_LOG_INFO, "tune %s: %s at point %d looked at again: %.3g s -> %.3g s", t->conf.id,
              _skel_pvar_label(&t->vars[v], (char[_SKEL_LABEL]){ 0 }, _SKEL_LABEL), p, before, _skel_tree_time(t, p, v));
    return 1;
}

/* A second look where two points' times of one variant do not fit how
   calls cost.  Interference only adds time; a call on more elements does
   not cost less; and k times the elements cost at most k times as much
   (fixed costs, then a cost per element; the cache is warm in both).  So
   where a variant's time at a point is over 1.5 times its time at a
   larger point, or over 1.5 * k times its time at a point with k times
   fewer elements, that measurement likely caught a stall: on the H100
   machine omp/16 took 21 us at n = 251 (Taylor, host data) and 8 us at 254
   and 376, and the plan gave 22 .. 252 to omp/8, 1.4 times slower there.
   The variant is measured again at that point (an earlier point: some
   time after its first look; the new one: after its other variants) and
   keeps the lesser time; once per point and variant, within the time
   budget.  A real step in the cost (a cache level, the set's edge in
   Mandelbrot) costs one measurement and stays.  Called after point p
   (operands sp when measured on the machine) joined the table. */
static void _skel_recheck_order(_skel_tuner *T, int p, _skel_synth *sp)
{
    _skel_tree *t = T->t;
    _skel_synth pstore, qstore, *sq;
    int q, v, a, b, go = 1;
    const _skel_synth *given = sp;
    double k;
    for (q = 0; q < t->npoints && go; ++q) {
        if (q == p) continue;
        if (_skel_point_below(t, q, p, &k)) { a = q; b = p; }
        else if (_skel_point_below(t, p, q, &k)) { a = p; b = q; }
        else continue;
        sq = NULL;
        for (v = 0; v < t->nvar && go; ++v) {
            double ta = _skel_tree_time(t, a, v), tb = _skel_tree_time(t, b, v);
            int pt[2], i;
            if (ta < 0 || tb < 0) continue;
            pt[0] = ta > _SKEL_ORDER_SLACK * tb + 1e-6 ? a : -1;      /* slower than at a larger point */
            pt[1] = tb > _SKEL_ORDER_SLACK * k * ta + 1e-6 ? b : -1;  /* over k times a smaller point */
            for (i = 0; i < 2 && go; ++i)
                if (pt[i] >= 0 && !T->looked[(size_t)pt[i] * (size_t)t->nvar + (size_t)v])
                    go = pt[i] == p ? _skel_look_again(T, p, v, &sp, &pstore) : _skel_look_again(T, q, v, &sq, &qstore);
        }
        if (sq) _skel_synth_free(sq);
        t->points[a].winner = _skel_point_winner(t, a);
        t->points[b].winner = _skel_point_winner(t, b);
    }
    if (sp && sp != given) _skel_synth_free(sp);
}

/* ---- split variants: the tuner makes them at each point it measures ----
   After the single-place variants ran at a new point, each GPU backend
   gets a split candidate: the host's fastest variant there and that
   backend's fastest, on every device of it, with shares that make the
   parts finish together (_skel_balance) by each place's cost at the
   part's size.  The candidate is measured there like any variant (the
   same rounds) and joins the table (an identical one is reused); it wins
   the point only where it was measured to be fastest there by more than
   twice the tolerance (_skel_split_margin), so a split never runs where a
   single place was faster, nor where it was only about as fast.  Splits
   are made for the default variant table, or for a desc's own list with
   desc.splits = 1 (never with a cost model), and are not measured at
   other points.  A plan runs a split at shares balanced anew for each
   call's point (_skel_tree_shares). */

/* A point's size: its element count (the product of its coordinates). */
static double _skel_tree_point_size(const _skel_tree *t, int p)
{
    double s = 1;
    int d;
    for (d = 0; d < t->conf.dims; ++d) s *= (double)t->points[p].x[d];
    return s;
}

/* Variant v's cost at point p as a + b * size, through its time at the
   largest smaller point measured, else proportional. */
static void _skel_cost_line(const _skel_tree *t, int p, int v, double *a, double *b)
{
    double tp = _skel_tree_time(t, p, v), sp = _skel_tree_point_size(t, p), sq, best = 0, tq = -1;
    int q;
    for (q = 0; q < t->npoints; ++q) {
        if (q == p || _skel_tree_time(t, q, v) < 0 || (sq = _skel_tree_point_size(t, q)) >= sp || sq <= best) continue;
        best = sq;
        tq = _skel_tree_time(t, q, v);
    }
    *a = 0;
    *b = tp / sp;
    if (tq >= 0 && tp > tq) {
        *b = (tp - tq) / (sp - best);
        *a = tp - *b * sp;
        if (*a < 0) { *a = 0; *b = tp / sp; }
    }
}

/* Per point and variant arrays of nvar columns widened to n (the new
   columns zero; times unmeasured).  NULL when memory is short. */
static void *_skel_widen(const void *old, int rows, int nvar, int n, size_t each)
{
    unsigned char *w = (unsigned char *)SKEL_MALLOC((size_t)(rows ? rows : 1) * (size_t)n * each);
    int p;
    if (!w) return NULL;
    memset(w, 0, (size_t)(rows ? rows : 1) * (size_t)n * each);
    for (p = 0; p < rows; ++p)
        memcpy(w + (size_t)p * (size_t)n * each, (const unsigned char *)old + (size_t)p * (size_t)nvar * each,
               (size_t)nvar * each);
    return w;
}

/* Add entry pv to the table (or find an identical one): its index, or -1
   when the table is full or memory is short.  Every point's times,
   samples, second-look and shared-F flags get the new variant's column;
   it is a group (_skel_round) of its own. */
static int _skel_tree_add_var(_skel_tuner *T, const _skel_pvar *pv)
{
    _skel_tree *t = T->t;
    int v, p, n = t->nvar + 1, rows = t->cap_points;
    void *q[6];
    for (v = 0; v < t->nvar; ++v)
        if (t->vars[v].nparts == pv->nparts && memcmp(t->vars[v].part, pv->part, sizeof pv->part) == 0 &&
            strcmp(t->vars[v].backend, pv->backend) == 0)
            return v;
    if (n > _SKEL_MAX_PVARS) return -1;
    if ((q[0] = SKEL_REALLOC(t->vars, (size_t)n * sizeof *t->vars))) t->vars = (_skel_pvar *)q[0];
    if ((q[1] = SKEL_REALLOC(T->group, (size_t)n * sizeof *T->group))) T->group = (int *)q[1];
    if ((q[2] = SKEL_REALLOC(T->scratch, (size_t)n * _SKEL_MAX_SAMPLES * sizeof *T->scratch))) T->scratch = (double *)q[2];
    q[3] = _skel_widen(t->times, rows, t->nvar, n, 2 * sizeof *t->times);
    q[4] = _skel_widen(T->smp, rows, t->nvar, n, sizeof *T->smp);
    q[5] = _skel_widen(T->looked, rows, t->nvar, n, 1);
    if (!q[0] || !q[1] || !q[2] || !q[3] || !q[4] || !q[5] || !(q[0] = _skel_widen(T->share, rows, t->nvar, n, 1))) {
        SKEL_FREE(q[3]); SKEL_FREE(q[4]); SKEL_FREE(q[5]);
        return -1;
    }
    SKEL_FREE(t->times); SKEL_FREE(T->smp); SKEL_FREE(T->looked); SKEL_FREE(T->share);
    t->times = (double *)q[3];
    T->smp = (_skel_samples *)q[4];
    T->looked = (unsigned char *)q[5];
    T->share = (char *)q[0];
    for (p = 0; p < rows; ++p) t->times[((size_t)p * (size_t)n + (size_t)t->nvar) * 2] = _SKEL_T_UNMEASURED;
    t->vars[t->nvar] = *pv;
    t->vars[t->nvar].pruned = -1;
    T->group[t->nvar] = t->nvar;
    return t->nvar++;
}

/* The fastest variant at p for which pick(v, arg) holds, or -1. */
static int _skel_best_where(const _skel_tree *t, int p, int (*pick)(const _skel_pvar *, int), int arg)
{
    int v, best = -1;
    for (v = 0; v < t->nvar; ++v)
        if (t->vars[v].index >= 0 && pick(&t->vars[v], arg) && _skel_tree_time(t, p, v) >= 0 &&
            (best < 0 || _skel_tree_time(t, p, v) < _skel_tree_time(t, p, best)))
            best = v;
    return best;
}
static int _skel_on_host(const _skel_pvar *pv, int arg)
{
    (void)arg;
    return !pv->nparts && !_skel_backends[pv->index].is_gpu && pv->index != _skel_env.split_backend;
}
static int _skel_on_backend(const _skel_pvar *pv, int b) { return !pv->nparts && pv->index == b && pv->devices <= 1 && !pv->device; }

/* The split candidates at new point p (operands s), measured in as many
   rounds as the point's variants had. */
static void _skel_tune_splits(_skel_tuner *T, _skel_synth *s, int p, int rounds)
{
    _skel_tree *t = T->t;
    int h, g, b, k, nd, v, r;
    if (!t->conf.splits || (h = _skel_best_where(t, p, _skel_on_host, 0)) < 0) return;
    for (b = 0; b < _SKEL_LOAD(&_skel_nbackends); ++b) {
        double a[SKEL_MAX_PARTS], c[SKEL_MAX_PARTS], sh[SKEL_MAX_PARTS], sum = 0;
        _skel_pvar pv;
        if (!_skel_backends[b].is_gpu || (nd = _skel_backend_devices(b)) < 1 ||
            (g = _skel_best_where(t, p, _skel_on_backend, b)) < 0)
            continue;
        if (nd > SKEL_MAX_PARTS - 1) nd = SKEL_MAX_PARTS - 1;
        memset(&pv, 0, sizeof pv);
        snprintf(pv.backend, sizeof pv.backend, "split");
        pv.nparts = nd + 1;
        _skel_cost_line(t, p, h, &a[0], &c[0]);
        for (k = 1; k <= nd; ++k) _skel_cost_line(t, p, g, &a[k], &c[k]);
        for (k = 0; k <= nd; ++k) c[k] *= _skel_tree_point_size(t, p);      /* the cost of a share, not of a unit */
        _skel_balance(nd + 1, a, c, sh);
        for (k = 0; k <= nd; ++k) {
            const _skel_pvar *src = &t->vars[k ? g : h];
            _skel_ppart *q = &pv.part[k];
            snprintf(q->backend, sizeof q->backend, "%s", src->backend);
            q->device = k ? k - 1 : 0;
            q->threads = src->threads; q->block = src->block; q->grid = src->grid;
            q->index = src->index;
            q->share = floor(sh[k] * 1000 + 0.5) / 1000;   /* one table entry for nearly equal splits */
            sum += q->share;
        }
        if (!(sum > 0) || pv.part[0].share >= 0.995 * sum || pv.part[0].share <= 0.005 * sum) continue;   /* one place does it */
        for (k = 0; k <= nd; ++k) pv.part[k].share /= sum;
        pv.index = _skel_env.split_backend;
        if ((v = _skel_tree_add_var(T, &pv)) < 0) return;
        for (r = 0; r < rounds && (r == 0 || _skel_tune_elapsed(T) < t->conf.time_budget); ++r)
            _skel_round(T, s, p, &v, 1, T->share + (size_t)p * (size_t)t->nvar, r == 0);
    }
}

/* Room for one more point in the table and the tuner's per-point arrays. */
static int _skel_point_room(_skel_tuner *T)
{
    _skel_tree *t = T->t;
    size_t cap, nv = (size_t)t->nvar;
    void *q[6];
    if (t->npoints < t->cap_points) return SKEL_OK;
    cap = t->cap_points ? 2 * (size_t)t->cap_points : 64;
    if ((q[0] = SKEL_REALLOC(t->points, cap * sizeof *t->points))) t->points = (_skel_ppoint *)q[0];
    if ((q[1] = SKEL_REALLOC(t->times, cap * 2 * nv * sizeof *t->times))) t->times = (double *)q[1];
    if ((q[2] = SKEL_REALLOC(T->pcost, cap * sizeof *T->pcost))) T->pcost = (double *)q[2];
    if ((q[3] = SKEL_REALLOC(T->looked, cap * nv))) T->looked = (unsigned char *)q[3];
    if ((q[4] = SKEL_REALLOC(T->smp, cap * nv * sizeof *T->smp))) T->smp = (_skel_samples *)q[4];
    if ((q[5] = SKEL_REALLOC(T->share, cap * nv))) T->share = (char *)q[5];
    if (!q[0] || !q[1] || !q[2] || !q[3] || !q[4] || !q[5]) return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    t->cap_points = (int)cap;
    return SKEL_OK;
}

/* The index of point x in the table, measuring every live variant there
   first if it is new: a first round of every variant (likely fastest
   first, see _skel_point_order), then rounds of the contenders, up to
   `reps` rounds, while the point has spent less than its share of the
   budget left (a 16th in 2-D, an 8th in 1-D: the 4096 x 4096 corner of a
   blur must not take the budget the tree needs).  < 0: an error status. */
static int _skel_tune_point(_skel_tuner *T, const uint64_t *x)
{
    _skel_tree *t = T->t;
    _skel_synth s;
    int p, v, d, rc, r, n, *order;
    double t0 = _skel_tune_elapsed(T), budget;
    for (p = 0; p < t->npoints; ++p) {
        for (d = 0; d < t->conf.dims && t->points[p].x[d] == x[d]; ++d) {}
        if (d == t->conf.dims) return p;
    }
    if ((rc = _skel_point_room(T)) != SKEL_OK) return rc;
    if (!(order = (int *)SKEL_MALLOC((size_t)t->nvar * 3 * sizeof *order)))
        return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    if (!T->d->cost && (rc = _skel_synth_make(T, x, &s)) != SKEL_OK) { SKEL_FREE(order); return rc; }
    _skel_point_order(t, x, order);
    p = t->npoints;
    memset(&t->points[p], 0, sizeof t->points[p]);
    for (d = 0; d < t->conf.dims; ++d) t->points[p].x[d] = x[d];
    t->points[p].winner = -1;
    memset(T->looked + (size_t)p * (size_t)t->nvar, 0, (size_t)t->nvar);
    memset(_skel_smp(T, p, 0), 0, (size_t)t->nvar * sizeof(_skel_samples));
    for (v = 0; v < t->nvar; ++v) {
        double *rf = t->times + ((size_t)p * (size_t)t->nvar + (size_t)v) * 2;
        rf[0] = _skel_timed_out_below(t, x, v) ? _SKEL_T_TIMEOUT : _SKEL_T_UNMEASURED;
        rf[1] = 0;
    }
    for (v = 0, n = 0; v < t->nvar; ++v)         /* the live variants, in ranking order */
        if (t->vars[order[v]].pruned < 0 && !t->vars[order[v]].nparts && !_skel_timed_out_below(t, x, order[v]))
            order[n++] = order[v];      /* (a split: measured at its own point only) */
    n = _skel_group_order(T, order, n, 0, order + t->nvar);
    for (v = 0; v < t->nvar; ++v) T->share[(size_t)p * (size_t)t->nvar + (size_t)v] = (char)_skel_shares(T, x, v);
    budget = (t->conf.time_budget - t0) / (t->conf.dims == 2 ? 16 : 8);
    _skel_round(T, &s, p, order + t->nvar, n, T->share + (size_t)p * (size_t)t->nvar, 1);
    for (r = 1; r < t->conf.reps && _skel_tune_elapsed(T) - t0 < budget; ++r) {
        if ((n = _skel_contenders(T, p, 0, t->conf.reps, r & 1, order)) < 2) break;
        _skel_round(T, &s, p, order, n, T->share + (size_t)p * (size_t)t->nvar, 0);
    }
    SKEL_FREE(order);
    if (!T->d->cost) _skel_tune_splits(T, &s, p, r);
    _skel_point_one_offs(T, p);
    t->npoints++;
    t->points[p].winner = _skel_point_winner(t, p);
    _skel_recheck_order(T, p, T->d->cost ? NULL : &s);
    if (!T->d->cost) _skel_synth_free(&s);
    T->pcost[p] = _skel_tune_elapsed(T) - t0;
    _skel_tune_progress(T, 0);
    return p;
}

/* The variant within tolerance of the best at every corner of node i (the
   one with the smallest worst ratio, ties on the CPU broken by
   _skel_tie_break), or -1. */
static int _skel_node_agree(const _skel_tree *t, int i)
{
    const _skel_pnode *nd = &t->nodes[i];
    int v, k, best = -1;
    double bw = 0, ws[_SKEL_MAX_PVARS];
    for (v = 0; v < t->nvar; ++v) {
        double worst = 0;
        ws[v] = -1;
        for (k = 0; k < 1 << t->conf.dims; ++k) {
            int p = nd->corner[k], w = t->points[p].winner;
            double tv = _skel_tree_time(t, p, v), tb, ratio;
            if (w < 0 || tv < 0) break;
            tb = _skel_tree_time(t, p, w);
            ratio = tb > 0 ? tv / tb : (tv > 0 ? 1e300 : 1);
            if (ratio > worst) worst = ratio;
        }
        if (k < 1 << t->conf.dims || worst > 1 + t->conf.tolerance) continue;
        ws[v] = worst;
        if (best < 0 || worst < bw) { best = v; bw = worst; }
    }
    return _skel_tie_break(t, best, ws);
}

/* Add a node for box lo..hi and measure its corners; < 0 on error, 1 when
   the time budget ran out before every corner was measured. */
static int _skel_tune_node(_skel_tuner *T, const uint64_t *lo, const uint64_t *hi, int depth)
{
    _skel_tree *t = T->t;
    _skel_pnode *nd;
    uint64_t x[2];
    int k, d, p, corner[4];
    for (k = 0; k < 1 << t->conf.dims; ++k) {
        if (depth > 0 && _skel_tune_elapsed(T) > t->conf.time_budget) return 1;
        for (d = 0; d < t->conf.dims; ++d) x[d] = (k >> d) & 1 ? hi[d] : lo[d];
        if ((p = _skel_tune_point(T, x)) < 0) return p;
        corner[k] = p;
    }
    if (t->nnodes == t->cap_nodes) {
        int cap = t->cap_nodes ? 2 * t->cap_nodes : 64;
        _skel_pnode *nn = (_skel_pnode *)SKEL_REALLOC(t->nodes, (size_t)cap * sizeof *nn);
        if (!nn) return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
        t->nodes = nn;
        t->cap_nodes = cap;
    }
    nd = &t->nodes[t->nnodes++];
    memset(nd, 0, sizeof *nd);
    for (d = 0; d < t->conf.dims; ++d) { nd->lo[d] = lo[d]; nd->hi[d] = hi[d]; }
    for (k = 0; k < 1 << t->conf.dims; ++k) nd->corner[k] = corner[k];
    nd->first_child = -1;
    nd->winner = -1;
    nd->depth = depth;
    return 0;
}

/* Split node i into 2^D children at the geometric (or arithmetic) middle
   of each side.  1: the budget ran out (the node stays a leaf). */
static int _skel_tune_split(_skel_tuner *T, int i)
{
    _skel_tree *t = T->t;
    uint64_t lo[2], hi[2], m[2], clo[2], chi[2];
    int d, c, rc, first = t->nnodes, depth = t->nodes[i].depth + 1;
    for (d = 0; d < t->conf.dims; ++d) {
        lo[d] = t->nodes[i].lo[d];
        hi[d] = t->nodes[i].hi[d];
        if (t->conf.split == SKEL_SPLIT_LINEAR) m[d] = lo[d] + (hi[d] - lo[d]) / 2;
        else m[d] = (uint64_t)floor(sqrt((double)lo[d] * (double)hi[d]) + 0.5);
        if (m[d] <= lo[d]) m[d] = lo[d] + 1;
        if (m[d] >= hi[d]) m[d] = hi[d] - 1;
    }
    for (c = 0; c < 1 << t->conf.dims; ++c) {
        for (d = 0; d < t->conf.dims; ++d) {
            clo[d] = (c >> d) & 1 ? m[d] : lo[d];
            chi[d] = (c >> d) & 1 ? hi[d] : m[d];
        }
        if ((rc = _skel_tune_node(T, clo, chi, depth)) != 0) {
            t->nnodes = first;          /* roll the partial split back */
            return rc;
        }
    }
    t->nodes[i].first_child = first;
    return 0;
}

/* Mark in near[] the variants that may come within `prune` of the best
   somewhere between measured points p and q: each variant's T as a line
   a + b*s through its times there (s = the point's size, 1-D; its area,
   2-D), compared with the least of those lines at 16 sizes in between.
   A variant with a small fixed cost and a middling slope (omp/16 between
   seq and a GPU) can lose at both ends of a range and win in its middle:
   the Taylor tuning on the H100 machine pruned it so after its first
   three points, and the plan was up to 8 times slower at 250..5000. */
static void _skel_mark_between(const _skel_tree *t, int p, int q, char *near)
{
    double sp = 1, sq = 1, w[16], env[16], tp, tq, tu;
    int v, k, d;
    for (d = 0; d < t->conf.dims; ++d) { sp *= (double)t->points[p].x[d]; sq *= (double)t->points[q].x[d]; }
    if (sp == sq) return;
    for (k = 0; k < 16; ++k) {          /* the sizes between, log-spaced, as weights of q's end */
        w[k] = (sp * pow(sq / sp, (k + 1) / 17.0) - sp) / (sq - sp);
        env[k] = 1e300;
    }
    for (v = 0; v < t->nvar; ++v) {     /* the least line at each size */
        if ((tp = _skel_tree_time(t, p, v)) < 0 || (tq = _skel_tree_time(t, q, v)) < 0) continue;
        for (k = 0; k < 16; ++k)
            if ((tu = tp + (tq - tp) * w[k]) < env[k]) env[k] = tu;
    }
    for (v = 0; v < t->nvar; ++v) {     /* the lines that come near it */
        if ((tp = _skel_tree_time(t, p, v)) < 0 || (tq = _skel_tree_time(t, q, v)) < 0) continue;
        for (k = 0; k < 16 && !near[v]; ++k)
            if (tp + (tq - tp) * w[k] <= env[k] * (1 + t->conf.prune)) near[v] = 1;
    }
}

/* Thesis §4.3.1 style pruning: a variant that has not been within `prune`
   of the best at any point measured so far, nor may be between two corners
   of a measured box (_skel_mark_between), is not measured again. */
static void _skel_tune_prune(_skel_tuner *T, int depth)
{
    _skel_tree *t = T->t;
    int v, p, i, j, k, live = 0, C = 1 << t->conf.dims;
    char label[_SKEL_LABEL], *near;
    if (t->conf.prune < 0) return;
    if (!(near = (char *)SKEL_MALLOC((size_t)t->nvar))) return;     /* no memory: prune nothing */
    memset(near, 0, (size_t)t->nvar);
    for (p = 0; p < t->npoints; ++p) {
        int w = t->points[p].winner;
        for (v = 0; v < t->nvar && w >= 0; ++v) {
            double tv = _skel_tree_time(t, p, v);
            if (tv >= 0 && tv <= _skel_tree_time(t, p, w) * (1 + t->conf.prune)) near[v] = 1;
        }
    }
    for (i = 0; i < t->nnodes; ++i)
        for (j = 0; j < C; ++j)
            for (k = j + 1; k < C; ++k) _skel_mark_between(t, t->nodes[i].corner[j], t->nodes[i].corner[k], near);
    for (v = 0; v < t->nvar; ++v) live += t->vars[v].pruned < 0;
    for (v = 0; v < t->nvar && live > 1; ++v) {
        if (t->vars[v].pruned >= 0 || near[v]) continue;
        t->vars[v].pruned = depth;
        live--;
        _skel_log(SKEL_LOG_INFO, "tune %s: %s pruned after depth %d (never within %.0f%% of the best)",
                  t->conf.id, _skel_pvar_label(&t->vars[v], label, sizeof label), depth, 100 * t->conf.prune);
    }
    SKEL_FREE(near);
}

/* What splitting node i would cost: its new points, each priced from the
   node's corners (a corner's cost scaled down to the point's size where
   the point is smaller, the dearest of those: calls cost at least their
   fixed part and at most in proportion to the elements). */
static double _skel_split_cost(const _skel_tuner *T, int i)
{
    const _skel_tree *t = T->t;
    const _skel_pnode *nd = &t->nodes[i];
    uint64_t m[2], x[2];
    double est = 0;
    int d, k, c, p, C = 1 << t->conf.dims, D = t->conf.dims;
    for (d = 0; d < D; ++d) {
        if (t->conf.split == SKEL_SPLIT_LINEAR) m[d] = nd->lo[d] + (nd->hi[d] - nd->lo[d]) / 2;
        else m[d] = (uint64_t)floor(sqrt((double)nd->lo[d] * (double)nd->hi[d]) + 0.5);
    }
    for (k = 0; k < (D == 2 ? 9 : 3); ++k) {    /* the 3^D points of the split that are not corners */
        double size = 1, pc = 0;
        int onc = 1;
        for (d = 0; d < D; ++d) {
            int w = d ? k / 3 : k % 3;
            x[d] = w == 0 ? nd->lo[d] : w == 1 ? m[d] : nd->hi[d];
            onc &= w != 1;
            size *= (double)x[d];
        }
        if (onc) continue;
        for (p = 0; p < t->npoints; ++p) {      /* measured already (a neighbour's split) */
            for (d = 0; d < D && t->points[p].x[d] == x[d]; ++d) {}
            if (d == D) break;
        }
        if (p < t->npoints) continue;
        for (c = 0; c < C; ++c) {
            const _skel_ppoint *q = &t->points[nd->corner[c]];
            double sc = 1, e;
            for (d = 0; d < D; ++d) sc *= (double)q->x[d];
            e = T->pcost[nd->corner[c]] * (size < sc ? size / sc : 1);
            if (e > pc) pc = e;
        }
        est += pc;
    }
    return est;
}

/* Refinement, with the budget the tree left.  First every point gets its
   second looks again (_skel_recheck_order): a burst that outlasted a
   point's rounds and its first look (omp/16 at 111 us at 32 x 128 of a
   dilation on the H100 machine, 23-33 us at the points around it, and
   the plans of the leaves around it answered seq, 2.3 times slower) has
   usually passed seconds later.  Then, at each point where other
   variants are within _SKEL_CLOSE of the winner, more rounds of those
   close contenders, up to _SKEL_REFINE samples each; cheapest points
   first, each taking at most its share of what is left: a near tie, where
   one disturbed sample decides, gets the samples a median needs. */
#define _SKEL_CLOSE 0.3
#define _SKEL_REFINE 9
static int _skel_tune_refine(_skel_tuner *T)
{
    _skel_tree *t = T->t;
    int *idx, *list, i, j, k, n, left;
    if (!(idx = (int *)SKEL_MALLOC(((size_t)t->npoints + 2 * (size_t)t->nvar) * sizeof *idx)))
        return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    list = idx + t->npoints;
    memset(T->looked, 0, (size_t)t->npoints * (size_t)t->nvar);
    for (i = 0; i < t->npoints && _skel_tune_elapsed(T) < t->conf.time_budget; ++i) _skel_recheck_order(T, i, NULL);
    for (i = 0, left = 0; i < t->npoints; ++i)
        if (_skel_contenders(T, i, _SKEL_CLOSE, _SKEL_REFINE, 0, list) >= 2) idx[left++] = i;
    for (i = 1; i < left; ++i) {            /* cheapest first */
        int w = idx[i];
        for (j = i; j > 0 && T->pcost[idx[j - 1]] > T->pcost[w]; --j) idx[j] = idx[j - 1];
        idx[j] = w;
    }
    for (i = 0; i < left && _skel_tune_elapsed(T) < t->conf.time_budget; ++i) {
        _skel_synth s;
        int p = idx[i];
        double t0 = _skel_tune_elapsed(T), share = (t->conf.time_budget - t0) / (left - i);
        if (!T->d->cost && _skel_synth_make(T, t->points[p].x, &s) != SKEL_OK) continue;
        for (k = 0; _skel_tune_elapsed(T) - t0 < share; ++k) {
            if ((n = _skel_contenders(T, p, _SKEL_CLOSE, _SKEL_REFINE, k & 1, list)) < 2) break;
            _skel_round(T, &s, p, list, n, T->share + (size_t)p * (size_t)t->nvar, 0);
        }
        if (!T->d->cost) _skel_synth_free(&s);
        t->points[p].winner = _skel_point_winner(t, p);
    }
    SKEL_FREE(idx);
    return SKEL_OK;
}

/* Level by level construction of the dispatch tree (seed 000 §3.2): the
   nodes of a level close where their corners agree (from min_depth on)
   and the others split, within max_depth, max_nodes and the budget.
   Where the budget cannot pay for every split of a level, the nodes whose
   corners disagree go first, and among them the cheaper splits: a split
   that does not fit is skipped, not the rest of the level (the 4096 x
   4096 box of a blur costs many times its cheaper neighbours).  From
   min_depth on, splits leave _SKEL_RESERVE of the budget to refinement
   (_skel_tune_refine).  Last, every leaf closes if its corners agree:
   those that did not split, and those whose corners changed winner after
   the leaf closed (second looks, refinement). */
#define _SKEL_RESERVE 0.15
typedef struct _skel_split_cand { int node, agree; double est; } _skel_split_cand;
static int _skel_tune_build(_skel_tuner *T)
{
    _skel_tree *t = T->t;
    int i, j, w, d, rc, C = 1 << t->conf.dims, start = 0, end, n;
    _skel_split_cand *cand = NULL, c;
    rc = _skel_tune_node(T, t->conf.lower, t->conf.upper, 0);
    if (rc != 0) return rc < 0 ? rc : SKEL_OK;
    for (; start < t->nnodes && rc >= 0; start = end) {
        int depth = t->nodes[start].depth;
        double limit = t->conf.time_budget * (depth >= t->conf.min_depth ? 1 - _SKEL_RESERVE : 1);
        end = t->nnodes;
        if (depth > 0) _skel_tune_prune(T, depth - 1);
        SKEL_FREE(cand);
        if (!(cand = (_skel_split_cand *)SKEL_MALLOC((size_t)(end - start) * sizeof *cand))) {
            rc = _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
            break;
        }
        for (i = start, n = 0; i < end; ++i) {
            _skel_pnode *nd = &t->nodes[i];
            int splittable = 1;
            c.node = i;
            c.agree = _skel_node_agree(t, i) >= 0;
            if (depth >= t->conf.min_depth && c.agree) {
                nd->closed = 1;
                nd->winner = _skel_node_agree(t, i);
                continue;
            }
            for (d = 0; d < t->conf.dims; ++d) splittable &= nd->hi[d] - nd->lo[d] >= 2;
            if (!splittable || depth >= t->conf.max_depth) continue;
            c.est = _skel_split_cost(T, i);
            /* disagreeing corners first, cheaper splits first among equals */
            for (j = n++; j > 0 && (cand[j - 1].agree > c.agree ||
                                    (cand[j - 1].agree == c.agree && cand[j - 1].est > c.est)); --j)
                cand[j] = cand[j - 1];
            cand[j] = c;
        }
        for (i = 0; i < n && t->nnodes + C <= t->conf.max_nodes; ++i) {
            T->cur_node = cand[i].node;
            if (_skel_tune_elapsed(T) + 0.5 * cand[i].est > limit) continue;
            if ((rc = _skel_tune_split(T, cand[i].node)) != 0) break;   /* 1: the budget ran out inside it */
        }
    }
    SKEL_FREE(cand);
    if (rc < 0) return rc;
    if ((rc = _skel_tune_refine(T)) != SKEL_OK) return rc;
    for (i = 0; i < t->nnodes; ++i)
        if (t->nodes[i].first_child < 0) {
            w = _skel_node_agree(t, i);
            t->nodes[i].closed = w >= 0;
            t->nodes[i].winner = w;
        }
    T->cur_node = t->nnodes;
    return SKEL_OK;
}

static int _skel_conf_equal(const _skel_tconf *a, const _skel_tconf *b)
{
    _skel_buf x, y;
    int eq;
    memset(&x, 0, sizeof x);
    memset(&y, 0, sizeof y);
    _skel_conf_put(&x, a);
    _skel_conf_put(&y, b);
    eq = !x.oom && !y.oom && x.len == y.len && memcmp(x.p, y.p, x.len) == 0;
    SKEL_FREE(x.p);
    SKEL_FREE(y.p);
    return eq;
}

/* The saved plan for this configuration and machine, or NULL. */
static skel_plan *_skel_tune_load(const char *path, const _skel_tconf *conf, const char *fp, int cost)
{
    skel_plan *p = NULL;
    struct stat st;
    if (stat(path, &st) != 0) return NULL;
    if (skel_plan_load(&p, path) != SKEL_OK) {
        _skel_log(SKEL_LOG_WARN, "tune %s: ignoring the plan file: %s", conf->id, _skel_errbuf);
        return NULL;
    }
    if (!_skel_conf_equal(&p->tree->conf, conf)) {
        _skel_log(SKEL_LOG_INFO, "tune %s: %s has another configuration: re-tuning", conf->id, path);
    } else if (strcmp(p->tree->fingerprint, fp) != 0) {
        _skel_log(SKEL_LOG_INFO, "tune %s: %s was tuned on another machine: re-tuning", conf->id, path);
    } else if (!cost && _skel_resolve_pvars(p->tree)) {
        _skel_log(SKEL_LOG_INFO, "tune %s: %s names a missing backend: re-tuning", conf->id, path);
    } else {
        return p;
    }
    skel_plan_free(p);
    return NULL;
}

/* The steal time over the tuning (from the ticks read when skel_tune began), and
   a warning where it was over 1%: on the H100 machine's VM, 2-D
   evaluation runs whose tuning lost 4-5% of the CPUs' time to other guests
   timed pool/16 at a third of its usual speed, and their plans scored
   92.6-93.0% where one at 0.6% scored 96.8% (bench/results/tuner2d.md). */
static void _skel_tune_note_steal(_skel_tree *t, int ok, double steal0, double total0)
{
    double steal1, total1;
    t->steal = -1;
    if (!ok || _skel_steal_now(&steal1, &total1) != 0 || !(total1 > total0)) return;
    t->steal = (steal1 - steal0) / (total1 - total0);
    if (t->steal > 0.01)
        _skel_log(SKEL_LOG_WARN, "tune %s: the hypervisor gave other guests %.1f%% of this machine's CPU time "
                  "while it tuned; CPU variants' times may be off (retune later: SKEL_RETUNE=1)", t->conf.id,
                  100 * t->steal);
}

int skel_tune(const skel_tune_desc *d, skel_plan **plan)
{
    _skel_tuner T;
    _skel_tree *t = NULL;
    skel_plan *p = NULL;
    char path[4200];
    const char *env;
    int rc, i, dim;
    double wall0 = _skel_now(), steal0 = 0, total0 = 0;
    int steal_ok = _skel_steal_now(&steal0, &total0) == 0;     /* (the whole call: warm-up and compiles too) */
    _skel_init();
    if (!plan) return _skel_fail(SKEL_EINVAL, "skel_tune: NULL plan pointer");
    *plan = NULL;
    if (!d) return _skel_fail(SKEL_EINVAL, "skel_tune: NULL description");
    if (!d->id || !*d->id) return _skel_fail(SKEL_EINVAL, "skel_tune: the description needs an id");
    if (strlen(d->id) > _SKEL_MAX_ID)
        return _skel_fail(SKEL_EINVAL, "skel_tune: the id is %zu characters long (at most %d)", strlen(d->id), _SKEL_MAX_ID);
    if (!d->sk && !d->cost) return _skel_fail(SKEL_EINVAL, "skel_tune %s: needs an instance (sk) or a cost model", d->id);
    if (!d->sk && d->dims != 1 && d->dims != 2) return _skel_fail(SKEL_EINVAL, "skel_tune %s: a cost model needs dims 1 or 2", d->id);
    if (d->dims < 0 || d->dims > 2) return _skel_fail(SKEL_EINVAL, "skel_tune %s: dims %d (0, 1 or 2)", d->id, d->dims);
    if (d->sk && (d->sk->kind < SKEL_KIND_MAP || d->sk->kind > _SKEL_KIND_LAST))
        return _skel_fail(SKEL_EINVAL, "skel_tune %s: sk is not a skeleton instance", d->id);
    memset(&T, 0, sizeof T);
    T.d = d;
    T.sk = d->sk;
    if (!(t = (_skel_tree *)SKEL_MALLOC(sizeof *t))) return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    memset(t, 0, sizeof *t);
    t->steal = -1;
    T.t = t;
    _skel_tune_defaults(d, &t->conf);
    for (dim = 0; dim < t->conf.dims; ++dim)
        if (d->lower[dim] < 1 || d->upper[dim] < d->lower[dim] || (uint64_t)d->upper[dim] > ((uint64_t)1 << 52)) {
            _skel_tree_free(t);
            return _skel_fail(SKEL_EINVAL, "skel_tune %s: dimension %d needs 1 <= lower (%zu) <= upper (%zu) <= 2^52",
                              d->id, dim, d->lower[dim], d->upper[dim]);
        }
    if (d->sk) {
        int k = d->sk->kind, dm = t->conf.dims;
        if (_skel_kind_2d(k) && dm != 2) {
            _skel_tree_free(t);
            return _skel_fail(SKEL_EINVAL, "skel_tune %s: %s calls reduce to 2-D context points, not 1-D", d->id,
                              _skel_kind_name(k));
        }
    }
    t->version = _SKEL_PLAN_VERSION;
    if ((rc = _skel_tune_variants(d, t)) != SKEL_OK || !(t->fingerprint = _skel_fingerprint())) {
        _skel_tree_free(t);
        return rc != SKEL_OK ? rc : _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    }
    t->wall_seconds = _skel_now() - wall0;      /* a loaded plan: the load */
    path[0] = 0;
    if (!d->nofile) {
        if ((rc = skel_plan_path(d->id, d->dir, path, sizeof path)) != SKEL_OK) { _skel_tree_free(t); return rc; }
        env = getenv("SKEL_RETUNE");
        if (!(env && *env && strcmp(env, "0") != 0) && (p = _skel_tune_load(path, &t->conf, t->fingerprint, d->cost != NULL))) {
            _skel_log(SKEL_LOG_INFO, "tune %s: plan loaded from %s", t->conf.id, path);
            p->tree->wall_seconds = _skel_now() - wall0;
            _skel_tree_free(t);
            if (d->sk) skel_set_plan(d->sk, p);
            *plan = p;
            return SKEL_OK;
        }
    }

    /* tune */
    T.rng = 0x9E3779B97F4A7C15ULL ^ _skel_fnv1a(d->id, strlen(d->id), _SKEL_FNV_SEED);
    if (d->call) T.tmpl = *d->call;
    for (i = 0; i < SKEL_MAX_IN; ++i) T.tmpl.in[i] = NULL;
    T.tmpl.out = NULL;
    T.tmpl.result = NULL;
    T.tmpl.group = 0;
    for (i = 0; i < _SKEL_LOAD(&_skel_nbackends); ++i)
        if (_skel_backends[i].is_gpu) { T.dev_space = _skel_backends[i].space; break; }
    if (!d->quiet && (isatty(2) || _skel_env_int("SKEL_VERBOSE", 0) > 0)) T.progress = isatty(2) ? 1 : 2;
    T.wall_start = wall0;
    T.last_group = -1;
    T.last_var = -1;
    T.group = (int *)SKEL_MALLOC((size_t)t->nvar * sizeof *T.group);
    T.scratch = (double *)SKEL_MALLOC((size_t)t->nvar * _SKEL_MAX_SAMPLES * sizeof *T.scratch);
    if (!T.group || !T.scratch) {
        SKEL_FREE(T.group);
        SKEL_FREE(T.scratch);
        _skel_tree_free(t);
        return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory");
    }
    for (i = 0; i < t->nvar; ++i) {         /* variants of one backend and device count share F */
        int u;
        for (u = 0; u < i && (strcmp(t->vars[u].backend, t->vars[i].backend) != 0 ||
                              (t->vars[u].devices > 1) != (t->vars[i].devices > 1)); ++u) {}
        T.group[i] = u;
    }
    if (!d->cost) {     /* warm up: thread pools, kernel compilation; neither measured nor budget */
        _skel_synth s;
        if ((rc = _skel_synth_make(&T, t->conf.lower, &s)) != SKEL_OK) {
            SKEL_FREE(T.group);
            SKEL_FREE(T.scratch);
            _skel_tree_free(t);
            return rc;
        }
        for (i = 0; i < t->nvar; ++i) {
            _skel_variant v;
            _skel_pvar_variant(&t->vars[i], &v);
            _skel_run_variant(T.sk, &s.call, &s.sh, &v);
        }
        _skel_synth_free(&s);
    }
    T.start = _skel_now();
    rc = _skel_tune_build(&T);
    t->pcost = T.pcost;                     /* for the text dump */
    SKEL_FREE(T.looked);
    SKEL_FREE(T.smp);
    SKEL_FREE(T.share);
    SKEL_FREE(T.group);
    SKEL_FREE(T.scratch);
    if (rc != SKEL_OK) { _skel_tree_free(t); return rc; }
    t->tune_seconds = _skel_tune_elapsed(&T);
    t->wall_seconds = _skel_now() - wall0;
    _skel_tune_note_steal(t, steal_ok, steal0, total0);
    _skel_tune_progress(&T, 1);
    if (_skel_tree_index(t) == SKEL_ENOMEM) { _skel_tree_free(t); return _skel_fail(SKEL_ENOMEM, "skel_tune: out of memory"); }
    if ((rc = skel_plan_new(&p)) != SKEL_OK) { _skel_tree_free(t); return rc; }
    p->tree = t;
    if (path[0]) {
        if (_skel_mkdirs_for(path) != SKEL_OK || skel_plan_save(p, path) != SKEL_OK)
            _skel_log(SKEL_LOG_WARN, "tune %s: plan not saved to %s (%s)", t->conf.id, path, _skel_errbuf);
        else
            _skel_log(SKEL_LOG_INFO, "tune %s: plan saved to %s", t->conf.id, path);
    }
    if (d->sk) skel_set_plan(d->sk, p);
    *plan = p;
    return SKEL_OK;
}

/* ---- the plan as text, JSON and SVG ---- */

/* The integer boundary b of an open leaf's side lo..hi: x <= b picks the
   lo corner (x^2 <= lo*hi, exactly as _skel_tree_pick decides). */
static uint64_t _skel_near_split(uint64_t lo, uint64_t hi)
{
    double prod = (double)lo * (double)hi;
    uint64_t b = (uint64_t)sqrt(prod);
    while (b > lo && (double)b * (double)b > prod) --b;
    while ((double)(b + 1) * (double)(b + 1) <= prod) ++b;
    return b;
}

typedef struct _skel_region { uint64_t lo[2], hi[2]; int v; } _skel_region;

/* The regions lookups answer, in order (1-D: ascending): each leaf (its
   upper faces belong to the next leaf except at the root's); open leaves
   cut into the 2 nearest-corner parts in 1-D, and in 2-D into a grid of
   _SKEL_GRID x _SKEL_GRID cells, log spaced, each labelled with the answer
   at its centre (the answers there follow curves: _skel_interp_pick).
   Returns the count (out may be NULL to count). */
#define _SKEL_GRID 8
static int _skel_regions(const _skel_tree *t, _skel_region *out)
{
    int stack[64 * 4 + 4], sp = 0, k, d, n = 0, D = t->conf.dims;
    stack[sp++] = 0;
    while (sp > 0) {
        int i = stack[--sp], m;
        const _skel_pnode *nd = &t->nodes[i];
        uint64_t cut[2][_SKEL_GRID + 1];
        int ncut[2];
        if (nd->first_child >= 0) {         /* children in order: push the last first */
            for (k = (1 << D) - 1; k >= 0 && sp < (int)(sizeof stack / sizeof *stack); --k)
                stack[sp++] = nd->first_child + k;
            continue;
        }
        for (d = 0; d < D; ++d) {           /* cut[d][0..ncut]: the cells' lower ends, then the end + 1 */
            uint64_t ehi = nd->hi[d] == t->conf.upper[d] ? nd->hi[d] : nd->hi[d] - 1;
            int c, g = nd->closed ? 1 : D == 1 ? 2 : _SKEL_GRID;
            ncut[d] = 0;
            for (c = 0; c < g; ++c) {
                uint64_t b = c == 0 ? nd->lo[d] : D == 1 ? _skel_near_split(nd->lo[d], nd->hi[d]) + 1
                           : (uint64_t)floor((double)nd->lo[d] * pow((double)nd->hi[d] / (double)nd->lo[d], (double)c / g));
                if (b > ehi || (ncut[d] > 0 && b <= cut[d][ncut[d] - 1])) continue;
                cut[d][ncut[d]++] = b;
            }
            cut[d][ncut[d]] = ehi + 1;
        }
        for (m = 0; m < ncut[0] * (D == 2 ? ncut[1] : 1); ++m) {
            _skel_region r;
            size_t pt[2];
            for (d = 0; d < D; ++d) {
                int c = d ? m / ncut[0] : m % ncut[0];
                r.lo[d] = cut[d][c];
                r.hi[d] = cut[d][c + 1] - 1;
                pt[d] = D == 1 ? (size_t)r.lo[d] : (size_t)floor(sqrt((double)r.lo[d] * (double)r.hi[d]));
            }
            r.v = nd->closed ? nd->winner : _skel_tree_pick(t, pt);
            /* 1-D: merge with the previous region of the same variant (when
               only counting, the count is an upper bound) */
            if (D == 1 && out && n > 0 && out[n - 1].v == r.v && out[n - 1].hi[0] + 1 == r.lo[0]) {
                out[n - 1].hi[0] = r.hi[0];
                continue;
            }
            if (out) out[n] = r;
            n++;
        }
    }
    return n;
}

/* The variants that win somewhere in 2-D open leaf nd, for lookups to
   interpolate only those: the winners on a 5 x 5 grid of the leaf, log
   spaced (a split family as one: _skel_family_head); where more than 4
   win, the 4 that win most of the grid. */
static void _skel_interp_cands(const _skel_tree *t, _skel_pnode *nd)
{
    int cnt[_SKEL_MAX_PVARS], i, j, k, v, d;
    uint64_t x[2];
    _skel_corner_splits cs;
    _skel_corner_splits_of(t, nd, &cs);
    memset(cnt, 0, sizeof cnt);
    for (i = 0; i < 5; ++i)
        for (j = 0; j < 5; ++j) {
            for (d = 0; d < 2; ++d) {
                double lo = (double)nd->lo[d], hi = (double)nd->hi[d];
                x[d] = (uint64_t)floor(lo * pow(hi / lo, (d ? j : i) / 4.0) + 0.5);
                if (x[d] < nd->lo[d]) x[d] = nd->lo[d];
                if (x[d] > nd->hi[d]) x[d] = nd->hi[d];
            }
            v = _skel_family_head(t, &cs, _skel_interp_pick(t, nd, NULL, &cs, x));   /* a family counts once */
            if (v >= 0) cnt[v]++;
        }
    for (k = 0; k < 4; ++k) {
        int b = -1;
        for (v = 0; v < t->nvar; ++v)
            if (cnt[v] > 0 && (b < 0 || cnt[v] > cnt[b])) b = v;
        nd->part[k] = b;
        if (b >= 0) cnt[b] = 0;
    }
}

/* Flatten a 1-D tree into sorted ranges for fast lookups (0 or ENOMEM). */
static int _skel_tree_index(_skel_tree *t)
{
    _skel_region *rg;
    int n, i;
    SKEL_FREE(t->rstart);
    SKEL_FREE(t->rvar);
    t->rstart = NULL;
    t->rvar = NULL;
    t->nreg = 0;
    t->parts = 0;
    memset(t->memo, 0, sizeof t->memo);
    for (i = 0; i < t->nnodes; ++i) {       /* open leaves' answers, once */
        _skel_pnode *nd = &t->nodes[i];
        int k;
        for (k = 0; k < 4; ++k)
            nd->part[k] = t->conf.dims == 1 && k < 2 && nd->first_child < 0 && !nd->closed
                        ? _skel_open_pick(t, nd, k) : -1;
        if (t->conf.dims == 2 && nd->first_child < 0 && !nd->closed) _skel_interp_cands(t, nd);
    }
    t->parts = 1;
    if (t->conf.dims != 1) return SKEL_OK;
    n = _skel_regions(t, NULL);
    rg = (_skel_region *)SKEL_MALLOC((size_t)(n ? n : 1) * sizeof *rg);
    t->rstart = (uint64_t *)SKEL_MALLOC((size_t)(n ? n : 1) * sizeof *t->rstart);
    t->rvar = (int *)SKEL_MALLOC((size_t)(n ? n : 1) * sizeof *t->rvar);
    if (!rg || !t->rstart || !t->rvar) {
        SKEL_FREE(rg);
        return SKEL_ENOMEM;
    }
    n = _skel_regions(t, rg);
    for (i = 0; i < n; ++i) {
        t->rstart[i] = rg[i].lo[0];
        t->rvar[i] = rg[i].v;
    }
    t->rstart[0] = 0;                       /* below the box: clamped to its first range */
    t->nreg = n;
    SKEL_FREE(rg);
    return n > 0 ? SKEL_OK : SKEL_EINVAL;
}

/* the name of a type as a plan file records it (_skel_type_code) */
static const char *_skel_code_name(int code, int present)
{
    return code > 0 && code < SKEL_TYPE_COUNT ? _skel_types[code].name : present ? "struct" : "none";
}

static const char *_skel_kind_label(int kind)
{
    return _skel_kind_name(kind);
}

static void _skel_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 32) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void _skel_xml_str(FILE *f, const char *s)
{
    for (; *s; ++s) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

static const char *_skel_tcode(double r)
{
    return r == _SKEL_T_TIMEOUT ? "timeout" : r == _SKEL_T_FAILED ? "failed" : "-";
}

static void _skel_box_text(FILE *f, const _skel_tree *t, const uint64_t *lo, const uint64_t *hi)
{
    int d;
    for (d = 0; d < t->conf.dims; ++d)
        fprintf(f, "%s[%llu, %llu]", d ? " x " : "", (unsigned long long)lo[d], (unsigned long long)hi[d]);
}

static void _skel_point_text(FILE *f, const _skel_tree *t, const uint64_t *x)
{
    int d;
    for (d = 0; d < t->conf.dims; ++d) fprintf(f, "%s%llu", d ? " x " : "", (unsigned long long)x[d]);
}

static void _skel_dump_node(FILE *f, const _skel_tree *t, int i, char (*labels)[_SKEL_LABEL])
{
    const _skel_pnode *nd = &t->nodes[i];
    int k;
    fprintf(f, "%*s#%d ", 2 + 2 * nd->depth, "", i);
    _skel_box_text(f, t, nd->lo, nd->hi);
    fprintf(f, " corners");
    for (k = 0; k < 1 << t->conf.dims; ++k) {
        int w = t->points[nd->corner[k]].winner;
        fprintf(f, " p%d:%s", nd->corner[k], w >= 0 ? labels[w] : "none");
    }
    if (nd->first_child >= 0) {
        fprintf(f, " -> split at ");
        _skel_point_text(f, t, t->nodes[nd->first_child].hi);
        fprintf(f, "\n");
        for (k = 0; k < 1 << t->conf.dims; ++k) _skel_dump_node(f, t, nd->first_child + k, labels);
    } else {
        fprintf(f, nd->closed ? " -> closed: %s\n" : " -> open: nearest corner\n", nd->closed ? labels[nd->winner] : "");
    }
}

static void _skel_dump_text(FILE *f, const _skel_tree *t, char (*labels)[_SKEL_LABEL])
{
    const _skel_tconf *c = &t->conf;
    skel_plan_stats st;
    skel_plan pl;
    _skel_region *rg;
    int i, v, d, n;
    const char *fp;
    char prune[32];
    memset(&pl, 0, sizeof pl);
    pl.tree = (_skel_tree *)t;
    skel_plan_stats_get(&pl, &st);
    if (c->prune < 0) snprintf(prune, sizeof prune, "off");
    else snprintf(prune, sizeof prune, "%g%%", 100 * c->prune);
    fprintf(f, "skel plan \"%s\" (format %u)\n", c->id, t->version ? t->version : _SKEL_PLAN_VERSION);
    if (c->kind)
        fprintf(f, "instance:  %s %s (%s%s%s), %s -> %s, %d input(s)%s", _skel_kind_label(c->kind), c->inst,
                c->func, c->func[0] && c->red[0] ? ", " : "", c->red, _skel_code_name(c->in_type, c->nin),
                _skel_code_name(c->out_type, 1), c->nin, c->has_uniform ? ", uniform" : "");
    if (c->kind && c->nout > 1) fprintf(f, ", %d outputs", c->nout);
    if (c->kind && c->nview > 0) fprintf(f, ", %d view(s)", c->nview);
    if (c->kind) fprintf(f, "\n");
    else fprintf(f, "instance:  none (cost model)\n");
    fprintf(f, "context:   %d-D, ", c->dims);
    _skel_box_text(f, t, c->lower, c->upper);
    fprintf(f, "\noptions:   max depth %d, min depth %d, max nodes %d, budget %g s, timeout %g s, %d reps, r = %d, "
            "tolerance %g%%, prune %s, %s split%s\n", c->max_depth, c->min_depth, c->max_nodes, c->time_budget, c->timeout,
            c->reps, c->repeats, 100 * c->tolerance, prune, c->split ? "linear" : "geometric",
            c->cost_model ? ", cost model" : "");
    fprintf(f, "locality:  inputs on");
    for (i = 0; i < (c->nin ? c->nin : 1) && i < SKEL_MAX_IN; ++i)
        fprintf(f, "%s %s", i ? "," : "", c->in_loc[i] ? "device" : "host");
    fprintf(f, "; result %s\n", c->out_to_host ? "copied back to the host" : "left where it is made");
    fprintf(f, "machine:\n");
    for (fp = t->fingerprint; *fp;) {
        size_t len = strcspn(fp, "\n");
        fprintf(f, "  %.*s\n", (int)len, fp);
        fp += len + (fp[len] == '\n');
    }
    fprintf(f, "tuning:    %.3f s%s, %d measurements at %d points (%.6f%% of the space), %d nodes (%d closed, "
            "%d open leaves), depth %d\n", t->tune_seconds, c->cost_model ? " modelled" : "", t->measurements,
            t->npoints, 100 * st.explored, t->nnodes, st.closed_leaves, st.open_leaves, st.depth);
    if (t->wall_seconds > 0)     /* tuned or loaded by skel_tune in this process */
        fprintf(f, "wall:      %.3f s in skel_tune (%s)\n", t->wall_seconds,
                t->pcost ? "warm-up, compiles, one-offs included; [s]: each point's measuring" : "loading the file");
    if (t->steal >= 0)
        fprintf(f, "steal:     %.2f%% of the CPUs' time went to other guests while it tuned\n", 100 * t->steal);
    fprintf(f, "variants:\n");
    for (v = 0; v < t->nvar; ++v) {
        fprintf(f, "  v%d %s", v, labels[v]);
        if (t->vars[v].pruned >= 0) fprintf(f, "  (pruned after depth %d)", t->vars[v].pruned);
        fprintf(f, "\n");
    }
    fprintf(f, "points:    R + F per variant in microseconds (T(r) = R*r + F), * = winner\n");
    for (i = 0; i < t->npoints; ++i) {
        fprintf(f, "  p%d ", i);
        _skel_point_text(f, t, t->points[i].x);
        if (t->pcost) fprintf(f, " [%.3g s]", t->pcost[i]);
        fprintf(f, ":");
        for (v = 0; v < t->nvar; ++v) {
            const double *rf = t->times + ((size_t)i * (size_t)t->nvar + (size_t)v) * 2;
            if (rf[0] < 0) fprintf(f, "  %s %s", labels[v], _skel_tcode(rf[0]));
            else fprintf(f, "  %s %.4g+%.4g%s", labels[v], 1e6 * rf[0], 1e6 * rf[1], t->points[i].winner == v ? "*" : "");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "tree:\n");
    _skel_dump_node(f, t, 0, labels);
    n = _skel_regions(t, NULL);
    rg = (_skel_region *)SKEL_MALLOC((size_t)(n ? n : 1) * sizeof *rg);
    if (!rg) return;
    n = _skel_regions(t, rg);
    fprintf(f, c->dims == 1 ? "ranges:\n" : "regions:\n");
    for (i = 0; i < n; ++i) {
        fprintf(f, "  ");
        for (d = 0; d < c->dims; ++d)
            fprintf(f, "%s%llu .. %llu", d ? " x " : "", (unsigned long long)rg[i].lo[d], (unsigned long long)rg[i].hi[d]);
        fprintf(f, ": %s\n", rg[i].v >= 0 ? labels[rg[i].v] : "none");
    }
    SKEL_FREE(rg);
}

static void _skel_json_u64s(FILE *f, const uint64_t *x, int n)
{
    int i;
    fputc('[', f);
    for (i = 0; i < n; ++i) fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)x[i]);
    fputc(']', f);
}

static void _skel_dump_json(FILE *f, const _skel_tree *t, char (*labels)[_SKEL_LABEL])
{
    const _skel_tconf *c = &t->conf;
    skel_plan_stats st;
    skel_plan pl;
    _skel_region *rg;
    int i, v, k, n, D = c->dims;
    const char *fp;
    memset(&pl, 0, sizeof pl);
    pl.tree = (_skel_tree *)t;
    skel_plan_stats_get(&pl, &st);
    fprintf(f, "{\n  \"format\": %u,\n  \"id\": ", t->version ? t->version : _SKEL_PLAN_VERSION);
    _skel_json_str(f, c->id);
    fprintf(f, ",\n  \"instance\": {\"kind\": ");
    _skel_json_str(f, c->kind ? _skel_kind_label(c->kind) : "none");
    fprintf(f, ", \"name\": ");
    _skel_json_str(f, c->inst);
    fprintf(f, ", \"func\": ");
    _skel_json_str(f, c->func);
    fprintf(f, ", \"reduce\": ");
    _skel_json_str(f, c->red);
    fprintf(f, ", \"in_type\": \"%s\", \"out_type\": \"%s\", \"inputs\": %d, \"uniform\": %s},\n",
            _skel_code_name(c->in_type, c->nin), c->kind ? _skel_code_name(c->out_type, 1) : "none",
            c->nin, c->has_uniform ? "true" : "false");
    fprintf(f, "  \"context\": {\"dims\": %d, \"lower\": ", D);
    _skel_json_u64s(f, c->lower, D);
    fprintf(f, ", \"upper\": ");
    _skel_json_u64s(f, c->upper, D);
    fprintf(f, "},\n  \"options\": {\"max_depth\": %d, \"min_depth\": %d, \"max_nodes\": %d, \"time_budget\": %.17g, \"timeout\": %.17g, "
            "\"reps\": %d, \"repeats\": %d, \"tolerance\": %.17g, \"prune\": %.17g, \"split\": \"%s\", "
            "\"cost_model\": %s, \"in_loc\": [", c->max_depth, c->min_depth, c->max_nodes, c->time_budget, c->timeout, c->reps,
            c->repeats, c->tolerance, c->prune, c->split ? "linear" : "geometric", c->cost_model ? "true" : "false");
    for (i = 0; i < SKEL_MAX_IN; ++i) fprintf(f, "%s\"%s\"", i ? ", " : "", c->in_loc[i] ? "device" : "host");
    fprintf(f, "], \"out_to_host\": %s},\n  \"machine\": [", c->out_to_host ? "true" : "false");
    for (fp = t->fingerprint, i = 0; *fp; ++i) {
        size_t len = strcspn(fp, "\n");
        char line[4096];
        snprintf(line, sizeof line, "%.*s", (int)len, fp);
        fprintf(f, "%s", i ? ", " : "");
        _skel_json_str(f, line);
        fp += len + (fp[len] == '\n');
    }
    fprintf(f, "],\n  \"stats\": {\"tune_seconds\": %.17g, \"measurements\": %d, \"points\": %d, \"explored\": %.17g, "
            "\"nodes\": %d, \"closed_leaves\": %d, \"open_leaves\": %d, \"depth\": %d},\n", t->tune_seconds,
            t->measurements, t->npoints, st.explored, t->nnodes, st.closed_leaves, st.open_leaves, st.depth);
    fprintf(f, "  \"variants\": [\n");
    for (v = 0; v < t->nvar; ++v) {
        const _skel_pvar *pv = &t->vars[v];
        fprintf(f, "    {\"label\": ");
        _skel_json_str(f, labels[v]);
        fprintf(f, ", \"backend\": ");
        _skel_json_str(f, pv->backend);
        fprintf(f, ", \"threads\": %d, \"block\": %d, \"grid\": %d, \"devices\": %d, \"tiling\": %d, \"device\": %d, "
                "\"parts\": [", pv->threads, pv->block, pv->grid, pv->devices, pv->tiling, pv->device);
        for (k = 0; k < pv->nparts; ++k) {
            fprintf(f, "%s{\"backend\": ", k ? ", " : "");
            _skel_json_str(f, pv->part[k].backend);
            fprintf(f, ", \"device\": %d, \"share\": %.17g, \"threads\": %d, \"block\": %d, \"grid\": %d}",
                    pv->part[k].device, pv->part[k].share, pv->part[k].threads, pv->part[k].block, pv->part[k].grid);
        }
        fprintf(f, "], \"pruned_after_depth\": %d}%s\n", pv->pruned, v + 1 < t->nvar ? "," : "");
    }
    fprintf(f, "  ],\n  \"points\": [\n");
    for (i = 0; i < t->npoints; ++i) {
        fprintf(f, "    {\"x\": ");
        _skel_json_u64s(f, t->points[i].x, D);
        fprintf(f, ", \"winner\": %d, \"times\": [", t->points[i].winner);
        for (v = 0; v < t->nvar; ++v) {
            const double *rf = t->times + ((size_t)i * (size_t)t->nvar + (size_t)v) * 2;
            if (rf[0] < 0) fprintf(f, "%s\"%s\"", v ? ", " : "", rf[0] == _SKEL_T_UNMEASURED ? "unmeasured" : _skel_tcode(rf[0]));
            else fprintf(f, "%s{\"R\": %.17g, \"F\": %.17g}", v ? ", " : "", rf[0], rf[1]);
        }
        fprintf(f, "]}%s\n", i + 1 < t->npoints ? "," : "");
    }
    fprintf(f, "  ],\n  \"nodes\": [\n");
    for (i = 0; i < t->nnodes; ++i) {
        const _skel_pnode *nd = &t->nodes[i];
        fprintf(f, "    {\"lo\": ");
        _skel_json_u64s(f, nd->lo, D);
        fprintf(f, ", \"hi\": ");
        _skel_json_u64s(f, nd->hi, D);
        fprintf(f, ", \"depth\": %d, \"corners\": [", nd->depth);
        for (k = 0; k < 1 << D; ++k) fprintf(f, "%s%d", k ? ", " : "", nd->corner[k]);
        fprintf(f, "], \"first_child\": %d, \"closed\": %s, \"winner\": %d}%s\n", nd->first_child,
                nd->closed ? "true" : "false", nd->winner, i + 1 < t->nnodes ? "," : "");
    }
    fprintf(f, "  ],\n  \"regions\": [\n");
    n = _skel_regions(t, NULL);
    rg = (_skel_region *)SKEL_MALLOC((size_t)(n ? n : 1) * sizeof *rg);
    n = rg ? _skel_regions(t, rg) : 0;
    for (i = 0; i < n; ++i) {
        fprintf(f, "    {\"lo\": ");
        _skel_json_u64s(f, rg[i].lo, D);
        fprintf(f, ", \"hi\": ");
        _skel_json_u64s(f, rg[i].hi, D);
        fprintf(f, ", \"variant\": %d}%s\n", rg[i].v, i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    SKEL_FREE(rg);
}

static const char *_skel_svg_colour(int v)
{
    static const char *c[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                               "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac" };
    return v < 0 ? "#dddddd" : c[v % 10];
}

/* x position of value u on a log axis lo..hi mapped to a..a+w */
static double _skel_svg_pos(double u, double lo, double hi, double a, double w)
{
    double span = log(hi) - log(lo);
    return a + (span > 0 ? (log(u) - log(lo)) / span : 0) * w;
}

static void _skel_svg_axis_ticks(FILE *f, double lo, double hi, int vertical, double a, double w, double at)
{
    double dec;
    for (dec = pow(10, floor(log10(lo))); dec <= hi * 1.0001; dec *= 10) {
        double p;
        if (dec < lo * 0.9999) continue;
        p = _skel_svg_pos(dec, lo, hi, a, w);
        if (vertical)
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\">%g</text>\n", at, p + 4, dec);
        else
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%g</text>\n", p, at, dec);
    }
}

static void _skel_dump_svg(FILE *f, const _skel_tree *t, char (*labels)[_SKEL_LABEL])
{
    const _skel_tconf *c = &t->conf;
    _skel_region *rg;
    int i, n, v, W = 860, H = c->dims == 1 ? 190 : 640, used[_SKEL_MAX_PVARS];
    double L = 60, top = 40, pw = 640, ph = c->dims == 1 ? 50 : 520;
    n = _skel_regions(t, NULL);
    rg = (_skel_region *)SKEL_MALLOC((size_t)(n ? n : 1) * sizeof *rg);
    n = rg ? _skel_regions(t, rg) : 0;
    memset(used, 0, sizeof used);
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\">\n", W, H);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"22\" font-size=\"14\">plan ", L);
    _skel_xml_str(f, c->id);
    fprintf(f, ": %s</text>\n", c->dims == 1 ? "winning variant per size (log scale)" : "winning variant per rows x cols (log scale)");
    for (i = 0; i < n; ++i) {
        double x0 = _skel_svg_pos((double)rg[i].lo[0], (double)c->lower[0], (double)c->upper[0] + 1, L, pw);
        double x1 = _skel_svg_pos((double)rg[i].hi[0] + 1, (double)c->lower[0], (double)c->upper[0] + 1, L, pw);
        double y0 = top, y1 = top + ph;
        if (c->dims == 2) {
            y1 = top + ph - (_skel_svg_pos((double)rg[i].lo[1], (double)c->lower[1], (double)c->upper[1] + 1, 0, ph));
            y0 = top + ph - (_skel_svg_pos((double)rg[i].hi[1] + 1, (double)c->lower[1], (double)c->upper[1] + 1, 0, ph));
        }
        if (rg[i].v >= 0) used[rg[i].v] = 1;
        fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"><title>", x0, y0,
                x1 - x0, y1 - y0, _skel_svg_colour(rg[i].v));
        _skel_box_text(f, t, rg[i].lo, rg[i].hi);
        fprintf(f, ": %s</title></rect>\n", rg[i].v >= 0 ? labels[rg[i].v] : "none");
    }
    if (c->dims == 2)   /* node boxes */
        for (i = 0; i < t->nnodes; ++i) {
            const _skel_pnode *nd = &t->nodes[i];
            double x0 = _skel_svg_pos((double)nd->lo[0], (double)c->lower[0], (double)c->upper[0] + 1, L, pw);
            double x1 = _skel_svg_pos((double)nd->hi[0], (double)c->lower[0], (double)c->upper[0] + 1, L, pw);
            double y1 = top + ph - _skel_svg_pos((double)nd->lo[1], (double)c->lower[1], (double)c->upper[1] + 1, 0, ph);
            double y0 = top + ph - _skel_svg_pos((double)nd->hi[1], (double)c->lower[1], (double)c->upper[1] + 1, 0, ph);
            if (nd->first_child >= 0) continue;
            fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" stroke=\"#333\" "
                    "stroke-width=\"0.5\"/>\n", x0, y0, x1 - x0, y1 - y0);
        }
    for (i = 0; i < t->npoints; ++i) {     /* measured points */
        double x = _skel_svg_pos((double)t->points[i].x[0], (double)c->lower[0], (double)c->upper[0] + 1, L, pw);
        if (c->dims == 1)
            fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"black\"/>\n", x, top + ph,
                    x, top + ph + 8);
        else
            fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"1.5\" fill=\"black\"/>\n", x,
                    top + ph - _skel_svg_pos((double)t->points[i].x[1], (double)c->lower[1], (double)c->upper[1] + 1, 0, ph));
    }
    _skel_svg_axis_ticks(f, (double)c->lower[0], (double)c->upper[0] + 1, 0, L, pw, top + ph + 22);
    if (c->dims == 2) {
        _skel_svg_axis_ticks(f, (double)c->lower[1], (double)c->upper[1] + 1, 1, 0, ph, L - 6);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">rows (dimension 0)</text>\n",
                L + pw / 2, top + ph + 40);
    } else {
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">size n (ticks: measured "
                "points)</text>\n", L + pw / 2, top + ph + 40);
    }
    for (v = 0, i = 0; v < t->nvar; ++v) {
        if (!used[v]) continue;
        fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>", L + pw + 15,
                top + 18.0 * i, _skel_svg_colour(v));
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">%s</text>\n", L + pw + 32, top + 18.0 * i + 11, labels[v]);
        i++;
    }
    fprintf(f, "</svg>\n");
    SKEL_FREE(rg);
}

int skel_plan_dump(const skel_plan *p, int format, const char *path)
{
    FILE *f;
    char (*labels)[_SKEL_LABEL];
    int v, err;
    if (!p) return _skel_fail(SKEL_EINVAL, "skel_plan_dump: NULL plan");
    if (!p->tree) return _skel_fail(SKEL_EINVAL, "skel_plan_dump: a range plan has no tree to dump");
    if (format < SKEL_DUMP_TEXT || format > SKEL_DUMP_SVG) return _skel_fail(SKEL_EINVAL, "skel_plan_dump: format %d", format);
    if (!(labels = (char (*)[_SKEL_LABEL])SKEL_MALLOC((size_t)p->tree->nvar * sizeof *labels)))
        return _skel_fail(SKEL_ENOMEM, "skel_plan_dump: out of memory");
    for (v = 0; v < p->tree->nvar; ++v) _skel_pvar_label(&p->tree->vars[v], labels[v], sizeof labels[v]);
    f = path ? fopen(path, "w") : stdout;
    if (!f) {
        SKEL_FREE(labels);
        return _skel_fail(SKEL_EIO, "skel_plan_dump: cannot create %s: %s", path, strerror(errno));
    }
    if (format == SKEL_DUMP_TEXT) _skel_dump_text(f, p->tree, labels);
    else if (format == SKEL_DUMP_JSON) _skel_dump_json(f, p->tree, labels);
    else _skel_dump_svg(f, p->tree, labels);
    SKEL_FREE(labels);
    err = ferror(f);
    if (path) err |= fclose(f) != 0;
    else fflush(f);
    return err ? _skel_fail(SKEL_EIO, "skel_plan_dump: write failed") : SKEL_OK;
}

/* ---------------------------------------------------------------------
   streams: Pipeline, Farm and Comp over a stream of items (seed 001)

   A stream is a tree of nodes (stages, and Pipeline, Comp and Farm nodes
   over them) that a run flattens into *workers* joined by bounded queues:
     a stage, or a Comp of stages      one worker that runs the stages in
                                       turn on each item (no queue between)
     Pipeline(a, b, ..)                a, b, .. joined by queues of
                                       desc.queue items
     Comp(x, y) where x or y is not    x and y joined by a one-item
       made of stages                  queue: Farm(r) . p hands each item
                                       from the farm straight to p
     Farm(x) with c + g workers        c + g copies of x, each copy's
                                       workers its own, all taking items
                                       from the farm's entry queue and
                                       putting them in its exit queue
   plus a source worker (desc.source) in front and a sink worker behind.
   A farm never holds a farm (one farm with more workers does the same):
   so each queue has one producing node and one consuming node, and an
   item is inside one farm at most.

   Workers are not threads.  A run starts `threads` threads (the caller
   and threads-1 pool tasks); each one repeatedly *claims* a worker that
   is idle, has an item to take and room for its result, runs it on one
   item, and puts the result in the next queue.  So any number of threads
   runs any stream (one thread runs it all, in order), a thread never
   blocks inside a worker on a full or empty queue, and thread counts are
   not tied to stages.  Claims look at the workers nearest the sink first
   (items drain before new ones come in), and a farm gives its next item
   to the free copy whose workers took the least time per item so far (one
   not measured yet first): on-demand dispatch.  A worker's result always
   has room: a worker claims an item only while its output queue has a
   free place, which it reserves.

   Ordered farms number the items they take (tickets); their exit queue
   holds item t in slot t % capacity and gives items up in ticket order.
   A farm gives out ticket t only while t < (next ticket out) + capacity,
   so every item inside has a slot, and the oldest one always gets out:
   the capacity (at least twice the copies) bounds how far the others may
   run ahead.

   Threads and the pool.  A run's threads-1 tasks hold pool workers for
   the whole run (asleep on the stream's condition variable while it has
   nothing for them), so the run *reserves* them: the pool grows by that
   many workers (_skel_pool_reserve) and its other users keep theirs.  The
   run never depends on them: the caller claims work like any of them, a
   task no worker took runs on the caller when it waits and finds the run
   over, and stage functions may call skeletons (their parallel-fors run
   on the calling thread when no worker is free).

   Guards: everything of a run is guarded by s->mu, except what a claimed
   worker's thread writes while it runs (the item it holds, its stages'
   time and counts, its stage workers' `local`): owner thread only, and
   read by others after the claim ends (under mu) or after the run.
   --------------------------------------------------------------------- */
#define _SKEL_STREAM_MAX_WORKERS 4096   /* copies of one farm */

typedef struct _skel_snode {
    int kind, parent;
    int kid0, nkids;            /* children: s->kids[kid0 .. kid0 + nkids) */
    char name[32];
    char gpus[128];             /* FARM: its desc's gpus, copied */
    skel_stage_desc stage;      /* STAGE (its name copied to name) */
    skel_farm_desc farm;        /* FARM */
    skel_stream_node_stats st;  /* the last run's */
    long items;                 /* the last run: items out of it, */
    double busy, first, last;   /* seconds in its stages, its first item in and last out (since t0) */
} _skel_snode;

typedef struct _skel_sitem {
    void *p;
    long seq;                   /* the source's count; -1: an empty slot of an ordered queue */
    long ticket;                /* in an ordered farm: its order in */
} _skel_sitem;

typedef struct _skel_squeue {
    int cap, count, reserved;   /* items in it; places promised to the workers running */
    int head;                   /* FIFO: the oldest item's slot */
    int ordered;                /* an ordered farm's exit: ticket t in slot t % cap */
    long next;                  /* ordered: the ticket given up next */
    int farm;                   /* the ordered farm it enters (its node), -1: none */
    long issued;                /* that farm's tickets given out */
    int exitq;                  /* that farm's exit queue */
    int cons0, ncons;           /* the workers taking from it: s->cons[cons0 ..] */
    _skel_sitem *ring;          /* cap slots (in s->slots) */
    double area, since;         /* occupancy integral over time; time of the last change */
    skel_stream_queue_stats st;
} _skel_squeue;

/* One stage as one worker runs it. */
typedef struct _skel_sleaf {
    int node, unit;             /* the stage; the worker */
    int place;                  /* where its skeleton calls run (0: the host) */
    skel_stream_worker w;       /* what its functions see (w.local: owner) */
    long items;                 /* owner: items it finished */
    double busy, first, last;   /* owner: seconds in it; its first start, last end (since t0) */
} _skel_sleaf;

typedef struct _skel_sunit {
    int in, out;                /* queues; in -1: the source; out -1: the sink */
    int leaf0, nleaves;         /* its stages: s->leaf[leaf0 ..] */
    int copy0, copy1;           /* the workers of its farm copy [copy0, copy1) (itself outside farms) */
    int busy;                   /* mu */
    _skel_sitem item;           /* owner: the item it works on */
    skel_stream_worker_stats st;    /* items, busy: mu */
} _skel_sunit;

struct skel_stream {
    _skel_snode *nodes;
    int nnodes, capnodes;
    int *kids;
    int nkids, capkids;
    pthread_mutex_t mu;         /* guards the run (see the banner) */
    pthread_cond_t cv;          /* threads with nothing to claim */
    int running;                /* mu: a run is in progress */
    int stop;                   /* mu: skel_stream_stop was called during the run */
    /* the run in progress, or the last one (its statistics) */
    skel_stream_desc d;
    int root;
    _skel_sunit *units;
    int nunits, capunits;
    _skel_squeue *qs;
    int nqs, capqs;
    int *cons;                  /* the consumers of each queue */
    int ncons;
    _skel_sleaf *leaf;          /* the stages of every worker */
    int nleaf, capleaf;
    _skel_sitem *slots, *failed;    /* queue slots; items whose stage failed */
    int nfailed;
    long produced, sunk;        /* mu */
    int src_done, nbusy, sleepers, finished;    /* mu */
    int error;                  /* mu: the first failure's status */
    char why[sizeof _skel_errbuf];  /* mu: its message */
    double t0;
    skel_stream_stats st;
};

static const char *_skel_sn_kind[] = { "?", "stage", "pipeline", "comp", "farm" };

/* ---- building ---- */
int skel_stream_new(skel_stream **s)
{
    if (!s) return _skel_fail(SKEL_EINVAL, "skel_stream_new: NULL result pointer");
    if (!(*s = (skel_stream *)SKEL_MALLOC(sizeof **s))) return _skel_fail(SKEL_ENOMEM, "skel_stream_new: out of memory");
    memset(*s, 0, sizeof **s);
    pthread_mutex_init(&(*s)->mu, NULL);
    pthread_cond_init(&(*s)->cv, NULL);
    (*s)->root = -1;
    return SKEL_OK;
}

/* Free the flattened form of the last run. */
static void _skel_srun_free(skel_stream *s)
{
    SKEL_FREE(s->units); SKEL_FREE(s->qs); SKEL_FREE(s->cons); SKEL_FREE(s->leaf);
    SKEL_FREE(s->slots); SKEL_FREE(s->failed);
    s->units = NULL; s->qs = NULL; s->cons = NULL; s->leaf = NULL; s->slots = s->failed = NULL;
    s->nunits = s->capunits = s->nqs = s->capqs = s->ncons = s->nleaf = s->capleaf = s->nfailed = 0;
}

void skel_stream_free(skel_stream *s)
{
    if (!s) return;
    _skel_srun_free(s);
    SKEL_FREE(s->nodes);
    SKEL_FREE(s->kids);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    SKEL_FREE(s);
}

/* Grow array *p of *cap elements of size sz to hold need; 0 on failure. */
static int _skel_grow(void **p, int *cap, int need, size_t sz)
{
    int c = *cap ? *cap : 8;
    void *q;
    if (need <= *cap) return 1;
    while (c < need) c *= 2;
    if (!(q = SKEL_REALLOC(*p, (size_t)c * sz))) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* A new node of kind with children kids[0..n), which get it as parent. */
static int _skel_snode_add(skel_stream *s, int kind, const char *what, int n, const int *kids)
{
    _skel_snode *nd;
    int i, j, id;
    if (!s) return _skel_fail(SKEL_EINVAL, "%s: NULL stream", what);
    for (i = 0; i < n; ++i) {
        if (kids[i] < 0) return kids[i];    /* an earlier builder's failure */
        if (kids[i] >= s->nnodes) return _skel_fail(SKEL_EINVAL, "%s: node %d does not exist", what, kids[i]);
        if (s->nodes[kids[i]].parent >= 0)
            return _skel_fail(SKEL_EINVAL, "%s: node %d (%s) already belongs to node %d", what, kids[i],
                              s->nodes[kids[i]].name, s->nodes[kids[i]].parent);
        for (j = 0; j < i; ++j)
            if (kids[j] == kids[i]) return _skel_fail(SKEL_EINVAL, "%s: node %d given twice", what, kids[i]);
    }
    if (!_skel_grow((void **)&s->nodes, &s->capnodes, s->nnodes + 1, sizeof *s->nodes) ||
        !_skel_grow((void **)&s->kids, &s->capkids, s->nkids + n, sizeof *s->kids))
        return _skel_fail(SKEL_ENOMEM, "%s: out of memory", what);
    id = s->nnodes++;
    nd = &s->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->parent = -1;
    nd->kid0 = s->nkids;
    nd->nkids = n;
    for (i = 0; i < n; ++i) {
        s->kids[s->nkids++] = kids[i];
        s->nodes[kids[i]].parent = id;
    }
    snprintf(nd->name, sizeof nd->name, "%s%d", _skel_sn_kind[kind], id);
    return id;
}

/* 1 if node n is a farm or holds one. */
static int _skel_snode_has_farm(const skel_stream *s, int n)
{
    const _skel_snode *nd = &s->nodes[n];
    int i;
    if (nd->kind == SKEL_STREAM_FARM) return 1;
    for (i = 0; i < nd->nkids; ++i)
        if (_skel_snode_has_farm(s, s->kids[nd->kid0 + i])) return 1;
    return 0;
}

int skel_stream_stage(skel_stream *s, const skel_stage_desc *d)
{
    int id;
    if (!d || !d->cpu) return _skel_fail(SKEL_EINVAL, "skel_stream_stage: %s", d ? "no cpu function" : "NULL desc");
    if ((id = _skel_snode_add(s, SKEL_STREAM_STAGE, "skel_stream_stage", 0, NULL)) < 0) return id;
    s->nodes[id].stage = *d;
    s->nodes[id].stage.name = NULL;
    if (d->name) snprintf(s->nodes[id].name, sizeof s->nodes[id].name, "%s", d->name);
    return id;
}

static int _skel_stream_seq(skel_stream *s, int kind, const char *what, int n, const int *nodes)
{
    if (n < 1 || !nodes) return _skel_fail(SKEL_EINVAL, "%s: %d nodes (at least 1)", what, nodes ? n : 0);
    return _skel_snode_add(s, kind, what, n, nodes);
}
int skel_stream_pipeline(skel_stream *s, int n, const int *nodes)
{
    return _skel_stream_seq(s, SKEL_STREAM_PIPELINE, "skel_stream_pipeline", n, nodes);
}
int skel_stream_comp(skel_stream *s, int n, const int *nodes)
{
    return _skel_stream_seq(s, SKEL_STREAM_COMP, "skel_stream_comp", n, nodes);
}

int skel_stream_farm(skel_stream *s, int node, const skel_farm_desc *d)
{
    skel_farm_desc f;
    int id;
    memset(&f, 0, sizeof f);
    if (d) f = *d;
    if (f.cpu_workers < 0 || f.gpu_workers < 0 || f.cpu_workers + f.gpu_workers > _SKEL_STREAM_MAX_WORKERS)
        return _skel_fail(SKEL_EINVAL, "skel_stream_farm: %d CPU + %d GPU workers (0 .. %d in all)", f.cpu_workers,
                          f.gpu_workers, _SKEL_STREAM_MAX_WORKERS);
    if (f.gpus && strlen(f.gpus) >= sizeof s->nodes[0].gpus)
        return _skel_fail(SKEL_EINVAL, "skel_stream_farm: gpus \"%.40s...\" is too long", f.gpus);
    if (s && node >= 0 && node < s->nnodes && _skel_snode_has_farm(s, node))
        return _skel_fail(SKEL_EINVAL, "skel_stream_farm: node %d (%s) is or holds a farm; a farm of farms is "
                          "one farm with more workers", node, s->nodes[node].name);
    if ((id = _skel_snode_add(s, SKEL_STREAM_FARM, "skel_stream_farm", 1, &node)) < 0) return id;
    if (f.cpu_workers + f.gpu_workers == 0) f.cpu_workers = _skel_cpu_count();
    if (f.gpus) snprintf(s->nodes[id].gpus, sizeof s->nodes[id].gpus, "%s", f.gpus);
    f.gpus = NULL;
    s->nodes[id].farm = f;
    return id;
}

/* ---- flattening a run: workers and queues ---- */
typedef struct _skel_sctx {
    int farm, copy;             /* the farm copy being flattened (-1: none) */
    int place;                  /* the GPU place that copy owns, -1: a CPU copy */
} _skel_sctx;

static int _skel_sq_add(skel_stream *s, int cap, int from, int to)
{
    _skel_squeue *q;
    if (!_skel_grow((void **)&s->qs, &s->capqs, s->nqs + 1, sizeof *s->qs)) return -1;
    q = &s->qs[s->nqs];
    memset(q, 0, sizeof *q);
    q->cap = cap;
    q->farm = -1;
    q->st.from = from;
    q->st.to = to;
    return s->nqs++;
}

/* A new worker from queue in to queue out; -1: out of memory. */
static int _skel_su_add(skel_stream *s, int in, int out, const _skel_sctx *c)
{
    _skel_sunit *u;
    if (!_skel_grow((void **)&s->units, &s->capunits, s->nunits + 1, sizeof *s->units)) return -1;
    u = &s->units[s->nunits];
    memset(u, 0, sizeof *u);
    u->in = in;
    u->out = out;
    u->leaf0 = s->nleaf;
    u->copy0 = s->nunits;
    u->copy1 = s->nunits + 1;
    u->st.node = in < 0 ? -1 : out < 0 ? -2 : 0;
    u->st.farm = c ? c->farm : -1;
    u->st.copy = c ? c->copy : -1;
    u->st.place = "host";
    return s->nunits++;
}

/* 1 if node n is made of stages only: it runs as one worker. */
static int _skel_snode_serial(const skel_stream *s, int n)
{
    const _skel_snode *nd = &s->nodes[n];
    int i;
    if (nd->kind == SKEL_STREAM_STAGE) return 1;
    if (nd->kind != SKEL_STREAM_COMP) return 0;
    for (i = 0; i < nd->nkids; ++i)
        if (!_skel_snode_serial(s, s->kids[nd->kid0 + i])) return 0;
    return 1;
}

/* Append the stages of serial node n, in order, to the last worker. */
static int _skel_su_stages(skel_stream *s, int n, const _skel_sctx *c)
{
    const _skel_snode *nd = &s->nodes[n];
    _skel_sunit *u = &s->units[s->nunits - 1];
    _skel_sleaf *l;
    int i;
    if (nd->kind != SKEL_STREAM_STAGE) {
        for (i = 0; i < nd->nkids; ++i)
            if (!_skel_su_stages(s, s->kids[nd->kid0 + i], c)) return 0;
        return 1;
    }
    if (!_skel_grow((void **)&s->leaf, &s->capleaf, s->nleaf + 1, sizeof *s->leaf)) return 0;
    l = &s->leaf[s->nleaf++];
    memset(l, 0, sizeof *l);
    l->node = n;
    l->unit = s->nunits - 1;
    l->w.node = n;
    l->w.worker = s->nunits - 1;
    l->w.gpu = c->place > 0 && nd->stage.gpu;
    l->place = l->w.gpu ? c->place : 0;
    l->w.place = _skel_place_name(l->place);
    l->w.user = nd->stage.user;
    if (!u->nleaves++) u->st.node = n;
    if (l->w.gpu) { u->st.gpu = 1; u->st.place = l->w.place; }
    return 1;
}

/* The places a farm's GPU workers own, in turn: those its gpus names
   (comma-separated; a name without ':' also names "name:k"), else every
   GPU place. */
static int _skel_sfarm_places(const _skel_snode *nd, int *out, int max, int *n)
{
    const char *p = nd->gpus;
    int np = _skel_place_count(), i;
    *n = 0;
    if (!*p) {
        for (i = 1; i < np && *n < max; ++i)
            if (_skel_place_backend(i) >= 0) out[(*n)++] = i;
    } else
        while (*p) {
            char name[sizeof nd->gpus];
            size_t k = strcspn(p, ","), got = 0;
            snprintf(name, sizeof name, "%.*s", (int)k, p);
            for (i = 1; i < np && *n < max; ++i) {
                const char *pn = _skel_place_name(i);
                if (_skel_place_backend(i) >= 0 && (_skel_place_find(name) == i ||
                    (!strchr(name, ':') && strncmp(pn, name, k) == 0 && pn[k] == ':'))) {
                    out[(*n)++] = i;
                    ++got;
                }
            }
            if (!got)
                return _skel_fail(SKEL_EBACKEND, "farm %s: no GPU place \"%s\" here (%d GPU places)", nd->name, name,
                                  np - 1);
            p += k + (p[k] == ',');
        }
    if (*n == 0) return _skel_fail(SKEL_EBACKEND, "farm %s: %d GPU workers, but no GPU place here", nd->name,
                                   nd->farm.gpu_workers);
    return SKEL_OK;
}

static int _skel_sflat(skel_stream *s, int n, int in, int out, const _skel_sctx *c);

/* A farm: its copies share its entry and exit queues; GPU copies first. */
static int _skel_sflat_farm(skel_stream *s, int n, int in, int out)
{
    const _skel_snode *nd = &s->nodes[n];
    int places[_SKEL_MAX_SPACES];
    int copies = nd->farm.cpu_workers + nd->farm.gpu_workers, k, first, i, np = 0;
    _skel_sctx c;
    if (nd->farm.gpu_workers > 0) _SKEL_TRY(_skel_sfarm_places(nd, places, _SKEL_MAX_SPACES, &np));
    s->qs[in].st.to = s->qs[out].st.from = n;
    if (nd->farm.ordered || s->d.ordered) {
        s->qs[out].ordered = 1;
        if (s->qs[out].cap < 2 * copies) s->qs[out].cap = 2 * copies;
        s->qs[in].farm = n;
        s->qs[in].exitq = out;
    }
    for (k = 0; k < copies; ++k) {
        c.farm = n;
        c.copy = k;
        c.place = k < nd->farm.gpu_workers ? places[k % np] : -1;
        first = s->nunits;
        _SKEL_TRY(_skel_sflat(s, s->kids[nd->kid0], in, out, &c));
        for (i = first; i < s->nunits; ++i) {
            s->units[i].copy0 = first;
            s->units[i].copy1 = s->nunits;
        }
    }
    return SKEL_OK;
}

/* A pipeline's or comp's parts in order, joined by queues; a comp runs
   consecutive serial parts as one worker and joins the others by
   one-item queues. */
static int _skel_sflat_seq(skel_stream *s, int n, int in, int out, const _skel_sctx *c)
{
    const _skel_snode *nd = &s->nodes[n];
    const int *kid = s->kids + nd->kid0;
    int comp = nd->kind == SKEL_STREAM_COMP, i = 0, j, k, q, prev = in;
    while (i < nd->nkids) {
        j = i + 1;
        if (comp && _skel_snode_serial(s, kid[i]))
            while (j < nd->nkids && _skel_snode_serial(s, kid[j])) ++j;
        q = j < nd->nkids ? _skel_sq_add(s, comp ? 1 : s->d.queue, kid[j - 1], kid[j]) : out;
        if (q < 0) return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
        if (j - i == 1) _SKEL_TRY(_skel_sflat(s, kid[i], prev, q, c));
        else {
            if (_skel_su_add(s, prev, q, c) < 0) return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
            for (k = i; k < j; ++k)
                if (!_skel_su_stages(s, kid[k], c)) return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
        }
        prev = q;
        i = j;
    }
    return SKEL_OK;
}

static int _skel_sflat(skel_stream *s, int n, int in, int out, const _skel_sctx *c)
{
    if (c->farm < 0) {          /* name the queues by the outermost node inside a farm */
        s->qs[in].st.to = n;
        s->qs[out].st.from = n;
    }
    if (_skel_snode_serial(s, n)) {
        if (_skel_su_add(s, in, out, c) < 0 || !_skel_su_stages(s, n, c))
            return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
        return SKEL_OK;
    }
    if (s->nodes[n].kind == SKEL_STREAM_FARM) return _skel_sflat_farm(s, n, in, out);
    return _skel_sflat_seq(s, n, in, out, c);
}

/* Flatten the tree at root between a source and a sink worker; then the
   queues' slots and consumer lists. */
static int _skel_sbuild(skel_stream *s, int root)
{
    static const _skel_sctx none = { -1, -1, -1 };
    size_t total = 0;
    int i, k, qin, qout;
    _skel_srun_free(s);
    if ((qin = _skel_sq_add(s, s->d.queue, -1, root)) < 0 || (qout = _skel_sq_add(s, s->d.queue, root, -2)) < 0 ||
        _skel_su_add(s, -1, qin, NULL) < 0)
        return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
    _SKEL_TRY(_skel_sflat(s, root, qin, qout, &none));
    if (_skel_su_add(s, qout, -1, NULL) < 0) return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
    for (i = 0; i < s->nqs; ++i) total += (size_t)s->qs[i].cap;
    s->slots = (_skel_sitem *)SKEL_MALLOC(total * sizeof *s->slots);
    s->failed = (_skel_sitem *)SKEL_MALLOC((size_t)s->nunits * sizeof *s->failed);
    s->cons = (int *)SKEL_MALLOC((size_t)s->nunits * sizeof *s->cons);
    if (!s->slots || !s->failed || !s->cons) return _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
    for (total = 0, i = 0; i < s->nqs; ++i) {
        _skel_squeue *q = &s->qs[i];
        q->ring = s->slots + total;
        total += (size_t)q->cap;
        for (k = 0; k < q->cap; ++k) q->ring[k].seq = -1;
        q->cons0 = s->ncons;
        for (k = 0; k < s->nunits; ++k)
            if (s->units[k].in == i) s->cons[s->ncons++] = k;
        q->ncons = s->ncons - q->cons0;
        q->st.capacity = q->cap;
    }
    return SKEL_OK;
}

/* ---- running ---- */
/* Seconds since the run started. */
static double _skel_snow(const skel_stream *s) { return _skel_now() - s->t0; }

/* Count the occupancy of q up to time t, before it changes (a thread
   may bring a time read before another thread's later one: never back). */
static void _skel_sq_note(_skel_squeue *q, double t)
{
    if (t < q->since) t = q->since;
    q->area += (double)q->count * (t - q->since);
    q->since = t;
}

/* 1 if q has an item to give: the oldest, or in an ordered queue the next
   ticket's; and, if q enters an ordered farm, that farm may give out one
   more ticket. */
static int _skel_sq_ready(const skel_stream *s, const _skel_squeue *q)
{
    if (q->ordered ? q->ring[q->next % q->cap].seq < 0 : q->count == 0) return 0;
    if (q->farm >= 0) {
        const _skel_squeue *x = &s->qs[q->exitq];
        if (q->issued >= x->next + x->cap) return 0;
    }
    return 1;
}

/* 1 if worker u may be claimed now. */
static int _skel_su_ready(const skel_stream *s, const _skel_sunit *u)
{
    const _skel_squeue *o;
    if (u->busy) return 0;
    if (u->in < 0 ? s->src_done || s->stop : !_skel_sq_ready(s, &s->qs[u->in])) return 0;
    if (u->out < 0) return 1;
    o = &s->qs[u->out];
    return o->ordered || o->count + o->reserved < o->cap;  /* an ordered farm's tickets have slots */
}

/* Of q's consumers that may be claimed, the one whose farm copy took the
   least time per item so far (one not measured yet first). */
static _skel_sunit *_skel_sq_pick(skel_stream *s, const _skel_squeue *q)
{
    _skel_sunit *best = NULL;
    double bt = 0, t;
    int i, k;
    for (i = 0; i < q->ncons; ++i) {
        _skel_sunit *u = &s->units[s->cons[q->cons0 + i]];
        if (!_skel_su_ready(s, u)) continue;
        for (t = 0, k = u->copy0; k < u->copy1; ++k)
            if (s->units[k].st.items) t += s->units[k].st.busy / (double)s->units[k].st.items;
        if (!best || t < bt) { best = u; bt = t; }
    }
    return best;
}

/* Take an item from q (its next ticket's, in an ordered queue). */
static _skel_sitem _skel_sq_pop(_skel_squeue *q, double now)
{
    _skel_sitem it;
    _skel_sq_note(q, now);
    if (q->ordered) {
        it = q->ring[q->next++ % q->cap];
        q->ring[(q->next - 1) % q->cap].seq = -1;
    } else {
        it = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
    }
    q->count--;
    q->st.items++;
    if (q->farm >= 0) it.ticket = q->issued++;
    return it;
}

static void _skel_sq_push(_skel_squeue *q, const _skel_sitem *it, double now)
{
    _skel_sq_note(q, now);
    if (q->ordered) q->ring[it->ticket % q->cap] = *it;
    else {
        q->ring[(q->head + q->count) % q->cap] = *it;
        q->reserved--;
    }
    if (++q->count > q->st.max) q->st.max = q->count;
}

/* A worker that may be claimed, nearest the sink first; NULL: none. */
static _skel_sunit *_skel_sfind(skel_stream *s)
{
    int i;
    if (s->error) return NULL;
    for (i = s->nunits - 1; i >= 0; --i) {
        _skel_sunit *u = &s->units[i];
        if (!_skel_su_ready(s, u)) continue;
        return u->in >= 0 && s->qs[u->in].ncons > 1 ? _skel_sq_pick(s, &s->qs[u->in]) : u;
    }
    return NULL;
}

/* Claim u at time now: take its item and reserve room for its result. */
static void _skel_sclaim(skel_stream *s, _skel_sunit *u, double now)
{
    u->busy = 1;
    s->nbusy++;
    if (u->in >= 0) u->item = _skel_sq_pop(&s->qs[u->in], now);
    if (u->out >= 0 && !s->qs[u->out].ordered) s->qs[u->out].reserved++;
}

/* The message of a failure of `what` on item seq (-1: none) with status
   rc, with the detail skel_last_error had for it on this thread. */
static void _skel_swhy(char *why, size_t size, const char *what, long seq, int rc)
{
    char on[48] = "";
    if (seq >= 0) snprintf(on, sizeof on, " on item %ld", seq);
    snprintf(why, size, "stream: %.200s failed%s (%s)%s%.700s", what, on, skel_error_string(rc),
             _skel_errbuf[0] ? ": " : "", _skel_errbuf);
}

/* With SKEL_TRACE: worker w spent t0..t1 (since the run began) on item
   seq in `what` at place, successfully unless rc says otherwise. */
static void _skel_strace(const skel_stream *s, const char *what, int w, long seq, int place, double t0, double t1, int rc)
{
    char name[48];
    if (!_skel_trace_on()) return;
    snprintf(name, sizeof name, "%.24s w%d #%ld", what, w, seq);
    _skel_trace_event(_SKEL_TR_STAGE, place, -1, s->t0 + t0, s->t0 + t1, 0, rc < 0 ? _SKEL_TR_FAILED : 0, name);
}

/* Run claimed worker u on its item from time t0 (no lock held), until
   *end: the source's status (> 0: an item), the sink's, or the first
   failing stage's; a failure's message goes to why.  Each stage runs with
   this thread's skeleton calls bound to its place.  (One clock read per
   stage: a read costs 20-90 ns, a stage run on one thread about 200.) */
static int _skel_swork(skel_stream *s, _skel_sunit *u, double t0, double *end, char *why, size_t size)
{
    char what[160];
    int k, rc = SKEL_OK, old;
    double t1 = t0;
    _skel_errbuf[0] = 0;
    *end = t0;
    if (u->in < 0) {
        void *p = NULL;
        if ((rc = s->d.source(s->d.user, &p)) > 0) u->item.p = p;
        if (rc < 0) _skel_swhy(why, size, "the source", -1, rc);
        _skel_strace(s, "source", (int)(u - s->units), s->produced, 0, t0, *end = _skel_snow(s), rc);
        return rc;
    }
    if (u->out < 0) {
        if (s->d.sink && (rc = s->d.sink(s->d.user, u->item.p)) != SKEL_OK)
            _skel_swhy(why, size, "the sink", u->item.seq, rc);
        _skel_strace(s, "sink", (int)(u - s->units), u->item.seq, 0, t0, *end = _skel_snow(s), rc);
        return rc;
    }
    for (k = 0; k < u->nleaves; ++k, t0 = t1) {
        _skel_sleaf *l = &s->leaf[u->leaf0 + k];
        const _skel_snode *nd = &s->nodes[l->node];
        void *out = u->item.p;
        old = _skel_place_bind(l->place);
        rc = (l->w.gpu ? nd->stage.gpu : nd->stage.cpu)(&l->w, u->item.p, &out);
        _skel_place_bind(old);
        *end = t1 = _skel_snow(s);
        _skel_strace(s, nd->name, l->unit, u->item.seq, l->place, t0, t1, rc);
        if (!l->items++) l->first = t0;
        l->last = t1;
        l->busy += t1 - t0;
        if (rc != SKEL_OK) {
            snprintf(what, sizeof what, "stage %s (worker %d, %s)", nd->name, l->unit, l->w.place);
            _skel_swhy(why, size, what, u->item.seq, rc);
            return rc < 0 ? rc : SKEL_EINVAL;
        }
        u->item.p = out;
    }
    return SKEL_OK;
}

/* Record the first failure of the run. */
static void _skel_sfail(skel_stream *s, int rc, const char *why)
{
    if (s->error) return;
    s->error = rc;
    snprintf(s->why, sizeof s->why, "%s", why);
}

/* Worker u finished its item at time now with status rc, busy for dt
   seconds: put the result where it goes. */
static void _skel_sdone(skel_stream *s, _skel_sunit *u, int rc, double dt, double now, const char *why)
{
    u->busy = 0;
    s->nbusy--;
    u->st.busy += dt;
    if (u->in < 0) {                /* the source */
        if (rc > 0) {
            u->item.seq = s->produced++;
            u->st.items++;
            _skel_sq_push(&s->qs[u->out], &u->item, now);
            return;
        }
        s->qs[u->out].reserved--;
        s->src_done = 1;
        if (rc < 0) _skel_sfail(s, rc, why);
        return;
    }
    if (rc != SKEL_OK) {            /* its item is dropped at the end of the run */
        if (u->out < 0) s->sunk++;  /* (the sink owns what it was given) */
        else {
            s->failed[s->nfailed++] = u->item;
            if (!s->qs[u->out].ordered) s->qs[u->out].reserved--;
        }
        _skel_sfail(s, rc, why);
        return;
    }
    u->st.items++;
    if (u->out < 0) s->sunk++;
    else _skel_sq_push(&s->qs[u->out], &u->item, now);
}

/* 1 when the run is over: after a failure, once no worker runs; else once
   the source ended (or was stopped) and every item reached the sink. */
static int _skel_sover(const skel_stream *s)
{
    if (s->nbusy) return 0;
    return s->error || ((s->src_done || s->stop) && s->produced == s->sunk);
}

/* One thread of a run: claim, work, repeat; sleep when there is nothing
   to claim; return when the run is over. */
static void _skel_sloop(skel_stream *s)
{
    char why[sizeof _skel_errbuf];
    _skel_sunit *u;
    double t0, t1;
    int rc;
    pthread_mutex_lock(&s->mu);
    while (!s->finished) {
        if (!(u = _skel_sfind(s))) {
            if (_skel_sover(s)) {
                s->finished = 1;
                pthread_cond_broadcast(&s->cv);
                break;
            }
            s->sleepers++;
            pthread_cond_wait(&s->cv, &s->mu);
            s->sleepers--;
            continue;
        }
        _skel_sclaim(s, u, t0 = _skel_snow(s));
        if (s->sleepers && _skel_sfind(s)) pthread_cond_signal(&s->cv);    /* more for another thread */
        pthread_mutex_unlock(&s->mu);
        why[0] = 0;
        rc = _skel_swork(s, u, t0, &t1, why, sizeof why);
        pthread_mutex_lock(&s->mu);
        _skel_sdone(s, u, rc, t1 - t0, t1, why);
    }
    pthread_mutex_unlock(&s->mu);
}

static int _skel_stask(void *arg)
{
    _skel_sloop((skel_stream *)arg);
    return SKEL_OK;
}

void skel_stream_stop(skel_stream *s)
{
    if (!s) return;
    pthread_mutex_lock(&s->mu);
    if (s->running) {
        s->stop = 1;
        pthread_cond_broadcast(&s->cv);
    }
    pthread_mutex_unlock(&s->mu);
}

/* After the threads are gone: hand every item that did not reach the sink
   to drop (the failed ones, then the queues'), and each worker's local to
   its stage's fini. */
static void _skel_sfinish(skel_stream *s)
{
    long dropped = 0;
    int i, k;
    for (i = 0; i < s->nfailed; ++i, ++dropped)
        if (s->d.drop) s->d.drop(s->d.user, s->failed[i].p);
    for (i = 0; i < s->nqs; ++i) {
        _skel_squeue *q = &s->qs[i];
        _skel_sq_note(q, _skel_snow(s));
        for (k = 0; k < q->cap; ++k) {
            _skel_sitem *it = &q->ring[q->ordered ? k : (q->head + k) % q->cap];
            if (q->ordered ? it->seq < 0 : k >= q->count) continue;
            if (s->d.drop) s->d.drop(s->d.user, it->p);
            ++dropped;
        }
    }
    for (i = 0; i < s->nleaf; ++i) {
        _skel_sleaf *l = &s->leaf[i];
        if (l->w.local && s->nodes[l->node].stage.fini) s->nodes[l->node].stage.fini(&l->w);
        l->w.local = NULL;
    }
    s->st.dropped = dropped;
}

/* The last run's statistics (_skel_sstats_nodes: per node, below). */
static void _skel_sstats_nodes(skel_stream *s);
static void _skel_sstats(skel_stream *s, int threads, double seconds)
{
    int i;
    s->st.seconds = seconds;
    s->st.items = s->produced;
    s->st.done = s->sunk;
    s->st.threads = threads;
    s->st.workers = s->nunits;
    s->st.queues = s->nqs;
    s->st.nodes = s->nnodes;
    for (i = 0; i < s->nunits; ++i)
        s->units[i].st.util = seconds > 0 ? s->units[i].st.busy / seconds : 0;
    for (i = 0; i < s->nqs; ++i) s->qs[i].st.mean = seconds > 0 ? s->qs[i].area / seconds : 0;
    _skel_sstats_nodes(s);
}

int skel_stream_run(skel_stream *s, int root, const skel_stream_desc *d)
{
    _skel_task *tasks = NULL;
    int threads, i, rc;
    if (!s || !d || !d->source) return _skel_fail(SKEL_EINVAL, "skel_stream_run: NULL %s", !s ? "stream" : !d ? "desc" : "source");
    if (root < 0) return root;
    if (root >= s->nnodes) return _skel_fail(SKEL_EINVAL, "skel_stream_run: node %d does not exist", root);
    if (d->queue < 0 || d->threads < 0)
        return _skel_fail(SKEL_EINVAL, "skel_stream_run: queue %d, threads %d (0 or more)", d->queue, d->threads);
    _skel_init();
    pthread_mutex_lock(&s->mu);
    rc = s->running;
    s->running = 1;
    pthread_mutex_unlock(&s->mu);
    if (rc) return _skel_fail(SKEL_EINVAL, "skel_stream_run: the stream is running already");
    s->d = *d;
    if (!s->d.queue) s->d.queue = 4;
    s->root = root;
    s->produced = s->sunk = 0;
    s->src_done = s->nbusy = s->sleepers = s->finished = s->error = s->stop = 0;
    memset(&s->st, 0, sizeof s->st);
    rc = _skel_sbuild(s, root);
    threads = d->threads ? d->threads : s->nunits;
    if (threads > s->nunits) threads = s->nunits;
    if (threads > _SKEL_POOL_MAX) threads = _SKEL_POOL_MAX;
    if (rc == SKEL_OK && threads > 1 && !(tasks = (_skel_task *)SKEL_MALLOC((size_t)(threads - 1) * sizeof *tasks)))
        rc = _skel_fail(SKEL_ENOMEM, "skel_stream_run: out of memory");
    if (rc != SKEL_OK) {
        pthread_mutex_lock(&s->mu);
        s->running = 0;
        pthread_mutex_unlock(&s->mu);
        return rc;
    }
    s->t0 = _skel_now();
    _skel_pool_reserve(threads - 1);
    for (i = 0; i < threads - 1; ++i) _skel_pool_submit(&tasks[i], _skel_stask, s);
    _skel_sloop(s);
    for (i = 0; i < threads - 1; ++i) _skel_task_wait(&tasks[i]);
    _skel_pool_reserve(-(threads - 1));
    SKEL_FREE(tasks);
    _skel_sfinish(s);
    _skel_sstats(s, threads, _skel_snow(s));
    pthread_mutex_lock(&s->mu);
    s->running = 0;
    rc = s->error;
    pthread_mutex_unlock(&s->mu);
    return rc ? _skel_fail(rc, "%s", s->why) : SKEL_OK;
}

/* ---- statistics ---- */
/* 1 if node a is n or lies under it. */
static int _skel_snode_under(const skel_stream *s, int a, int n)
{
    for (; a >= 0; a = s->nodes[a].parent)
        if (a == n) return 1;
    return 0;
}

/* Seconds per item node n gives, by seed 001's cost models over the
   measured stage times of farm copy `copy` (-1: all): a stage its mean
   time, a comp the sum of its parts, a pipeline its slowest part, a farm
   its copies in parallel (1 / the sum of their rates).  0: not measured. */
static double _skel_snode_model(const skel_stream *s, int n, int copy)
{
    const _skel_snode *nd = &s->nodes[n];
    double t = 0, m, busy = 0;
    long items = 0;
    int i;
    switch (nd->kind) {
    case SKEL_STREAM_STAGE:
        for (i = 0; i < s->nleaf; ++i)
            if (s->leaf[i].node == n && (copy < 0 || s->units[s->leaf[i].unit].st.copy == copy)) {
                busy += s->leaf[i].busy;
                items += s->leaf[i].items;
            }
        return items ? busy / (double)items : 0;
    case SKEL_STREAM_FARM:
        for (i = 0; i < nd->farm.cpu_workers + nd->farm.gpu_workers; ++i)
            if ((m = _skel_snode_model(s, s->kids[nd->kid0], i)) > 0) t += 1 / m;
        return t > 0 ? 1 / t : 0;
    default:
        for (i = 0; i < nd->nkids; ++i) {
            m = _skel_snode_model(s, s->kids[nd->kid0 + i], copy);
            t = nd->kind == SKEL_STREAM_COMP ? t + m : m > t ? m : t;
        }
        return t;
    }
}

/* Items, busy time and first / last times of node n, from its stages up. */
static void _skel_snode_sums(skel_stream *s, int n)
{
    _skel_snode *nd = &s->nodes[n];
    int i;
    nd->items = 0;
    nd->busy = 0;
    nd->first = nd->last = -1;
    if (nd->kind == SKEL_STREAM_STAGE)
        for (i = 0; i < s->nleaf; ++i) {
            const _skel_sleaf *l = &s->leaf[i];
            if (l->node != n || !l->items) continue;
            nd->items += l->items;
            nd->busy += l->busy;
            if (nd->first < 0 || l->first < nd->first) nd->first = l->first;
            if (l->last > nd->last) nd->last = l->last;
        }
    for (i = 0; i < nd->nkids; ++i) {
        _skel_snode *k = &s->nodes[s->kids[nd->kid0 + i]];
        _skel_snode_sums(s, s->kids[nd->kid0 + i]);
        nd->busy += k->busy;
        nd->items = k->items;           /* the last part's (a farm's one worker node) */
        if (k->first >= 0 && (nd->first < 0 || k->first < nd->first)) nd->first = k->first;
        if (k->last > nd->last) nd->last = k->last;
    }
}

static void _skel_sstats_nodes(skel_stream *s)
{
    int n, i, k;
    _skel_snode_sums(s, s->root);
    for (n = 0; n < s->nnodes; ++n) {
        _skel_snode *nd = &s->nodes[n];
        skel_stream_node_stats *st = &nd->st;
        double sum = 0, sq = 0;
        memset(st, 0, sizeof *st);
        st->kind = nd->kind;
        st->name = nd->name;
        st->parent = n == s->root ? -1 : nd->parent;
        if (!_skel_snode_under(s, n, s->root)) continue;
        st->items = nd->items;
        st->busy = nd->busy;
        st->service = st->items && nd->last > nd->first ? (nd->last - nd->first) / (double)st->items : 0;
        st->model = _skel_snode_model(s, n, -1);
        for (i = 1; i < s->nunits - 1; ++i) {
            const _skel_sunit *u = &s->units[i];
            for (k = 0; k < u->nleaves && !_skel_snode_under(s, s->leaf[u->leaf0 + k].node, n); ++k) {}
            if (k == u->nleaves) continue;
            if (!st->workers++ || u->st.util < st->util_min) st->util_min = u->st.util;
            if (u->st.util > st->util_max) st->util_max = u->st.util;
            sum += u->st.util;
            sq += u->st.util * u->st.util;
        }
        if (st->workers) {
            st->util_mean = sum / st->workers;
            st->util_sd = sqrt(fmax(0, sq / st->workers - st->util_mean * st->util_mean));
        }
    }
}

int skel_stream_stats_get(const skel_stream *s, skel_stream_stats *out)
{
    if (!s || !out) return _skel_fail(SKEL_EINVAL, "skel_stream_stats_get: NULL argument");
    *out = s->st;
    return SKEL_OK;
}

int skel_stream_node_stats_get(const skel_stream *s, int node, skel_stream_node_stats *out)
{
    if (!s || !out) return _skel_fail(SKEL_EINVAL, "skel_stream_node_stats_get: NULL argument");
    if (node < 0 || node >= s->nnodes) return _skel_fail(SKEL_EINVAL, "skel_stream_node_stats_get: no node %d", node);
    *out = s->nodes[node].st;
    out->kind = s->nodes[node].kind;
    out->name = s->nodes[node].name;
    return SKEL_OK;
}

int skel_stream_worker_stats_get(const skel_stream *s, int worker, skel_stream_worker_stats *out)
{
    if (!s || !out) return _skel_fail(SKEL_EINVAL, "skel_stream_worker_stats_get: NULL argument");
    if (worker < 0 || worker >= s->nunits)
        return _skel_fail(SKEL_EINVAL, "skel_stream_worker_stats_get: no worker %d (%d)", worker, s->nunits);
    *out = s->units[worker].st;
    return SKEL_OK;
}

int skel_stream_queue_stats_get(const skel_stream *s, int queue, skel_stream_queue_stats *out)
{
    if (!s || !out) return _skel_fail(SKEL_EINVAL, "skel_stream_queue_stats_get: NULL argument");
    if (queue < 0 || queue >= s->nqs)
        return _skel_fail(SKEL_EINVAL, "skel_stream_queue_stats_get: no queue %d (%d)", queue, s->nqs);
    *out = s->qs[queue].st;
    return SKEL_OK;
}

/* A node id of the statistics as text: its name, "source" or "sink". */
static const char *_skel_snode_label(const skel_stream *s, int n)
{
    return n == -1 ? "source" : n == -2 ? "sink" : s->nodes[n].name;
}

static void _skel_sdump_text(FILE *f, const skel_stream *s)
{
    int i;
    fprintf(f, "stream run: %.6f s, %ld items in, %ld out, %ld dropped, %d threads, %d workers\n", s->st.seconds,
            s->st.items, s->st.done, s->st.dropped, s->st.threads, s->st.workers);
    fprintf(f, "%-5s %-24s %-8s %7s %8s %12s %12s %12s  %s\n", "node", "name", "kind", "parent", "items",
            "service s", "model s", "busy s", "workers: util mean sd min max");
    for (i = 0; i < s->nnodes; ++i) {
        const skel_stream_node_stats *n = &s->nodes[i].st;
        if (!_skel_snode_under(s, i, s->root)) continue;
        fprintf(f, "%-5d %-24s %-8s %7d %8ld %12.6f %12.6f %12.6f  %d: %.3f %.3f %.3f %.3f\n", i, n->name,
                _skel_sn_kind[n->kind], n->parent, n->items, n->service, n->model, n->busy, n->workers,
                n->util_mean, n->util_sd, n->util_min, n->util_max);
    }
    fprintf(f, "%-6s %-24s %-6s %-5s %-16s %8s %12s %6s\n", "worker", "stage", "farm", "copy", "place", "items",
            "busy s", "util");
    for (i = 0; i < s->nunits; ++i) {
        const skel_stream_worker_stats *w = &s->units[i].st;
        fprintf(f, "%-6d %-24s %-6d %-5d %-16s %8ld %12.6f %6.3f\n", i, _skel_snode_label(s, w->node), w->farm,
                w->copy, w->place, w->items, w->busy, w->util);
    }
    fprintf(f, "%-5s %-24s %-24s %8s %8s %8s %4s\n", "queue", "from", "to", "capacity", "items", "mean", "max");
    for (i = 0; i < s->nqs; ++i) {
        const skel_stream_queue_stats *q = &s->qs[i].st;
        fprintf(f, "%-5d %-24s %-24s %8d %8ld %8.3f %4d\n", i, _skel_snode_label(s, q->from), _skel_snode_label(s, q->to),
                q->capacity, q->items, q->mean, q->max);
    }
}

static void _skel_sdump_json(FILE *f, const skel_stream *s)
{
    int i;
    fprintf(f, "{\"seconds\": %.9g, \"items\": %ld, \"done\": %ld, \"dropped\": %ld, \"threads\": %d,\n \"nodes\": [",
            s->st.seconds, s->st.items, s->st.done, s->st.dropped, s->st.threads);
    for (i = 0; i < s->nnodes; ++i) {
        const skel_stream_node_stats *n = &s->nodes[i].st;
        fprintf(f, "%s\n  {\"id\": %d, \"name\": ", i ? "," : "", i);
        _skel_json_str(f, s->nodes[i].name);
        fprintf(f, ", \"kind\": \"%s\", \"parent\": %d, \"items\": %ld, \"service\": %.9g, \"model\": %.9g, "
                "\"busy\": %.9g, \"workers\": %d, \"util\": [%.6f, %.6f, %.6f, %.6f]}", _skel_sn_kind[s->nodes[i].kind],
                n->parent, n->items, n->service, n->model, n->busy, n->workers, n->util_mean, n->util_sd, n->util_min,
                n->util_max);
    }
    fprintf(f, "],\n \"workers\": [");
    for (i = 0; i < s->nunits; ++i) {
        const skel_stream_worker_stats *w = &s->units[i].st;
        fprintf(f, "%s\n  {\"node\": %d, \"farm\": %d, \"copy\": %d, \"gpu\": %d, \"place\": ", i ? "," : "",
                w->node, w->farm, w->copy, w->gpu);
        _skel_json_str(f, w->place);
        fprintf(f, ", \"items\": %ld, \"busy\": %.9g, \"util\": %.6f}", w->items, w->busy, w->util);
    }
    fprintf(f, "],\n \"queues\": [");
    for (i = 0; i < s->nqs; ++i) {
        const skel_stream_queue_stats *q = &s->qs[i].st;
        fprintf(f, "%s\n  {\"from\": %d, \"to\": %d, \"capacity\": %d, \"items\": %ld, \"mean\": %.6f, \"max\": %d}",
                i ? "," : "", q->from, q->to, q->capacity, q->items, q->mean, q->max);
    }
    fprintf(f, "]}\n");
}

int skel_stream_dump(const skel_stream *s, int format, const char *path)
{
    FILE *f;
    int err;
    if (!s) return _skel_fail(SKEL_EINVAL, "skel_stream_dump: NULL stream");
    if (format != SKEL_DUMP_TEXT && format != SKEL_DUMP_JSON) return _skel_fail(SKEL_EINVAL, "skel_stream_dump: format %d", format);
    if (!(f = path ? fopen(path, "w") : stdout))
        return _skel_fail(SKEL_EIO, "skel_stream_dump: cannot create %s: %s", path, strerror(errno));
    if (format == SKEL_DUMP_TEXT) _skel_sdump_text(f, s);
    else _skel_sdump_json(f, s);
    err = ferror(f);
    if (path) err |= fclose(f) != 0;
    else fflush(f);
    return err ? _skel_fail(SKEL_EIO, "skel_stream_dump: write failed") : SKEL_OK;
}

/* ---------------------------------------------------------------------
   tasks and scheduling (DESIGN.md "Tasks and scheduling"; thesis ch. 6;
   StarPU's task model and its dmda policy).

   A *task* is a submitted skeleton call (skel_submit) or user task
   (skel_task_submit), with the containers it reads and writes.  Submission
   infers its dependencies in submission order from those accesses: it
   follows the container's last writer (read after write, write after
   write) and, when it writes, every reader since (write after read).  A
   task is *ready* when everything it follows has finished; the policy then
   queues it for a place; a *worker* of that place runs it.

   Workers.  A CPU worker (the host place; cpu_workers of them) or a GPU
   worker (one per GPU place, its thread bound to the GPU with
   _skel_place_bind) is a loop that runs as a task of the worker pool, so
   it takes no thread of its own: it is started when work arrives for its
   place, takes tasks while there are some, spins SKEL_POOL_SPIN_US for
   more, and returns its thread to the pool.  A GPU worker waits for its
   GPU after each call (the history model needs the end of the work, and
   so do the tasks that follow).  A thread that waits (skel_wait,
   skel_wait_all, a host accessor, skel_farm_join) runs ready host tasks
   meanwhile, and the tasks of a GPU whose worker is not running, so a wait
   never depends on a free pool thread (as _skel_task_wait).

   Policies are values (_skel_policy: push a ready task, pop one for a
   worker), selected by name:
     dmda    each ready task goes to the place where it is expected to
             finish first: finish(p) = max(avail(p), now + transfer(p)) +
             predicted(p), fitness alpha*(finish - best finish) +
             beta*transfer, the least wins (StarPU's dmda).  avail(p): now
             plus the predicted work queued and running there (the host
             divides it over its CPU workers; a call on the pool counts its
             threads).  transfer(p): bytes of the task's inputs not valid at
             p, through the links' transfer model.  predicted(p): the
             instance's tuned plan (its best variant at p), else the history
             model; a place with neither gets the task (calibration).
             Lookahead (_skel_dmda_ahead): finish(p) also adds the
             predicted time at p of what follows the task (successors
             breadth first, up to desc.lookahead of them; each level the
             larger of its longest call and its work over p's lanes) and
             the download of what the last of them write (results are
             taken to end at the host), where every place can predict all
             of them.  A call ready at submission waits to be placed with
             the ones submitted after it (deferred placement, below).
             avail(p) also counts the copies dmda charged the calls queued
             at p (xf: a GPU worker makes its calls' copies itself, on the
             stream its kernels use).
     eager   one queue; any worker takes the oldest task it can run.
     ws      a queue per worker; a task made ready by a worker goes to that
             worker's queue (submissions: round robin), and a worker with
             none steals the oldest task of the longest queue it can run.
     static  each call at the place its plan or the default chooses (what
             skel_run would do), user tasks on a CPU worker.

   Models (_skel_hist_*): per (instance, place) a table of footprints (the
   call's context point; a user task's size) with the last 16 accepted
   times; the prediction is their median.  A time over 3 times the median
   or under a third of it, once 5 are in, is an outlier and is left out (a
   spike in StarPU's history sent every GEMM to one GPU) unless 4 come in a
   row (the cost changed).  A footprint is trusted after `calibrate`
   samples; sizes without a trusted footprint are interpolated between the
   trusted neighbours, linearly in size (extrapolated from the nearest
   two, or scaled from one).  Transfers: per link (host -> GPU, GPU ->
   host) a latency and a bandwidth measured once (4 KiB and 16 MiB copies,
   the least of 3).  Both are kept in the models file (format below) with
   the machine's fingerprint.

   Failures.  A task that fails marks the containers it writes failed
   (their content is what it was before: skeleton calls change nothing on
   failure, and user tasks must do the same); a task that reads a failed
   container is not run and marks what it writes failed too, saying which
   task failed and why (SKEL_EDEPEND).  skel_wait and skel_read on a failed
   container return the failure; a later successful write (a call,
   skel_write) clears it.  skel_wait_all returns the first failure since
   the last skel_wait_all.

   Locks: one mutex (_skel_rt_mu) guards the graph, the queues, the
   containers' task state, the models and the statistics; workers hold it
   only to take and to finish a task.  It is taken with a short spin
   before blocking (_skel_rt_lock), idle workers try it only when a push
   left a task queued and nobody holds it (_skel_rt_idle_wait), and
   waiters spin on a count of finishes before they sleep (_skel_rt_watch):
   a futex sleep and wake-up per task cost microseconds on a VM, most of
   an empty task.  Nodes of the common size are reused (_skel_tnode_alloc,
   a lock-free ring).  A worker that finishes a task and takes the next at
   once wakes nobody for it (_skel_rt_kick's defer).  Code running inside
   a task (_skel_rt_cur) never waits on the graph: a task touches only the
   containers it declared, which are its own while it runs.

   Free tasks (_skel_rt_submit_free): a user task without containers, of
   no farm, that only the host can run has no place in the graph -- it
   follows nothing, nothing follows it, and every policy would send it to
   the host's CPU workers -- so it skips the mutex where it can: it is
   counted pending (an atomic), pushed to a lock-free ring
   (_skel_rt_ready, Vyukov's bounded queue; the invariant is at
   _skel_ring) and taken from it by an idle worker (_skel_rt_idle_wait), a
   worker back from a task, or a waiting thread (_skel_rt_wait_free) --
   each without the mutex.  Its finish releases it first (pending falls:
   waiters go on) and then records it under the mutex; readers of the
   statistics and models wait for such records (_skel_rt_settle); a
   failed one is recorded first, as skel_wait_all reports it.  On 16
   cores each mutex acquisition moved its line and the queue's between
   cores: three per empty task were most of its cost.  A worker is started
   for a free task only when not every CPU worker is (_skel_rt_sig.hosts;
   the fence pairing with _skel_rt_retire is the proof that none is lost).
   The ring full, its submitter runs the oldest free task itself.
   --------------------------------------------------------------------- */
#define _SKEL_RT_MAXP _SKEL_MAX_SPACES
#define _SKEL_RT_MAXW (_SKEL_POOL_MAX + _SKEL_RT_MAXP)
#define _SKEL_RT_MAXACC (SKEL_TASK_MAX_DATA + SKEL_MAX_IN + SKEL_MAX_VIEWS + SKEL_MAX_OUT)
#define _SKEL_HIST_RING 16

typedef struct _skel_tacc {
    skel_vec *c;
    int mode;                   /* _SKEL_READ, _SKEL_WRITE, _SKEL_READWRITE */
    int slot;                   /* rt mu: its index in c's readers, -1 when not there */
} _skel_tacc;

/* What every task's run and finish read comes first, the user task next:
   a free task's few lines move from its submitter to a worker. */
typedef struct _skel_tnode {
    uint64_t id;                /* submission number, from 1 */
    skel_skeleton *sk;          /* a skeleton call; NULL: a user task */
    int nacc;
    int npred;                  /* rt mu: unfinished tasks it follows */
    int place, flags, width;    /* where the policy put it; _SKEL_TR_ flags; CPU threads it uses */
    int free_;                  /* taken through the ready ring (_skel_rt_submit_free); 2: released */
    int status;                 /* its result */
    int nsucc, capsucc;
    struct _skel_tnode **succ;  /* rt mu: tasks that follow it */
    struct _skel_tnode *next;   /* rt mu: queue link */
    struct skel_farm *farm;     /* the farm it belongs to, or NULL */
    char *why;                  /* the failure's message (malloc'd), or NULL */
    uint64_t key;               /* its history model's instance key */
    uint64_t fp[2];             /* its footprint (context point or size) */
    double pred, work, xf;      /* predicted seconds at place; charged to its load (pred * width
                                   + xf); seconds of its inputs' copies there (dmda) */
    double ahead[_SKEL_RT_MAXP];    /* rt mu: its predicted seconds x width at each place, as dmda's
                                       lookahead first asked (_skel_rt_ahead_work; bit p of has_ahead) */
    double ahead_longest[_SKEL_RT_MAXP];    /* the same, seconds alone */
    unsigned has_ahead, walk;   /* rt mu: walk: the lookahead walk that last counted it */
    size_t bytes;               /* size of this node, captures included */
    skel_task_desc ut;          /* a user task */
    skel_call call;             /* its operands; captured scalars point into cap */
    _skel_shape sh;
    _skel_tacc acc[_SKEL_RT_MAXACC];
    _skel_variant v;            /* a call's variant at place */
    unsigned char cap[1];       /* the captured scalars (more bytes follow) */
} _skel_tnode;

typedef struct _skel_cdeps {
    _skel_tnode *writer;        /* rt mu: its last writer, until that finishes */
    _skel_tnode **readers;      /* rt mu: readers submitted since, until each finishes */
    int nreaders, capreaders;
    int pending;                /* atomic, written under rt mu: unfinished tasks naming it */
    int status;                 /* atomic, written under rt mu: SKEL_OK, or its content failed */
    char why[400];              /* rt mu: what failed */
} _skel_cdeps;

typedef struct _skel_tqueue { _skel_tnode *head, *tail; int n; } _skel_tqueue;

/* A worker: a loop run as a pool task (two handles, used alternately: a
   loop that just returned may not be marked done by the pool yet). */
typedef struct _skel_rtw {
    int place, index;           /* where it computes; its number */
    int state;                  /* rt mu: 0 stopped, 1 queued on the pool, 2 running */
    _skel_task pt[2];
    int which;
    _skel_tqueue q;             /* ws: its own queue */
} _skel_rtw;

typedef struct _skel_policy {
    const char *name;
    /* Queue ready task t (rt mu held); `from`: the worker that made it ready (NULL: a submitter). */
    void (*push)(_skel_tnode *t, _skel_rtw *from);
    /* The next task for a worker (NULL: a waiting thread) at place p, or NULL (rt mu held). */
    _skel_tnode *(*pop)(_skel_rtw *w, int p);
    int defers;                 /* a ready submission may wait to be placed with later ones (_skel_rt_hold) */
} _skel_policy;

/* ---- models: history per (instance, place), transfers per link ---- */
typedef struct _skel_hent {
    uint64_t fp[2];
    double size;                /* fp[0] * fp[1]: what interpolation runs along */
    int n, next, rejected, streak;  /* samples in s; next slot; outliers left out; of them in a row */
    uint64_t total;             /* samples taken (accepted) */
    double s[_SKEL_HIST_RING], median;
} _skel_hent;

typedef struct _skel_hmodel {
    uint64_t key;
    char name[96];              /* "Map scale" / "task name" */
    char place[32];             /* the place's name (numbers may differ between runs) */
    _skel_hent *e;              /* sorted by size */
    int ne, cap;
} _skel_hmodel;

typedef struct _skel_link { char from[32], to[32]; double lat, bw; } _skel_link;

static pthread_mutex_t _skel_rt_mu = PTHREAD_MUTEX_INITIALIZER;   /* taken through _skel_rt_lock */
static pthread_cond_t _skel_rt_cv = PTHREAD_COND_INITIALIZER;    /* sleeping waiters: a task finished */

/* A bounded queue of pointers that any thread may push to and pop from
   without a lock (Vyukov's bounded MPMC queue).  Invariant: the cell at
   position pos (index pos % _SKEL_RING) is free for the producer of pos
   when its sequence number is pos, and full for the consumer of pos when
   it is pos + 1; a producer or consumer owns pos once its compare-and-swap
   moved enq or deq past it, and hands the cell on with a release store of
   the next sequence number (pos + 1, then pos + _SKEL_RING for the next
   lap), which the next owner loads with acquire before touching the
   pointer: each cell has one owner at a time, and what the pointer points
   to (written before the push) is seen whole by the popper.  The stored
   word is the sequence number minus the cell's index, so that a zeroed
   ring is the empty one.  Full or empty: the call fails at once and the
   caller takes its locked path. */
#define _SKEL_RING 1024
typedef struct _skel_ring {
    char pad0[64];
    size_t enq;                 /* atomic: the next position to fill */
    char pad1[64];
    size_t deq;                 /* atomic: the next position to empty */
    char pad2[64];
    struct { size_t seq; void *p; } cell[_SKEL_RING];
} _skel_ring;

#if _SKEL_POOL
static int _skel_ring_push(_skel_ring *r, void *p)
{
    size_t pos = __atomic_load_n(&r->enq, __ATOMIC_RELAXED), i, seq;
    for (;;) {
        i = pos % _SKEL_RING;
        seq = __atomic_load_n(&r->cell[i].seq, __ATOMIC_ACQUIRE) + i;
        if (seq == pos) {
            if (__atomic_compare_exchange_n(&r->enq, &pos, pos + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
        } else if ((ptrdiff_t)(seq - pos) < 0) return 0;        /* full: a lap behind */
        else pos = __atomic_load_n(&r->enq, __ATOMIC_RELAXED);
    }
    r->cell[i].p = p;
    __atomic_store_n(&r->cell[i].seq, pos + 1 - i, __ATOMIC_RELEASE);
    return 1;
}

static void *_skel_ring_pop(_skel_ring *r)
{
    size_t pos = __atomic_load_n(&r->deq, __ATOMIC_RELAXED), i, seq;
    void *p;
    for (;;) {
        i = pos % _SKEL_RING;
        seq = __atomic_load_n(&r->cell[i].seq, __ATOMIC_ACQUIRE) + i;
        if (seq == pos + 1) {
            if (__atomic_compare_exchange_n(&r->deq, &pos, pos + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) break;
        } else if ((ptrdiff_t)(seq - (pos + 1)) < 0) return NULL;  /* empty */
        else pos = __atomic_load_n(&r->deq, __ATOMIC_RELAXED);
    }
    p = r->cell[i].p;
    __atomic_store_n(&r->cell[i].seq, pos + _SKEL_RING - i, __ATOMIC_RELEASE);
    return p;
}

/* Something is in r (a hint, but exact after a full fence on both sides). */
static int _skel_ring_busy(_skel_ring *r)
{
    size_t pos = __atomic_load_n(&r->deq, __ATOMIC_SEQ_CST), i = pos % _SKEL_RING;
    return __atomic_load_n(&r->cell[i].seq, __ATOMIC_SEQ_CST) + i == pos + 1;
}
#else   /* no atomics: nothing is kept or queued without the lock */
static int _skel_ring_push(_skel_ring *r, void *p) { (void)r; (void)p; return 0; }
static void *_skel_ring_pop(_skel_ring *r) { (void)r; return NULL; }
static int _skel_ring_busy(_skel_ring *r) { (void)r; return 0; }
#endif

static _skel_ring _skel_rt_ready;   /* free tasks (_skel_rt_submit_free) for the host's workers */
static _skel_ring _skel_rt_spare;   /* nodes to reuse (_skel_tnode_alloc) */
/* What spinning workers and waiters watch, each on a cache line of its
   own: the holder of mu writes them, and with them among the runtime's
   other state every access to that state missed in every spinner's cache. */
static struct {
    char pad0[64];
    unsigned epoch;             /* atomic: bumped by every push (idle workers watch it) */
    int queued;                 /* atomic, written under mu: tasks in the queues */
    char pad1[64];
    unsigned fin;               /* atomic, written under mu: bumped by every finish and worker stop
                                   (spinning waiters watch it) */
    char pad2[64];
    int held;                   /* atomic, written by the holder of mu: 1 while held (a hint) */
    char pad3[64];
    int hosts;                  /* atomic, written under mu: CPU workers started (queued on the
                                   pool or running): each looks at the ready ring before it stops */
    int free_ok, gpus, W;       /* atomic, written under mu by configure: free tasks may take the
                                   ring; GPU places in use; CPU workers */
    char pad4[64];
    uint64_t next_id;           /* atomic: the last submission number */
    char pad5[64];
    int idle[_SKEL_RT_MAXP];    /* atomic: workers spinning for work at each place */
    char pad6[64];
    int pending;                /* atomic, taken down under mu (but for released free tasks):
                                   tasks submitted and not finished */
    int recording;              /* atomic: finishes of free tasks between their release and their
                                   record (_skel_rt_finish_free) */
    char pad7[64];
    int unplaced;               /* atomic, written under mu: ready submissions not placed yet (_skel_rt_hold) */
    uint64_t place_due;         /* atomic, written under mu: when they are placed (ns of _skel_now) */
    char pad8[64];
} _skel_rt_sig;
static struct {               /* what every submission and finish touches first, on few lines */
    int configured;             /* mu: the rest of the configuration is resolved */
    const _skel_policy *pol;    /* mu */
    double alpha, beta;         /* mu */
    int lookahead;              /* mu: dmda's successors counted (0: greedy) */
    unsigned walks;             /* mu: lookahead walks so far (_skel_tnode.walk) */
    double hold;                /* mu: dmda's defer_us in seconds (0: ready submissions placed at once) */
    _skel_tqueue unplaced;      /* mu: ready submissions not placed yet, oldest first (_skel_rt_hold) */
    double unplaced_since;      /* mu: when the oldest of them was held */
    int calibrate, nofile;      /* mu */
    int use[_SKEL_RT_MAXP];     /* mu: places the policies may choose */
    int nplaces;                /* mu: spaces known when configured */
    int W;                      /* mu: CPU workers */
    _skel_tqueue q[_SKEL_RT_MAXP];  /* mu: per place (eager: q[0] only) */
    double load[_SKEL_RT_MAXP]; /* mu: predicted seconds of work queued or running at each place */
    int rr;                     /* mu: ws round robin */
    int defer, deferred;        /* mu: place + 1 whose next kick is left out; one was (_skel_rt_kick) */
    int waiters;                /* mu: threads asleep on _skel_rt_cv (after their spin) */
    int first_status;           /* atomic, written under mu: the first failure since the last skel_wait_all */
    skel_sched_stats st;        /* mu */
    _skel_hmodel *models;       /* mu */
    int nmodels, capmodels;
    _skel_link links[2 * _SKEL_RT_MAXP];   /* mu: measured links */
    int nlinks;
    int models_loaded, models_dirty, atexit_done;  /* mu */
    char first_why[400];        /* mu: what first_status says */
    char model_dir[1024];       /* mu */
    _skel_rtw w[_SKEL_RT_MAXW]; /* mu: w[0..W-1] the CPU workers, w[W + p] the GPU worker of place p */
} _skel_rt;

static _SKEL_TLS _skel_tnode *_skel_rt_cur;   /* owner thread: the task it runs now */
static _SKEL_TLS _skel_rtw *_skel_rt_self;    /* owner thread: the worker it is */

/* ---- the runtime's locks ---- */
/* Take mutex m, trying for up to _SKEL_RT_LOCK_SPIN_US before blocking
   (an adaptive mutex): the runtime holds its mutexes for well under a
   microsecond, and a thread that blocks on one pays a futex sleep and a
   wake-up (microseconds on a VM): with a submitter and 15 workers on one
   mutex that was most of an empty task's cost.  *held is a hint the
   holder keeps, so that spinners read a shared line instead of writing
   the mutex's (test and test-and-set). */
#define _SKEL_RT_LOCK_SPIN_US 10
#if _SKEL_POOL
static int _skel_mutex_try(pthread_mutex_t *m, int *held)
{
    if (_SKEL_LOAD(held) || pthread_mutex_trylock(m) != 0) return 0;
    _SKEL_STORE(held, 1);
    return 1;
}
#endif

static void _skel_mutex_spin(pthread_mutex_t *m, int *held)
{
#if _SKEL_POOL
    double end = 0;
    int k;
    for (;;) {
        for (k = 0; k < 32; ++k) {
            if (_skel_mutex_try(m, held)) return;
            _SKEL_PAUSE();
        }
        if (end == 0) end = _skel_now() + 1e-6 * _SKEL_RT_LOCK_SPIN_US;
        else if (_skel_now() > end) break;
    }
    pthread_mutex_lock(m);
    _SKEL_STORE(held, 1);
#else
    (void)held;
    pthread_mutex_lock(m);
#endif
}

static void _skel_mutex_release(pthread_mutex_t *m, int *held)
{
#if _SKEL_POOL
    _SKEL_STORE(held, 0);
#else
    (void)held;
#endif
    pthread_mutex_unlock(m);
}

static void _skel_rt_lock(void) { _skel_mutex_spin(&_skel_rt_mu, &_skel_rt_sig.held); }
static void _skel_rt_unlock(void) { _skel_mutex_release(&_skel_rt_mu, &_skel_rt_sig.held); }

struct skel_farm;
static void _skel_farm_done(struct skel_farm *f, const _skel_tnode *t);
static const _skel_policy *_skel_policy_find(const char *name);
static int _skel_models_load_locked(void);
int _skel_link_cost(int from, int to, size_t bytes, double *t);   /* also a test hook */

/* ---- the graph ---- */
static int _skel_rt_can_run(const _skel_tnode *t, int p)
{
    if (p < 0 || p >= _skel_rt.nplaces || _skel_place_backend(p) < 0) return 0;
    if (!t->sk) return p == 0 ? t->ut.cpu != NULL : t->ut.gpu != NULL;
    return 1;
}

static _skel_cdeps *_skel_cdeps_of(skel_vec *c)
{
    if (!c->tasks) {
        _skel_cdeps *d = (_skel_cdeps *)SKEL_MALLOC(sizeof *d);
        if (!d) return NULL;
        memset(d, 0, sizeof *d);
        _SKEL_STORE(&c->tasks, d);
    }
    return c->tasks;
}

static void _skel_edge_add(_skel_tnode *from, _skel_tnode *to)
{
    if (from == to) return;
    from->succ[from->nsucc++] = to;
    to->npred++;
}

static int _skel_succ_room(_skel_tnode *t, int more)
{
    if (t->nsucc + more > t->capsucc) {
        int cap = 2 * t->capsucc > t->nsucc + more ? 2 * t->capsucc : t->nsucc + more + 4;
        _skel_tnode **q = (_skel_tnode **)SKEL_REALLOC(t->succ, (size_t)cap * sizeof *q);
        if (!q) return SKEL_ENOMEM;
        t->succ = q;
        t->capsucc = cap;
    }
    return SKEL_OK;
}

/* Room for every edge and reader slot linking t can add, so that linking
   cannot fail half-way (mu held). */
static int _skel_rt_reserve(_skel_tnode *t)
{
    int i, k;
    for (i = 0; i < t->nacc; ++i) {
        _skel_cdeps *d = t->acc[i].c->tasks;
        if (d->writer) _SKEL_TRY(_skel_succ_room(d->writer, t->nacc));
        if (t->acc[i].mode & _SKEL_WRITE) {
            for (k = 0; k < d->nreaders; ++k) _SKEL_TRY(_skel_succ_room(d->readers[k], t->nacc));
        } else if (d->nreaders + t->nacc > d->capreaders) {
            int cap = 2 * d->capreaders > d->nreaders + t->nacc ? 2 * d->capreaders : d->nreaders + t->nacc + 4;
            _skel_tnode **q = (_skel_tnode **)SKEL_REALLOC(d->readers, (size_t)cap * sizeof *q);
            if (!q) return SKEL_ENOMEM;
            d->readers = q;
            d->capreaders = cap;
        }
    }
    return SKEL_OK;
}

/* Link t after what it depends on, and record it on its containers (mu
   held, room reserved). */
static void _skel_rt_link(_skel_tnode *t)
{
    int i, k;
    for (i = 0; i < t->nacc; ++i) {
        _skel_tacc *a = &t->acc[i];
        _skel_cdeps *d = a->c->tasks;
        a->slot = -1;
        if (d->writer) _skel_edge_add(d->writer, t);
        if (a->mode & _SKEL_WRITE) {
            for (k = 0; k < d->nreaders; ++k) {
                _skel_tnode *r = d->readers[k];
                int j;
                _skel_edge_add(r, t);
                for (j = 0; j < r->nacc; ++j)
                    if (r->acc[j].c == a->c) r->acc[j].slot = -1;
            }
            d->nreaders = 0;
            d->writer = t;
        } else {
            a->slot = d->nreaders;
            d->readers[d->nreaders++] = t;
        }
        _SKEL_STORE(&d->pending, d->pending + 1);
    }
}

/* t finished: off its containers (mu held). */
static void _skel_rt_unlink(_skel_tnode *t)
{
    int i, j;
    for (i = 0; i < t->nacc; ++i) {
        _skel_tacc *a = &t->acc[i];
        _skel_cdeps *d = a->c->tasks;
        if (d->writer == t) d->writer = NULL;
        if (a->slot >= 0) {     /* swap the last reader into its slot */
            _skel_tnode *last = d->readers[--d->nreaders];
            if (a->slot < d->nreaders) {
                d->readers[a->slot] = last;
                for (j = 0; j < last->nacc; ++j)
                    if (last->acc[j].c == a->c) last->acc[j].slot = a->slot;
            }
            a->slot = -1;
        }
        if (a->mode & _SKEL_WRITE) {
            if (t->status == SKEL_OK) _SKEL_STORE(&d->status, SKEL_OK);
            else {
                snprintf(d->why, sizeof d->why, "%s", t->why ? t->why : skel_error_string(t->status));
                _SKEL_STORE(&d->status, t->status);
            }
        }
        _SKEL_STORE(&d->pending, d->pending - 1);
    }
}

/* "call #12 (Map scale)" / "task #3 (norm)" */
static const char *_skel_tnode_label(const _skel_tnode *t, char *buf, size_t size)
{
    if (t->sk) snprintf(buf, size, "call #%llu (%s %s)", (unsigned long long)t->id, _skel_kind_name(t->sk->kind), t->sk->name);
    else snprintf(buf, size, "task #%llu (%s)", (unsigned long long)t->id, t->ut.name);
    return buf;
}

/* Nodes of the common size (no captured scalars) are kept for reuse in a
   ring (_skel_rt_spare, up to _SKEL_RING of them), with their successor
   arrays: a node is 1.2 KB, beyond malloc's per-thread caches, and the
   submitter allocates what the workers free, so every malloc and free
   took the allocator's arena lock against the others. */
#define _SKEL_TNODE_PLAIN (sizeof(_skel_tnode) + 32)

/* A zeroed node of size bytes (its succ array kept from a reused one), or NULL. */
static _skel_tnode *_skel_tnode_alloc(size_t size)
{
    _skel_tnode *t = NULL, **succ = NULL;
    int cap = 0;
    if (size == _SKEL_TNODE_PLAIN) t = (_skel_tnode *)_skel_ring_pop(&_skel_rt_spare);
    if (t) { succ = t->succ; cap = t->capsucc; }
    else if (!(t = (_skel_tnode *)SKEL_MALLOC(size))) return NULL;
    memset(t, 0, sizeof *t);
    t->succ = succ;
    t->capsucc = cap;
    t->bytes = size;
    return t;
}

static void _skel_tnode_free(_skel_tnode *t)
{
    SKEL_FREE(t->why);
    t->why = NULL;
    if (t->bytes == _SKEL_TNODE_PLAIN && _skel_ring_push(&_skel_rt_spare, t)) return;
    SKEL_FREE(t->succ);
    SKEL_FREE(t);
}

/* ---- places' load (dmda's avail) ---- */
static int _skel_rt_lanes(int p) { return p == 0 ? _skel_rt.W + 1 : 1; }

static double _skel_rt_avail(int p, double now)
{
    return now + _skel_rt.load[p] / (double)_skel_rt_lanes(p);
}

static void _skel_rt_kick(int p);
static int _skel_rt_start(int p);

static void _skel_tq_push(_skel_tqueue *q, _skel_tnode *t)
{
    t->next = NULL;
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
    q->n++;
    _SKEL_STORE(&_skel_rt_sig.queued, _skel_rt_sig.queued + 1);
}

/* The first task of q that place p can run, unlinked; NULL if none. */
static _skel_tnode *_skel_tq_take(_skel_tqueue *q, int p)
{
    _skel_tnode **pp = &q->head, *prev = NULL, *t;
    for (; (t = *pp) != NULL; prev = t, pp = &t->next)
        if (t->place == p || (_skel_rt.use[p] && _skel_rt_can_run(t, p))) {   /* queued there, or shared */
            *pp = t->next;
            if (q->tail == t) q->tail = prev;
            q->n--;
            _SKEL_STORE(&_skel_rt_sig.queued, _skel_rt_sig.queued - 1);
            return t;
        }
    return NULL;
}

/* Benchmarks (bench/tasks.c): 0 leaves the copies out of a place's load,
   as dmda did before, to compare (read under rt mu). */
extern int _skel_dmda_load_copies;
int _skel_dmda_load_copies = 1;

/* Queue t at place p for the place's workers, charging its predicted work. */
static void _skel_rt_queue(_skel_tnode *t, int p)
{
    t->place = p;
    t->work = t->pred > 0 ? t->pred * (double)t->width + (_skel_dmda_load_copies ? t->xf : 0) : 0;
    _skel_rt.load[p] += t->work;
    _skel_tq_push(&_skel_rt.q[p], t);
    _skel_rt_kick(p);
}

/* A call's variant and CPU width at place p (no model). */
static void _skel_rt_variant_at(_skel_tnode *t, int p)
{
    t->width = 1;
    t->pred = -1;
    if (!t->sk) return;
    if (_skel_choose_at(t->sk, &t->sh, p, &t->v) != SKEL_OK) { memset(&t->v, 0, sizeof t->v); t->v.backend = _skel_place_backend(p); }
    if (p == 0 && _skel_backends[t->v.backend].run == _skel_cpu_run && t->v.backend != 0)
        t->width = t->v.threads > 0 ? t->v.threads : _skel_pool_default_threads();
}

/* ---- history models ---- */
static _skel_hmodel *_skel_hist_find(uint64_t key, const char *place, int make, const char *name)
{
    int i;
    for (i = 0; i < _skel_rt.nmodels; ++i)
        if (_skel_rt.models[i].key == key && strcmp(_skel_rt.models[i].place, place) == 0) return &_skel_rt.models[i];
    if (!make) return NULL;
    if (_skel_rt.nmodels == _skel_rt.capmodels) {
        int cap = _skel_rt.capmodels ? 2 * _skel_rt.capmodels : 16;
        _skel_hmodel *q = (_skel_hmodel *)SKEL_REALLOC(_skel_rt.models, (size_t)cap * sizeof *q);
        if (!q) return NULL;
        _skel_rt.models = q;
        _skel_rt.capmodels = cap;
    }
    memset(&_skel_rt.models[_skel_rt.nmodels], 0, sizeof _skel_rt.models[0]);
    _skel_rt.models[_skel_rt.nmodels].key = key;
    snprintf(_skel_rt.models[_skel_rt.nmodels].name, sizeof _skel_rt.models[0].name, "%s", name);
    snprintf(_skel_rt.models[_skel_rt.nmodels].place, sizeof _skel_rt.models[0].place, "%s", place);
    return &_skel_rt.models[_skel_rt.nmodels++];
}

/* The entry of footprint fp (made when make is set), kept sorted by size. */
static _skel_hent *_skel_hist_entry(_skel_hmodel *m, const uint64_t *fp, int make)
{
    double size = (double)fp[0] * (double)fp[1];
    int lo = 0, hi = m->ne, i;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (m->e[mid].size < size || (m->e[mid].size == size && m->e[mid].fp[0] < fp[0])) lo = mid + 1;
        else hi = mid;
    }
    for (i = lo; i < m->ne && m->e[i].size == size; ++i)
        if (m->e[i].fp[0] == fp[0] && m->e[i].fp[1] == fp[1]) return &m->e[i];
    if (!make) return NULL;
    if (m->ne == m->cap) {
        int cap = m->cap ? 2 * m->cap : 8;
        _skel_hent *q = (_skel_hent *)SKEL_REALLOC(m->e, (size_t)cap * sizeof *q);
        if (!q) return NULL;
        m->e = q;
        m->cap = cap;
    }
    memmove(&m->e[lo + 1], &m->e[lo], (size_t)(m->ne - lo) * sizeof *m->e);
    m->ne++;
    memset(&m->e[lo], 0, sizeof *m->e);
    m->e[lo].fp[0] = fp[0];
    m->e[lo].fp[1] = fp[1];
    m->e[lo].size = size;
    return &m->e[lo];
}

static double _skel_median(const double *s, int n)
{
    double v[_SKEL_HIST_RING], x;
    int i, j;
    for (i = 0; i < n; ++i) {
        for (x = s[i], j = i; j > 0 && v[j - 1] > x; --j) v[j] = v[j - 1];
        v[j] = x;
    }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Add a time to an entry unless it is an outlier: 1 if it was taken. */
static int _skel_hist_add(_skel_hent *e, double t)
{
    if (e->n >= 5 && (t > 3 * e->median || t < e->median / 3)) {
        e->rejected++;
        if (++e->streak < 4) return 0;
    }
    e->streak = 0;
    e->s[e->next] = t;
    e->next = (e->next + 1) % _SKEL_HIST_RING;
    if (e->n < _SKEL_HIST_RING) e->n++;
    e->total++;
    e->median = _skel_median(e->s, e->n);
    return 1;
}

/* Predicted seconds at footprint fp from model m: the footprint's median
   once it has `trust` samples, else a line through the trusted footprints
   nearest in size (between the two around it, else the two nearest on one
   side, at least a tenth of theirs), else one scaled by size; -1 when no
   footprint is trusted. */
static double _skel_hist_predict(const _skel_hmodel *m, const uint64_t *fp, int trust)
{
    double size = (double)fp[0] * (double)fp[1], x0, y0, x1, y1, y, floor_;
    int i, lo = -1, lo2 = -1, hi = -1, hi2 = -1, a, b;
    for (i = 0; i < m->ne; ++i) {
        const _skel_hent *e = &m->e[i];
        if (e->n < trust) continue;
        if (e->fp[0] == fp[0] && e->fp[1] == fp[1]) return e->median;
        if (e->size <= size) { lo2 = lo; lo = i; }
        else if (hi < 0) hi = i;
        else if (hi2 < 0) hi2 = i;
    }
    if (lo >= 0 && hi >= 0) { a = lo; b = hi; }
    else if (lo2 >= 0) { a = lo2; b = lo; }
    else if (hi2 >= 0) { a = hi; b = hi2; }
    else if (lo >= 0 || hi >= 0) {
        const _skel_hent *e = &m->e[lo >= 0 ? lo : hi];
        double r = e->size > 0 ? size / e->size : 1;
        return e->median * (r < 0.1 ? 0.1 : r);
    } else return -1;
    x0 = m->e[a].size; y0 = m->e[a].median; x1 = m->e[b].size; y1 = m->e[b].median;
    y = x1 > x0 ? y0 + (y1 - y0) / (x1 - x0) * (size - x0) : y0;
    floor_ = 0.1 * (y0 < y1 ? y0 : y1);
    return y > floor_ ? y : floor_;
}

/* The instance key and footprint of a task. */
static void _skel_tnode_key(_skel_tnode *t)
{
    uint64_t h = _SKEL_HASH_SEED;
    if (t->sk) {
        int k[6];
        k[0] = t->sk->kind; k[1] = t->sk->nout; k[2] = t->sk->nview; k[3] = t->sk->nin;
        k[4] = t->call.direction; k[5] = t->call.out != NULL;
        h = _skel_hash_str(h, t->sk->name);
        h = _skel_hash_str(h, t->sk->func_name ? t->sk->func_name : "");
        h = _skel_hash_str(h, t->sk->red_name ? t->sk->red_name : "");
        h = _skel_hash(h, k, sizeof k);
        t->fp[0] = t->sh.point[0];
        t->fp[1] = t->sh.dims == 2 ? t->sh.point[1] : 1;
    } else {
        h = _skel_hash_str(_skel_hash_str(h, "task"), t->ut.name);
        t->fp[0] = t->ut.size;
        t->fp[1] = 1;
    }
    t->key = h;
}

static const char *_skel_tnode_model_name(const _skel_tnode *t, char *buf, size_t size)
{
    if (t->sk) snprintf(buf, size, "%s %s", _skel_kind_name(t->sk->kind), t->sk->name);
    else snprintf(buf, size, "task %s", t->ut.name);
    return buf;
}

/* Record how long t took at its place (mu held). */
static void _skel_hist_record(_skel_tnode *t, double seconds)
{
    char name[96];
    _skel_hmodel *m = _skel_hist_find(t->key, _skel_place_name(t->place), 0, NULL);
    _skel_hent *e;
    if (!m) m = _skel_hist_find(t->key, _skel_place_name(t->place), 1, _skel_tnode_model_name(t, name, sizeof name));
    e = m ? _skel_hist_entry(m, t->fp, 1) : NULL;
    if (e && _skel_hist_add(e, seconds)) _skel_rt.models_dirty = 1;
}

/* The predicted time of t at place p: the plan's, else the history's;
   sets t->v and t->width for p.  -1: no model there. */
static double _skel_rt_predict(_skel_tnode *t, int p, int *from_plan)
{
    skel_plan *plan;
    const _skel_hmodel *m;
    double time;
    *from_plan = 0;
    if (t->sk && (plan = _skel_plan_of(t->sk)) && _skel_plan_at(plan, &t->sh, p, &t->v, &time) && time >= 0) {
        t->width = p == 0 && t->v.backend != 0 && _skel_backends[t->v.backend].run == _skel_cpu_run
                   ? (t->v.threads > 0 ? t->v.threads : _skel_pool_default_threads()) : 1;
        *from_plan = 1;
        return time;
    }
    _skel_rt_variant_at(t, p);
    m = _skel_hist_find(t->key, _skel_place_name(p), 0, NULL);
    return m ? _skel_hist_predict(m, t->fp, _skel_rt.calibrate) : -1;
}

/* Seconds to bring t's inputs to place p (0 when they are there). */
static double _skel_rt_xfer(const _skel_tnode *t, int p)
{
    double total = 0, c;
    int i, src;
    for (i = 0; i < t->nacc; ++i) {
        skel_vec *v = t->acc[i].c;
        unsigned valid = _SKEL_LOAD(&v->all);     /* the spaces that hold all of it */
        size_t bytes = v->n * v->esz;
        if (!(t->acc[i].mode & _SKEL_READ) || (valid & (1u << p)) || !bytes) continue;
        if (!(valid & 1u)) {        /* only a device holds it: down first */
            for (src = 1; src < _SKEL_MAX_SPACES && !(valid & (1u << src)); ++src) {}
            if (src < _SKEL_MAX_SPACES && _skel_link_cost(src, 0, bytes, &c) == SKEL_OK) total += c;
        }
        if (p > 0 && _skel_link_cost(0, p, bytes, &c) == SKEL_OK) total += c;
    }
    return total;
}

/* ---- policies ---- */
static void _skel_rt_count(_skel_tnode *t, int flag)
{
    t->flags |= flag;
    if (flag == _SKEL_TR_MODEL) _skel_rt.st.by_model++;
    else if (flag == _SKEL_TR_CALIBRATE) _skel_rt.st.calibrating++;
    else _skel_rt.st.by_rule++;
}

/* The only place t can run at among the usable ones, or -1 when several; -2 when none. */
static int _skel_rt_sole_place(const _skel_tnode *t)
{
    int p, one = -2;
    for (p = 0; p < _skel_rt.nplaces; ++p)
        if (_skel_rt.use[p] && _skel_rt_can_run(t, p)) {
            if (one >= 0) return -1;
            one = p;
        }
    return one;
}

/* Seconds to bring what t writes home from place p: where no submitted
   call follows a task, its results are taken to be read at the host. */
static double _skel_rt_home(const _skel_tnode *t, int p)
{
    double total = 0, c;
    int i;
    for (i = 0; p > 0 && i < t->nacc; ++i)
        if ((t->acc[i].mode & _SKEL_WRITE) && _skel_link_cost(p, 0, t->acc[i].c->n * t->acc[i].c->esz, &c) == SKEL_OK)
            total += c;
    return total;
}

/* s's predicted work at place p for dmda's lookahead (s->ahead[p]:
   seconds x the CPU threads it takes; ahead_longest[p]: seconds), asked
   once per node and place: a chain's call is in the lookahead of the 64
   calls before it, and asking the plan or model each time (and saving
   and restoring the variant it sets) made an 80-call chain of tiny calls
   1.3-1.5 times slower with 64 than with 16 (bench/tasks_chain.c, VM,
   host + PoCL; now 1.1 times).
   0: no prediction at p yet (asked again next time). */
static int _skel_rt_ahead_work(_skel_tnode *s, int p)
{
    _skel_variant v;
    int width, plan;
    double pr;
    if (s->has_ahead & (1u << p)) return 1;
    v = s->v;                       /* not queued yet: its push sets these again */
    width = s->width;
    pr = _skel_rt_predict(s, p, &plan);
    s->ahead[p] = pr * (s->width > 0 ? s->width : 1);
    s->ahead_longest[p] = pr;
    s->v = v;
    s->width = width;
    if (pr < 0) return 0;
    s->has_ahead |= 1u << p;
    return 1;
}

/* The predicted time at place p of the calls and tasks that follow t
   (its successors, theirs, ..: breadth first, at most _skel_rt.lookahead
   of them), were they to run there after it, where their data would then
   be: each level of the breadth-first walk costs the larger of its
   longest call and its work spread over the place's lanes; plus, for
   each of them that nothing follows, bringing its results home
   (_skel_rt_home).  -1 when one of them cannot run at p or has no
   prediction there. */
static double _skel_dmda_ahead(_skel_tnode *t, int p)
{
    _skel_tnode *seen[65];
    int n = 1, lo = 0, i, k;
    unsigned walk = ++_skel_rt.walks;
    double sum = t->nsucc ? 0 : _skel_rt_home(t, p);
    seen[0] = t;
    t->walk = walk;
    while (lo < n && n <= _skel_rt.lookahead) {
        int hi = n;
        double longest = 0, work = 0;
        for (i = lo; i < hi; ++i)
            for (k = 0; k < seen[i]->nsucc && n <= _skel_rt.lookahead; ++k) {
                _skel_tnode *s = seen[i]->succ[k];
                if (s->walk == walk) continue;
                s->walk = walk;
                if (!_skel_rt_can_run(s, p) || !_skel_rt_ahead_work(s, p)) return -1;
                work += s->ahead[p];
                if (s->ahead_longest[p] > longest) longest = s->ahead_longest[p];
                if (!s->nsucc) sum += _skel_rt_home(s, p);
                seen[n++] = s;
            }
        work /= (double)_skel_rt_lanes(p);
        sum += longest > work ? longest : work;
        lo = hi;
    }
    return sum;
}

static void _skel_dmda_push(_skel_tnode *t, _skel_rtw *from)
{
    double now = _skel_now(), fin[_SKEL_RT_MAXP], xf[_SKEL_RT_MAXP], pred[_SKEL_RT_MAXP], best_fin = 0, best_fit = 0, f;
    _skel_variant var[_SKEL_RT_MAXP];
    int width[_SKEL_RT_MAXP], p, best = -1, uncal = -1, plan, sole = _skel_rt_sole_place(t);
    (void)from;
    if (sole != -1) {           /* one place: nothing to decide */
        p = sole >= 0 ? sole : 0;
        _skel_rt_variant_at(t, p);
        _skel_rt_count(t, _SKEL_TR_FALLBACK);
        _skel_rt_queue(t, p);
        return;
    }
    for (p = 0; p < _skel_rt.nplaces; ++p) {
        fin[p] = -1;
        if (!_skel_rt.use[p] || !_skel_rt_can_run(t, p)) continue;
        pred[p] = _skel_rt_predict(t, p, &plan);
        var[p] = t->v;
        width[p] = t->width;
        if (pred[p] < 0) {      /* uncalibrated: the least loaded such place measures it */
            if (uncal < 0 || _skel_rt.load[p] / _skel_rt_lanes(p) < _skel_rt.load[uncal] / _skel_rt_lanes(uncal)) uncal = p;
            continue;
        }
        xf[p] = _skel_rt_xfer(t, p);
        f = _skel_rt_avail(p, now);
        fin[p] = (f > now + xf[p] ? f : now + xf[p]) + pred[p];
        if (best < 0 || fin[p] < best_fin) { best = p; best_fin = fin[p]; }
    }
    if (uncal >= 0) {
        t->v = var[uncal]; t->width = width[uncal]; t->pred = -1;
        _skel_rt_count(t, _SKEL_TR_CALIBRATE);
        _skel_rt_queue(t, uncal);
        return;
    }
    if (_skel_rt.lookahead > 0) {    /* and what follows it, where every place can predict that */
        double ahead[_SKEL_RT_MAXP];
        int all = 1;
        for (p = 0; p < _skel_rt.nplaces && all; ++p)
            if (fin[p] >= 0 && (ahead[p] = _skel_dmda_ahead(t, p)) < 0) all = 0;
        for (best_fin = all ? -1 : best_fin, p = 0; all && p < _skel_rt.nplaces; ++p)
            if (fin[p] >= 0) {
                fin[p] += ahead[p];
                if (best_fin < 0 || fin[p] < best_fin) best_fin = fin[p];
            }
    }
    for (best = -1, p = 0; p < _skel_rt.nplaces; ++p) {
        if (fin[p] < 0) continue;
        f = _skel_rt.alpha * (fin[p] - best_fin) + _skel_rt.beta * xf[p];
        if (best < 0 || f < best_fit) { best = p; best_fit = f; }
    }
    t->v = var[best]; t->width = width[best]; t->pred = pred[best]; t->xf = xf[best];
    _skel_rt_count(t, _SKEL_TR_MODEL);
    _skel_rt_queue(t, best);
}

static _skel_tnode *_skel_place_pop(_skel_rtw *w, int p)
{
    (void)w;
    return _skel_tq_take(&_skel_rt.q[p], p);
}

static void _skel_static_push(_skel_tnode *t, _skel_rtw *from)
{
    int p = 0;
    (void)from;
    if (t->sk) {
        if (_skel_choose(t->sk, &t->call, &t->sh, &t->v) != SKEL_OK) memset(&t->v, 0, sizeof t->v);
        p = _skel_backends[t->v.backend].space;
        t->width = p == 0 && t->v.backend != 0 && _skel_backends[t->v.backend].run == _skel_cpu_run
                   ? (t->v.threads > 0 ? t->v.threads : _skel_pool_default_threads()) : 1;
        t->pred = -1;
        if (!_skel_rt.use[p]) {     /* a place not in use: the first one that is */
            for (p = 0; p < _skel_rt.nplaces && !(_skel_rt.use[p] && _skel_rt_can_run(t, p)); ++p) {}
            _skel_rt_variant_at(t, p);
        }
    } else {
        if (!t->ut.cpu) for (p = 1; p < _skel_rt.nplaces && !(_skel_rt.use[p] && _skel_rt_can_run(t, p)); ++p) {}
        _skel_rt_variant_at(t, p);
    }
    _skel_rt_count(t, _SKEL_TR_FALLBACK);
    _skel_rt_queue(t, p);
}

/* eager: one queue (q[0]); the place is decided by who takes it. */
static void _skel_eager_push(_skel_tnode *t, _skel_rtw *from)
{
    int p;
    (void)from;
    t->place = -1;
    t->pred = -1;
    t->width = 1;
    _skel_rt_count(t, _SKEL_TR_FALLBACK);
    _skel_tq_push(&_skel_rt.q[0], t);
    for (p = 0; p < _skel_rt.nplaces; ++p)
        if (_skel_rt.use[p] && _skel_rt_can_run(t, p)) _skel_rt_kick(p);
}

static _skel_tnode *_skel_eager_pop(_skel_rtw *w, int p)
{
    (void)w;
    return _skel_tq_take(&_skel_rt.q[0], p);
}

/* ws: each worker's own queue; steal from the longest. */
static void _skel_ws_push(_skel_tnode *t, _skel_rtw *from)
{
    _skel_rtw *w = from;
    int p, n = 0, k, cand[_SKEL_RT_MAXW];
    t->pred = -1;
    t->width = 1;
    _skel_rt_count(t, _SKEL_TR_FALLBACK);
    if (!w || !_skel_rt_can_run(t, w->place)) {     /* round robin over the workers that can run it */
        for (k = 0; k < _skel_rt.W; ++k)
            if (_skel_rt.use[0] && _skel_rt_can_run(t, 0)) cand[n++] = k;
        for (p = 1; p < _skel_rt.nplaces; ++p)
            if (_skel_rt.use[p] && _skel_rt_can_run(t, p)) cand[n++] = _skel_rt.W + p;
        if (!n) cand[n++] = 0;
        w = &_skel_rt.w[cand[_skel_rt.rr++ % n]];
    }
    t->place = -1;
    _skel_tq_push(&w->q, t);
    _skel_rt_kick(w->place);
}

static _skel_tnode *_skel_ws_pop(_skel_rtw *w, int p)
{
    _skel_tnode *t;
    int k, longest = -1, n = _skel_rt.W + _skel_rt.nplaces;
    if (w && (t = _skel_tq_take(&w->q, p)) != NULL) return t;
    for (k = 0; k < n; ++k)     /* steal: the longest queue first, then any with something p runs */
        if (k != _skel_rt.W && &_skel_rt.w[k] != w && _skel_rt.w[k].q.n &&
            (longest < 0 || _skel_rt.w[k].q.n > _skel_rt.w[longest].q.n)) longest = k;
    if (longest < 0) return NULL;
    if ((t = _skel_tq_take(&_skel_rt.w[longest].q, p)) != NULL) return t;
    for (k = 0; k < n; ++k)
        if (k != _skel_rt.W && &_skel_rt.w[k] != w && (t = _skel_tq_take(&_skel_rt.w[k].q, p)) != NULL) return t;
    return NULL;
}

static const _skel_policy _skel_policies[] = {
    { "dmda", _skel_dmda_push, _skel_place_pop, 1 },
    { "eager", _skel_eager_push, _skel_eager_pop, 0 },
    { "ws", _skel_ws_push, _skel_ws_pop, 0 },
    { "static", _skel_static_push, _skel_place_pop, 0 },
};

static const _skel_policy *_skel_policy_find(const char *name)
{
    size_t i;
    for (i = 0; name && i < sizeof _skel_policies / sizeof *_skel_policies; ++i)
        if (strcmp(_skel_policies[i].name, name) == 0) return &_skel_policies[i];
    return NULL;
}

/* ---- deferred placement (dmda) ----
   A call that is ready when it is submitted is not placed at once: the
   calls that follow it are submitted next, and dmda's lookahead
   (_skel_dmda_ahead) can count them only once they are there (a blur's row
   pass placed before its column pass existed went to the GPU and paid the
   copies; SOR's first sweeps ran on the host).  It waits in
   _skel_rt.unplaced, and all that wait are placed together, oldest first:
   when submissions pause for _skel_rt.hold (or 10 times that after the
   first one waited), by a worker with nothing to run
   (_skel_rt_idle_wait's 3); when any thread waits (_skel_rt_wait_until,
   so a wait on an unplaced call places it), a farm is started, or
   _SKEL_RT_UNPLACED of them wait.  The oldest is placed alone once the
   calls that follow it fill the lookahead (_skel_rt_place_seen: a chain
   need not wait for the pause).  The first one held makes sure a worker
   of a place that can run it will place it: one spinning there, else one
   started (every such worker busy: the first to be idle); a lone call on
   an idle machine waits for the pause at most (a worker's start takes
   about as long), and no worker stops while calls wait (_skel_rt_worker).
   (Starting a worker at every place that could run it put a second
   spinning thread on a 2-CPU machine for each batch.) */
#define _SKEL_RT_UNPLACED 64

static uint64_t _skel_ns(double t) { return (uint64_t)(t * 1e9); }

/* Place the oldest waiting call (mu held). */
static void _skel_rt_place_one(void)
{
    _skel_tnode *t = _skel_rt.unplaced.head;
    _skel_rt.unplaced.head = t->next;
    if (!t->next) _skel_rt.unplaced.tail = NULL;
    _skel_rt.unplaced.n--;
    _SKEL_STORE(&_skel_rt_sig.unplaced, _skel_rt.unplaced.n);
    _skel_rt.st.deferred++;
    _skel_rt.pol->push(t, NULL);
}

/* Place every waiting call (mu held). */
static void _skel_rt_place_all(void)
{
    while (_skel_rt.unplaced.head) _skel_rt_place_one();
}

/* A submission came while calls wait to be placed (mu held): they are
   due once submissions pause for hold, and at most lookahead times hold
   after the oldest was held (as long as the lookahead takes to fill at
   that pace; 10 times hold placed SOR's first sweep before the 64 that
   follow it were there).  Every submission counts, not only ready ones:
   a chain's later calls are not ready, and while they came the first
   one was placed 5-25 us after it was held, with the few successors
   there by then (bench_tasks_placement with the H100's models and a
   transfer weight of 0: SOR's first sweep on the host, 79 of 80 on the
   device; now 80, its 64 successors seen). */
static void _skel_rt_push_due(double now)
{
    double due = now + _skel_rt.hold, last = _skel_rt.unplaced_since + _skel_rt.lookahead * _skel_rt.hold;
    _SKEL_STORE(&_skel_rt_sig.place_due, _skel_ns(due < last ? due : last));
}

/* Ready submission t waits to be placed (mu held): 1; 0 when the policy
   places it now (it does not defer, or only one place can run t). */
static int _skel_rt_hold(_skel_tnode *t)
{
    double now;
    int p, first = _skel_rt.unplaced.n == 0;
    if (!_skel_rt.pol->defers || _skel_rt.hold <= 0 || _skel_rt.lookahead <= 0 || _skel_rt_sole_place(t) != -1) return 0;
    now = _skel_now();
    t->next = NULL;
    if (_skel_rt.unplaced.tail) _skel_rt.unplaced.tail->next = t;
    else _skel_rt.unplaced.head = t;
    _skel_rt.unplaced.tail = t;
    _skel_rt.unplaced.n++;
    if (first) _skel_rt.unplaced_since = now;
    _skel_rt_push_due(now);
    _SKEL_STORE(&_skel_rt_sig.unplaced, _skel_rt.unplaced.n);
    if (_skel_rt.unplaced.n >= _SKEL_RT_UNPLACED) _skel_rt_place_all();
    else if (first) {   /* a placer: one spinning already, else one started, at a place that can run t */
        for (p = 0; p < _skel_rt.nplaces; ++p)
            if (_skel_rt.use[p] && _skel_rt_can_run(t, p) && _SKEL_LOAD(&_skel_rt_sig.idle[p]) > 0) return 1;
        for (p = 0; p < _skel_rt.nplaces; ++p)
            if (_skel_rt.use[p] && _skel_rt_can_run(t, p) && _skel_rt_start(p)) return 1;
    }   /* every such worker busy: the first idle one places them */
    return 1;
}

/* The calls that follow t fill dmda's lookahead (mu held): waiting longer
   cannot change where it goes. */
static int _skel_rt_sees_all(_skel_tnode *t)
{
    _skel_tnode *seen[65];
    int n = 1, lo = 0, k;
    unsigned walk = ++_skel_rt.walks;
    seen[0] = t;
    t->walk = walk;
    for (; lo < n && n <= _skel_rt.lookahead; ++lo)
        for (k = 0; k < seen[lo]->nsucc && n <= _skel_rt.lookahead; ++k)
            if (seen[lo]->succ[k]->walk != walk) {
                seen[n] = seen[lo]->succ[k];
                seen[n++]->walk = walk;
            }
    return n > _skel_rt.lookahead;
}

/* A submission linked (mu held): the oldest waiting calls whose lookahead
   is full are placed now (a chain's first call, after as many calls as
   the lookahead counts). */
static void _skel_rt_place_seen(void)
{
    while (_skel_rt.unplaced.head && _skel_rt_sees_all(_skel_rt.unplaced.head)) _skel_rt_place_one();
}

/* The waiting calls are due to be placed (a hint without mu). */
static int _skel_rt_place_due(void)
{
    return _SKEL_LOAD(&_skel_rt_sig.unplaced) > 0 && _skel_ns(_skel_now()) >= _SKEL_LOAD(&_skel_rt_sig.place_due);
}

/* ---- workers ---- */
static int _skel_rt_worker(void *arg);
#if _SKEL_POOL
#define _SKEL_RT_PAUSE() _SKEL_PAUSE()
#else
#define _SKEL_RT_PAUSE() ((void)0)
#endif

/* An idle worker (mu released) waits until a push (epoch past seen) left
   a free task in the ready ring (host workers: *t, 2, mu not taken) or a
   task queued while mu is free, and takes mu: 1.  After SKEL_POOL_SPIN_US
   with none: 0 (mu not taken).  A worker tries the lock only when
   something is queued and nobody holds it, so one push does not send
   every idle worker into a queue on mu (each push bumps the epoch after
   queueing its task: a worker that sees the new epoch sees the task); one
   that lost the race for a free task spins on (its idle count unchanged:
   that count's line is not written by every spinner at every push).
   Calls waiting to be placed and due (_skel_rt_place_due): 3, mu not
   taken. */
static int _skel_rt_idle_wait(unsigned seen, int host, _skel_tnode **t)
{
#if _SKEL_POOL
    double end = 0;
    int k;
    for (;;) {
        if (_skel_rt_place_due()) return 3;
        for (k = 0; k < 64; ++k) {
            unsigned e = _SKEL_LOAD(&_skel_rt_sig.epoch);
            if (e != seen) {
                if (host && (*t = (_skel_tnode *)_skel_ring_pop(&_skel_rt_ready)) != NULL) return 2;
                if (!_SKEL_LOAD(&_skel_rt_sig.queued)) seen = e;     /* someone took it */
                else if (_skel_mutex_try(&_skel_rt_mu, &_skel_rt_sig.held)) return 1;
            }
            _SKEL_PAUSE();
        }
        if (end == 0) end = _skel_now() + 1e-6 * SKEL_POOL_SPIN_US;
        else if (_skel_now() > end) break;
    }
#else
    (void)seen; (void)host; (void)t;
#endif
    return 0;
}

/* Worker w found nothing after its spin and stops (mu held): 1.  A CPU
   worker first leaves the count of started ones and looks at the ready
   ring again: a free task pushed meanwhile is seen here, or its submitter
   saw the count fall and started a worker (_skel_rt_submit_free; a full
   fence on both sides between the write and the read): 0, go on. */
static int _skel_rt_retire(_skel_rtw *w)
{
    if (w->place != 0) return 1;
    _SKEL_ADD(&_skel_rt_sig.hosts, -1);
    _SKEL_FENCE_RMW();
    if (!_skel_ring_busy(&_skel_rt_ready)) return 1;
    _SKEL_ADD(&_skel_rt_sig.hosts, 1);
    return 0;
}

/* Make sure place p has a worker that will look at its queue (mu held).
   Left out once for the place of a worker that finishes a task and takes
   the next at once (_skel_rt.defer; it kicks after its take if that left
   something queued): a chain then wakes no idle worker at each step. */
static void _skel_rt_kick(int p)
{
#if _SKEL_POOL
    if (_skel_rt.defer == p + 1) {
        _skel_rt.defer = 0;
        _skel_rt.deferred = 1;
        return;
    }
    _SKEL_ADD(&_skel_rt_sig.epoch, 1u);
    if (_SKEL_LOAD(&_skel_rt_sig.idle[p]) > 0) return;     /* a spinning worker will see the epoch */
    _skel_rt_start(p);
#else   /* no pool: waiting threads run everything */
    (void)p;
#endif
}

/* Start a stopped worker of place p, if there is one (mu held): 1 if it did. */
static int _skel_rt_start(int p)
{
#if _SKEL_POOL
    _skel_rtw *w = NULL;
    int k, lo = p == 0 ? 0 : _skel_rt.W + p, hi = p == 0 ? _skel_rt.W : lo + 1;
    for (k = lo; k < hi && !w; ++k)
        if (_skel_rt.w[k].state == 0) w = &_skel_rt.w[k];
    if (!w) return 0;                       /* every worker of p is on it */
    if (!_skel_task_done(&w->pt[w->which]) && w->pt[w->which].fn) w->which ^= 1;
    while (w->pt[w->which].fn && !_skel_task_done(&w->pt[w->which])) _SKEL_RT_PAUSE();  /* its loop is returning */
    w->state = 1;
    if (p == 0) _SKEL_ADD(&_skel_rt_sig.hosts, 1);
    _skel_pool_submit(&w->pt[w->which], _skel_rt_worker, w);
    return 1;
#else   /* no pool: waiting threads run everything */
    (void)p;
    return 0;
#endif
}

/* Run task t at place p, outside the mutex; returns its seconds. */
static double _skel_rt_exec(_skel_tnode *t, int p)
{
    _skel_tnode *outer = _skel_rt_cur;
    double t0 = _skel_now(), t1;
    int old = _skel_place_bind(p), rc, i;
    char label[160];
    _skel_rt_cur = t;
    _skel_errbuf[0] = 0;
    if (t->sk) {
        const _skel_backend *b;
        if (t->place != p || _skel_backends[t->v.backend].space != p) _skel_rt_variant_at(t, p);
        b = &_skel_backends[t->v.backend];
        /* empty: as skel_run; through _skel_run_variant, which records the ranges it wrote */
        rc = t->sh.n == 0 ? SKEL_OK : _skel_run_variant(t->sk, &t->call, &t->sh, &t->v);
        if (rc != SKEL_OK && b->is_gpu && _skel_env.fallback && (rc == SKEL_ENOMEM || rc == SKEL_EDEVICE))
            rc = _skel_fall_back(t->sk, &t->call, &t->sh, b->name, rc);
    } else if (p == 0) {
        for (i = 0, rc = SKEL_OK; i < t->nacc && rc == SKEL_OK; ++i)    /* inputs home first */
            if ((t->acc[i].mode & _SKEL_READ) && !_skel_acquire(t->acc[i].c, 0, _SKEL_READ)) rc = SKEL_EDEVICE;
        if (rc == SKEL_OK) rc = t->ut.cpu(t->ut.data, t->ut.arg);
    } else {
        rc = t->ut.gpu(t->ut.data, t->ut.arg);
    }
    if (rc == SKEL_OK && p > 0 && _skel_spaces[p].wait) rc = _skel_spaces[p].wait(_skel_spaces[p].ctx);
    t1 = _skel_now();
    t->status = rc;
    if (rc != SKEL_OK) {
        char msg[sizeof _skel_errbuf + 200];
        snprintf(msg, sizeof msg, "%s failed at %s: %s (%s)", _skel_tnode_label(t, label, sizeof label), _skel_place_name(p),
                 _skel_errbuf[0] ? _skel_errbuf : "it returned an error", skel_error_string(rc));
        SKEL_FREE(t->why);
        if ((t->why = (char *)SKEL_MALLOC(strlen(msg) + 1)) != NULL) strcpy(t->why, msg);
        t->flags |= _SKEL_TR_FAILED;
    }
    _skel_place_bind(old);
    _skel_rt_cur = outer;
    if (_skel_trace.on)
        _skel_trace_event(_SKEL_TR_TASK, p, -1, t0, t1, 0, t->flags,
                          t->sk ? t->sk->name : t->ut.name);
    t->place = p;
    return t1 - t0;
}

/* t finished (or was not run): release what follows it (mu held). */
static void _skel_rt_finish(_skel_tnode *t, _skel_rtw *w, double seconds, int ran)
{
    int i, p = t->place;
    _skel_rt_unlink(t);
    if (p >= 0 && p < _SKEL_RT_MAXP) {
        _skel_rt.load[p] -= t->work;
        if (_skel_rt.load[p] < 1e-12) _skel_rt.load[p] = 0;
        if (ran) { _skel_rt.st.place_tasks[p]++; _skel_rt.st.place_busy[p] += seconds; }
        if (ran && t->status == SKEL_OK) _skel_hist_record(t, seconds);
    }
    _skel_rt.st.tasks++;
    if (t->free_) _skel_rt.st.by_rule++;      /* counted here: its submission took no lock */
    if (t->status != SKEL_OK) {
        if (ran) _skel_rt.st.failed++;
        else _skel_rt.st.not_run++;
        if (_skel_rt.first_status == SKEL_OK) {
            snprintf(_skel_rt.first_why, sizeof _skel_rt.first_why, "%s", t->why ? t->why : skel_error_string(t->status));
            _SKEL_STORE(&_skel_rt.first_status, t->status);
        }
    }
    if (t->farm) _skel_farm_done(t->farm, t);
    for (i = 0; i < t->nsucc; ++i)
        if (--t->succ[i]->npred == 0) _skel_rt.pol->push(t->succ[i], w);
    if (t->free_ != 2 && _SKEL_ADD(&_skel_rt_sig.pending, -1) == 0)
        memset(_skel_rt.load, 0, sizeof _skel_rt.load);     /* no drift */
    _SKEL_STORE(&_skel_rt_sig.fin, _skel_rt_sig.fin + 1);
    if (_skel_rt.waiters) pthread_cond_broadcast(&_skel_rt_cv);
    _skel_tnode_free(t);
}

/* A ready task for place p that should run, or NULL; tasks whose inputs
   failed are finished here without running (mu held). */
static _skel_tnode *_skel_rt_take(_skel_rtw *w, int p)
{
    _skel_tnode *t;
    char label[160];
    int i;
    if (p == 0 && (t = (_skel_tnode *)_skel_ring_pop(&_skel_rt_ready)) != NULL) return t;
    while ((t = _skel_rt.pol->pop(w, p)) != NULL) {
        for (i = 0; i < t->nacc; ++i) {
            _skel_cdeps *d = t->acc[i].c->tasks;
            if ((t->acc[i].mode & _SKEL_READ) && d->status != SKEL_OK) break;
        }
        if (i == t->nacc) return t;
        {   /* an input failed: say which, and pass it on */
            const _skel_cdeps *d = t->acc[i].c->tasks;
            char msg[700];
            snprintf(msg, sizeof msg, "%s not run: an input was not computed: %s", _skel_tnode_label(t, label, sizeof label), d->why);
            t->status = SKEL_EDEPEND;
            if ((t->why = (char *)SKEL_MALLOC(strlen(msg) + 1)) != NULL) strcpy(t->why, msg);
            t->flags |= _SKEL_TR_NOTRUN;
            if (_skel_trace.on) {
                double now = _skel_now();
                _skel_trace_event(_SKEL_TR_TASK, p, -1, now, now, 0, t->flags, t->sk ? t->sk->name : t->ut.name);
            }
            if (t->place < 0) t->place = p;
            _skel_rt_finish(t, w, 0, 0);
        }
    }
    return NULL;
}

/* Free task t ran (mu not held): finish it.  One that succeeded is
   released first -- pending falls before mu is taken, so whoever waits for
   it goes on while its time and statistics are recorded, and readers of
   those wait for such records (_skel_rt_settle); a failure is recorded
   before the release (the locked path), as skel_wait_all returns it. */
static void _skel_rt_finish_free(_skel_tnode *t, _skel_rtw *w, double secs)
{
    int released = t->status == SKEL_OK;
    if (released) {
        _SKEL_ADD(&_skel_rt_sig.recording, 1);
        t->free_ = 2;
        _SKEL_ADD(&_skel_rt_sig.pending, -1);
    }
    _skel_rt_lock();
    _skel_rt_finish(t, w, secs, 1);
    _skel_rt_unlock();
    if (released) _SKEL_ADD(&_skel_rt_sig.recording, -1);
}

/* Wait (mu not held) until the records of released free tasks are in
   (a record takes well under a microsecond; at most a second, so that an
   exit with a worker stopped mid-record cannot hang). */
static void _skel_rt_settle(void)
{
    double end = 0;
    while (_SKEL_LOAD(&_skel_rt_sig.recording)) {
        if (end == 0) end = _skel_now() + 1;
        else if (_skel_now() > end) break;
        _SKEL_RT_PAUSE();
    }
}

/* A worker's loop: take tasks for its place while there are some, spin a
   little for more, then give its thread back to the pool.  A CPU worker
   takes free tasks from the ready ring without mu and holds mu only to
   finish them; it takes mu to look at the policy's queues only when
   something is queued there (or before it stops). */
static int _skel_rt_worker(void *arg)
{
    _skel_rtw *w = (_skel_rtw *)arg;
    _skel_tnode *t;
    int spun = 0, held = 1, host = w->place == 0, r;
    _skel_rt_self = w;
    if (_skel_trace.on) {
        if (w->place == 0) _skel_trace_lane("cpu worker %d", w->index);
        else _skel_trace_lane("gpu worker %s", _skel_place_name(w->place));
    }
    _skel_rt_lock();
    w->state = 2;
    for (;;) {
        double secs;
        unsigned seen = _SKEL_LOAD(&_skel_rt_sig.epoch);  /* before looking: a push after it changes it */
        t = host && !held ? (_skel_tnode *)_skel_ring_pop(&_skel_rt_ready) : NULL;   /* held: take looks */
        if (!t && (held || spun || _SKEL_LOAD(&_skel_rt_sig.queued))) {
            if (!held) { _skel_rt_lock(); held = 1; }
            t = _skel_rt_take(w, w->place);
            if (_skel_rt.deferred) {    /* the kick its finish left out: needed unless it took that task */
                _skel_rt.deferred = 0;
                if (!t || _SKEL_LOAD(&_skel_rt_sig.queued)) _skel_rt_kick(w->place);
            }
            if (!t && _skel_rt.unplaced.n) {    /* nothing to run: place the waiting calls when due */
                if (_skel_rt_place_due()) { _skel_rt_place_all(); spun = 0; continue; }
                spun = 0;       /* no stop while calls wait: it spins until they are due */
            }
            if (!t && spun) {
                if (_skel_rt_retire(w)) break;
                spun = 0;
                continue;
            }
        }
        if (!t) {
            if (held) { _skel_rt_unlock(); held = 0; }
            _SKEL_ADD(&_skel_rt_sig.idle[w->place], 1);
            r = _skel_rt_idle_wait(seen, host, &t);
            _SKEL_ADD(&_skel_rt_sig.idle[w->place], -1);
            if (r == 3) { _skel_rt_lock(); held = 1; spun = 0; continue; }
            if (r != 2) {
                held = r == 1;
                spun = r == 0;
                continue;
            }
        }
        spun = 0;
        if (held) { _skel_rt_unlock(); held = 0; }
        secs = _skel_rt_exec(t, w->place);
        if (t->free_) {
            _skel_rt_finish_free(t, w, secs);
            continue;
        }
        _skel_rt_lock();
        held = 1;
        _skel_rt.defer = w->place + 1;  /* it takes again at once: the first push for its place needs no kick */
        _skel_rt_finish(t, w, secs, 1);
        _skel_rt.defer = 0;
    }
    w->state = 0;
    _SKEL_STORE(&_skel_rt_sig.fin, _skel_rt_sig.fin + 1);
    if (_skel_rt.waiters) pthread_cond_broadcast(&_skel_rt_cv);
    _skel_rt_unlock();
    _skel_rt_self = NULL;
    return 0;
}

/* A waiting thread runs one ready task: the host's, else one of a GPU
   whose worker is not running.  1 if it ran one (mu held; released while
   the task runs). */
static int _skel_rt_help(void)
{
    _skel_tnode *t = NULL;
    int p = 0;
    double secs;
    if (!_skel_rt.configured) return 0;
    t = _skel_rt_take(NULL, 0);
    if (!t)
        for (p = 1; p < _skel_rt.nplaces; ++p)
            if (_skel_rt.w[_skel_rt.W + p].state != 2 && _skel_place_backend(p) >= 0 && (t = _skel_rt_take(NULL, p)) != NULL)
                break;
    if (!t) return 0;
    _skel_rt_unlock();
    secs = _skel_rt_exec(t, p);
    _skel_rt_lock();
    _skel_rt_finish(t, NULL, secs, 1);
    return 1;
}

/* A waiter (mu held) spins with mu released until a task finishes, a
   worker stops or a task is pushed: 1, mu held again.  After
   SKEL_POOL_SPIN_US with none: 0 (mu held).  A finish then costs the
   waiter a cache miss, not a futex wake-up. */
static int _skel_rt_watch(void)
{
#if _SKEL_POOL
    unsigned fin = _skel_rt_sig.fin, ep = _SKEL_LOAD(&_skel_rt_sig.epoch);
    double end = 0;
    int k;
    _skel_rt_unlock();
    for (;;) {
        for (k = 0; k < 64; ++k) {
            if (_SKEL_LOAD(&_skel_rt_sig.fin) != fin || _SKEL_LOAD(&_skel_rt_sig.epoch) != ep) {
                _skel_rt_lock();
                return 1;
            }
            _SKEL_PAUSE();
        }
        if (end == 0) end = _skel_now() + 1e-6 * SKEL_POOL_SPIN_US;
        else if (_skel_now() > end) break;
    }
    _skel_rt_lock();
#endif
    return 0;
}

/* Wait (mu held) until done(arg) holds, running ready tasks meanwhile:
   spin first (_skel_rt_watch), then sleep on the condition variable. */
static void _skel_rt_wait_until(int (*done)(void *arg), void *arg)
{
    double t0 = _skel_trace.on ? _skel_now() : 0;
    int spun = 0;
    while (_skel_rt_place_all(), !done(arg)) {     /* a wait places what waits to be placed */
        if (_skel_rt_help()) { spun = 0; continue; }
        if (done(arg)) break;
        if (!spun) { spun = !_skel_rt_watch(); continue; }    /* then look again */
        _skel_rt.waiters++;
        _SKEL_STORE(&_skel_rt_sig.held, 0);
        pthread_cond_wait(&_skel_rt_cv, &_skel_rt_mu);
        _SKEL_STORE(&_skel_rt_sig.held, 1);
        _skel_rt.waiters--;
        spun = 0;
    }
    if (t0 > 0 && _skel_now() - t0 > 1e-6) _skel_trace_event(_SKEL_TR_WAIT, 0, -1, t0, _skel_now(), 0, 0, "wait");
}

/* ---- configuration ---- */
static int _skel_pool_default_threads(void);

/* Parse a comma-separated list of places into use[]: SKEL_OK or SKEL_EINVAL. */
static int _skel_rt_places(const char *list, int *use)
{
    char name[64];
    const char *s = list;
    int p;
    memset(use, 0, sizeof(int) * _SKEL_RT_MAXP);
    if (!list || !*list) {
        for (p = 0; p < _skel_rt.nplaces; ++p) use[p] = _skel_place_backend(p) >= 0;
        return SKEL_OK;
    }
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n >= sizeof name || n == 0) return _skel_fail(SKEL_EINVAL, "scheduler: bad place list \"%s\"", list);
        memcpy(name, s, n);
        name[n] = 0;
        if ((p = _skel_place_find(name)) < 0)
            return _skel_fail(SKEL_EINVAL, "scheduler: no place \"%s\" here (places are host and the GPU backends present)", name);
        use[p] = 1;
        s += n + (s[n] == ',');
    }
    return SKEL_OK;
}

static void _skel_models_atexit(void) { skel_models_save(); }

/* Resolve desc (NULL: defaults) into the runtime (mu held, nothing pending). */
static int _skel_rt_configure(const skel_sched_desc *d)
{
    skel_sched_desc z;
    const char *pol, *places;
    const _skel_policy *P;
    int use[_SKEL_RT_MAXP], p, gpus = 0, W;
    memset(&z, 0, sizeof z);
    if (!d) d = &z;
    _skel_init();
    _skel_rt.nplaces = _skel_place_count();
    pol = d->policy ? d->policy : getenv("SKEL_SCHED");
    if (!(P = _skel_policy_find(pol && *pol ? pol : "dmda"))) {
        if (d->policy) return _skel_fail(SKEL_EINVAL, "scheduler: unknown policy \"%s\" (dmda, eager, ws, static)", pol);
        _skel_env_warn("SKEL_SCHED=\"%s\" is not a policy (dmda, eager, ws, static); using dmda", pol);
        P = _skel_policy_find("dmda");
    }
    places = d->places ? d->places : getenv("SKEL_PLACES");
    if (_skel_rt_places(places, use) != SKEL_OK) {
        if (d->places) return SKEL_EINVAL;
        _skel_env_warn("SKEL_PLACES=\"%s\": %s; using every place", places, _skel_errbuf);
        _skel_rt_places(NULL, use);
    }
    if (d->cpu_workers < 0 || d->cpu_workers > _SKEL_POOL_MAX - 1 || d->calibrate < 0 || d->alpha < 0 || d->beta < 0)
        return _skel_fail(SKEL_EINVAL, "scheduler: a negative or too large parameter");
    if (d->model_dir && strlen(d->model_dir) >= sizeof _skel_rt.model_dir)
        return _skel_fail(SKEL_EINVAL, "scheduler: model_dir is too long");
    for (p = 1; p < _skel_rt.nplaces; ++p) gpus += use[p];
    W = d->cpu_workers ? d->cpu_workers : _skel_pool_default_threads() - 1 - gpus;
    if (W < 1) W = 1;
    memcpy(_skel_rt.use, use, sizeof use);
    _skel_rt.pol = P;
    _skel_rt.W = W;
    for (p = 0; p < _SKEL_RT_MAXW; ++p) {
        _skel_rt.w[p].index = p < W ? p : 0;
        _skel_rt.w[p].place = p < W ? 0 : p - W;
    }
    _skel_rt.alpha = d->alpha > 0 ? d->alpha : 1;
    _skel_rt.beta = d->beta > 0 ? d->beta : 1;
    _skel_rt.lookahead = d->lookahead < 0 ? 0 : d->lookahead == 0 ? 64 : d->lookahead > 64 ? 64 : d->lookahead;
    _skel_rt.hold = !_SKEL_POOL || d->defer_us < 0 ? 0 : d->defer_us == 0 ? 5e-6 : d->defer_us > 1000000 ? 1 : 1e-6 * d->defer_us;
    _skel_rt.calibrate = d->calibrate > 0 ? d->calibrate : 10;
    _skel_rt.nofile = d->nofile;
    snprintf(_skel_rt.model_dir, sizeof _skel_rt.model_dir, "%s", d->model_dir ? d->model_dir : "");
    _skel_rt.st.policy = P->name;
    _skel_rt.configured = 1;
    _SKEL_STORE(&_skel_rt_sig.W, W);
    _SKEL_STORE(&_skel_rt_sig.gpus, gpus);
    _SKEL_STORE(&_skel_rt_sig.free_ok, use[0] && _skel_place_backend(0) >= 0);
    if (!_skel_rt.nofile && !_skel_rt.models_loaded) _skel_models_load_locked();
    if (!_skel_rt.atexit_done) { _skel_rt.atexit_done = 1; atexit(_skel_models_atexit); }
    return SKEL_OK;
}

static int _skel_rt_idle(void *arg) { (void)arg; return _SKEL_LOAD(&_skel_rt_sig.pending) == 0; }
static int _skel_rt_stopped(void *arg)
{
    int k;
    (void)arg;
    for (k = 0; k < _SKEL_RT_MAXW; ++k)
        if (_skel_rt.w[k].state != 0) return 0;
    return 1;
}

int skel_sched_set(const skel_sched_desc *desc)
{
    int rc;
    _skel_init();
    if (_skel_rt_cur) return _skel_fail(SKEL_EINVAL, "skel_sched_set: called from inside a task");
    _skel_rt_lock();
    _skel_rt_wait_until(_skel_rt_idle, NULL);
    _skel_rt_wait_until(_skel_rt_stopped, NULL);  /* workers return after SKEL_POOL_SPIN_US */
    rc = _skel_rt_configure(desc);
    _skel_rt_unlock();
    return rc;
}

/* ---- submission ---- */
/* A node for a call (checked) or a user task, with its scalars captured. */
static int _skel_tnode_new(skel_skeleton *sk, const skel_call *call, const skel_task_desc *ut, _skel_tnode **out)
{
    size_t ub = 0, eb = 0, ib = 0, wb = 0, size;
    _skel_shape sh;
    _skel_tnode *t;
    unsigned char *at;
    skel_call norm;
    int i, k;
    *out = NULL;
    if (sk) {
        size_t ie;
        _SKEL_TRY(_skel_call_norm(sk, call, &norm));   /* the task holds out == outs[0] */
        call = &norm;
        _SKEL_TRY(_skel_check(sk, call, &sh));
        ie = _skel_tsize(sk->nin ? sk->in_t[0] : sk->out_t[0]);
        ub = sk->has_uniform ? sk->uniform_size : 0;
        eb = call->edge_value ? ie : 0;
        ib = call->init ? _skel_tsize(sk->out_t[0]) : 0;
        wb = call->weights && sk->weighted ? (size_t)(2 * sk->dr + 1) * (size_t)(2 * sk->dc + 1) * ie : 0;
    } else {
        if (!ut) return _skel_fail(SKEL_EINVAL, "skel_task_submit: NULL task");
        if (!ut->name || !*ut->name) return _skel_fail(SKEL_EINVAL, "skel_task_submit: the task needs a name");
        if (!ut->cpu && !ut->gpu) return _skel_fail(SKEL_EINVAL, "task %s: neither cpu nor gpu is set", ut->name);
        for (i = 0; i < SKEL_TASK_MAX_DATA; ++i) {
            if (!ut->data[i] && ut->mode[i]) return _skel_fail(SKEL_EINVAL, "task %s: mode[%d] is set but data[%d] is NULL", ut->name, i, i);
            if (ut->data[i] && (ut->mode[i] < SKEL_READ || ut->mode[i] > SKEL_READ_WRITE))
                return _skel_fail(SKEL_EINVAL, "task %s: data[%d] has mode %d (SKEL_READ, SKEL_WRITE or SKEL_READ_WRITE)",
                                  ut->name, i, ut->mode[i]);
        }
    }
    size = sizeof *t + ub + eb + ib + wb + 32;
    if (!(t = _skel_tnode_alloc(size))) return _skel_fail(SKEL_ENOMEM, "skel_submit: out of memory");
    t->place = -1;
    if (sk) {
        t->sk = sk;
        t->call = *call;
        t->sh = sh;
        at = t->cap;
        if (ub) { memcpy(at, call->uniform, ub); t->call.uniform = at; at += (ub + 7) & ~(size_t)7; }
        if (eb) { memcpy(at, call->edge_value, eb); t->call.edge_value = at; at += 8; }
        if (ib) { memcpy(at, call->init, ib); t->call.init = at; at += 8; }
        if (wb) { memcpy(at, call->weights, wb); t->call.weights = at; }
        for (i = 0; i < sk->nin; ++i) if (call->in[i]) t->acc[t->nacc++].c = call->in[i], t->acc[t->nacc - 1].mode = _SKEL_READ;
        for (i = 0; i < sk->nview; ++i) if (call->views[i]) t->acc[t->nacc++].c = call->views[i], t->acc[t->nacc - 1].mode = _SKEL_READ;
        for (i = 0; i < sk->nout; ++i) if (call->outs[i]) t->acc[t->nacc++].c = call->outs[i], t->acc[t->nacc - 1].mode = _SKEL_WRITE;
    } else {
        t->ut = *ut;
        for (i = 0; i < SKEL_TASK_MAX_DATA; ++i)
            if (ut->data[i]) t->acc[t->nacc].c = ut->data[i], t->acc[t->nacc++].mode = ut->mode[i];
        if (!t->ut.size) t->ut.size = t->nacc ? ut->data[0]->n : 0;
    }
    for (i = 0; i < t->nacc; ++i)       /* one access per container: the union of the modes */
        for (k = i + 1; k < t->nacc; ++k)
            if (t->acc[k].c == t->acc[i].c) {
                t->acc[i].mode |= t->acc[k].mode;
                t->acc[k--] = t->acc[--t->nacc];
            }
    _skel_tnode_key(t);
    *out = t;
    return SKEL_OK;
}

/* Relocate the captured scalars of a copy of t. */
static _skel_tnode *_skel_tnode_copy(const _skel_tnode *t)
{
    _skel_tnode *c = _skel_tnode_alloc(t->bytes), **succ;
    ptrdiff_t d;
    int cap;
    if (!c) return NULL;
    succ = c->succ;
    cap = c->capsucc;
    memcpy(c, t, t->bytes);
    d = (const unsigned char *)c - (const unsigned char *)t;
#define _SKEL_RELOC(f) if (t->call.f && (const unsigned char *)t->call.f >= t->cap && \
                           (const unsigned char *)t->call.f < (const unsigned char *)t + t->bytes) \
                           c->call.f = (const unsigned char *)t->call.f + d
    _SKEL_RELOC(uniform); _SKEL_RELOC(edge_value); _SKEL_RELOC(init); _SKEL_RELOC(weights);
#undef _SKEL_RELOC
    c->succ = succ; c->capsucc = cap; c->nsucc = 0; c->why = NULL; c->has_ahead = 0;
    return c;
}

/* Submit node t (mu held, configured): link it and push it if ready. */
static int _skel_rt_submit_locked(_skel_tnode *t)
{
    int i, rc;
    for (i = 0; i < t->nacc; ++i)
        if (!_skel_cdeps_of(t->acc[i].c)) return _skel_fail(SKEL_ENOMEM, "skel_submit: out of memory");
    if (_skel_rt_sole_place(t) == -2) {
        char label[160];
        return _skel_fail(SKEL_EBACKEND, "%s: no place in use can run it (a task without cpu needs a GPU place)",
                          _skel_tnode_label(t, label, sizeof label));
    }
    if ((rc = _skel_rt_reserve(t)) != SKEL_OK) return _skel_fail(rc, "skel_submit: out of memory");
    t->id = _SKEL_ADD(&_skel_rt_sig.next_id, 1);
    _skel_rt_link(t);
    _SKEL_ADD(&_skel_rt_sig.pending, 1);
    if (t->npred == 0 && !_skel_rt_hold(t)) _skel_rt.pol->push(t, _skel_rt_self);
    else if (_skel_rt.unplaced.n) { _skel_rt_push_due(_skel_now()); _skel_rt_place_seen(); }
    return SKEL_OK;
}

/* A thread that is not a worker runs the oldest free task, if any, and
   finishes it (mu not held): 1 if it ran one. */
static int _skel_rt_help_free(void)
{
    _skel_tnode *t = (_skel_tnode *)_skel_ring_pop(&_skel_rt_ready);
    if (!t) return 0;
    _skel_rt_finish_free(t, NULL, _skel_rt_exec(t, 0));
    return 1;
}

/* A free task -- a user task without containers, of no farm, that only
   the host can run -- follows nothing and nothing follows it, and every
   policy would queue it for the host's CPU workers: it goes to the ready
   ring without mu, and a worker (or a waiting thread) takes it from
   there without mu; only its finish takes mu (history, statistics,
   failures, waiters).  1 if t went there; 0: take the locked path (not
   free, or the scheduler not configured yet).  A submitter that finds the
   ring full runs the oldest free task itself meanwhile.  A worker
   is started (under mu) only when not every CPU worker is: the push, a
   full fence, then the read of that count, against a stopping worker's
   write of it, a full fence, then its look at the ring (_skel_rt_retire):
   one of the two sees the other's write, so a free task never waits for a
   worker that has gone. */
static int _skel_rt_submit_free(_skel_tnode *t)
{
#if _SKEL_POOL
    if (t->sk || t->nacc || t->farm || !t->ut.cpu || !_SKEL_LOAD(&_skel_rt_sig.free_ok) ||
        (t->ut.gpu && _SKEL_LOAD(&_skel_rt_sig.gpus))) return 0;
    t->id = _SKEL_ADD(&_skel_rt_sig.next_id, 1);
    t->place = 0; t->pred = -1; t->width = 1; t->free_ = 1;
    t->flags |= _SKEL_TR_FALLBACK;
    _SKEL_ADD(&_skel_rt_sig.pending, 1);     /* before anyone can finish it */
    while (!_skel_ring_push(&_skel_rt_ready, t))
        if (!_skel_rt_help_free()) _SKEL_PAUSE();
    _SKEL_ADD(&_skel_rt_sig.epoch, 1u);
    _SKEL_FENCE_RMW();
    if (_SKEL_LOAD(&_skel_rt_sig.hosts) >= _SKEL_LOAD(&_skel_rt_sig.W)) return 1;
    _skel_rt_lock();
    _skel_rt_start(0);          /* not kick: spinning workers may all be taken by the tasks before */
    _skel_rt_unlock();
    return 1;
#else
    (void)t;
    return 0;
#endif
}

static int _skel_rt_submit(_skel_tnode *t)
{
    int rc = SKEL_OK;
    if (_skel_rt_submit_free(t)) return SKEL_OK;
    _skel_rt_lock();
    if (!_skel_rt.configured) rc = _skel_rt_configure(NULL);
    if (rc == SKEL_OK) rc = _skel_rt_submit_locked(t);
    _skel_rt_unlock();
    if (rc != SKEL_OK) _skel_tnode_free(t);
    return rc;
}

int skel_submit(skel_skeleton *sk, const skel_call *call)
{
    _skel_tnode *t;
    _skel_init();
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_submit: NULL skeleton instance");
    if (_skel_rt_cur || !_SKEL_POOL) return skel_run(sk, call);    /* inside a task: at once */
    _SKEL_TRY(_skel_tnode_new(sk, call, NULL, &t));
    return _skel_rt_submit(t);
}

int skel_task_submit(const skel_task_desc *task)
{
    _skel_tnode *t;
    _skel_init();
    _SKEL_TRY(_skel_tnode_new(NULL, NULL, task, &t));
    if (_skel_rt_cur || !_SKEL_POOL) {     /* inside a task: at once, here */
        int rc = task->cpu ? task->cpu(task->data, task->arg) : task->gpu(task->data, task->arg);
        _skel_tnode_free(t);
        return rc;
    }
    return _skel_rt_submit(t);
}

/* ---- waits ---- */
typedef struct { skel_vec *c; int mode; } _skel_rt_cw;
static int _skel_rt_settled(void *arg)
{
    const _skel_rt_cw *w = (const _skel_rt_cw *)arg;
    const _skel_cdeps *d = w->c->tasks;
    return w->mode & _SKEL_WRITE ? d->pending == 0 : d->writer == NULL;
}

/* Host access to c with mode: wait for what is pending on it (its writer;
   for a write, its readers too).  SKEL_OK, or c's failure (said in
   skel_last_error). */
static int _skel_tasks_settle(skel_vec *c, int mode)
{
    _skel_cdeps *d = _SKEL_LOAD(&c->tasks);
    _skel_rt_cw w;
    int rc;
    if (!d || _skel_rt_cur) return SKEL_OK;
    if (_SKEL_LOAD(&d->pending) == 0 && _SKEL_LOAD(&d->status) == SKEL_OK) return SKEL_OK;
    w.c = c; w.mode = mode;
    _skel_rt_lock();
    _skel_rt_wait_until(_skel_rt_settled, &w);
    rc = d->status;
    if (rc != SKEL_OK) snprintf(_skel_errbuf, sizeof _skel_errbuf, "%s", d->why);
    _skel_rt_unlock();
    return rc;
}

/* c was overwritten by the host or a call that succeeded: no longer failed. */
static void _skel_tasks_clear(skel_vec *c)
{
    _skel_cdeps *d = _SKEL_LOAD(&c->tasks);
    if (!d || _SKEL_LOAD(&d->status) == SKEL_OK) return;
    _skel_rt_lock();
    _SKEL_STORE(&d->status, SKEL_OK);
    _skel_rt_unlock();
}

/* skel_free: wait for everything on c, then drop its task state. */
static void _skel_tasks_forget(skel_vec *c)
{
    _skel_cdeps *d = _SKEL_LOAD(&c->tasks);
    if (!d) return;
    _skel_tasks_settle(c, _SKEL_READWRITE);
    SKEL_FREE(d->readers);
    SKEL_FREE(d);
}

/* Before skel_wait_all takes mu: while nothing is queued for the
   policies, run the free tasks in the ready ring and spin for the others
   to finish, up to SKEL_POOL_SPIN_US after the last one ran: a waiter
   that held mu meanwhile made every worker's finish wait for it. */
static void _skel_rt_wait_free(void)
{
#if _SKEL_POOL
    double end = 0;
    int k;
    for (;;) {
        for (k = 0; k < 64; ++k) {
            if (!_SKEL_LOAD(&_skel_rt_sig.pending) || _SKEL_LOAD(&_skel_rt_sig.queued) || _SKEL_LOAD(&_skel_rt_sig.unplaced))
                return;
            if (_skel_rt_help_free()) { end = 0; k = 0; }
            else _SKEL_PAUSE();
        }
        if (end == 0) end = _skel_now() + 1e-6 * SKEL_POOL_SPIN_US;
        else if (_skel_now() > end) return;
    }
#endif
}

/* skel_wait_all: every task finished; the first failure since the last call. */
static int _skel_tasks_wait_all(void)
{
    int rc;
    if (_skel_rt_cur) return SKEL_OK;
    _skel_rt_wait_free();
    if (_SKEL_LOAD(&_skel_rt_sig.pending) == 0 && _SKEL_LOAD(&_skel_rt.first_status) == SKEL_OK) return SKEL_OK;
    _skel_rt_lock();
    _skel_rt_wait_until(_skel_rt_idle, NULL);
    rc = _skel_rt.first_status;
    if (rc != SKEL_OK) snprintf(_skel_errbuf, sizeof _skel_errbuf, "%s", _skel_rt.first_why);
    _SKEL_STORE(&_skel_rt.first_status, SKEL_OK);
    _skel_rt_unlock();
    return rc;
}

/* ---- the Farm ---- */
struct skel_farm {
    _skel_tnode **m;            /* the members as added (templates, never submitted) */
    int n, cap;
    int pending;                /* rt mu: members started and not finished */
    int started;                /* rt mu */
    int status;                 /* rt mu: the first failure of this run */
    char why[600];
};

static void _skel_farm_done(struct skel_farm *f, const _skel_tnode *t)
{
    if (t->status != SKEL_OK && f->status == SKEL_OK) {
        f->status = t->status;
        snprintf(f->why, sizeof f->why, "%s", t->why ? t->why : skel_error_string(t->status));
    }
    f->pending--;
}

int skel_farm_new(skel_farm **f)
{
    if (!f) return _skel_fail(SKEL_EINVAL, "skel_farm_new: NULL result pointer");
    if (!(*f = (skel_farm *)SKEL_MALLOC(sizeof **f))) return _skel_fail(SKEL_ENOMEM, "skel_farm_new: out of memory");
    memset(*f, 0, sizeof **f);
    return SKEL_OK;
}

static int _skel_farm_add(skel_farm *f, _skel_tnode *t)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 8;
        _skel_tnode **q = (_skel_tnode **)SKEL_REALLOC(f->m, (size_t)cap * sizeof *q);
        if (!q) { _skel_tnode_free(t); return _skel_fail(SKEL_ENOMEM, "skel_farm: out of memory"); }
        f->m = q;
        f->cap = cap;
    }
    f->m[f->n++] = t;
    return SKEL_OK;
}

int skel_farm_call(skel_farm *f, skel_skeleton *sk, const skel_call *call)
{
    _skel_tnode *t;
    _skel_init();
    if (!f) return _skel_fail(SKEL_EINVAL, "skel_farm_call: NULL farm");
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_farm_call: NULL skeleton instance");
    _SKEL_TRY(_skel_tnode_new(sk, call, NULL, &t));
    return _skel_farm_add(f, t);
}

int skel_farm_task(skel_farm *f, const skel_task_desc *task)
{
    _skel_tnode *t;
    _skel_init();
    if (!f) return _skel_fail(SKEL_EINVAL, "skel_farm_task: NULL farm");
    _SKEL_TRY(_skel_tnode_new(NULL, NULL, task, &t));
    return _skel_farm_add(f, t);
}

static int _skel_farm_idle(void *arg) { return ((skel_farm *)arg)->pending == 0; }

int skel_farm_start(skel_farm *f)
{
    int i, rc = SKEL_OK;
    if (!f) return _skel_fail(SKEL_EINVAL, "skel_farm_start: NULL farm");
    _skel_init();
    if (_skel_rt_cur) return _skel_fail(SKEL_EINVAL, "skel_farm_start: called from inside a task");
    _skel_rt_lock();
    if (f->started) {
        _skel_rt_unlock();
        return _skel_fail(SKEL_EINVAL, "skel_farm_start: the farm runs already (join it first)");
    }
    if (!_skel_rt.configured) rc = _skel_rt_configure(NULL);
    f->status = SKEL_OK;
    f->why[0] = 0;
    f->started = 1;
    for (i = 0; rc == SKEL_OK && i < f->n; ++i) {
        _skel_tnode *t = _skel_tnode_copy(f->m[i]);
        if (!t) { rc = _skel_fail(SKEL_ENOMEM, "skel_farm_start: out of memory"); break; }
        t->farm = f;
        f->pending++;
        if ((rc = _skel_rt_submit_locked(t)) != SKEL_OK) { f->pending--; _skel_tnode_free(t); }
    }
    _skel_rt_place_all();       /* the members are all there: nothing to wait for */
    _skel_rt_unlock();
    return rc;
}

int skel_farm_join(skel_farm *f)
{
    int rc;
    if (!f) return _skel_fail(SKEL_EINVAL, "skel_farm_join: NULL farm");
    if (_skel_rt_cur) return _skel_fail(SKEL_EINVAL, "skel_farm_join: called from inside a task");
    _skel_rt_lock();
    _skel_rt_wait_until(_skel_farm_idle, f);
    f->started = 0;
    rc = f->status;
    if (rc != SKEL_OK) snprintf(_skel_errbuf, sizeof _skel_errbuf, "farm: %s", f->why);
    _skel_rt_unlock();
    return rc;
}

int skel_farm_run(skel_farm *f)
{
    int rc, rj;
    if (!f) return _skel_fail(SKEL_EINVAL, "skel_farm_run: NULL farm");
    rc = skel_farm_start(f);
    if (rc != SKEL_OK && !f->started) return rc;
    rj = skel_farm_join(f);
    return rc != SKEL_OK ? rc : rj;
}

void skel_farm_free(skel_farm *f)
{
    int i;
    if (!f) return;
    if (f->started) skel_farm_join(f);
    for (i = 0; i < f->n; ++i) _skel_tnode_free(f->m[i]);
    SKEL_FREE(f->m);
    SKEL_FREE(f);
}

/* ---- statistics ---- */
void skel_sched_stats_get(skel_sched_stats *out)
{
    int a, b;
    if (!out) return;
    _skel_rt_settle();          /* the records of free tasks released before them */
    _skel_rt_lock();
    *out = _skel_rt.st;
    _skel_rt_unlock();
    out->places = _SKEL_LOAD(&_skel_nspaces);
    for (a = 0; a < out->places && a < 16; ++a) {
        out->place_name[a] = _skel_spaces[a].name;
        for (b = 0; b < out->places && b < 16; ++b) out->bytes[a][b] = _SKEL_LOAD(&_skel_copied_bytes[a][b]);
    }
    if (!out->policy) out->policy = "dmda";
}

void skel_sched_stats_reset(void)
{
    int a, b;
    _skel_rt_settle();          /* the records of free tasks released before them */
    _skel_rt_lock();
    memset(&_skel_rt.st, 0, sizeof _skel_rt.st);
    _skel_rt.st.policy = _skel_rt.pol ? _skel_rt.pol->name : NULL;
    _skel_rt_unlock();
    for (a = 0; a < _SKEL_MAX_SPACES; ++a)
        for (b = 0; b < _SKEL_MAX_SPACES; ++b) _SKEL_STORE(&_skel_copied_bytes[a][b], 0);
}

/* Tests: the history model's prediction for the model named name ("task
   x", "Map scale") at place, footprint (a, b); -1 when it has none. */
double _skel_models_predict(const char *name, const char *place, uint64_t a, uint64_t b)
{
    uint64_t fp[2];
    double t = -1;
    int i;
    fp[0] = a; fp[1] = b;
    _skel_rt_settle();          /* the records of free tasks released before them */
    _skel_rt_lock();
    for (i = 0; i < _skel_rt.nmodels; ++i)
        if (strcmp(_skel_rt.models[i].name, name) == 0 && strcmp(_skel_rt.models[i].place, place) == 0)
            t = _skel_hist_predict(&_skel_rt.models[i], fp, _skel_rt.calibrate);
    _skel_rt_unlock();
    return t;
}

/* Tests: one measured time of user task `name` at place, footprint (a, 1),
   as a run there would record it; 1 if taken, 0 if left out (outlier). */
int _skel_models_add(const char *name, const char *place, uint64_t a, double seconds)
{
    _skel_tnode t;
    const _skel_hmodel *m;
    const _skel_hent *e;
    uint64_t before;
    int p = _skel_place_find(place);
    if (p < 0) return 0;
    memset(&t, 0, sizeof t);
    t.ut.name = name;
    t.ut.size = (size_t)a;
    t.place = p;
    _skel_tnode_key(&t);
    _skel_rt_lock();
    m = _skel_hist_find(t.key, _skel_place_name(p), 0, NULL);
    before = m && (e = _skel_hist_entry((_skel_hmodel *)m, t.fp, 0)) ? e->total : 0;
    _skel_hist_record(&t, seconds);
    m = _skel_hist_find(t.key, _skel_place_name(p), 0, NULL);
    e = m ? _skel_hist_entry((_skel_hmodel *)m, t.fp, 0) : NULL;
    p = e && e->total > before;
    _skel_rt_unlock();
    return p;
}

/* Tests: forget every model and link, as a new process starts (the next
   skel_sched_set that uses the file reads it again). */
void _skel_models_forget(void)
{
    int i;
    _skel_rt_settle();
    _skel_rt_lock();
    for (i = 0; i < _skel_rt.nmodels; ++i) SKEL_FREE(_skel_rt.models[i].e);
    SKEL_FREE(_skel_rt.models);
    _skel_rt.models = NULL;
    _skel_rt.nmodels = _skel_rt.capmodels = _skel_rt.nlinks = 0;
    _skel_rt.models_loaded = 0;
    _skel_rt_unlock();
}

/* ---- transfer model: one measurement per link ---- */
/* The seconds of one copy of bytes host <-> space p (to_dev: host -> p). */
static double _skel_link_time(int p, void *dev, void *host, size_t bytes, int to_dev)
{
    double best = -1, t0, t;
    int k;
    for (k = 0; k < 3; ++k) {
        t0 = _skel_now();
        if ((to_dev ? _skel_spaces[p].upload(_skel_spaces[p].ctx, dev, 0, host, bytes)
                    : _skel_spaces[p].download(_skel_spaces[p].ctx, host, dev, 0, bytes)) != SKEL_OK) return -1;
        t = _skel_now() - t0;
        if (best < 0 || t < best) best = t;
    }
    return best;
}

/* The link from -> to (one of them the host), measured on first use (mu held). */
static const _skel_link *_skel_link_get(int from, int to)
{
    const size_t small = 4096, big = (size_t)16 << 20;
    const char *a = _skel_place_name(from), *b = _skel_place_name(to);
    int i, p = from ? from : to;
    void *dev = NULL, *host;
    double ts, tb, bw, lat;
    _skel_link *l;
    for (i = 0; i < _skel_rt.nlinks; ++i)
        if (strcmp(_skel_rt.links[i].from, a) == 0 && strcmp(_skel_rt.links[i].to, b) == 0) return &_skel_rt.links[i];
    if (p == 0 || (from && to) || _skel_rt.nlinks == 2 * _SKEL_RT_MAXP) return NULL;
    if (!(host = SKEL_MALLOC(big))) return NULL;
    memset(host, 1, big);
    if (_skel_spaces[p].alloc(_skel_spaces[p].ctx, big, &dev) != SKEL_OK) { SKEL_FREE(host); return NULL; }
    /* as the space would serve a container of this size copied again and
       again: page-locked where its rule locks one (CUDA, SKEL_CUDA_PINNED) */
    if (_skel_spaces[p].pin) _skel_spaces[p].pin(_skel_spaces[p].ctx, dev, host, big);
    ts = _skel_link_time(p, dev, host, small, to != 0);
    tb = _skel_link_time(p, dev, host, big, to != 0);
    _skel_spaces[p].release(_skel_spaces[p].ctx, dev);
    SKEL_FREE(host);
    if (ts < 0 || tb < 0) return NULL;
    bw = tb > ts ? (double)(big - small) / (tb - ts) : (double)big / tb;
    lat = ts - (double)small / bw;
    l = &_skel_rt.links[_skel_rt.nlinks++];
    snprintf(l->from, sizeof l->from, "%s", a);
    snprintf(l->to, sizeof l->to, "%s", b);
    l->lat = lat > 0 ? lat : 0;
    l->bw = bw;
    _skel_rt.models_dirty = 1;
    _skel_log(SKEL_LOG_INFO, "transfer model %s -> %s: %.1f us + %.2f GB/s", a, b, 1e6 * l->lat, 1e-9 * l->bw);
    return l;
}

int _skel_link_cost(int from, int to, size_t bytes, double *t)
{
    const _skel_link *l = _skel_link_get(from, to);
    if (!l) return SKEL_EDEVICE;
    *t = l->lat + (double)bytes / l->bw;
    return SKEL_OK;
}

/* ---- the models file ----
   <plan folder>/skel.models, framed like plan files (_skel_file_begin):
   "SKELMODL" u32 version (1) u32 flags (0) u64 payload bytes
     str fingerprint (as plans)
     u32 links; each: str from, str to, f64 latency s, f64 bytes/s
     u32 models; each: u64 key, str name, str place, u32 entries; each:
       u64 fp[2], u32 n (<= 16), next, rejected, u64 total, f64 median,
       f64 sample[n]
   u64 FNV-1a.  A file of another machine is not used (the models are
   learned again); a bad one is reported and ignored. */
#define _SKEL_MODEL_MAGIC "SKELMODL"
#define _SKEL_MODEL_VERSION 1u

int skel_models_path(const char *dir, char *buf, size_t size)
{
    char *slash;
    if (!buf) return _skel_fail(SKEL_EINVAL, "skel_models_path: NULL buffer");
    _SKEL_TRY(skel_plan_path("skel", dir && *dir ? dir : NULL, buf, size));
    slash = strrchr(buf, '/');
    slash = slash ? slash + 1 : buf;
    if ((size_t)(slash - buf) + sizeof "skel.models" > size) return _skel_fail(SKEL_EINVAL, "skel_models_path: path too long");
    strcpy(slash, "skel.models");
    return SKEL_OK;
}

/* The models as a file image (mu held). */
static int _skel_models_serialize(_skel_buf *b)
{
    char *fp = _skel_fingerprint();
    int i, k, j;
    if (!fp) return SKEL_ENOMEM;
    _skel_file_begin(b, _SKEL_MODEL_MAGIC, _SKEL_MODEL_VERSION);
    _skel_put_str(b, fp);
    SKEL_FREE(fp);
    _skel_put_u32(b, (uint32_t)_skel_rt.nlinks);
    for (i = 0; i < _skel_rt.nlinks; ++i) {
        _skel_put_str(b, _skel_rt.links[i].from);
        _skel_put_str(b, _skel_rt.links[i].to);
        _skel_put_f64(b, _skel_rt.links[i].lat);
        _skel_put_f64(b, _skel_rt.links[i].bw);
    }
    _skel_put_u32(b, (uint32_t)_skel_rt.nmodels);
    for (i = 0; i < _skel_rt.nmodels; ++i) {
        const _skel_hmodel *m = &_skel_rt.models[i];
        _skel_put_u64(b, m->key);
        _skel_put_str(b, m->name);
        _skel_put_str(b, m->place);
        _skel_put_u32(b, (uint32_t)m->ne);
        for (k = 0; k < m->ne; ++k) {
            const _skel_hent *e = &m->e[k];
            _skel_put_u64(b, e->fp[0]);
            _skel_put_u64(b, e->fp[1]);
            _skel_put_u32(b, (uint32_t)e->n);
            _skel_put_u32(b, (uint32_t)e->next);
            _skel_put_u32(b, (uint32_t)e->rejected);
            _skel_put_u64(b, e->total);
            _skel_put_f64(b, e->median);
            for (j = 0; j < e->n; ++j) _skel_put_f64(b, e->s[j]);
        }
    }
    return _skel_file_end(b);
}

/* Models read from a file (the dump's view as well as the scheduler's). */
typedef struct _skel_mfile {
    char fingerprint[4096];
    _skel_link links[2 * _SKEL_RT_MAXP];
    int nlinks;
    _skel_hmodel *models;
    int nmodels;
} _skel_mfile;

static void _skel_mfile_free(_skel_mfile *f)
{
    int i;
    for (i = 0; i < f->nmodels; ++i) SKEL_FREE(f->models[i].e);
    SKEL_FREE(f->models);
    f->models = NULL;
    f->nmodels = 0;
}

static int _skel_models_parse(const unsigned char *buf, size_t len, _skel_mfile *f, char *why, size_t whylen)
{
    _skel_rd r;
    uint32_t n, i, k, j, version;
    memset(f, 0, sizeof *f);
    if (_skel_file_check(buf, len, _SKEL_MODEL_MAGIC, _SKEL_MODEL_VERSION, "models", &r, &version, why, whylen)) return SKEL_EFORMAT;
#define _SKEL_MBAD(...) do { snprintf(why, whylen, __VA_ARGS__); _skel_mfile_free(f); return SKEL_EFORMAT; } while (0)
    _skel_get_str(&r, f->fingerprint, sizeof f->fingerprint);
    n = _skel_get_u32(&r);
    if (r.bad || n > 2 * _SKEL_RT_MAXP) _SKEL_MBAD("bad link count");
    for (i = 0; i < n; ++i) {
        _skel_link *l = &f->links[i];
        _skel_get_str(&r, l->from, sizeof l->from);
        _skel_get_str(&r, l->to, sizeof l->to);
        l->lat = _skel_get_f64(&r);
        l->bw = _skel_get_f64(&r);
        if (r.bad || !(l->lat >= 0 && l->lat < 10) || !(l->bw > 0 && l->bw < 1e15)) _SKEL_MBAD("bad link %u", i);
    }
    f->nlinks = (int)n;
    n = _skel_get_u32(&r);
    if (r.bad || n > 100000 || (size_t)n * 20 > r.len - r.pos) _SKEL_MBAD("bad model count");
    if (n && !(f->models = (_skel_hmodel *)SKEL_MALLOC(n * sizeof *f->models))) _SKEL_MBAD("out of memory");
    if (n) memset(f->models, 0, n * sizeof *f->models);
    f->nmodels = (int)n;
    for (i = 0; i < n; ++i) {
        _skel_hmodel *m = &f->models[i];
        m->key = _skel_get_u64(&r);
        _skel_get_str(&r, m->name, sizeof m->name);
        _skel_get_str(&r, m->place, sizeof m->place);
        m->ne = m->cap = (int)_skel_get_u32(&r);
        if (r.bad || m->ne < 0 || m->ne > 1000000 || (size_t)m->ne * 48 > r.len - r.pos) _SKEL_MBAD("model %u: bad entry count", i);
        if (m->ne && !(m->e = (_skel_hent *)SKEL_MALLOC((size_t)m->ne * sizeof *m->e))) _SKEL_MBAD("out of memory");
        if (m->ne) memset(m->e, 0, (size_t)m->ne * sizeof *m->e);
        for (k = 0; k < (uint32_t)m->ne; ++k) {
            _skel_hent *e = &m->e[k];
            e->fp[0] = _skel_get_u64(&r);
            e->fp[1] = _skel_get_u64(&r);
            e->size = (double)e->fp[0] * (double)e->fp[1];
            e->n = (int)_skel_get_u32(&r);
            e->next = (int)_skel_get_u32(&r);
            e->rejected = (int)_skel_get_u32(&r);
            e->total = _skel_get_u64(&r);
            e->median = _skel_get_f64(&r);
            if (r.bad || e->n < 0 || e->n > _SKEL_HIST_RING || e->next < 0 || e->next >= _SKEL_HIST_RING ||
                (k && e->size < m->e[k - 1].size))
                _SKEL_MBAD("model %u (%s): bad entry %u", i, m->name, k);
            for (j = 0; j < (uint32_t)e->n; ++j) {
                e->s[j] = _skel_get_f64(&r);
                if (!(e->s[j] >= 0 && e->s[j] < 1e6)) _SKEL_MBAD("model %u (%s): bad time", i, m->name);
            }
            if (e->n && e->median != _skel_median(e->s, e->n)) _SKEL_MBAD("model %u (%s): median does not match its samples", i, m->name);
        }
    }
    if (r.bad) _SKEL_MBAD("truncated");
    if (r.pos != r.len) _SKEL_MBAD("%zu unexpected bytes at the end", r.len - r.pos);
#undef _SKEL_MBAD
    return SKEL_OK;
}

static int _skel_models_read(const char *path, _skel_mfile *f)
{
    unsigned char *buf;
    size_t len;
    char why[256];
    int rc = _skel_load_file(path, (size_t)256 << 20, &buf, &len, why, sizeof why);
    if (rc != SKEL_OK) return _skel_fail(rc, "models file %s: %s", path, why);
    rc = _skel_models_parse(buf, len, f, why, sizeof why);
    SKEL_FREE(buf);
    return rc == SKEL_OK ? SKEL_OK : _skel_fail(rc, "models file %s: %s", path, why);
}

/* Add the links and models of file f that the scheduler has not learned
   itself (under .nofile, before the file was read) and free f: what was
   learned in this process is newer than the file (mu held). */
static void _skel_models_merge(_skel_mfile *f)
{
    int i, k;
    for (i = 0; i < f->nlinks && _skel_rt.nlinks < 2 * _SKEL_RT_MAXP; ++i) {
        for (k = 0; k < _skel_rt.nlinks; ++k)
            if (strcmp(_skel_rt.links[k].from, f->links[i].from) == 0 && strcmp(_skel_rt.links[k].to, f->links[i].to) == 0) break;
        if (k == _skel_rt.nlinks) _skel_rt.links[_skel_rt.nlinks++] = f->links[i];
    }
    for (i = 0; i < f->nmodels; ++i) {
        _skel_hmodel *m = &f->models[i], *have = _skel_hist_find(m->key, m->place, 0, NULL);
        if (!have && (have = _skel_hist_find(m->key, m->place, 1, m->name)) != NULL) {
            *have = *m;             /* the entries move over */
            m->e = NULL;
        }
    }
    _skel_mfile_free(f);
}

/* Load this machine's models once, when the scheduler starts (mu held). */
static int _skel_models_load_locked(void)
{
    char path[4200];
    _skel_mfile f;
    char *fp;
    int rc;
    _skel_rt.models_loaded = 1;
    if (skel_models_path(_skel_rt.model_dir, path, sizeof path) != SKEL_OK) return SKEL_EINVAL;
    if (access(path, F_OK) != 0) return SKEL_OK;
    if ((rc = _skel_models_read(path, &f)) != SKEL_OK) {
        _skel_log(SKEL_LOG_WARN, "%s; learning the models again", _skel_errbuf);
        return rc;
    }
    fp = _skel_fingerprint();
    if (!fp || strcmp(fp, f.fingerprint) != 0) {
        _skel_log(SKEL_LOG_INFO, "models file %s is of another machine; learning the models again", path);
        _skel_mfile_free(&f);
        SKEL_FREE(fp);
        return SKEL_OK;
    }
    SKEL_FREE(fp);
    _skel_log(SKEL_LOG_INFO, "models file %s: %d links, %d models", path, f.nlinks, f.nmodels);
    _skel_models_merge(&f);
    return SKEL_OK;
}

int skel_models_save(void)
{
    char path[4200];
    _skel_buf b;
    int rc;
    _skel_rt_settle();          /* the records of free tasks released before them */
    _skel_rt_lock();
    if (!_skel_rt.configured || _skel_rt.nofile || (!_skel_rt.models_dirty && !_skel_rt.nmodels)) {
        _skel_rt_unlock();
        return SKEL_OK;
    }
    rc = skel_models_path(_skel_rt.model_dir, path, sizeof path);
    if (rc == SKEL_OK && (rc = _skel_models_serialize(&b)) != SKEL_OK) rc = _skel_fail(rc, "skel_models_save: out of memory");
    if (rc == SKEL_OK) _skel_rt.models_dirty = 0;
    _skel_rt_unlock();
    if (rc != SKEL_OK) return rc;
    if ((rc = _skel_mkdirs_for(path)) == SKEL_OK) rc = _skel_write_atomic(path, b.p, b.len, NULL, 0, 1);
    SKEL_FREE(b.p);
    return rc;
}

/* ---- showing models (skel_plan's --models) ---- */
/* A plan file's measured points as models: per place, at every measured
   point, the best per-call time R of that place's variants. */
static int _skel_plan_models(const skel_plan *p, _skel_mfile *f)
{
    const _skel_tree *t = p->tree;
    char places[_SKEL_RT_MAXP][32];
    int np = 0, i, k, v, pl;
    memset(f, 0, sizeof *f);
    snprintf(f->fingerprint, sizeof f->fingerprint, "%s", t->fingerprint);
    for (v = 0; v < t->nvar; ++v) {     /* places by backend: CPU variants are the host */
        const char *b = t->vars[v].backend;
        const char *pn = strcmp(b, "seq") == 0 || strcmp(b, "omp") == 0 || strcmp(b, "pool") == 0 ||
                         strcmp(b, "cuda-check") == 0 ? "host" : b;
        for (k = 0; k < np && strcmp(places[k], pn) != 0; ++k) {}
        if (k == np && np < _SKEL_RT_MAXP) snprintf(places[np++], sizeof places[0], "%.31s", pn);
    }
    if (!(f->models = (_skel_hmodel *)SKEL_MALLOC((size_t)(np ? np : 1) * sizeof *f->models))) return SKEL_ENOMEM;
    memset(f->models, 0, (size_t)(np ? np : 1) * sizeof *f->models);
    f->nmodels = np;
    for (pl = 0; pl < np; ++pl) {
        _skel_hmodel *m = &f->models[pl];
        snprintf(m->name, sizeof m->name, "%.40s (plan %.40s)", t->conf.inst, t->conf.id);
        memcpy(m->place, places[pl], sizeof m->place);
        if (!(m->e = (_skel_hent *)SKEL_MALLOC((size_t)(t->npoints ? t->npoints : 1) * sizeof *m->e))) return SKEL_ENOMEM;
        m->cap = t->npoints;
        for (i = 0; i < t->npoints; ++i) {
            double best = -1, r;
            uint64_t fp[2];
            _skel_hent *e;
            for (v = 0; v < t->nvar; ++v) {
                const char *b = t->vars[v].backend;
                int host = strcmp(b, "seq") == 0 || strcmp(b, "omp") == 0 || strcmp(b, "pool") == 0 || strcmp(b, "cuda-check") == 0;
                if (strcmp(host ? "host" : b, places[pl]) != 0) continue;
                r = t->times[((size_t)i * (size_t)t->nvar + (size_t)v) * 2];
                if (r >= 0 && (best < 0 || r < best)) best = r;
            }
            if (best < 0) continue;
            fp[0] = t->points[i].x[0];
            fp[1] = t->conf.dims == 2 ? t->points[i].x[1] : 1;
            if ((e = _skel_hist_entry(m, fp, 1)) == NULL) return SKEL_ENOMEM;
            e->n = 1; e->total = 1; e->s[0] = e->median = best;
        }
    }
    return SKEL_OK;
}

static void _skel_models_text(FILE *o, const _skel_mfile *f)
{
    int i, k;
    fprintf(o, "machine:\n");
    {
        const char *s = f->fingerprint;
        while (*s) { size_t n = strcspn(s, "\n"); fprintf(o, "  %.*s\n", (int)n, s); s += n + (s[n] == '\n'); }
    }
    fprintf(o, "transfer links (latency + bytes / bandwidth):\n");
    for (i = 0; i < f->nlinks; ++i)
        fprintf(o, "  %-10s -> %-10s %9.2f us  %8.2f GB/s\n", f->links[i].from, f->links[i].to, 1e6 * f->links[i].lat,
                1e-9 * f->links[i].bw);
    if (!f->nlinks) fprintf(o, "  (none measured)\n");
    fprintf(o, "history models (median of the last samples; time per call):\n");
    for (i = 0; i < f->nmodels; ++i) {
        const _skel_hmodel *m = &f->models[i];
        fprintf(o, "  %s at %s: %d sizes\n", m->name, m->place, m->ne);
        fprintf(o, "    %14s %12s %10s %8s %9s\n", "size", "(point)", "median ms", "samples", "outliers");
        for (k = 0; k < m->ne; ++k) {
            const _skel_hent *e = &m->e[k];
            char pt[48];
            if (e->fp[1] == 1) snprintf(pt, sizeof pt, "%llu", (unsigned long long)e->fp[0]);
            else snprintf(pt, sizeof pt, "%llux%llu", (unsigned long long)e->fp[0], (unsigned long long)e->fp[1]);
            fprintf(o, "    %14.0f %12s %10.4f %8llu %9d\n", e->size, pt, 1e3 * e->median, (unsigned long long)e->total,
                    e->rejected);
        }
    }
    if (!f->nmodels) fprintf(o, "  (none)\n");
}

static void _skel_models_json(FILE *o, const _skel_mfile *f)
{
    int i, k, j;
    fprintf(o, "{\"fingerprint\":");
    _skel_json_str(o, f->fingerprint);
    fprintf(o, ",\"links\":[");
    for (i = 0; i < f->nlinks; ++i) {
        fprintf(o, "%s{\"from\":", i ? "," : "");
        _skel_json_str(o, f->links[i].from);
        fprintf(o, ",\"to\":");
        _skel_json_str(o, f->links[i].to);
        fprintf(o, ",\"latency_s\":%.9g,\"bytes_per_s\":%.9g}", f->links[i].lat, f->links[i].bw);
    }
    fprintf(o, "],\"models\":[");
    for (i = 0; i < f->nmodels; ++i) {
        const _skel_hmodel *m = &f->models[i];
        fprintf(o, "%s{\"name\":", i ? "," : "");
        _skel_json_str(o, m->name);
        fprintf(o, ",\"place\":");
        _skel_json_str(o, m->place);
        fprintf(o, ",\"sizes\":[");
        for (k = 0; k < m->ne; ++k) {
            const _skel_hent *e = &m->e[k];
            fprintf(o, "%s{\"point\":[%llu,%llu],\"median_s\":%.9g,\"samples\":%llu,\"outliers\":%d,\"recent_s\":[", k ? "," : "",
                    (unsigned long long)e->fp[0], (unsigned long long)e->fp[1], e->median, (unsigned long long)e->total,
                    e->rejected);
            for (j = 0; j < e->n; ++j) fprintf(o, "%s%.9g", j ? "," : "", e->s[j]);
            fprintf(o, "]}");
        }
        fprintf(o, "]}");
    }
    fprintf(o, "]}\n");
}

/* One chart per instance (models of one name): time against size, log-log,
   a line per place. */
static void _skel_models_svg(FILE *o, const _skel_mfile *f)
{
    static const char *colour[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b" };
    const double W = 640, H = 300, L = 70, R = 150, T = 30, B = 40;
    int *done = (int *)SKEL_MALLOC((size_t)(f->nmodels ? f->nmodels : 1) * sizeof *done), charts = 0, i, j, k, c;
    double y0 = 10;
    if (!done) return;
    memset(done, 0, (size_t)(f->nmodels ? f->nmodels : 1) * sizeof *done);
    for (i = 0; i < f->nmodels; ++i)
        if (!done[i]) {
            for (j = i; j < f->nmodels; ++j) if (strcmp(f->models[j].name, f->models[i].name) == 0) done[j] = -1;
            done[i] = 1;
            charts++;
        }
    fprintf(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
            W, 10 + charts * (H + 10) + (charts ? 0 : 30));
    if (!charts) fprintf(o, "<text x=\"10\" y=\"25\">no models</text>\n");
    for (i = 0; i < f->nmodels; ++i) {
        double xmin = 0, xmax = 0, ymin = 0, ymax = 0, lx0, lx1, ly0, ly1;
        int first = 1;
        if (done[i] != 1) continue;
        for (j = i; j < f->nmodels; ++j) {          /* the chart's range */
            if (strcmp(f->models[j].name, f->models[i].name)) continue;
            for (k = 0; k < f->models[j].ne; ++k) {
                const _skel_hent *e = &f->models[j].e[k];
                if (e->n < 1 || e->size <= 0 || e->median <= 0) continue;
                if (first || e->size < xmin) xmin = e->size;
                if (first || e->size > xmax) xmax = e->size;
                if (first || e->median < ymin) ymin = e->median;
                if (first || e->median > ymax) ymax = e->median;
                first = 0;
            }
        }
        fprintf(o, "<g transform=\"translate(0,%.0f)\">\n<text x=\"%.0f\" y=\"18\" font-size=\"13\">", y0, L);
        _skel_xml_str(o, f->models[i].name);
        fprintf(o, ": time per call against size</text>\n");
        fprintf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n", L, T, W - L - R, H - T - B);
        if (first) { fprintf(o, "</g>\n"); y0 += H + 10; continue; }
        lx0 = log10(xmin) - 0.1; lx1 = log10(xmax) + 0.1; ly0 = log10(ymin) - 0.1; ly1 = log10(ymax) + 0.1;
#define _SKEL_SX(x) (L + (log10(x) - lx0) / (lx1 - lx0) * (W - L - R))
#define _SKEL_SY(y) (H - B - (log10(y) - ly0) / (ly1 - ly0) * (H - T - B))
        fprintf(o, "<text x=\"%.0f\" y=\"%.0f\">%.3g</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.3g elements</text>\n",
                L, H - B + 14, pow(10, lx0), W - R, H - B + 14, pow(10, lx1));
        fprintf(o, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.3g ms</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.3g ms</text>\n",
                L - 4, H - B, 1e3 * pow(10, ly0), L - 4, T + 10, 1e3 * pow(10, ly1));
        for (c = 0, j = i; j < f->nmodels; ++j) {
            const _skel_hmodel *m = &f->models[j];
            const char *col = colour[c % 6];
            if (strcmp(m->name, f->models[i].name)) continue;
            fprintf(o, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
            for (k = 0; k < m->ne; ++k)
                if (m->e[k].n >= 1 && m->e[k].size > 0 && m->e[k].median > 0)
                    fprintf(o, "%.1f,%.1f ", _SKEL_SX(m->e[k].size), _SKEL_SY(m->e[k].median));
            fprintf(o, "\"/>\n");
            for (k = 0; k < m->ne; ++k)
                if (m->e[k].n >= 1 && m->e[k].size > 0 && m->e[k].median > 0)
                    fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>%.0f: %.4g ms, %llu samples</title></circle>\n",
                            _SKEL_SX(m->e[k].size), _SKEL_SY(m->e[k].median), col, m->e[k].size, 1e3 * m->e[k].median,
                            (unsigned long long)m->e[k].total);
            fprintf(o, "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">",
                    W - R + 10, T + 16.0 * c, col, W - R + 24, T + 16.0 * c + 9);
            _skel_xml_str(o, m->place);
            fprintf(o, "</text>\n");
            c++;
        }
#undef _SKEL_SX
#undef _SKEL_SY
        fprintf(o, "</g>\n");
        y0 += H + 10;
    }
    fprintf(o, "</svg>\n");
    SKEL_FREE(done);
}

int skel_models_dump(const char *file, int format, const char *path)
{
    _skel_mfile f;
    FILE *o;
    int rc = SKEL_OK, err;
    if (format < SKEL_DUMP_TEXT || format > SKEL_DUMP_SVG) return _skel_fail(SKEL_EINVAL, "skel_models_dump: format %d", format);
    memset(&f, 0, sizeof f);
    if (!file) {        /* this program's, copied under the mutex */
        char *fp = _skel_fingerprint();
        int i;
        _skel_rt_lock();
        snprintf(f.fingerprint, sizeof f.fingerprint, "%s", fp ? fp : "");
        memcpy(f.links, _skel_rt.links, sizeof f.links);
        f.nlinks = _skel_rt.nlinks;
        if (_skel_rt.nmodels && (f.models = (_skel_hmodel *)SKEL_MALLOC((size_t)_skel_rt.nmodels * sizeof *f.models)) != NULL) {
            for (i = 0; i < _skel_rt.nmodels; ++i) {
                f.models[i] = _skel_rt.models[i];
                f.models[i].e = (_skel_hent *)SKEL_MALLOC((size_t)(f.models[i].ne ? f.models[i].ne : 1) * sizeof *f.models[i].e);
                if (f.models[i].e) memcpy(f.models[i].e, _skel_rt.models[i].e, (size_t)f.models[i].ne * sizeof *f.models[i].e);
                else f.models[i].ne = 0;
                f.nmodels = i + 1;
            }
        } else if (_skel_rt.nmodels) rc = SKEL_ENOMEM;
        _skel_rt_unlock();
        SKEL_FREE(fp);
        if (rc != SKEL_OK) return _skel_fail(rc, "skel_models_dump: out of memory");
    } else {
        unsigned char head[8] = { 0 };
        FILE *in = fopen(file, "rb");
        size_t got = in ? fread(head, 1, 8, in) : 0;
        if (in) fclose(in);
        if (got == 8 && memcmp(head, _SKEL_PLAN_MAGIC, 8) == 0) {
            skel_plan *p;
            _SKEL_TRY(skel_plan_load(&p, file));
            rc = _skel_plan_models(p, &f);
            skel_plan_free(p);
            if (rc != SKEL_OK) { _skel_mfile_free(&f); return _skel_fail(rc, "skel_models_dump: out of memory"); }
        } else _SKEL_TRY(_skel_models_read(file, &f));
    }
    if (!(o = path ? fopen(path, "w") : stdout)) {
        _skel_mfile_free(&f);
        return _skel_fail(SKEL_EIO, "skel_models_dump: cannot create %s: %s", path, strerror(errno));
    }
    if (format == SKEL_DUMP_TEXT) _skel_models_text(o, &f);
    else if (format == SKEL_DUMP_JSON) _skel_models_json(o, &f);
    else _skel_models_svg(o, &f);
    _skel_mfile_free(&f);
    err = ferror(o);
    if (path) err |= fclose(o) != 0;
    else fflush(o);
    return err ? _skel_fail(SKEL_EIO, "skel_models_dump: write failed") : SKEL_OK;
}

#endif /* SKEL_IMPLEMENTATION */

/*
   LICENSE: MIT or public domain (unlicense), at your choice.
   Copyright (c) 2026 the skel authors.  Permission is hereby granted, free
   of charge, to any person obtaining a copy of this software, to deal in it
   without restriction.  THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY
   OF ANY KIND.
*/
