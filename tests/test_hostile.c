/* test_hostile.c — the hostile-input suite of issue #25: table-driven cases for every command,
 * each run as a user would under `timeout` (a case that hangs fails as exit 124), asserting the
 * exit status, the one-line message (two for a usage error: the line and the --help hint),
 * nothing on standard output, and that the output it was pointed at is untouched (a file
 * holding "sentinel" before still holds it, and no temporary is left beside it).
 *
 * Categories (docs/commands.md, "Hardening and fuzzing"): runaway numbers and hangs, FIFOs,
 * symbolic links, silent acceptances (non-integers, duplicates, outputs over inputs), values
 * that are not results (NaN, inf, overflow), sizes (bombs, /dev/zero, huge headers) and
 * misleading messages (subnormals, byte-order marks). A case expected to succeed (status 0)
 * checks what it wrote in its own shell, and only its status is asserted. A table's cases run a
 * few at once (mb_test_sh_pool, MB_TEST_JOBS), each in its own W, and are asserted in order.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <zlib.h>

#include "mb_test.h"

/* One case: a shell command run from the source tree with D (the suite's scratch folder), W
 * (a fresh folder per case, holding W/o = "sentinel"), E (data/examples) and T (timeout -k 1 10)
 * set. Expected: `status`; for a failure, `needle` in the one line on standard error. */
typedef struct hcase {
    const char *cat; /* category, for the counts */
    const char *cmd;
    int status;
    const char *needle;
} hcase;

static char dir[256];

#define NET "$D/tiny.cfg"
#define SYN "synthetic:n=64,test=16,c=1,h=8,w=8,classes=4,seed=3"
#define TRAIN "$T mbtrain --net " NET " --data " SYN " --batch 8 --threads 1 "
#define STEP "$T mbprobe step --net " NET " --batch 2 --threads 1 --rounds 1 --budget 0.01 "
#define CONV0 "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 "
#define CONV CONV0 "--algos gemm "
/* without the flag a case sets itself (a flag given twice is refused) */
#define STEP0 "$T mbprobe step --net " NET " "
#define STEP_NB "$T mbprobe step --batch 2 --threads 1 --rounds 1 --budget 0.01 "
#define LOGS "$E/fit_runs/*.csv"
#define NU "$T mbfit nupdate --target-loss 0.5 "
/* a Lightning CSVLogger version folder, $W/v0 */
#define LT "mkdir $W/v0 && printf 'epoch,step,val_loss\\n0,0,2.3\\n0,9,0.4\\n' > $W/v0/metrics.csv && " \
           "printf 'batch_size: 16\\n' > $W/v0/hparams.yaml && "
/* the calibration logs of tests/fixtures/fit/levels (trained to 0.5) and the law extrapolated
 * from them to 0.4, $W/nx.json */
#define LV "tests/fixtures/fit/levels"
#define NX "$T mbfit nupdate --extrapolate --target-loss 0.4 " LV "/*.csv --json -o $W/nx.json && "
/* the same logs' floor-form law (its floor 0.228), $W/nf.json */
#define NXF "$T mbfit nupdate --extrapolate --form floor --levels 0.8,0.7,0.6,0.5 --target-loss " \
            "0.4 " LV "/*.csv --json -o $W/nf.json && "
/* held-out logs, $W/h: the calibration logs of seed 0 on the fresh seed 2000, none reaching 0.4 */
#define HX "mkdir $W/h && for f in " LV "/*-s0.csv; do sed 's/^# seed=0$/# seed=2000/' $f > " \
           "$W/h/${f##*/}; done && "
/* the example step table timed at 1 thread, $W/s1.csv (the levels' runs trained on 1) */
#define S1T "sed 's/^\\(cpu,lenet5,[0-9]*,1,\\)2,/\\11,/' $E/step.csv > $W/s1.csv && "
#define SCALE_FLAGS "--n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 "
/* an nfit whose best law is the shifted law with m_0 = M0, into $W/ns.json (the eighth campaign:
 * readers check the law's values and its own copy in `laws`) */
#define NS(M0, LAWS)                                                                              \
    "printf '{\"model\":\"inverse-law\",\"params\":{\"n_inf\":91.5,\"alpha\":9874.8},"          \
    "\"converged_range\":[8,512],"                                                              \
    "\"best\":{\"model\":\"shifted-law\",\"params\":{\"n_inf\":105.2,\"alpha\":5530.9,"        \
    "\"m_0\":" M0 "}}" LAWS "}' > $W/ns.json && "

/* NS's LAWS: a bootstrap of the shifted law (M_0 5) whose best_law is LAW (the key left out when
 * empty) and whose second sample is S2 */
#define BOOT(LAW, S2)                                                                             \
    ",\"bootstrap\":{\"resamples\":200,\"fitted\":200" LAW ",\"best_samples\":"            \
    "[[104.9,5510.2,4.9]," S2 "]}"

/* an inverse-law nfit converged over RANGE, with more top-level fields EXTRA, into $W/np.json
 * (the ninth campaign: the values no fit gives of the other laws and fields) */
#define NP(RANGE, EXTRA)                                                                          \
    "printf '{\"model\":\"inverse-law\",\"params\":{\"n_inf\":91.5,\"alpha\":9874.8},"          \
    "\"converged_range\":" RANGE EXTRA "}' > $W/np.json && "
/* NP's EXTRA: the power law of coefficient A as `best` and in `laws` */
#define NP_POW(A)                                                                                 \
    ",\"best\":{\"model\":\"power-law\",\"params\":{\"n_inf\":310.3,\"a\":" A ",\"b\":0.94}}" \
    ",\"laws\":{\"power-law\":{\"model\":\"power-law\",\"params\":{\"n_inf\":310.3,"       \
    "\"a\":" A ",\"b\":0.94}}}"

/* ---- the cases ----------------------------------------------------------------------------- */

/* ranks of one mpirun running two programs (campaign 18's M6; the probe and train tables) */
#define MIX(A, B) "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun --oversubscribe -np 1 " \
                  A " : -np 1 " B " 2>$W/e; s=$?; grep '^mbtrain\\|^mbprobe' $W/e >&2; exit $s"
#define MIX_T "mbtrain --net " NET " --data synthetic:n=256,test=64,c=1,h=8,w=8,classes=4,seed=1 " \
              "--threads 1 --batch 8 --max-updates 20 --algo sgd-sync --log $W/o"
#define MIX_C "mbprobe comm --budget 0.01 --max-reps 20 --bytes 4 --ops ps -o $W/o"
#define MIX_S "mbprobe step --net " NET " --batch 2 --threads 1 --rounds 1 --budget 0.01 -o $W/o"
/* mbtrain beside a rank that exits without starting MPI (`true`): the job ends with exit 1 and
 * one line, mbtrain's start-up watchdog's, or Open MPI's own abort when rank 0 had entered
 * MPI_Init before mpirun saw `true` exit (a race under load, which lost the watchdog's line in
 * several make checks: "exiting improperly"); a rank that stalls instead (`sleep 30`) leaves
 * the watchdog alone to end the job */
#define NOSTART "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun --oversubscribe -np 1 "    \
                MIX_T " : -np 1 true 2>$W/e; s=$?; { grep '^mbtrain: MPI did not start within' "  \
                "$W/e || grep -m1 -o 'exiting improperly' $W/e | sed 's/^/mpirun: a rank /'; } >&2; " \
                "exit $s"

static const hcase probe_cases[] = {
    /* a FIFO as --net is read once, for every configuration timed (two thread counts here) */
    {"fifo", "mkfifo $W/n.cfg && { $T cat " NET " > $W/n.cfg & $T mbprobe step --net $W/n.cfg "
             "--batch 2 --threads 1,2 --rounds 1 --budget 0.01 -o $W/r >/dev/null; s=$?; "
             "kill $! 2>/dev/null; wait; test $s = 0 && test $(grep -c '^cpu,tiny,2,' $W/r) = 2; }",
     0, NULL},
    {"fifo", "mkfifo $W/n.cfg && { $T cat " NET " > $W/n.cfg & $T mbprobe learners --net $W/n.cfg "
             "--batch 2 --threads 2 --max-learners 2 --budget 0.01 -o $W/r >/dev/null 2>&1; s=$?; "
             "kill $! 2>/dev/null; wait; test $s = 0 && grep -q '^2,4,' $W/r; }",
     0, NULL},
    /* a duplicate algorithm would be timed twice; a summary is not printed before a table that
     * cannot be written */
    {"silent", CONV0 "--algos gemm,gemm -o $W/o", 1, "given twice"},
    {"io", STEP "-o ''", 1, "empty file name"},
    {"io", STEP "-o /dev/full", 1, "/dev/full"},
    {"io", "$T mbprobe learners --net " NET " --batch 2 --threads 1 --max-learners 1 --budget 0.01 "
           "-o /dev/full 2>$W/e; s=$?; tail -n 1 $W/e >&2; exit $s", 1, "/dev/full: write error"},
    /* the third campaign (tests/hostile/campaign.sh): lists without empty items, flags that
     * contradict, names that break a table, a layer past the kernels' ints, messages that say
     * which flag */
    {"silent", CONV0 "--algos gemm, -o $W/o", 1, "empty item"},
    {"silent", CONV "--cache $W/c.csv -o $W/o", 2, "--cache and --no-cache"},
    {"silent", "printf '[net]\\nname=a,b\\nchannels=1\\nheight=8\\nwidth=8\\n[fc]\\noutputs=4\\n"
               "[softmax]\\n' > $W/n.cfg && " STEP_NB "--net $W/n.cfg -o $W/o", 1, "name 'a,b'"},
    {"size", "printf '[net]\\nname=w\\nchannels=64\\nheight=256\\nwidth=256\\n[fc]\\n"
             "outputs=100000\\n[softmax]\\n' > $W/n.cfg && " STEP_NB "--net $W/n.cfg -o $W/o", 1,
     "more than 2^31 weights"},
    {"message", STEP "--lr 1e300 -o $W/o", 1, "lower the learning rate"},
    {"message", STEP "--min-reps 20 --max-reps 10 -o $W/o", 1, "--min-reps 20 exceeds --max-reps"},
    {"silent", "$T mpirun -np 2 --oversubscribe mbprobe comm --budget 0.01 --ops ps,ps -o $W/o "
               "2>$W/e; s=$?; grep '^mbprobe' $W/e >&2; exit $s", 1, "'ps' given twice"},
    /* the eleventh campaign (issue #25). N10: under mpirun every flag error of mbprobe comm is
     * said once, by rank 0 (a bad --warmup or --budget, a flag given twice, an unexpected
     * argument), as --bytes was: one line, or two with the --help hint */
#define COMM2 "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun -np 2 --oversubscribe " \
              "mbprobe comm "
#define COMM2_ERR " -o $W/o 2>$W/e; s=$?; grep '^mbprobe\\|^Try' $W/e >&2; exit $s"
    {"silent", COMM2 "--bytes 4:16 --warmup 1.5" COMM2_ERR, 1,
     "--warmup: '1.5' is not a whole number in [0, 1e6]"},
    {"silent", COMM2 "--bytes 4:16 --budget -1" COMM2_ERR, 1, "--budget: must be > 0"},
    {"usage", COMM2 "--bytes 4:16 --bytes 8" COMM2_ERR, 2,
     "option '--bytes' given twice: it takes one value"},
    {"usage", COMM2 "--bytes 4:16 stray" COMM2_ERR, 2, "unexpected argument 'stray'"},
#undef COMM2_ERR
    /* campaign 17's F1 (issue #25): ranks started with other sweeps compare their settings
     * before the first collective (mb_comm_agree) instead of pairing collectives that do not
     * match (a hang, or MPI's "message truncated"); rank 0 says the first difference in one
     * line, exit 2 (102 here: a usage error without the --help hint, as mbtrain's) */
#define MPMD(A, B) "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun --oversubscribe "      \
                   "-np 1 mbprobe comm --budget 0.01 -o $W/o " A " : -np 1 mbprobe comm "       \
                   "--budget 0.01 -o $W/o " B " 2>$W/e; s=$?; grep '^mbprobe' $W/e >&2; "       \
                   "exit $((s == 2 ? 102 : s))"
    {"hang", MPMD("--bytes 4 --ops allreduce", "--bytes 4 --ops ps"), 102,
     "ranks disagree on --ops: rank 0 has allreduce, 1 of the other 1 rank has another value"},
    {"hang", MPMD("--bytes 4,8", "--bytes 4"), 102,
     "ranks disagree on --bytes (the message sizes): rank 0 has '4,8',"},
    {"hang", MPMD("--bytes 4", "--bytes 4 --warmup 50"), 102,
     "ranks disagree on --warmup: rank 0 has 5,"},
    {"message", MPMD("--bytes 4", "--bytes 8"), 102,
     "ranks disagree on --bytes (the message sizes): rank 0 has '4',"},
    {"silent", MPMD("--bytes 4 --max-reps 50", "--bytes 4 --max-reps 40"), 102,
     "ranks disagree on --max-reps: rank 0 has 50,"},
#undef MPMD
#undef COMM2
    {"silent", STEP0 "--batch 2,2 --threads 1 --rounds 1 --budget 0.01 -o $W/o", 1, "given twice"},
    {"silent", STEP0 "--batch 2 --threads 1 --rounds 1 --budget 0x10 -o $W/o", 1, "--budget"},
    /* runaway numbers */
    {"runaway", STEP0 "--batch 2 --threads 1 --rounds 1 --budget 1e308 -o $W/o", 1, "--budget: at most 3600"},
    {"runaway", STEP "--max-reps 1e9 -o $W/o", 1, "--max-reps"},
    {"runaway", STEP "--max-reps 99999999999999999999 -o $W/o", 1, "--max-reps"},
    {"runaway", STEP "--min-reps 5000000 -o $W/o", 1, "--min-reps"},
    {"runaway", STEP "--warmup -1 -o $W/o", 1, "--warmup"},
    {"runaway", "$T mbprobe step --net " NET " --batch 1:1e300 -o $W/o", 1, "--batch"},
    {"runaway", "$T mbprobe step --net " NET " --batch 1e9 -o $W/o", 1, "--batch"},
    {"runaway", STEP0 "--batch 2 --rounds 1 --budget 0.01 --threads 100000 -o $W/o", 1, "--threads"},
    {"runaway", STEP0 "--batch 2 --threads 1 --budget 0.01 --rounds 1e9 -o $W/o", 1, "--rounds"},
    {"runaway", "$T mbprobe learners --net " NET " --batch 2 --max-learners 1e12 -o $W/o", 1,
     "--max-learners"},
    /* K12: a whole number out of range says the range, not "not a whole number" */
    {"message", "$T mbprobe learners --net " NET " --batch 2 --max-learners 9007199254740993 -o "
                "$W/o", 1, "--max-learners: must be a whole number in [1, 4096], got "
                "'9007199254740993'"},
    {"runaway", "$T mbprobe overhead --budget inf", 1, "--budget"},
    {"runaway", "$T mbprobe overhead --budget 1e-400", 1, "--budget"},
    /* a layer of 5 x 10^14 flops a call: every point over budget, done at once */
    {"runaway", "$T mbprobe conv --net $D/huge.cfg --batch 1 --no-cache --budget 0.01 -o $W/c "
                "2>/dev/null && grep -q 'over budget' $W/c && ! grep -q ',measured,' $W/c",
     0, NULL},
    {"runaway", "$T mbprobe conv --net $D/huge.cfg --batch 1 --no-cache --budget 0 -o $W/o", 1,
     "--budget"},
    /* 10^12 values a sample, C x F x F = 10^12: past the kernels' int arithmetic, refused when
     * the description is read (net/desc_infer.c), before anything is sized */
    {"runaway", "$T mbprobe conv --net $D/wide.cfg --batch 1 --no-cache --budget 0.01 -o $W/c", 1,
     "more than 2^31 values a sample"},
    /* non-integers and bad values */
    {"silent", STEP "--warmup 2.5 -o $W/o", 1, "--warmup"},
    {"silent", "$T mbprobe step --net " NET " --batch 2.5 -o $W/o", 1, "--batch"},
    {"silent", STEP0 "--batch 2 --rounds 1 --budget 0.01 --threads 1.5 -o $W/o", 1, "--threads"},
    {"silent", STEP "--rel-ci nan -o $W/o", 1, "--rel-ci"},
    {"silent", STEP0 "--batch 2 --threads 1 --rounds 1 --budget 1e -o $W/o", 1, "--budget"},
    {"silent", STEP0 "--batch 2 --threads 1 --rounds 1 --budget '' -o $W/o", 1, "--budget"},
    {"silent", CONV "--threads 0 -o $W/o", 1, "--threads"},
    {"silent", CONV0 "--algos gemm,nope -o $W/o", 1, "nope"},
    {"silent", "$T mbprobe conv --net " NET " --batch 2 --budget 0.01 --cache $W/o -o $W/o", 1,
     "same file"},
    {"silent", "$T mbprobe conv --net " NET " --batch 2 --budget 0.01 --cache $D/badcache.csv "
               "-o $W/o",
     1, "badcache.csv"},
    /* a cache of another kind is not taken, then rewritten; a key twice: which would count? */
    {"silent", "printf '# format=mbkit-step/1\\nkey,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,"
               "t_max_s\\n' > $W/c.csv && $T mbprobe conv --net " NET " --batch 2 --budget 0.01 "
               "--algos gemm --cache $W/c.csv -o $W/o; s=$?; grep -q '^# format=mbkit-step' "
               "$W/c.csv || exit 99; exit $s", 1,
     "c.csv:1: field 'format': mbkit-step/1 is a step table, not a convolution table"},
    {"silent", "printf 'key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\\nk,5,1,1,1,1,1\\n"
               "k,5,1,1,1,1,1\\n' > $W/c.csv && $T mbprobe conv --net " NET " --batch 2 "
               "--budget 0.01 --algos gemm --cache $W/c.csv -o $W/o", 1,
     "c.csv:3: key 'k' given twice"},
    {"silent", "$T mbprobe step --net $D/nosoftmax.cfg --batch 2 -o $W/o", 1, "nosoftmax.cfg"},
    {"silent", "$T mbprobe step --net $D/dupkey.cfg --batch 2 -o $W/o", 1, "dupkey.cfg"},
    {"usage", STEP "--frobnicate -o $W/o", 2, "unknown option"},
    {"usage", "$T mbprobe stepp", 2, "unknown command"},
    {"usage", STEP "extra -o $W/o", 2, "unexpected argument"},
    /* outputs */
    {"fifo", "mkfifo $W/f && { $T cat $W/f > $W/got & r=$!; " STEP "-o $W/f >/dev/null 2>&1; "
             "s=$?; wait $r; test $s = 0 && grep -q t_median_s $W/got && test -p $W/f; }",
     0, NULL},
    {"fifo", "mkfifo $W/f && { $T cat $W/f > $W/got & r=$!; " CONV "-o $W/f >/dev/null 2>&1; "
             "s=$?; wait $r; test $s = 0 && grep -q workspace_bytes $W/got; }",
     0, NULL},
    {"fifo", "mkfifo $W/f && { $T cat $W/f >/dev/null & r=$!; $T mbprobe conv --net " NET
             " --batch 2 --budget 0.01 --cache $W/f -o $W/o; s=$?; kill $r 2>/dev/null; "
             "exit $s; }",
     1, "not a regular file"},
    {"symlink", "echo old > $W/t && ln -s t $W/l && " STEP "-o $W/l >/dev/null 2>&1 && "
                "test -L $W/l && grep -q t_median_s $W/t",
     0, NULL},
    {"symlink", "ln -s t2 $W/l && " STEP "-o $W/l >/dev/null 2>&1 && test -L $W/l && "
                "grep -q t_median_s $W/t2",
     0, NULL},
    {"symlink", "echo old > $W/t && ln -s t $W/l && " CONV "-o $W/l >/dev/null 2>&1 && "
                "test -L $W/l && grep -q workspace $W/t",
     0, NULL},
    {"symlink", "ln -s l2 $W/l1 && ln -s l1 $W/l2 && " STEP "-o $W/l1", 1, "l1"},
    {"io", STEP "-o $D", 1, "cannot write"},
    {"silent", "cp " NET " $W/n.cfg && $T mbprobe step --net $W/n.cfg --batch 2 -o $W/n.cfg", 1,
     "would overwrite --net"},
    {"silent", "cp " NET " $W/n.cfg && ln -s n.cfg $W/l && $T mbprobe conv --net $W/n.cfg "
               "--batch 2 --no-cache -o $W/l",
     1, "would overwrite --net"},
    {"io", STEP "-o $D/nodir/x.csv", 1, "cannot write"},
    /* sizes */
    {"size", "$T mbprobe step --net /dev/zero --batch 2 -o $W/o", 1, "/dev/zero"},
    {"size", "$T mbprobe step --net $D --batch 2 -o $W/o", 1, "cannot read"},
    {"size", "$T mbprobe step --net " NET " --batch 2 --data $D/bomb -o $W/o", 1, "bomb"},
    /* not results: one round has no drift, an empty cell rather than nan */
    {"nan", STEP "-o $W/r 2>/dev/null >/dev/null && ! grep -qi 'nan\\|inf,' $W/r", 0, NULL},
    /* messages */
    {"message", STEP "--rel-ci 1e-308 --min-reps 1 --max-reps 3 -o $W/r >/dev/null 2>&1 && "
                "grep -q 'rel_ci=1e-308' $W/r",
     0, NULL},
    /* the fourth campaign: a flag given twice (the last won), one the workload ignores, a
     * value quoted as the user wrote it */
    {"silent", STEP "--rounds 2 -o $W/o", 2, "option '--rounds' given twice"},
    {"silent", STEP "-o $W/o --output $W/o", 2, "option '--output' given twice"},
    {"silent", STEP "--algo sgd --momentum 0.5 -o $W/o", 2,
     "--momentum has no effect with --algo sgd"},
    {"silent", CONV "--device 1 -o $W/o", 2, "--device has no effect with --backend cpu"},
    {"message", "$T mbprobe step --net " NET " --batch 1:1099511627776 -o $W/o", 1,
     "1099511627776 (in '1:1099511627776') is not a whole number in [1, 1048576]"},
    /* a line a command prints itself (a summary, a note, a progress line) is escaped as
     * mb_error_set's are (mb_cli_say): a newline or ESC in a file name keeps it one line */
    {"message", "$T mbprobe conv --net " NET " --batch 2 --budget 0.01 --algos gemm --cache "
                "\"$W/c$(printf '\\nd').csv\" -o $W/r 2>$W/e && test $(grep -c 'points measured' "
                "$W/e) = 1 && grep 'points measured' $W/e | grep -q 'cache (.*/c\\\\nd.csv)'",
     0, NULL},
    {"message", "$T mbprobe conv --net " NET " --batch 2 --budget 0.01 --algos gemm --cache "
                "\"$W/c$(printf '\\033[2J').csv\" -o $W/r 2>$W/e && ! grep -q \"$(printf "
                "'\\033')\" $W/e && grep -q 'cache (.*/c\\\\x1b\\[2J.csv)' $W/e", 0, NULL},
    /* the seventh campaign (issue #25). H1: an output FIFO with no reader is refused after
     * MBKIT_FIFO_WAIT, as an input FIFO with no writer is, never waited on forever */
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 " STEP "-o $W/f", 1, "a FIFO with no reader"},
    /* H3: a cache that cannot be written is refused with the other outputs, before the table is
     * written */
    {"io", "$T mbprobe conv --net " NET " --batch 2 --budget 0.01 --algos gemm --cache '' "
           "-o $W/o", 1, "'': cannot write: an empty file name"},
    /* under mpirun only rank 0 says what is wrong; the others wait until mpirun ends them, so
     * a rank 0 slow to start (a loaded machine; here 4 s late) still gets its line out */
    {"message", "$T mpirun -np 2 --oversubscribe sh -c '[ \"$OMPI_COMM_WORLD_RANK\" = 0 ] && "
                "sleep 4; exec mbprobe comm --budget 0.01 --ops ps,ps -o '$W/o 2>$W/e; s=$?; "
                "grep '^mbprobe' $W/e >&2; exit $s", 1, "'ps' given twice"},
    /* campaign 17's M2: under mpirun a bad MBKIT_FIFO_WAIT is said once, by rank 0 */
    {"message", "MBKIT_FIFO_WAIT=x ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun -np 2 "
                "--oversubscribe mbprobe comm --bytes 4 -o $W/o 2>$W/e; s=$?; "
                "grep '^mbprobe\\|^Try' $W/e >&2; exit $s", 2,
     "MBKIT_FIFO_WAIT='x': must be a number of seconds from 0 to 3600"},
    /* H9: MBKIT_FIFO_WAIT that is not a number of seconds from 0 to 3600 is refused, not 5 s */
    {"silent", "mkfifo $W/f && MBKIT_FIFO_WAIT=abc " STEP_NB "--net $W/f -o $W/o", 2,
     "MBKIT_FIFO_WAIT='abc': must be a number of seconds from 0 to 3600"},
    /* N1: -o over a file of --data is refused before anything is timed */
    {"silent", "cp -r $D/bigheader $W/b && $T mbprobe step --net " NET " --data $W/b --batch 2 "
               "--budget 0.01 -o $W/b/t10k-images-idx3-ubyte.gz", 1,
     "b/t10k-images-idx3-ubyte.gz, a file of --data"},
    /* H15: --conv-algo on a net without a convolution would be ignored */
    {"silent", STEP_NB "--net $D/fc.cfg --conv-algo fft -o $W/o", 2,
     "--conv-algo has no effect: net 'fc' has no convolution layer"},
    {"silent", "$T mbprobe learners --net $D/fc.cfg --batch 2 --threads 1 --max-learners 1 "
               "--budget 0.01 --conv-algo gemm -o $W/o", 2,
     "--conv-algo has no effect: net 'fc' has no convolution layer"},
    /* the ninth campaign (issue #25). L9: a count list is read from its text, as mbtrain's
     * --batch: 2.0000000000000001 is not the whole number 2 (mb_data_parse_counts) */
    {"silent", "$T mbprobe step --net " NET " --threads 1 --rounds 1 --budget 0.01 --batch "
               "2.0000000000000001 -o $W/o", 1,
     "--batch: '2.0000000000000001' is not a whole number in [1, 1048576]"},
    {"silent", "$T mbprobe conv --net " NET " --no-cache --budget 0.01 --batch "
               "4:8.0000000000000001 -o $W/o", 1,
     "--batch: '4:8.0000000000000001' is not a whole number in [1, 65536]"},
    /* campaign 17's M1: a count is written in digits, as mbtrain reads its counts (1e1 ran
     * M = 10), and a fraction of a byte is no message size (4.5 was rounded down to 4) */
    {"silent", STEP0 "--batch 1e1 --threads 1 --rounds 1 --budget 0.01 -o $W/o", 1,
     "--batch: '1e1' is not a whole number in [1, 1048576]"},
    {"silent", STEP0 "--batch +2 --threads 1 --rounds 1 --budget 0.01 -o $W/o", 1,
     "--batch: '+2' is not a whole number in [1, 1048576]"},
    {"silent", "$T mbprobe comm --bytes 4,4.5 -o $W/o", 1,
     "--bytes: 4.5 is not a whole number of bytes"},
    /* campaign 18's M6: ranks of one mpirun running different programs ended on Open MPI's
     * lines alone (MPI_ERR_TRUNCATE, or a rank leaving without MPI); their first exchange says
     * which program each runs (mb_comm_mpi_create): one line from rank 0, exit 1 on every rank.
     * A subcommand that does not use MPI takes part too, and beside copies of itself goes on */
    {"message", MIX(MIX_C, MIX_T), 1, "mbprobe comm: ranks disagree on the program: rank 0 runs "
                                      "mbprobe comm, rank 1 runs mbtrain (1 of the other 1 rank "
                                      "runs another)"},
    {"message", MIX(MIX_S, MIX_T), 1, "mbprobe: ranks disagree on the program: rank 0 runs "
                                      "mbprobe step, rank 1 runs mbtrain"},
    {"message", MIX(MIX_C, MIX_S), 1, "rank 0 runs mbprobe comm, rank 1 runs mbprobe step"},
    {"message", "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun --oversubscribe -np 2 "
                "mbprobe step --net " NET " --batch 2 --threads 1 --rounds 1 --budget 0.01 -o "
                "$W/a >/dev/null 2>&1 && grep -q '^cpu,tiny,2,' $W/a", 0, NULL},
    /* campaign 21 (issue #25). N1: under mpirun, mbprobe comm blamed mpirun for a bad
     * MBKIT_MPI_START_WAIT ("MPI could not start: run it as 'mpirun -np N ...'", once a rank,
     * exit 1); N2: mbprobe step said it once a rank, and without mpirun took it. Every command
     * refuses it before anything, under mpirun or not, once (rank 0), exit 2 */
    {"message", "MBKIT_MPI_START_WAIT=abc ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun "
                "-np 2 --oversubscribe mbprobe comm --bytes 4 --budget 0.01 -o $W/o 2>$W/e; "
                "s=$?; grep '^mbprobe\\|^Try' $W/e >&2; exit $s", 2,
     "mbprobe: MBKIT_MPI_START_WAIT='abc': must be a number of seconds from 1 to 3600 "
     "(unset: 60)"},
    {"message", "MBKIT_MPI_START_WAIT=0 ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun "
                "-np 2 --oversubscribe mbprobe step --net " NET " --batch 2 --threads 1 --rounds 1 "
                "--budget 0.01 -o $W/o 2>$W/e; s=$?; grep '^mbprobe\\|^Try' $W/e >&2; exit $s", 2,
     "mbprobe: MBKIT_MPI_START_WAIT='0': must be a number of seconds from 1"},
    {"silent", "MBKIT_MPI_START_WAIT=3601 " STEP "-o $W/o", 2,
     "MBKIT_MPI_START_WAIT='3601': must be a number of seconds from 1 to 3600"},
    /* N17: 4 learners on --threads 1 ran 4 threads (one each) and the rows said 1; 2 on
     * --threads 3 ran 2 and said 3. The rows say the threads that ran; two thread counts that
     * run the same are refused */
    {"silent", STEP0 "--batch 4 --threads 1 --learners 4 --rounds 1 --budget 0.01 -o $W/r "
                     ">/dev/null && grep -q '^cpu,tiny,4,4,4,' $W/r", 0, NULL},
    {"silent", STEP0 "--batch 4 --threads 3 --learners 2 --rounds 1 --budget 0.01 -o $W/r "
                     ">/dev/null && grep -q '^cpu,tiny,4,2,2,' $W/r", 0, NULL},
    {"silent", STEP0 "--batch 4 --threads 1,2 --learners 2 --rounds 1 --budget 0.01 -o $W/o", 2,
     "--threads 1 and 2 both run 2 threads with 2 learners"},
    /* N19: a switch given twice was taken (a flag with a value is refused so) */
    {"usage", CONV "--no-cache -o $W/o", 2, "option '--no-cache' given twice"},
    /* campaign 26's W3: a lo:hi past the flag's bound was cut at the last doubling below it */
    {"silent", STEP0 "--batch 2:2000000 --threads 1 --rounds 1 --budget 0.01 -o $W/o", 1,
     "--batch: 2000000 (in '2:2000000') is not a whole number in [1, 1048576]"},
};

static const hcase train_cases[] = {
    /* the log's own summary line says - where a value is not a result, like standard output */
    {"nan", TRAIN "--max-updates 5 --eval-every 5 --no-test-eval --log $W/l >/dev/null && "
                  "grep -q 'test_loss=- test_acc=-' $W/l && ! grep -qi 'nan' $W/l", 0, NULL},
    /* runaway numbers and hangs */
    {"runaway", TRAIN "--epochs 1e308 --max-updates 3 --log $W/l.csv >/dev/null && "
                "grep -q 'updates=3 ' $W/l.csv",
     0, NULL},
    {"runaway", TRAIN "--epochs 9e17 --max-updates 3 --log $W/l.csv >/dev/null && "
                "grep -q 'updates=3 ' $W/l.csv",
     0, NULL},
    {"runaway", TRAIN "--epochs 1e-300 --log $W/l.csv >/dev/null && grep -q 'updates=1 ' "
                "$W/l.csv",
     0, NULL},
    {"runaway", TRAIN "--max-updates 1e12 --log $W/o", 1, "--max-updates"},
    {"runaway", TRAIN "--max-updates 99999999999999999999 --log $W/o", 1, "--max-updates"},
    {"runaway", TRAIN "--epochs inf --log $W/o", 1, "--epochs"},
    {"runaway", TRAIN "--epochs -1 --log $W/o", 1, "--epochs"},
    {"runaway", TRAIN "--eval-every 0 --max-updates 2 --log $W/o", 1, "--eval-every"},
    {"runaway", TRAIN "--checkpoint $W/c --checkpoint-every 1e30 --max-updates 2", 1,
     "--checkpoint-every"},
    {"runaway", "$T mbtrain --net " NET " --data " SYN " --batch 1e30 --log $W/o", 1, "--batch"},
    {"runaway", "$T mbtrain --net " NET " --data synthetic:n=1e30 --batch 8 --log $W/o", 1,
     "n="},
    {"runaway", "$T mbtrain --net " NET " --data synthetic:n=64,h=100000 --batch 8 --log $W/o",
     1, "h="},
    {"runaway", TRAIN "--seeds 0:99999999 --log-dir $W/d", 1, "--seeds"},
    {"runaway", TRAIN "--seeds 0:100000 --log-dir $W/d", 1, "more than 1000 in one sweep"},
    /* silent acceptances */
    {"silent", TRAIN "--seeds 0,0 --log-dir $W/d", 1, "given twice"},
    {"silent", TRAIN "--seeds 3,1,3 --log-dir $W/d", 1, "given twice"},
    {"silent", "$T mbtrain --net " NET " --data " SYN " --batch 8,8 --log-dir $W/d", 1,
     "given twice"},
    {"silent", TRAIN "--max-updates 2 --log $W/o --checkpoint $W/o --checkpoint-every 1", 1,
     "same file"},
    {"silent", "ln -s o $W/lo && " TRAIN "--max-updates 2 --log $W/lo --checkpoint $W/o "
               "--checkpoint-every 1",
     1, "same file"},
    {"silent", TRAIN "--max-updates 2 --log $W/o --resume $W/o", 1, "overwrite"},
    {"silent", "cp " NET " $W/n.cfg && $T mbtrain --net $W/n.cfg --data " SYN " --max-updates 2 "
               "--log $W/n.cfg",
     1, "would overwrite --net"},
    {"silent", "$T mbtrain --net " NET " --data " SYN " --threads 1 --batch 8.5 --log $W/o", 1, "--batch"},
    {"silent", "$T mbtrain --net " NET " --data " SYN " --batch 8 --threads 1.5 --log $W/o", 1, "--threads"},
    {"silent", TRAIN "--seed 1.5 --log $W/o", 1, "--seed"},
    {"silent", TRAIN "--seed -1 --log $W/o", 1, "--seed"},
    {"silent", TRAIN "--lr nan --log $W/o", 1, "--lr"},
    {"silent", TRAIN "--eval-frac 1.5 --log $W/o", 1, "eval"},
    {"silent", TRAIN "--max-updates 2 --log $W/o --resume $D/notackpt.bin", 1, "notackpt.bin"},
    {"silent", "$T mbtrain --net $D/dupkey.cfg --data " SYN " --log $W/o", 1, "dupkey.cfg"},
    {"silent", "$T mbtrain --net $D/badint.cfg --data " SYN " --log $W/o", 1, "badint.cfg"},
    {"usage", TRAIN "--frobnicate --log $W/o", 2, "unknown option"},
    {"usage", TRAIN "--seeds 0:2 --log $W/o", 2, "--log-dir"},
    /* a deadline past 1e9 s overflowed and hung; values out of range are bad data, not usage */
    {"runaway", TRAIN "--algo sgd-sync --learners 2 --wait-timeout 1e300 --max-updates 2 --log $W/o",
     1, "--wait-timeout: at most 1e9 s"},
    {"silent", TRAIN "--algo easgd-sync --learners 2 --elastic-alpha 1.5 --log $W/o", 1,
     "--elastic-alpha: must be in (0, 1]"},
    {"silent", TRAIN "--algo eamsgd --learners 2 --delta 1.5 --log $W/o", 1,
     "--delta: must be in [0, 1)"},
    {"usage", TRAIN "--algo sgd-sync --learners 3 --log $W/o", 2, "does not split among 3"},
    /* FIFOs, links, special files */
    {"fifo", "mkfifo $W/f && { $T cat $W/f >/dev/null & r=$!; " TRAIN "--max-updates 4 "
             "--checkpoint $W/f --checkpoint-every 1; s=$?; kill $r 2>/dev/null; exit $s; }",
     1, "FIFO"},
    {"fifo", "mkfifo $W/f && { $T cat $W/f > $W/got & r=$!; " TRAIN "--max-updates 2 --log $W/f "
             ">/dev/null; s=$?; wait $r; test $s = 0 && grep -q update,epoch $W/got; }",
     0, NULL},
    {"symlink", "echo old > $W/t && ln -s t $W/l && " TRAIN "--max-updates 2 --log $W/l "
                ">/dev/null && test -L $W/l && grep -q update,epoch $W/t",
     0, NULL},
    {"symlink", "ln -s sub/t $W/l && mkdir $W/sub && " TRAIN "--max-updates 2 --log $W/l "
                ">/dev/null && test -L $W/l && grep -q update,epoch $W/sub/t",
     0, NULL},
    {"symlink", "echo old > $W/t && ln -s t $W/l && " TRAIN "--max-updates 2 --checkpoint $W/l "
                "--checkpoint-every 1 >/dev/null && test -L $W/l && test -s $W/t && "
                "! grep -q old $W/t",
     0, NULL},
    {"symlink", "ln -s ck $W/l && " TRAIN "--max-updates 2 --checkpoint $W/l "
                "--checkpoint-every 1 >/dev/null && test -L $W/l && test -s $W/ck",
     0, NULL},
    {"io", TRAIN "--max-updates 2 --log $D", 1, "cannot write"},
    /* not results */
    {"nan", TRAIN "--max-updates 2 --no-test-eval | grep -q 'test_loss=- test_acc=-'", 0, NULL},
    {"nan", TRAIN "--max-updates 2 --no-test-eval | grep -v -q nan", 0, NULL},
    /* sizes */
    {"size", "$T mbtrain --net " NET " --data $D/bomb --batch 8 --log $W/o", 1, "bomb"},
    {"size", "$T mbtrain --net " NET " --data $D/bigheader --batch 8 --log $W/o", 1,
     "refused"},
    {"size", "$T mbtrain --net /dev/zero --data " SYN " --log $W/o", 1, "/dev/zero"},
    {"size", TRAIN "--max-updates 2 --log $W/o --resume /dev/zero", 1, "/dev/zero"},
    /* messages */
    {"message", TRAIN "--max-updates 2 --lr 1e-308 >/dev/null", 0, NULL},
    /* the fourth campaign: flags given twice (under another spelling too), flags the
     * algorithm or mode ignores, a sweep checked against the data before its first run, a
     * --resume that is not a checkpoint file */
    {"silent", TRAIN "--lr 0.1 --lr 0.2 --log $W/o", 2, "option '--lr' given twice"},
    {"silent", TRAIN "--algo momentum --momentum 0.5 --momen 0.6 --log $W/o", 2,
     "option '--momentum' given twice"},
    {"silent", TRAIN "--algo sgd --momentum 0.5 --log $W/o", 2,
     "--momentum has no effect with --algo sgd"},
    {"silent", TRAIN "--algo sgd-sync --learners 2 --momentum 0.5 --log $W/o", 2,
     "--momentum has no effect with --algo sgd-sync --optim sgd"},
    {"silent", TRAIN "--lr-gamma 0.5 --log $W/o", 2, "--lr-gamma has no effect without --lr-step"},
    {"silent", TRAIN "--algo sgd --optim momentum --log $W/o", 2,
     "--optim has no effect with --algo sgd"},
    {"silent", TRAIN "--algo sgd --elastic-alpha 0.5 --log $W/o", 2,
     "--elastic-alpha has no effect with --algo sgd"},
    {"silent", TRAIN "--algo easgd-sync --learners 2 --n-push 2 --log $W/o", 2,
     "--n-push has no effect with --algo easgd-sync"},
    {"silent", TRAIN "--algo sgd-sync --learners 2 --sma-momentum 0.5 --log $W/o", 2,
     "--sma-momentum has no effect"},
    {"silent", TRAIN "--algo sma --learners 2 --tau 1 --log $W/o", 2,
     "no communication period"},
    {"silent", TRAIN "--algo sgd --learners 2 --log $W/o", 2, "--learners has no effect"},
    {"silent", TRAIN "--check-sigmas 3 --log $W/o", 2, "--check-sigmas has no effect"},
    {"silent", TRAIN "--eval-adapt --log $W/o", 2, "--eval-adapt has no effect"},
    /* campaign 15's S2: --check-frac 0 is no staged checks, so nothing for these to tune */
    {"silent", TRAIN "--target-loss 0.5 --check-frac 0 --check-sigmas 3 --log $W/o", 2,
     "--check-sigmas has no effect with --check-frac 0"},
    {"silent", TRAIN "--target-loss 0.5 --check-frac 0 --levels 0.8,0.7,0.6 --log $W/o", 2,
     "--levels has no effect without --check-frac above 0"},
    {"silent", TRAIN "--device 1 --log $W/o", 2, "--device has no effect with --backend cpu"},
    {"silent", "$T mbtrain --net " NET " --data " SYN " --threads 1 --batch 8:128 --max-updates 2 "
               "--log-dir $W/d; s=$?; ls $W/d | grep -q csv && exit 99; exit $s",
     1, "--batch 128 is larger than the 64 training samples"},
    {"fifo", "mkfifo $W/f && " TRAIN "--max-updates 2 --log $W/o --resume $W/f", 1,
     "/w/f: a FIFO, not a regular file"},
    {"message", TRAIN "--max-updates 2 --log $W/o --resume $D", 1, "a directory, not a regular file"},
    {"message", TRAIN "--max-updates 2 --log $W/o --resume /dev/zero", 1, "a device, not a regular"},
    {"message", TRAIN "--max-updates 2 --log $W/o --resume $W/none", 1,
     "No such file or directory (the checkpoint to resume)"},
    {"message", "$T mbtrain --net " NET " --data " SYN " --batch 4294967296,8 --log-dir $W/d", 1,
     "4294967296 is past the largest mini-batch"},
    /* the fifth campaign: a moving rate of 0 never moves the centre that is evaluated */
    {"silent", TRAIN "--algo easgd-sync --learners 2 --elastic-alpha 0 --log $W/o", 1,
     "--elastic-alpha: must be in (0, 1], got 0"},
    {"silent", TRAIN "--algo sma --learners 2 --elastic-alpha 0 --log $W/o", 1,
     "--elastic-alpha: must be in (0, 1]"},
    /* the bisection's snapshots are sized by the updates a window can hold: --max-updates 5
     * bounds a window whatever --eval-every says (2299 GiB before: refused) */
    {"silent", "$T mbtrain --net lenet5 --data synthetic:n=64,test=16,c=1,h=28,w=28,classes=10,"
               "seed=3 --batch 8 --threads 1 --target-loss 0.01 --eval-every 10000000 "
               "--max-updates 5 --log $W/l >/dev/null && grep -q 'updates=5 ' $W/l", 0, NULL},
    {"message", "$T mbtrain --net lenet5 --data synthetic:n=64,test=16,c=1,h=28,w=28,classes=10,"
                "seed=3 --batch 8 --threads 1 --target-loss 0.01 --eval-every 10000000 "
                "--max-updates 100000000 --epochs 10000000 --log $W/o", 1,
     "--eval-every 10000000 with 61706 parameters needs"},
    /* the sixth campaign (issue #25): --max-seconds (G7) and --noise-every (G6) where they do
     * nothing are usage errors, as every ignored flag */
    {"usage", TRAIN "--algo easgd-sync --learners 2 --max-seconds 1 --log $W/o", 2,
     "--max-seconds has no effect with --algo easgd-sync"},
    {"silent", TRAIN "--algo easgd-sync --learners 2 --noise-every 4 --log $W/o", 2,
     "--noise-every has no effect with --algo easgd-sync"},
    {"silent", TRAIN "--algo sgd-sync --learners 2 --noise-every 0 --log $W/o", 2,
     "--noise-every has no effect with --algo sgd-sync"},
    {"silent", "$T mbtrain --net " NET " --data " SYN " --batch 1 --threads 1 --noise-every 1 "
               "--log $W/o", 2, "--noise-every has no effect with --batch 1"},
    /* --noise-every asked for with a sweep that holds M = 1 (or a 1 written otherwise): B_simple
     * has no half batch there, and was skipped in silence; by default M = 1 logs b_simple=- */
#define TRAIN_NB "$T mbtrain --net " NET " --data " SYN " --threads 1 --max-updates 5 "
    {"silent", TRAIN_NB "--batch 1,8 --noise-every 4 --log-dir $W/L; s=$?; test -e $W/L && "
               "exit 99; exit $s", 2, "--noise-every has no effect with --batch 1 in the sweep"},
    {"silent", TRAIN_NB "--batch 1:8 --noise-every 4 --log-dir $W/L", 2,
     "--noise-every has no effect with --batch 1 in the sweep"},
    {"silent", TRAIN_NB "--batch 01 --noise-every 2 --log $W/o", 2,
     "--noise-every has no effect with --batch 1 (it takes"},
    {"nan", TRAIN_NB "--batch 1,8 --log-dir $W/L >/dev/null && grep -q ' b_simple=-$' "
            "$W/L/*-b1-s0.csv && ! grep -q '^# b_simple=' $W/L/*-b1-s0.csv && grep -q "
            "'^# b_simple=[0-9]' $W/L/*-b8-s0.csv", 0, NULL},
#undef TRAIN_NB
    {"message", TRAIN "--max-seconds \"$(printf '1\\nx')\" --log $W/o", 1,
     "--max-seconds: '1\\nx' is not a number"},
    {"message", TRAIN "--max-seconds \"$(printf '1\\033x')\" --log $W/o", 1,
     "--max-seconds: '1\\x1bx' is not a number"},
    /* G18: a resume at another learning rate than the checkpoint's is refused, naming both */
    {"silent", TRAIN "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 --log $W/a.csv "
               ">/dev/null && " TRAIN "--max-updates 40 --resume $W/c --lr 0.1 --log $W/o", 1,
     "checkpoint of lr 0.05, this run has lr 0.1"},
    /* the seventh campaign (issue #25). H1: a log FIFO with no reader is refused after
     * MBKIT_FIFO_WAIT, never waited on forever */
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 " TRAIN "--max-updates 4 --log $W/f", 1,
     "a FIFO with no reader after 0.3 s"},
    /* H4: a resume with another momentum, weight decay, rate schedule or target than the
     * checkpoint's: the log states each once for all its rows */
    {"silent", TRAIN "--algo momentum --max-updates 20 --checkpoint $W/c --checkpoint-every 10 "
               "--log $W/a.csv >/dev/null && " TRAIN "--algo momentum --max-updates 40 --resume "
               "$W/c --momentum 0.5 --log $W/o", 1,
     "checkpoint of --momentum 0.9, this run has --momentum 0.5"},
    {"silent", TRAIN "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 --log $W/a.csv "
               ">/dev/null && " TRAIN "--max-updates 40 --resume $W/c --weight-decay 0.01 --log "
               "$W/o", 1, "checkpoint of --weight-decay 0, this run has --weight-decay 0.01"},
    {"silent", TRAIN "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 --log $W/a.csv "
               ">/dev/null && " TRAIN "--max-updates 40 --resume $W/c --lr-step 5 --lr-gamma 0.5 "
               "--log $W/o", 1, "checkpoint of --lr-step 0, this run has --lr-step 5"},
    {"silent", TRAIN "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 --log $W/a.csv "
               ">/dev/null && " TRAIN "--max-updates 40 --resume $W/c --target-loss 0.1 --log "
               "$W/o", 1, "checkpoint of --target-loss none, this run has --target-loss 0.1"},
    /* H10: a target of 0 is never reached, and every reader refuses the log's target_loss=0 */
    {"silent", TRAIN "--max-updates 20 --target-loss 0 --log $W/o", 1,
     "--target-loss: must be > 0, got '0'"},
    /* the eighth campaign's K7: a refused resume quotes each value as the shortest decimal that
     * reads back as it, so values that differ never print the same */
    {"message", TRAIN "--algo momentum --max-updates 20 --checkpoint $W/c --checkpoint-every 10 "
                "--log $W/a.csv >/dev/null && " TRAIN "--algo momentum --max-updates 40 --resume "
                "$W/c --momentum 0.9000000001 --log $W/o", 1,
     "checkpoint of --momentum 0.9, this run has --momentum 0.9000000001"},
    /* K8 (and G18): a resume with other evaluation settings than the checkpoint's: they decide
     * how the crossing mbfit reads was found, and the log states each once for all its rows */
#define CK TRAIN "--max-updates 20 --target-loss 0.2 --checkpoint $W/c --checkpoint-every 10 "
#define RESUME ">/dev/null && " TRAIN "--max-updates 40 --target-loss 0.2 --resume $W/c --log $W/o "
    {"silent", CK "--log $W/a.csv" RESUME "--check-frac 0.5", 1,
     "c: checkpoint of --check-frac none, this run has --check-frac 0.5"},
    {"silent", CK "--check-frac 0.25 --log $W/a.csv" RESUME "--check-frac 0.25 --check-sigmas 3",
     1, "checkpoint of --check-sigmas 4, this run has --check-sigmas 3"},
    {"silent", CK "--log $W/a.csv" RESUME "--no-bisect", 1,
     "checkpoint of a run without --no-bisect, this run has --no-bisect"},
    {"silent", CK "--eval-adapt --log $W/a.csv" RESUME, 1,
     "checkpoint of a run with --eval-adapt, this run has none"},
    {"silent", CK "--log $W/a.csv" RESUME "--eval-every 3", 1,
     "checkpoint evaluated every 100 updates, this run every 3"},
    {"silent", CK "--log $W/a.csv" RESUME "--noise-every 0", 1,
     "checkpoint of --noise-every 16, this run has --noise-every 0"},
    /* the same settings resume, and the log goes on */
    {"silent", CK "--check-frac 0.25 --no-bisect --log $W/a.csv >/dev/null && " TRAIN
               "--max-updates 40 --target-loss 0.2 --check-frac 0.25 --no-bisect --resume $W/c "
               "--log $W/r.csv >/dev/null && grep -q '^# check_frac=0.25' $W/r.csv", 0, NULL},
    /* issue #23: the levels the checks aimed at, stated once for all its rows */
    {"silent", CK "--check-frac 0.25 --levels 0.4,0.3 --log $W/a.csv" RESUME "--check-frac 0.25 "
               "--levels 0.4", 1, "c: checkpoint of --levels 0.4,0.3, this run has --levels 0.4"},
    {"silent", CK "--eval-adapt --log $W/a.csv" RESUME "--eval-adapt --levels 0.3", 1,
     "checkpoint of --levels none, this run has --levels 0.3"},
    /* a checkpoint of format version 8 (no levels) is refused, saying so */
    {"silent", CK "--log $W/a.csv >/dev/null && printf 8 | dd of=$W/c bs=1 seek=7 conv=notrunc "
               "2>/dev/null && " TRAIN "--max-updates 40 --target-loss 0.2 --resume $W/c --log $W/o",
     1, "checkpoint format version 8; this mbtrain reads version 9 only: start the run afresh"},
    /* campaign 12's P4: a parallel job's checkpoint is not one learner's, though its PATH is
     * learner 0's (the batch agreeing or not) */
    {"silent", TRAIN "--algo sgd-sync --learners 2 --max-updates 20 --checkpoint $W/c "
               "--checkpoint-every 10 --log $W/a.csv >/dev/null && $T mbtrain --net " NET
               " --data " SYN " --threads 1 --batch 4 --max-updates 40 --resume $W/c --log $W/o",
     1, "c: checkpoint of a sgd-sync job of 2 (learner 0's batch 4), this run is one learner "
        "(batch 4)"},
    {"silent", TRAIN "--algo sma --learners 2 --max-updates 20 --checkpoint $W/c "
               "--checkpoint-every 10 --log $W/a.csv" RESUME, 1,
     "c: checkpoint of a sma job of 2 (learner 0's batch 4), this run is one learner (batch 8)"},
    /* the eleventh campaign (issue #25). N1: an output over a file of --data, directly or
     * through a link, is refused before any work, as one over --net is */
    {"silent", "cp -r $D/bigheader $W/b && cksum $W/b/train-labels-idx1-ubyte.gz > $W/k && $T "
               "mbtrain --net " NET " --data $W/b --batch 8 --threads 1 --max-updates 2 --log "
               "$W/b/train-labels-idx1-ubyte.gz; s=$?; cksum $W/b/train-labels-idx1-ubyte.gz | "
               "cmp -s - $W/k || exit 99; exit $s", 1,
     "b/train-labels-idx1-ubyte.gz, a file of --data"},
    {"symlink", "cp -r $D/bigheader $W/b && ln -s b/t10k-labels-idx1-ubyte.gz $W/l && $T mbtrain "
                "--net " NET " --data $W/b --batch 8 --threads 1 --max-updates 2 --log $W/l", 1,
     "b/t10k-labels-idx1-ubyte.gz, a file of --data"},
    /* campaign 11's minor: a data file that is a link to nothing is named, broken, not called
     * absent ("neither train-images-idx3-ubyte[.gz] nor data_batch_1.bin[.gz]") */
    {"symlink", "cp -r $D/bigheader $W/b && rm $W/b/train-images-idx3-ubyte.gz && ln -s nowhere "
                "$W/b/train-images-idx3-ubyte.gz && " "$T mbtrain --net " NET " --data $W/b "
                "--batch 8 --threads 1 --max-updates 2 --log $W/o", 1,
     "b/train-images-idx3-ubyte.gz: cannot open: No such file or directory"},
    /* the tenth campaign (issue #25). M11: a sweep's log under --log-dir that links onto --net;
     * M12: a log or checkpoint name whose temporary is past NAME_MAX, refused before the run */
    {"symlink", "cp " NET " $W/n.cfg && mkdir $W/ld && ln -s ../n.cfg $W/ld/tiny-sgd-b8-s1.csv && "
                "$T mbtrain --net $W/n.cfg --data " SYN " --batch 8 --threads 1 --max-updates 4 "
                "--seeds 0,1 --log-dir $W/ld; s=$?; grep -q '^\\[net\\]' $W/n.cfg || exit 99; "
                "test -e $W/ld/tiny-sgd-b8-s0.csv && exit 98; exit $s", 1,
     "ld/tiny-sgd-b8-s1.csv would overwrite --net"},
    {"io", TRAIN "--max-updates 4 --log $W/$(printf 'a%.0s' $(seq 250))", 1,
     "cannot write: File name too long"},
    {"io", TRAIN "--max-updates 20 --log $W/o --checkpoint $W/$(printf 'c%.0s' $(seq 250)) "
           "--checkpoint-every 10", 1,
     "cannot write: File name too long"},
    /* the tenth campaign (issue #25). M4: a parallel resume at or past its bound reported a
     * centre no learner had restored (loss=0, eval_loss ln 4), exit 0 */
    {"silent", TRAIN "--algo sgd-sync --learners 2 --max-updates 20 --checkpoint $W/c "
               "--checkpoint-every 10 --log $W/a.csv >/dev/null && " TRAIN "--algo sgd-sync "
               "--learners 2 --max-updates 10 --resume $W/c --log $W/o", 1,
     "c: the checkpoint is at update 20, at or past this run's bound of 10 updates"},
    {"silent", TRAIN "--algo downpour --learners 2 --max-updates 20 --checkpoint $W/c "
               "--checkpoint-every 10 --log $W/a.csv >/dev/null && " TRAIN "--algo downpour "
               "--learners 2 --max-updates 20 --resume $W/c --log $W/o", 1,
     "at or past this run's bound of 20 updates: nothing left to train"},
    /* the eleventh campaign (issue #25). N3: a companion PATH.learners that is a FIFO (or a
     * device) is refused at once, as --resume PATH is, not opened and waited on for ever */
    {"fifo", TRAIN "--algo sgd-sync --learners 2 --max-updates 20 --checkpoint $W/c "
             "--checkpoint-every 10 --log $W/a.csv >/dev/null && rm $W/c.learners && mkfifo "
             "$W/c.learners && " TRAIN "--algo sgd-sync --learners 2 --max-updates 30 --resume "
             "$W/c --log $W/o", 1,
     "c.learners: a FIFO, not a regular file: the learners' checkpoint is the file mbtrain"},
    {"fifo", TRAIN "--algo downpour --learners 2 --max-updates 20 --checkpoint $W/c "
             "--checkpoint-every 10 --log $W/a.csv >/dev/null && rm $W/c.learners && mkfifo "
             "$W/c.learners && " TRAIN "--algo downpour --learners 2 --max-updates 30 --resume "
             "$W/c --log $W/o", 1, "c.learners: a FIFO, not a regular file"},
    {"size", TRAIN "--algo sgd-sync --learners 2 --max-updates 20 --checkpoint $W/c "
             "--checkpoint-every 10 --log $W/a.csv >/dev/null && rm $W/c.learners && ln -s "
             "/dev/zero $W/c.learners && " TRAIN "--algo sgd-sync --learners 2 --max-updates 30 "
             "--resume $W/c --log $W/o", 1, "c.learners: a device, not a regular file"},
    /* N9: a run resumed from a checkpoint written at its bound logs and counts what the
     * straight run does: the bound's own evaluation (off the --eval-every grid) is not carried
     * into the log's row 20, evals= or eval_samples=, and row 30's b_simple spans the window
     * from the last scheduled evaluation (SAME: rows but wall_s, the summary's counts and
     * b_simple, the log's # b_simple=, of the straight run S and the resumed R) */
#define SAME(S, R) "K() { grep -v '^#' $W/$1.csv | cut -d, -f1-3,5-; grep -o ' evals=.* "      \
                   "eval_samples=[^ ]*\\| b_simple=.*' $W/$1; grep '^# b_simple=' $W/$1.csv; } " \
                   "&& K " S " > $W/k1 && K " R " > $W/k2 && cmp -s $W/k1 $W/k2"
#define STRAIGHT_RESUMED(FLAGS) \
    TRAIN FLAGS "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 --log $W/a.csv " \
    ">/dev/null && " TRAIN FLAGS "--max-updates 30 --log $W/s.csv > $W/s && " TRAIN FLAGS \
    "--max-updates 30 --resume $W/c --log $W/r.csv > $W/r && " SAME("s", "r")
    {"silent", STRAIGHT_RESUMED("--algo sgd-sync --learners 2 "), 0, NULL},
    {"silent", STRAIGHT_RESUMED("--algo sgd-sync --learners 2 --eval-every 7 --target-loss 0.01 "),
     0, NULL},
    {"silent", STRAIGHT_RESUMED("--algo momentum --eval-every 7 --noise-every 1 "), 0, NULL},
#undef STRAIGHT_RESUMED
    /* and one learner resumed at its bound reports the run that ended there: the bound's
     * evaluation counted once (it was counted twice, evals=5 for the straight run's 4), its row
     * whole when the checkpoint left it out */
#define AT_BOUND(FLAGS) \
    TRAIN FLAGS "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 --log $W/s.csv > $W/s " \
    "&& " TRAIN FLAGS "--max-updates 20 --resume $W/c --log $W/r.csv > $W/r && " SAME("s", "r")
    {"silent", AT_BOUND("--algo momentum --eval-every 5 "), 0, NULL},
    {"silent", AT_BOUND("--algo momentum --eval-every 7 --noise-every 1 "), 0, NULL},
#undef AT_BOUND
    /* campaign 11's minors: a server algorithm, which resumes from PATH.learners alone, took
     * another --lr (or --eval-every) and its log stated it for every row */
    {"silent", TRAIN "--algo downpour --learners 2 --max-updates 20 --checkpoint $W/c "
               "--checkpoint-every 10 --log $W/a.csv >/dev/null && " TRAIN "--algo downpour "
               "--learners 2 --max-updates 30 --lr 0.2 --resume $W/c --log $W/o", 1,
     "c: checkpoint of lr 0.05, this run has lr 0.2 (a log states one rate for the whole run)"},
    {"silent", TRAIN "--algo easgd-hogwild --learners 2 --max-updates 20 --checkpoint $W/c "
               "--checkpoint-every 10 --log $W/a.csv >/dev/null && " TRAIN "--algo easgd-hogwild "
               "--learners 2 --max-updates 30 --eval-every 5 --resume $W/c --log $W/o", 1,
     "c: checkpoint evaluated every 100 updates, this run every 5"},
    /* the ninth campaign (issue #25). L7: a net of the same name and parameter count but other
     * layers (avgpool for maxpool, tanh for relu, a dropout added) does not continue the run */
#define RESUME_NET(SED) ">/dev/null && sed '" SED "' " NET " > $W/n.cfg && $T mbtrain --net "    \
    "$W/n.cfg --data " SYN " --batch 8 --threads 1 --max-updates 40 --target-loss 0.2 --resume " \
    "$W/c --log $W/o"
    {"silent", CK "--log $W/a.csv" RESUME_NET("s/\\[maxpool\\]/[avgpool]/"), 1,
     "c: checkpoint of net 'tiny' with another structure (5 layers, fingerprint"},
    {"silent", CK "--log $W/a.csv" RESUME_NET("s/activation=relu/activation=tanh/"), 1,
     "c: checkpoint of net 'tiny' with another structure"},
    {"silent", CK "--log $W/a.csv" RESUME_NET("s/^\\[fc\\]/[dropout]\\np=0.5\\n[fc]/"), 1,
     "c: checkpoint of net 'tiny' with another structure (5 layers, fingerprint"},
    /* the same layers under another file name resume */
    {"silent", CK "--log $W/a.csv" RESUME_NET("s/^width=8$/width=8/") " >/dev/null", 0, NULL},
    /* a server algorithm resumes from its companion file alone, which compares the same */
    {"silent", CK "--algo easgd-async --learners 2 --log $W/a.csv"
               RESUME_NET("s/\\[maxpool\\]/[avgpool]/") " --algo easgd-async --learners 2", 1,
     "c: the learners' checkpoint is of net 'tiny' with another structure (fingerprint"},
#undef RESUME_NET
#undef RESUME
#undef CK
    /* H15: --conv-algo on a net without a convolution would be ignored (one learner, and a
     * parallel algorithm's) */
    {"silent", "$T mbtrain --net $D/fc.cfg --data " SYN " --batch 8 --threads 1 --max-updates 4 "
               "--conv-algo fft --log $W/o", 2,
     "--conv-algo has no effect: net 'fc' has no convolution layer"},
    {"silent", "$T mbtrain --net $D/fc.cfg --data " SYN " --batch 8 --threads 1 --max-updates 4 "
               "--algo easgd --learners 2 --conv-algo direct --log $W/o", 2,
     "mbtrain: --conv-algo has no effect: net 'fc' has no convolution layer"},
    /* the ninth campaign (issue #25). L3: --log or --checkpoint naming a checkpoint's companion
     * file (PATH.learners, PATH.learners.rankR, either's .prev), links resolved, is refused
     * before any work */
    {"silent", TRAIN "--algo easgd-hogwild --learners 2 --max-updates 10 --checkpoint $W/c "
               "--checkpoint-every 5 --log $W/c.learners", 1,
     "/c.learners is --checkpoint " },
    {"silent", TRAIN "--algo sgd-sync --learners 2 --max-updates 10 --checkpoint $W/c "
               "--checkpoint-every 5 --log $W/c.learners.rank1", 1,
     "/c's part for rank 1: one would overwrite the other"},
    {"symlink", "ln -s c.learners.prev $W/l && " TRAIN "--algo sgd-sync --learners 2 "
                "--max-updates 10 --checkpoint $W/c --checkpoint-every 5 --log $W/l", 1,
     "/c's learners file (its .prev copy): one would overwrite the other"},
    {"silent", TRAIN "--algo sgd-sync --learners 2 --max-updates 10 --checkpoint $W/c "
               "--checkpoint-every 5 --log $W/a.csv >/dev/null && cksum $W/c.learners > $W/m && "
               TRAIN "--algo sgd-sync --learners 2 --max-updates 20 --resume $W/c --checkpoint "
               "$W/c.learners --checkpoint-every 5 --log $W/o; s=$?; cksum $W/c.learners | "
               "cmp -s - $W/m && exit $s", 1, "/c.learners is --resume "},
    /* L4, L5, L6: ranks that disagree on a setting are refused, rank 0 naming the value it
     * uses (its default resolved); a bad flag is said once, by rank 0. MPI(A, ALGO, B) runs rank
     * 0 with A and rank 1 with B; exit 2 reads as 102 (one line: no --help hint there) */
#define PB(ALGO) "mbtrain --net " NET " --data synthetic:n=256,test=64,c=1,h=8,w=8,classes=4,seed=1 " \
                 "--threads 1 --batch 8 --max-updates 20 --algo " ALGO " "
#define MPI_ERR " 2>$W/e; s=$?; grep '^mbtrain' $W/e >&2; exit $((s == 2 ? 102 : s))"
/* under make check SAN=1, LeakSanitizer reports Open MPI's start-up allocations from plugins it
 * has unloaded by exit (no suppression by library name can match them; tests/test_probe.c): leak
 * detection is off for mpirun's processes only, and the exit status stays mbtrain's */
#define MPIRUN_H "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun --oversubscribe "
#define MPI(ALGO, A, B) \
    MPIRUN_H "-np 1 " PB(ALGO) "--log $W/o " A " : -np 1 " PB(ALGO) "--log $W/o " B MPI_ERR
    {"silent", MPI("sgd-sync", "", "--epochs 1"), 102,
     "ranks disagree on --epochs: rank 0 has 10 (the default), 1 of the other 1 rank has"},
    {"silent", MPI("sgd-sync", "--target-loss 0.3", ""), 102,
     "ranks disagree on --target-loss: rank 0 has 0.3,"},
    {"silent", MPI("sgd-sync", "--target-loss 0.5 --eval-every 5", "--target-loss 0.5 "
                   "--eval-every 7"), 102, "ranks disagree on --eval-every: rank 0 has 5,"},
    {"silent", MPI("sgd-sync", "", "--conv-algo fft"), 102,
     "ranks disagree on --conv-algo: rank 0 has auto (the default),"},
    {"silent", MPI("sgd-sync", "--checkpoint $W/c --checkpoint-every 10", "--checkpoint $W/c2 "
                   "--checkpoint-every 10"), 102, "ranks disagree on --checkpoint: rank 0 has '"},
    {"message", MPI("eamsgd", "", "--delta 0.5"), 102,
     "ranks disagree on --delta: rank 0 has 0.99 (the default),"},
    {"message", MPI("easgd", "", "--elastic-alpha 0.3"), 102,
     "ranks disagree on --elastic-alpha: rank 0 has 0.45 (the default),"},
    {"message", MPI("sma", "", "--sma-momentum 0.5"), 102,
     "ranks disagree on --sma-momentum: rank 0 has 0.9 (the default),"},
    {"message", MPI("downpour", "", "--n-push 3"), 102,
     "ranks disagree on --n-push: rank 0 has 1 (the default),"},
    /* campaign 18's F2: ranks given nets of one name, layer count and parameter count but
     * other layers (tanh for relu, avgpool for maxpool, another dropout p) trained together;
     * the parsed structure is compared, not the file's text (a comment, spaces: one net).
     * MPI_NET(A, B): rank 0 with --net A, rank 1 with --net B */
#define PN(N) "mbtrain --net " N " --data synthetic:n=256,test=64,c=1,h=8,w=8,classes=4,seed=1 " \
              "--threads 1 --batch 8 --max-updates 20 --algo sgd-sync --log $W/o"
#define MPI_NET(A, B) MPIRUN_H "-np 1 " PN(A) " : -np 1 " PN(B) MPI_ERR
#define NET_DIS "ranks disagree on --net (its layers): rank 0 has fingerprint "
    {"silent", "sed s/relu/tanh/ " NET " > $W/t.cfg && " MPI_NET(NET, "$W/t.cfg"), 102, NET_DIS},
    {"silent", "sed s/relu/sigmoid/ " NET " > $W/t.cfg && " MPI_NET(NET, "$W/t.cfg"), 102,
     NET_DIS},
    {"silent", "sed s/maxpool/avgpool/ " NET " > $W/t.cfg && " MPI_NET(NET, "$W/t.cfg"), 102,
     NET_DIS},
    {"silent", "sed 's/^\\[fc\\]/[dropout]\\np=0.1\\n[fc]/' " NET " > $W/a.cfg && sed s/0.1/0.5/ "
               "$W/a.cfg > $W/b.cfg && " MPI_NET("$W/a.cfg", "$W/b.cfg"), 102, NET_DIS},
    {"silent", "{ sed 's/=/ = /' " NET "; echo '# a comment'; } > $W/t.cfg && " MPIRUN_H "-np 1 "
               PN(NET) " : -np 1 " PN("$W/t.cfg") " >/dev/null 2>&1", 0, NULL},
#undef NET_DIS
#undef MPI_NET
#undef PN
    /* campaign 18's F3: ranks given other sweeps (--batch 8 and 8,16, --seed 0 and --seeds 0:1)
     * agreed on the first run and waited in the second until --wait-timeout (600 s); lists
     * that differ past their first item trained the first run, then refused. The whole sweep
     * is compared before the first run, and nothing is trained. MPI_SWEEP(A, B): rank 0 with
     * A, rank 1 with B, under --log-dir $W/ld (left empty) */
#define PS "mbtrain --net " NET " --threads 1 --max-updates 20 --algo sgd-sync --log-dir $W/ld "
#define SY(N) "--data synthetic:n=" N ",test=64,c=1,h=8,w=8,classes=4,seed=1 "
#define MPI_SWEEP(A, B) MPIRUN_H "-np 1 " PS A " : -np 1 " PS B " 2>$W/e; s=$?; grep '^mbtrain' " \
                        "$W/e >&2; [ -z \"$(ls $W/ld)\" ] || s=99; exit $((s == 2 ? 102 : s))"
    {"hang", MPI_SWEEP(SY("256") "--batch 8", SY("256") "--batch 8,16"), 102,
     "ranks disagree on --batch: rank 0 has 8, 1 of the other 1 rank has another value"},
    {"hang", MPI_SWEEP(SY("256") "--batch 8,16", SY("256") "--batch 8,32"), 102,
     "ranks disagree on --batch: rank 0 has 8,16,"},
    {"hang", MPI_SWEEP(SY("256") "--batch 8 --seed 0", SY("256") "--batch 8 --seeds 0:1"), 102,
     "ranks disagree on --seed: rank 0 has 0, 1 of the other 1 rank has another value"},
    {"hang", MPI_SWEEP(SY("256") "--batch 8 --seeds 0:1", SY("256") "--batch 8 --seeds 0,2"),
     102, "ranks disagree on --seeds: rank 0 has 0,1,"},
    /* the sizes are checked against each rank's own training set: one rank refused alone and
     * the other waited in its first collective until --wait-timeout */
    {"hang", MPI_SWEEP(SY("256") "--batch 8", SY("6") "--batch 8"), 102,
     "ranks disagree on --data (its training samples): rank 0 has 256,"},
    /* one run either way: --seed 5 and --seeds 5 agree */
    {"silent", MPIRUN_H "-np 1 " PS SY("256") "--batch 8 --seed 5 : -np 1 " PS SY("256")
               "--batch 8 --seeds 5 >/dev/null 2>&1 && test -f $W/ld/tiny-sgd-sync-p2-b8-s5.csv",
     0, NULL},
#undef MPI_SWEEP
#undef SY
#undef PS
    {"message", MPIRUN_H "-np 2 " PB("easgd-async") "--tau 0 --log $W/o" MPI_ERR, 1,
     "--tau: '0' is not a whole number in [1, 1073741824]"},
    {"message", MPIRUN_H "-np 2 " PB("sma") "--sma-momentum -0.1 --log $W/o"
                MPI_ERR, 1,
     "--sma-momentum: must be in [0, 1), got '-0.1'"},
    {"message", MPIRUN_H "-np 2 " PB("sgd-sync") "--optim momentum --momentum "
                "1.5 --log $W/o" MPI_ERR, 1, "--momentum: must be in [0, 1), got '1.5'"},
    {"message", MPIRUN_H "-np 2 " PB("sgd-sync") "--checkpoint $W/p "
                "--checkpoint-every 5 --log $W/p.learners.rank1" MPI_ERR, 1,
     "/p's part for rank 1: one would overwrite the other"},
    /* N3 over ranks: rank 1's part PATH.learners.rank1 a FIFO, said by that rank at once */
    {"fifo", MPIRUN_H "-np 2 " PB("sgd-sync") "--checkpoint $W/p --checkpoint-every 10 --log "
             "$W/a.csv >/dev/null 2>&1 && rm $W/p.learners.rank1 && mkfifo $W/p.learners.rank1 "
             "&& " MPIRUN_H "-np 2 mbtrain --net " NET " --data synthetic:n=256,test=64,c=1,h=8,"
             "w=8,classes=4,seed=1 --threads 1 --batch 8 --max-updates 30 --algo sgd-sync "
             "--resume $W/p --log $W/o" MPI_ERR, 1, "p.learners.rank1: a FIFO, not a regular file"},
    /* N9 over ranks */
#define PR "mbtrain --net " NET " --data synthetic:n=256,test=64,c=1,h=8,w=8,classes=4,seed=1 " \
           "--threads 1 --batch 8 --algo sgd-sync "
    {"silent", MPIRUN_H "-np 2 " PR "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 "
               "--log $W/a.csv >/dev/null 2>&1 && " MPIRUN_H "-np 2 " PR "--max-updates 30 --log "
               "$W/s.csv > $W/s 2>/dev/null && " MPIRUN_H "-np 2 " PR "--max-updates 30 --resume "
               "$W/c --log $W/r.csv > $W/r 2>/dev/null && " SAME("s", "r"), 0, NULL},
    /* a checkpoint the ranks refuse together is bad data, exit 1 as over threads (campaign
     * 11's minors: a resume at its bound and swapped rank parts were exit 2, a usage error) */
    {"silent", MPIRUN_H "-np 2 " PR "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 "
               "--log $W/a.csv >/dev/null 2>&1 && " MPIRUN_H "-np 2 " PR "--max-updates 20 "
               "--resume $W/c --log $W/o" MPI_ERR, 1,
     "c: the checkpoint is at update 20, at or past this run's bound of 20 updates"},
    {"silent", MPIRUN_H "-np 2 " PR "--max-updates 20 --checkpoint $W/c --checkpoint-every 10 "
               "--log $W/a.csv >/dev/null 2>&1 && mv $W/c.learners.rank0 $W/t && mv "
               "$W/c.learners.rank1 $W/c.learners.rank0 && mv $W/t $W/c.learners.rank1 && "
               MPIRUN_H "-np 2 " PR "--max-updates 30 --resume $W/c --log $W/o" MPI_ERR, 1,
     "c.learners.rank0: holds learners 1 to 1; rank 0 of this run has 0 to 0"},
#undef PR
#undef SAME
#undef MPI
#undef MPI_ERR
#undef PB
    /* campaign 17's F3: a CUDA plugin cut short (an interrupted copy or install) beside a copy
     * of mbtrain was a SIGBUS in dlopen; it is refused in one line before dlopen (a build
     * without CUDA never loads it: "built without CUDA", the plugin cut is then libc's) */
    {"crash", "mkdir $W/bin $W/lib && B=$(command -v mbtrain) && P=${B%/bin/mbtrain}/lib/"
              "libmbkit-cuda.so && { [ -f $P ] || P=$(ldd $B | awk '/libc.so/ {print $3}'); } && "
              "cp $B $W/bin/ && head -c 100000 $P > $W/lib/libmbkit-cuda.so && $T $W/bin/mbtrain "
              "--net " NET " --data " SYN " --batch 8 --threads 1 --max-updates 2 --backend cuda "
              "--log $W/o 2>$W/e; s=$?; cat $W/e >&2; grep -q 'truncated or not a shared "
              "library\\|built without CUDA' $W/e || s=99; exit $s", 1, "cuda"},
    /* campaign 17's M2: under mpirun a bad MBKIT_FIFO_WAIT is said once, by rank 0 */
    {"message", "MBKIT_FIFO_WAIT=x ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun -np 2 "
                "--oversubscribe mbtrain --net " NET " --data " SYN " --batch 8 --threads 1 "
                "--algo sgd-sync --max-updates 2 --log $W/o 2>$W/e; s=$?; "
                "grep '^mbtrain\\|^Try' $W/e >&2; exit $s", 2,
     "MBKIT_FIFO_WAIT='x': must be a number of seconds from 0 to 3600"},
    /* campaign 18's M6: mbtrain beside another program in one mpirun ended with rc 15 or 1 and
     * Open MPI's lines alone; the ranks' first exchange says which program each runs */
    {"message", MIX(MIX_T, MIX_C), 1, "mbtrain: ranks disagree on the program: rank 0 runs "
                                      "mbtrain, rank 1 runs mbprobe comm (1 of the other 1 rank "
                                      "runs another): start every rank of the mpirun with the "
                                      "same program"},
    {"message", MIX(MIX_T, MIX_S), 1, "mbtrain: ranks disagree on the program: rank 0 runs "
                                      "mbtrain, rank 1 runs mbprobe step"},
    /* campaign 20's F1: beside a rank that exits without starting MPI (a --help, another
     * program), mbtrain waited in MPI_Init forever; now MBKIT_MPI_START_WAIT seconds (60) */
    {"hang", "MBKIT_MPI_START_WAIT=2 " NOSTART, 1, ": "},
    /* campaign 21 (issue #25). N2: a bad MBKIT_MPI_START_WAIT was said by every rank (the line
     * and the hint each), and without mpirun taken without a word */
    {"message", "MBKIT_MPI_START_WAIT=x ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun "
                "-np 2 --oversubscribe mbtrain --net " NET " --data " SYN " --batch 8 --threads 1 "
                "--algo sgd-sync --max-updates 2 --log $W/o 2>$W/e; s=$?; "
                "grep '^mbtrain\\|^Try' $W/e >&2; exit $s", 2,
     "mbtrain: MBKIT_MPI_START_WAIT='x': must be a number of seconds from 1 to 3600 "
     "(unset: 60)"},
    {"silent", "MBKIT_MPI_START_WAIT= " TRAIN "--algo sgd-sync --learners 2 --max-updates 2 "
               "--log $W/o", 2, "MBKIT_MPI_START_WAIT='': must be a number of seconds from 1"},
    {"silent", "MBKIT_MPI_START_WAIT=nan " TRAIN "--max-updates 2 --log $W/o", 2,
     "MBKIT_MPI_START_WAIT='nan'"},
    /* N19: a switch given twice was taken */
    {"usage", TRAIN "--max-updates 2 --no-test-eval --no-test-eval --log $W/o", 2,
     "option '--no-test-eval' given twice"},
    /* N19: --eval-frac 1e-9 evaluated (and judged the target on) 1 sample without a word; the
     * subset holds 10 at least (0.15 of 64 draws 10, 0.14 draws 9) */
    {"silent", TRAIN "--eval-frac 1e-9 --target-loss 0.5 --max-updates 2 --log $W/o", 1,
     "--eval-frac 1e-09 draws 1 of the 64 training samples of " SYN ": the evaluation subset "
     "needs 10 at least"},
    {"silent", TRAIN "--eval-frac 0.14 --max-updates 2 --log $W/o", 1, "draws 9 of the 64"},
    {"silent", TRAIN "--eval-frac 0.15 --max-updates 2 --log $W/a > /dev/null", 0, NULL},
    /* N19: a one-learner checkpoint resumed by a parallel job: "CK.learners: cannot open" */
    {"message", TRAIN "--max-updates 4 --checkpoint $W/ck --checkpoint-every 2 --log $W/a "
                ">/dev/null && " TRAIN "--max-updates 6 --algo sgd-sync --learners 2 --resume "
                "$W/ck --log $W/o", 1, "ck: checkpoint of one learner (--algo sgd, batch 8), not "
                "of a parallel job"},
    {"message", TRAIN "--max-updates 4 --checkpoint $W/ck --checkpoint-every 2 --log $W/a "
                ">/dev/null && ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 $T mpirun -np 2 "
                "--oversubscribe mbtrain --net " NET " --data " SYN " --batch 8 --threads 1 "
                "--max-updates 6 --algo sgd-sync --resume $W/ck --log $W/o 2>$W/e; s=$?; "
                "grep '^mbtrain' $W/e >&2; exit $s", 1,
     "ck: checkpoint of one learner (--algo sgd, batch 8), not of a parallel job"},
    /* N19: a cfg's count written +4 was read as 4 (the command line refuses +2) */
    {"silent", "sed 's/outputs=4/outputs=+4/' " NET " > $W/n.cfg && $T mbtrain --net $W/n.cfg "
               "--data " SYN " --batch 8 --threads 1 --max-updates 2 --log $W/o", 1,
     "'outputs': '+4' is not a whole number in [1,"},
    {"silent", "sed 's/size=3/size= 3/; s/height=8/height=08/' " NET " > $W/n.cfg && $T mbtrain "
               "--net $W/n.cfg --data " SYN " --batch 8 --threads 1 --max-updates 2 --log $W/a "
               ">/dev/null", 0, NULL},
    /* campaign 21's N12: a data folder holding a file and its .gz with other data, or an IDX and
     * a CIFAR-10 set, was read (the plain file, the IDX set) without a word; the same data
     * twice (gunzip -k) is no question */
#define C21_D "cp -r $D/small $W/i && gunzip -c $W/i/train-images-idx3-ubyte.gz > " \
              "$W/i/train-images-idx3-ubyte && "
#define C21_T "$T mbtrain --net $D/tiny10.cfg --data $W/i --batch 8 --threads 1 --max-updates 2 " \
              "--eval-frac 1 --log $W/o" /* 16 samples: a 0.2 subset is under 10 (c21a) */
    {"silent", C21_D "printf '\\377' | dd of=$W/i/train-images-idx3-ubyte bs=1 seek=100 "
               "conv=notrunc 2>/dev/null && " C21_T, 1,
     "/train-images-idx3-ubyte.gz: both here, with different data: which one is meant?"},
    {"silent", C21_D C21_T " && test -s $W/o", 0, NULL},
    {"silent", "cp -r $D/small $W/i && : > $W/i/data_batch_1.bin && " C21_T, 1,
     "i/data_batch_1.bin: an IDX and a CIFAR-10 data set in one folder: which one is meant?"},
#undef C21_T
#undef C21_D
    /* campaign 23 (issue #25). R2: a parallel checkpoint's companion that is a symbolic link
     * was moved to .prev by the rotation and a regular file written in its place: the link is
     * kept, its target rewritten and the previous one kept as TARGET.prev */
    {"symlink", "touch $W/rl && ln -s rl $W/l.learners && " TRAIN "--algo sgd-sync --learners 2 "
                "--max-updates 30 --checkpoint $W/l --checkpoint-every 10 --log $W/r >/dev/null "
                "&& test -L $W/l.learners && test -s $W/rl && test -s $W/rl.prev && "
                "! test -e $W/l.learners.prev", 0, NULL},
    {"symlink", "touch $W/r0 && ln -s r0 $W/l.learners.rank0 && " MPIRUN_H "-np 2 mbtrain --net "
                NET " --data " SYN " --batch 8 --threads 1 --algo sgd-sync --max-updates 30 "
                "--checkpoint $W/l --checkpoint-every 10 --log $W/r >/dev/null 2>&1 && test -L "
                "$W/l.learners.rank0 && test -s $W/r0 && test -s $W/r0.prev", 0, NULL},
    /* R11: a --wait-timeout too short for the learners to start ended the job "broadcast of the
     * initial parameters failed" without naming it; a tiny MBKIT_MPI_START_WAIT (1e-320) blamed
     * another rank: both refused below a floor, and the start-up's line names the variable */
    {"message", TRAIN "--algo sgd-sync --learners 2 --wait-timeout 0.0001 --max-updates 20 "
                "--log $W/o", 1, "--wait-timeout: 0.0001 s is too short for the learners to "
                                 "start: 0 (no limit) or at least 1 s"},
    {"silent", TRAIN "--algo sgd-sync --learners 2 --wait-timeout 4.9e-324 --max-updates 20 "
               "--log $W/o", 1, "--wait-timeout: 4.9e-324 s is too short"},
    {"silent", TRAIN "--algo sgd-sync --learners 2 --wait-timeout 1 --max-updates 2 --log $W/r "
               ">/dev/null", 0, NULL},
    {"silent", "MBKIT_MPI_START_WAIT=1e-320 " TRAIN "--algo sgd-sync --learners 2 --max-updates "
               "2 --log $W/o", 2, "MBKIT_MPI_START_WAIT='1e-320': must be a number of seconds "
                                  "from 1 to 3600 (unset: 60)"},
    {"silent", "MBKIT_MPI_START_WAIT=0.5 " TRAIN "--max-updates 2 --log $W/o", 2,
     "MBKIT_MPI_START_WAIT='0.5': must be a number of seconds from 1"},
    {"hang", "MBKIT_MPI_START_WAIT=1.5 " MIX(MIX_T, "sleep 30"), 1,
     "mbtrain: MPI did not start within 1.5 s: another rank of this mpirun exited or stalled "
     "before starting MPI (every rank must run the same mbkit command; MBKIT_MPI_START_WAIT=1.5 "
     "set the wait)"},
    /* R14: MPMD ranks given other --log paths ran, rank 1's ignored unsaid (rank 0 writes the
     * log); refused as other settings are, before anything trains */
#define C23_P "mbtrain --net " NET " --data " SYN " --batch 8 --threads 1 --algo sgd-sync " \
              "--max-updates 20 "
    {"silent", MPIRUN_H "-np 1 " C23_P "--log $W/o : -np 1 " C23_P "--log $W/o2 2>$W/e; s=$?; "
               "grep '^mbtrain' $W/e >&2; test -e $W/o2 && s=99; exit $((s == 2 ? 102 : s))", 102,
     "ranks disagree on --log: rank 0 has '"},
#undef C23_P
    /* campaign 24 (issue #25). U1: a parallel checkpoint's companion that is a symbolic link was
     * written through it whatever its target: --net became the companion, --log or the
     * checkpoint itself a file no resume could read, one rank's part another's. A companion
     * link onto an input or another output is refused before training; one onto a file of its
     * own is written through (campaign 23's R2, above) */
#define C24_CK "--algo sgd-sync --max-updates 30 --checkpoint $W/c --checkpoint-every 10 --log $W/r"
    {"silent", "cp " NET " $W/n.cfg && ln -s n.cfg $W/c.learners && $T mbtrain --net $W/n.cfg "
               "--data " SYN " --batch 8 --threads 1 --learners 2 " C24_CK "; s=$?; cmp -s "
               "$W/n.cfg " NET " || s=99; exit $s", 1,
     "c.learners is a link onto " /* n.cfg */},
    {"silent", "ln -s r $W/c.learners && " TRAIN "--learners 2 " C24_CK "; s=$?; test -e $W/r && "
               "s=99; exit $s", 1, "/r, --log "},
    {"silent", "ln -s c $W/c.learners && " TRAIN "--learners 2 " C24_CK, 1,
     "c.learners is a link onto "},
    {"silent", "cp " NET " $W/n.prev && touch $W/n && ln -s n $W/c.learners && $T mbtrain --net "
               "$W/n.prev --data " SYN " --batch 8 --threads 1 --learners 2 " C24_CK "; s=$?; "
               "cmp -s $W/n.prev " NET " || s=99; exit $s", 1, "c.learners is a link onto "},
    {"silent", "ln -s c.learners.rank1 $W/c.learners.rank0 && " MPIRUN_H "-np 2 mbtrain --net "
               NET " --data " SYN " --batch 8 --threads 1 " C24_CK " 2>$W/e; s=$?; grep "
               "'^mbtrain' $W/e >&2; exit $s", 1,
     "c.learners.rank0 is a link onto "},
    {"silent", "touch $W/x && ln -s x $W/c.learners.rank0 && ln -s x $W/c.learners.rank1 && "
               MPIRUN_H "-np 2 mbtrain --net " NET " --data " SYN " --batch 8 --threads 1 "
               C24_CK " 2>$W/e; s=$?; grep '^mbtrain' $W/e >&2; exit $s", 1,
     "are links onto one file"},
    /* campaign 25's V8: a --wait-timeout that only reads as 0 was no limit at all */
    {"silent", TRAIN "--learners 2 --algo sgd-sync --max-updates 3 --wait-timeout 1e-400 "
               "--log $W/o", 1, "--wait-timeout: 1e-400 s reads as 0, which is no limit"},
    /* campaign 25's V1: a companion link onto a log --log-dir writes (the log overwrote the
     * checkpoint's part): each --log-dir log is held as --log is */
    {"silent", "mkdir $W/ld && ln -s ld/tiny-sgd-sync-p2-b8-s0.csv $W/c.learners && " TRAIN
               "--learners 2 --algo sgd-sync --max-updates 30 --checkpoint $W/c "
               "--checkpoint-every 10 --log-dir $W/ld; s=$?; test -e "
               "$W/ld/tiny-sgd-sync-p2-b8-s0.csv && s=99; exit $s", 1,
     "c.learners is a link onto "},
#undef C24_CK
    /* tenth session: --eval-samples S (a sweep's per-M spacing), a count of samples */
    {"runaway", TRAIN "--eval-samples 0 --max-updates 2 --log $W/o", 1, "--eval-samples"},
    {"silent", TRAIN "--eval-samples 6.4e1 --max-updates 2 --log $W/o", 1, "--eval-samples"},
    {"runaway", TRAIN "--eval-samples 1e300 --max-updates 2 --log $W/o", 1, "--eval-samples"},
    /* campaign 25's V6: a companion's .prev that is a symbolic link was replaced by a file at
     * the rotation: it is written through as the companion is (its target kept a link's, a
     * device written into, never renamed over), and refused before training onto an input or
     * another output */
#define C25_CK "--algo sgd-sync --max-updates 30 --checkpoint $W/c --checkpoint-every 10 --log $W/r"
    {"symlink", "ln -s pr $W/c.learners.prev && " TRAIN "--learners 2 " C25_CK " >/dev/null && "
                "test -L $W/c.learners.prev && test -s $W/pr && test -s $W/c.learners && ! test "
                "-L $W/c.learners", 0, NULL},
    {"symlink", "ln -s /dev/null $W/c.learners.prev && " TRAIN "--learners 2 " C25_CK
                " >/dev/null && test -L $W/c.learners.prev && test -c /dev/null", 0, NULL},
    {"symlink", "ln -s p1 $W/c.learners.rank1.prev && " MPIRUN_H "-np 2 mbtrain --net " NET
                " --data " SYN " --batch 8 --threads 1 " C25_CK " >/dev/null 2>&1 && test -L "
                "$W/c.learners.rank1.prev && test -s $W/p1", 0, NULL},
    {"silent", "cp " NET " $W/n.cfg && ln -s n.cfg $W/c.learners.prev && $T mbtrain --net "
               "$W/n.cfg --data " SYN " --batch 8 --threads 1 --learners 2 " C25_CK "; s=$?; "
               "cmp -s $W/n.cfg " NET " || s=99; exit $s", 1,
     "c.learners.prev is a link onto "},
    {"silent", "ln -s r $W/c.learners.prev && " TRAIN "--learners 2 " C25_CK "; s=$?; test -e "
               "$W/r && s=99; exit $s", 1, "c.learners.prev is a link onto "},
    {"silent", "cp " NET " $W/n.cfg && ln -s n.cfg $W/c.learners.rank1.prev && " MPIRUN_H "-np 2 "
               "mbtrain --net $W/n.cfg --data " SYN " --batch 8 --threads 1 " C25_CK " 2>$W/e; "
               "s=$?; grep '^mbtrain' $W/e | sort -u >&2; cmp -s $W/n.cfg " NET " || s=99; exit $s",
     1, "c.learners.rank1.prev is a link onto "},
#undef C25_CK
    /* campaign 26's W3: --batch lo:hi past 2^30 was cut at the last doubling below it */
    {"silent", "$T mbtrain --net " NET " --data " SYN " --threads 1 --batch 8:2000000000 "
               "--max-updates 2 --log-dir $W/d", 1,
     "--batch: 8:2000000000: 2000000000 is past the largest mini-batch, 1073741824"},
    /* campaign 27. X7, X8, X10: a companion's .prev link into no folder (the set was never
     * kept, exit 0), in a loop (replaced by a file), onto a folder or a FIFO ("Input/output
     * error" after training started): refused before training, naming the link; X10: a
     * rotation that fails says the writer's reason (/dev/full under mpirun). X12: a --resume
     * refusal named an --eval-every the user never gave (set by --eval-samples) */
#define C27_CK "--algo sgd-sync --max-updates 30 --checkpoint $W/c --checkpoint-every 10 --log $W/r"
#define C27_NONE "; s=$?; test -e $W/r && s=99; test -e $W/c && s=98; exit $s"
    {"silent", "ln -s nodir/t $W/c.learners.prev && " TRAIN "--learners 2 " C27_CK C27_NONE, 1,
     "c.learners.prev: a link into no folder, "},
    {"silent", "ln -s nodir/t $W/c.learners.rank1.prev && " MPIRUN_H "-np 2 mbtrain --net " NET
               " --data " SYN " --batch 8 --threads 1 " C27_CK " 2>$W/e; s=$?; grep '^mbtrain' "
               "$W/e | sort -u >&2; test -e $W/c && s=98; exit $s", 1,
     "c.learners.rank1.prev: a link into no folder, "},
    {"symlink", "ln -s c.learners.prev $W/c.learners.prev && " TRAIN "--learners 2 " C27_CK
                "; s=$?; test -L $W/c.learners.prev || s=97; test -e $W/c && s=98; exit $s", 1,
     "c.learners.prev: cannot write: Too many levels of symbolic links"},
    {"symlink", "ln -s l2 $W/c.learners.prev && ln -s c.learners.prev $W/l2 && " TRAIN
                "--learners 2 " C27_CK "; s=$?; test -L $W/c.learners.prev || s=97; exit $s", 1,
     "c.learners.prev: cannot write: Too many levels of symbolic links"},
    {"io", "mkdir $W/d && ln -s d $W/c.learners.prev && " TRAIN "--learners 2 " C27_CK C27_NONE,
     1, "c.learners.prev: cannot write: Is a directory"},
    {"io", "mkfifo $W/f && ln -s f $W/c.learners.prev && " TRAIN "--learners 2 " C27_CK C27_NONE,
     1, "c.learners.prev: a link onto "},
    {"io", "ln -s /dev/full $W/c.learners.rank1.prev && " MPIRUN_H "-np 2 mbtrain --net " NET
           " --data " SYN " --batch 8 --threads 1 " C27_CK " 2>$W/e; s=$?; grep '^mbtrain' $W/e "
           "| sort -u >&2; test -L $W/c.learners.rank1.prev || s=97; exit $s", 1,
     "c.learners.rank1: cannot keep the previous checkpoint: "},
    {"message", TRAIN "--max-updates 20 --eval-every 2 --eval-samples 80 --checkpoint $W/c "
                "--checkpoint-every 10 --log $W/a.csv >/dev/null && " TRAIN "--max-updates 40 "
                "--eval-every 2 --resume $W/c --log $W/o", 1,
     "c: checkpoint evaluated every 10 updates, this run every 2 "},
    {"message", TRAIN "--max-updates 20 --eval-every 2 --eval-samples 80 --checkpoint $W/c "
                "--checkpoint-every 10 --log $W/a.csv >/dev/null && " TRAIN "--max-updates 40 "
                "--eval-every 2 --eval-samples 80 --resume $W/c --log $W/r >/dev/null", 0, NULL},
#undef C27_NONE
#undef C27_CK
    /* campaign 28's Z2: a companion's .prev linked onto the file standard output goes to
     * (/proc/self/fd/1): the previous checkpoint was written into it, the summary lost */
    {"symlink", "ln -s /proc/self/fd/1 $W/c.learners.prev && " TRAIN "--learners 2 --algo "
                "sgd-sync --max-updates 30 --checkpoint $W/c --checkpoint-every 10 --log $W/r "
                "> $W/so; s=$?; test -L $W/c.learners.prev && ! test -s $W/so || s=99; exit $s",
     1, "c.learners.prev: a link onto the file this command's standard output goes to"},
};

#undef MIX_S
#undef MIX_C
#undef MIX_T
#undef MIX
#undef NOSTART

static const hcase fit_cases[] = {
    /* values a log cannot hold, a header naming a column twice, a step row given twice */
    {"silent", "sed 's/^0,0.0000,0,0.000,2.244721,2.293724,/0,0.0000,0,0.000,2.244721,-1.5,/' "
               "$E/fit_runs/run_M16_s0.csv > $W/l.csv && " NU "$W/l.csv "
               "$E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv -o $W/o", 1,
     "field 'eval_loss': -1.5"},
    {"silent", "sed 's/^0,0.0000,0,0.000,2.244721,2.293724,0.2333/0,0.0000,0,0.000,2.244721,"
               "2.293724,1.7/' $E/fit_runs/run_M16_s0.csv > $W/l.csv && " NU "$W/l.csv "
               "$E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv -o $W/o", 1,
     "field 'eval_acc': 1.7"},
    {"silent", "printf 'batch,batch,n_update\\n8,8,100\\n16,16,80\\n' > $W/p.csv && $T mbfit "
               "nupdate $W/p.csv -o $W/o", 1, "header column 'batch' given twice"},
    {"silent", "{ cat $E/step.csv; grep '^cpu,lenet5,8,' $E/step.csv; } > $W/s.csv && $T mbfit "
               "tupdate $W/s.csv -o $W/o", 1, "given twice"},
    /* FIFOs and hangs */
    {"fifo", "mkfifo $W/f && { $T cat $E/fit_runs/run_M16_s0.csv > $W/f & " NU "$W/f "
             "$E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv $E/fit_runs/run_M128_s0.csv "
             "-o $W/n >/dev/null 2>&1; s=$?; wait; test $s = 0 && test -s $W/n; }",
     0, NULL},
    {"fifo", "mkfifo $W/f && { $T cat $E/nupdate_points.csv > $W/f & $T mbfit nupdate $W/f "
             "-o $W/n >/dev/null 2>&1; s=$?; wait; test $s = 0 && test -s $W/n; }",
     0, NULL},
    {"fifo", "mkfifo $W/f && { $T cat $E/step.csv > $W/f & $T mbfit tupdate $W/f -o $W/n; s=$?; "
             "wait; test $s = 0 && test -s $W/n; }",
     0, NULL},
    {"fifo", "mkfifo $W/f && { $T cat $W/f > $W/got & r=$!; $T mbfit comm $E/comm.csv -o $W/f; "
             "s=$?; wait $r; test $s = 0 && grep -q allreduce $W/got; }",
     0, NULL},
    {"size", "$T mbfit tupdate /dev/zero -o $W/o", 1, "/dev/zero"},
    {"size", "$T mbfit nupdate $D -o $W/o", 1, "cannot read"},
    {"size", "$T mbfit comm /dev/null -o $W/o", 1, "/dev/null"},
    /* silent acceptances */
    {"silent", "$T mbfit tupdate $D/step_half.csv -o $W/o", 1, "step_half.csv:4: field 'batch'"},
    {"silent", "$T mbfit tupdate $D/step_huge.csv -o $W/o", 1, "step_huge.csv:4: field 'batch'"},
    {"silent", "$T mbfit tupdate $D/step_p.csv -o $W/o", 1, "field 'learners'"},
    /* campaign 15's minor: a run of a learner count the table does not time calibrated nothing
     * and was dropped without a word */
    {"silent", "sed 's/^# learners=1$/# learners=3/' tests/fixtures/fit/run_M32_s0.csv > $W/r3.csv "
               "&& $T mbfit tupdate $E/step.csv $W/r3.csv -o $W/o", 1,
     "r3.csv: metadata 'learners': 3, but "},
    {"silent", "$T mbfit comm $D/comm_p.csv -o $W/o", 1, "field 'procs'"},
    {"silent", "$T mbfit comm $D/comm_b.csv -o $W/o", 1, "field 'bytes'"},
    {"silent", "$T mbfit nupdate $D/points_half.csv -o $W/o", 1, "field 'batch'"},
    {"silent", NU "$E/fit_runs/run_M16_s0.csv $E/fit_runs/run_M16_s0.csv " LOGS " -o $W/o", 1,
     "given twice"},
    {"silent", "ln -s $PWD/$E/fit_runs/run_M16_s0.csv $W/x.csv && " NU LOGS " $W/x.csv -o $W/o",
     1, "given twice"},
    {"silent", "cp $E/fit_runs/run_M16_s0.csv $W/copy.csv && " NU LOGS " $W/copy.csv -o $W/o", 1,
     "the same run"},
    {"silent", NU "$D/log_half.csv " LOGS " -o $W/o", 1, "log_half.csv: metadata 'batch'"},
    {"silent", NU "$D/log_lrn.csv " LOGS " -o $W/o", 1, "metadata 'learners'"},
    {"silent", NU "$D/log_upd.csv " LOGS " -o $W/o", 1, "field 'update'"},
    {"silent", NU "$D/log_dup.csv " LOGS " -o $W/o", 1, "given twice"},
    {"silent", NU LOGS " --procs 1.5 -o $W/o", 1, "--procs"},
    {"runaway", NU LOGS " --procs 9007199254740993 -o $W/o", 1,
     "--procs: must be a whole number in [1, 9007199254740992], got '9007199254740993'"},
    {"silent", NU LOGS " --bootstrap 2.5 -o $W/o", 1, "--bootstrap"},
    {"silent", NU LOGS " --smooth 0 -o $W/o", 1, "--smooth"},
    {"silent", "cp $E/step.csv $W/s.csv && $T mbfit tupdate $W/s.csv -o $W/s.csv && "
               "cmp -s $W/s.csv $E/step.csv",
     1, "overwrite"},
    {"silent", "cp $E/comm.csv $W/c.csv && $T mbfit comm $W/c.csv --json -o $W/c.csv", 1,
     "overwrite"},
    {"silent", NU LOGS " -o $E/fit_runs/run_M16_s0.csv", 1, "overwrite"},
    {"silent", "$T mbfit nupdate --target-loss 0.5,,0.4 " LOGS " -o $W/o", 1, "empty item"},
    {"silent", "$T mbfit nupdate --target-loss 0.5,0.50 " LOGS " -o $W/o", 1, "given twice"},
    /* a log's update given twice, a training loss that is not a loss, a points file's run
     * twice, a collective table's row twice */
    {"silent", "sed '0,/^[1-9][0-9]*,/s/^[1-9][0-9]*,/0,/' $E/fit_runs/run_M16_s0.csv > $W/l.csv && "
               NU "$W/l.csv $E/fit_runs/run_M32_s0.csv $E/fit_runs/run_M64_s0.csv -o $W/o", 1,
     "not past the row before's"},
    {"silent", "sed '0,/^[1-9][0-9]*,/s/^\\([0-9]*,[^,]*,[^,]*,[^,]*\\),[^,]*,/\\1,-2,/' "
               "$E/fit_runs/run_M16_s0.csv > $W/l.csv && " NU "$W/l.csv $E/fit_runs/run_M32_s0.csv "
               "$E/fit_runs/run_M64_s0.csv -o $W/o", 1, "field 'loss': -2"},
    {"silent", "printf 'batch,n_update,seed\\n8,100,0\\n8,110,0\\n16,80,0\\n' > $W/p.csv && "
               "$T mbfit nupdate $W/p.csv -o $W/o", 1, "batch 8, seed 0 given twice"},
    {"silent", "{ cat $E/comm.csv; grep '^allreduce' $E/comm.csv | head -n 1; } > $W/c.csv && "
               "$T mbfit comm $W/c.csv -o $W/o", 1, "given twice"},
    {"silent", "{ grep '^#\\|^backend' $E/step.csv; echo cpu,lenet5,8,3,2,15,1e-3,1e-3,1e-3,1e-3,"
               "1e-3,1; } > $W/s.csv && $T mbfit tupdate $W/s.csv -o $W/o", 1,
     "8 does not split among 3 learners"},
    /* a spread of times out of order; a collective on one process, of an unknown op, of 0
     * repetitions */
    {"silent", "sed 's/^\\(cpu,lenet5,8,[^,]*,[^,]*,[^,]*,[^,]*\\),[^,]*,/\\1,9,/' "
               "$E/step.csv > $W/s.csv && $T mbfit tupdate $W/s.csv -o $W/o", 1,
     "below 't_min_s' (9)"},
    {"silent", "printf 'op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\\nallreduce,2,4,5,1e-5,"
               "2e-5,1e-5\\n' > $W/c.csv && $T mbfit comm $W/c.csv -o $W/o", 1,
     "below 't_min_s'"},
    {"silent", "printf 'op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\\nallreduce,1,4,5,1e-5,"
               "1e-5,1e-5\\nallreduce,1,8,5,2e-5,2e-5,2e-5\\n' > $W/c.csv && $T mbfit comm $W/c.csv "
               "-o $W/o", 1, "field 'procs': 1 is not"},
    {"silent", "printf 'op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\\nfrob,2,4,5,1e-5,"
               "1e-5,1e-5\\nfrob,2,8,5,2e-5,2e-5,2e-5\\n' > $W/c.csv && $T mbfit comm $W/c.csv "
               "-o $W/o", 1, "field 'op': 'frob'"},
    {"silent", "printf 'op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\\nallreduce,2,4,0,1e-5,"
               "1e-5,1e-5\\nallreduce,2,8,5,2e-5,2e-5,2e-5\\n' > $W/c.csv && $T mbfit comm $W/c.csv "
               "-o $W/o", 1, "field 'reps': 0"},
    {"usage", "$T mbfit nupdate " LOGS " -o $W/o", 2, "--target-loss"},
    {"usage", "$T mbfit tupdate -o $W/o", 2, "step probe table"},
    {"usage", "$T mbfit frob", 2, "unknown command"},
    /* links */
    {"symlink", "echo old > $W/t && ln -s t $W/l && $T mbfit tupdate $E/step.csv -o $W/l && "
                "test -L $W/l && grep -q gamma $W/t",
     0, NULL},
    {"symlink", "ln -s t $W/l && $T mbfit comm $E/comm.csv --json -o $W/l && test -L $W/l && "
                "grep -q latency $W/t",
     0, NULL},
    /* not results, messages */
    {"nan", "$T mbfit nupdate $D/points_exact.csv | grep -v -q 'inf\\|nan'", 0, NULL},
    {"nan", "$T mbfit tupdate $D/step_slow.csv -o $W/o", 1, "field 't_median_s'"},
    {"nan", "$T mbfit comm $D/comm_slow.csv -o $W/o", 1, "field 't_median_s'"},
    {"nan", "! $T mbfit nupdate $D/points_exact.csv | grep -q 'inf)\\|nan'", 0, NULL},
    {"message", NU "--lr 1e-308 " LOGS " -o $W/o", 1, "1e-308"},
    {"message", "$T mbfit nupdate --target-loss 1e308 " LOGS " -o $W/o", 1, "at update 0"},
    {"message", "$T mbfit tupdate $D/step_bom.csv >/dev/null", 0, NULL},
    {"message", "$T mbfit nupdate --target-loss 1e-308 " LOGS, 1, "reached"},
    /* the fourth campaign: a FIFO nobody writes is refused after MBKIT_FIFO_WAIT seconds, not
     * waited on forever; a flag given twice */
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbfit tupdate $W/f -o $W/o", 1,
     "a FIFO with no writer after 0.3 s"},
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 " NU "$W/f -o $W/o", 1, "a FIFO with no writer"},
    {"silent", NU "--target-loss 0.6 " LOGS " -o $W/o", 2, "option '--target-loss' given twice"},
    {"silent", "$T mbfit tupdate --weights none --weights relative $E/step.csv -o $W/o", 2,
     "option '--weights' given twice"},
    /* the fifth campaign: a Lightning folder's files are inputs too; hparams.yaml with a key
     * twice; the step column named as the loss */
    {"silent", LT NU "--lightning $W/v0 -o $W/v0/metrics.csv; s=$?; "
                     "grep -q val_loss $W/v0/metrics.csv || exit 99; exit $s",
     1, "v0/metrics.csv would overwrite the input"},
    {"silent", LT "printf 'batch_size: 32\\n' >> $W/v0/hparams.yaml && " NU "--lightning $W/v0 "
                  "-o $W/o", 1, "hparams.yaml:2: key 'batch_size' given twice with different"},
    {"silent", LT NU "--lightning --loss-column step $W/v0 -o $W/o", 1,
     "--loss-column step: that is Lightning's step count"},
    /* --extrapolate fits the levels with its own weights and forms */
    {"silent", NU "--extrapolate --weights none " LOGS " -o $W/o", 2,
     "--weights has no effect with --extrapolate"},
    {"silent", NU "--extrapolate --choose aic " LOGS " -o $W/o", 2,
     "--choose has no effect with --extrapolate"},
    /* '# diverged=' metadata: a whole update at or just past the log's last row, on a run that
     * did not also reach the target (counted both ways, "never reached" wrapped to 2^64 - 1) */
    {"nan", "sed 's/^# seed=0/# seed=0\\n# diverged=5/' $E/fit_runs/run_M16_s0.csv > $W/l.csv && "
            NU "$W/l.csv $E/fit_runs/run_M32_s0.csv -o $W/o", 1,
     "l.csv:10: field 'diverged': 5 is before the log's last row"},
    {"nan", "sed 's/^# seed=0/# seed=0\\n# diverged=99999/' $E/fit_runs/run_M16_s0.csv > $W/l.csv "
            "&& " NU "$W/l.csv $E/fit_runs/run_M32_s0.csv -o $W/o", 1,
     "field 'diverged': 99999 is past the log's last row"},
    {"silent", "sed 's/^# seed=0/# seed=0\\n# diverged=abc/' $E/fit_runs/run_M16_s0.csv > $W/l.csv "
               "&& " NU "$W/l.csv $E/fit_runs/run_M32_s0.csv -o $W/o", 1,
     "field 'diverged': abc is not a whole number >= 0"},
    {"silent", "sed 's/^# seed=0/# seed=0\\n# diverged=-5/' $E/fit_runs/run_M16_s0.csv > $W/l.csv "
               "&& " NU "$W/l.csv $E/fit_runs/run_M32_s0.csv -o $W/o", 1,
     "field 'diverged': -5 is not a whole number >= 0"},
    {"silent", "sed 's/^# seed=0/# seed=0\\n# diverged=2331/' $E/fit_runs/run_M16_s0.csv > "
               "$W/l.csv && " NU "$W/l.csv $E/fit_runs/run_M32_s0.csv -o $W/o", 1,
     "marked diverged, but its summary says reached=yes"},
    {"nan", "sed 's/^# seed=0/# seed=0\\n# diverged=2331/' $E/fit_runs/run_M16_s0.csv | grep -v "
            "'^# updates' > $W/l.csv && " NU "$W/l.csv $E/fit_runs/run_M32_s0.csv "
            "$E/fit_runs/run_M64_s0.csv > $W/r && grep -q '3 runs: 0 diverged, 0 never' $W/r", 0,
     NULL},
    /* counts past 2^53: 2^53 + 1 reads as 2^53 in a double */
    {"runaway", "printf 'batch,n_update\n8,100\n16,80\n9007199254740993,70\n' > $W/p.csv && "
                "$T mbfit nupdate $W/p.csv --json -o $W/o", 1,
     "p.csv:4: field 'batch': 9007199254740993 is past 2^53"},
    {"runaway", "mkdir $W/v1 && printf 'epoch,step,val_loss\n0,9007199254740993,0.1\n' > "
                "$W/v1/metrics.csv && " LT NU "--lightning --batch 8,16 $W/v0 $W/v1 -o $W/o", 1,
     "v1/metrics.csv:2: field 'step': 9007199254740993 is past 2^53"},
    /* step and collective tables: derived and text columns checked as the probes write them */
    {"silent", "sed '0,/^cpu,lenet5,8,/s/^\\(cpu,lenet5,8,.*\\),[0-9.e+]*$/\\1,nan/' $E/step.csv "
               "> $W/s.csv && $T mbfit tupdate $W/s.csv -o $W/o", 1,
     "field 'samples_per_s': 'nan' is not a finite number"},
    {"silent", "sed '0,/^cpu,lenet5,8,/s/^\\(cpu,lenet5,8,.*\\),[0-9.e+]*$/\\1,1/' $E/step.csv "
               "> $W/s.csv && $T mbfit tupdate $W/s.csv -o $W/o", 1,
     "field 'samples_per_s': 1 is not batch / t_median_s"},
    {"silent", "sed 's/^cpu,/tpu,/' $E/step.csv > $W/s.csv && $T mbfit tupdate $W/s.csv -o $W/o",
     1, "field 'backend': 'tpu' is not cpu or cuda"},
    {"silent", "sed 's/^cpu,lenet5,/cpu,,/' $E/step.csv > $W/s.csv && $T mbfit tupdate $W/s.csv "
               "-o $W/o", 1, "field 'net': empty"},
    {"silent", "sed '0,/^cpu,lenet5,8,\\([0-9]*\\),/s//cpu,lenet5,8, \\1,/' $E/step.csv > "
               "$W/s.csv && $T mbfit tupdate $W/s.csv -o $W/o", 1, "(a space before it)"},
    {"silent", "sed 's/^allreduce,2,\\([0-9]*\\),/allreduce,2,0,/' $E/comm.csv > $W/c.csv && "
               "$T mbfit comm $W/c.csv -o $W/o", 1, "field 'bytes': 0 is not a whole number in [1,"},
    /* the sixth campaign (issue #25): --smooth does nothing with --extrapolate (G4) */
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 --smooth 3 " LV "/*.csv -o $W/o",
     2, "--smooth has no effect with --extrapolate"},
    /* the sixth campaign (issue #25): --smooth where every log has evaluations (G4); --algo
     * without --procs named alone, no "nan" (G5); calibration runs trained to different targets
     * (G3); a FIFO read once for the default levels and the fit (G13) */
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 --smooth 3 " LV "/*.csv -o $W/o",
     2, "--smooth has no effect with --extrapolate"},
    {"nan", "$T mbfit nupdate --extrapolate --target-loss 0.4 --algo sgd " LV "/*.csv -o $W/o", 1,
     "--algo sgd: no run of that algorithm (the logs have momentum P=1)"},
    {"silent", "mkdir $W/l && cp " LV "/*.csv $W/l && sed -i 's/^# target_loss=0.5$/# "
               "target_loss=0.45/' $W/l/lenet5-momentum-b16-s0.csv && $T mbfit nupdate "
               "--extrapolate --target-loss 0.4 $W/l/*.csv -o $W/o", 1,
     "b16-s0.csv: '# target_loss=0.45', but"},
    {"fifo", "mkfifo $W/f && { $T cat " LV "/lenet5-momentum-b16-s0.csv > $W/f & $T mbfit nupdate "
             "--extrapolate --target-loss 0.4 $W/f $(ls " LV "/*.csv | grep -v b16-s0) -o $W/r; "
             "s=$?; kill $! 2>/dev/null; wait; test $s = 0 && grep -q '^ *16 ' $W/r; }", 0, NULL},
    /* G2: one run per M: no bootstrap interval (not a zero-width one), said in words, and the
     * nfit without intervals is one mbopt reads */
    {"message", "mkdir $W/one && cp " LV "/*-s0.csv $W/one && $T mbfit nupdate --extrapolate "
                "--target-loss 0.4 $W/one/*.csv --json -o $W/n.json 2>$W/e && grep -q 'M=16 has "
                "1 run: no bootstrap interval' $W/e && ! grep -q '\"bootstrap\"' $W/n.json && $T "
                "mbopt scale --nfit $W/n.json --tfit $E/tfit.json --procs 1:4 --comm none >$W/r",
     0, NULL},
    /* G16: a newline in a file name or a flag's value is escaped: the message stays one line */
    {"message", "mkdir $W/l && sed 's/^# target_loss=.*/# target_loss=x/' " LV "/lenet5-momentum-"
                "b16-s0.csv > \"$W/l/a$(printf '\\nb').csv\" && $T mbfit nupdate --extrapolate "
                "--target-loss 0.4 $W/l/*.csv -o $W/o", 1, "a\\nb.csv: metadata 'target_loss'"},
    {"message", "$T mbfit nupdate --extrapolate --target-loss 0.4 --levels \"$(printf "
                "'0.6\\n,0.5')\" " LV "/*.csv -o $W/o", 2, "--levels: '0.6\\n' is not"},
    /* G15: a bootstrap of nonlinear fits across levels is capped lower than the direct fit's */
    {"runaway", "$T mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 1000000 " LV
                "/*.csv -o $W/o", 1, "--bootstrap 1000000: at most 10000 with --extrapolate"},
    {"silent", "mkdir $W/l && cp " LV "/*.csv $W/l && sed -i 's/^# crossing=.*/# crossing=guessed/'"
               " $W/l/lenet5-momentum-b16-s0.csv && $T mbfit nupdate --extrapolate --target-loss "
               "0.4 $W/l/*.csv -o $W/o", 1, "metadata 'crossing': 'guessed' is not bisect or"},
    /* a note the command prints itself quotes --loss-column escaped (mb_cli_say); fewer updates
     * at the larger M (more would be refused: L12) */
    {"message", "mkdir $W/v0 $W/v1 && printf 'epoch,step,v\\033l\\n0,0,2.3\\n0,9,0.4\\n' > "
                "$W/v0/metrics.csv && printf 'epoch,step,v\\033l\\n0,0,2.3\\n0,19,0.4\\n' > "
                "$W/v1/metrics.csv && echo 'batch_size: 32' > $W/v0/hparams.yaml && echo "
                "'batch_size: 16' > $W/v1/hparams.yaml && " NU "--lightning $W/v0 $W/v1 "
                "--loss-column \"$(printf 'v\\033l')\" -o $W/r 2>$W/e && ! grep -q \"$(printf "
                "'\\033')\" $W/e && grep -q 'note: .v.x1bl. was logged every 19' $W/e", 0, NULL},
    /* the seventh campaign (issue #25). H1: an output FIFO with no reader is refused after
     * MBKIT_FIFO_WAIT, never waited on forever */
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 " NU LOGS " -o $W/f", 1, "a FIFO with no reader"},
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbfit tupdate $E/step.csv --json -o $W/f "
             "2>$W/e; s=$?; grep -v 'warning:' $W/e >&2; exit $s", 1, "a FIFO with no reader"},
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbfit comm $E/comm.csv -o $W/f", 1,
     "a FIFO with no reader"},
    /* H7: flags that change nothing: --seed without a bootstrap, --smooth on logs that all have
     * evaluations, run-log flags with a points file */
    {"silent", NU LOGS " --seed 5 -o $W/o", 2, "--seed has no effect without resampling"},
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 " LV "/*.csv --bootstrap 0 "
               "--seed 5 -o $W/o", 2, "--seed has no effect without resampling"},
    {"silent", NU LOGS " --smooth 3 -o $W/o", 2, "--smooth has no effect on these logs"},
    {"silent", "$T mbfit nupdate $E/nupdate_points.csv --lr 0.05 -o $W/o", 2,
     "--lr applies to run logs"},
    {"silent", "$T mbfit nupdate $E/nupdate_points.csv --smooth 3 -o $W/o", 2,
     "--smooth applies to run logs"},
    {"silent", "$T mbfit nupdate $E/nupdate_points.csv --algo sgd --procs 1 -o $W/o", 2,
     "--algo applies to run logs"},
    /* H9: MBKIT_FIFO_WAIT out of range is refused by every command, a FIFO given or not */
    {"silent", "MBKIT_FIFO_WAIT=3601 " NU LOGS " -o $W/o", 2,
     "MBKIT_FIFO_WAIT='3601': must be a number of seconds from 0 to 3600"},
    /* the eighth campaign (issue #25). K4: a shifted law fitted with its pole below 0 (runs that
     * fall no faster than 1 / M) is not written as a law a reader would refuse */
    {"silent", NU LOGS " --json -o $W/n.json 2>$W/e && grep -q 'shifted law: M_0 fitted at' $W/e "
               "&& ! grep -q 'shifted-law' $W/n.json", 0, NULL},
    /* K1: a points file has no gradient noise scale: none is printed, not B_simple 0 */
    {"nan", "$T mbfit nupdate $E/nupdate_points.csv > $W/t 2>/dev/null && ! grep -q "
            "'gradient noise scale' $W/t && $T mbfit nupdate $E/nupdate_points.csv --json 2>/dev/null "
            "| grep -q '\"b_simple_runs\":.0,'", 0, NULL},
    /* the ninth campaign (issue #25). L10: a log's B_simple is a positive number or '-' (none),
     * never bad text read as "none" */
#define BS(V) "mkdir $W/r && cp " LOGS " $W/r && sed -i '/^# seed=/a # b_simple=" V "' " \
              "$W/r/run_M16_s1.csv && " NU "$W/r/*.csv "
    {"silent", BS("-5") "-o $W/o", 1, "run_M16_s1.csv: metadata 'b_simple': '-5' is not a "
                                      "positive number"},
    {"nan", BS("nan") "-o $W/o", 1, "run_M16_s1.csv: metadata 'b_simple': 'nan' is not a "
                                    "positive number"},
    {"silent", BS("abc") "-o $W/o", 1, "metadata 'b_simple': 'abc' is not a positive number"},
    {"silent", BS("-") "> $W/t 2>/dev/null", 0, NULL},
#undef BS
    /* the tenth campaign (issue #25). M7: a run log's '# batch=' and a points file's batch are
     * whole as written: 16.0000000000000001 is not 16 */
    {"silent", "mkdir $W/r && cp " LOGS " $W/r && sed -i 's/^# batch=16$/# batch=16.0000000000000001/' "
               "$W/r/run_M16_s0.csv && " NU "$W/r/*.csv -o $W/o", 1,
     "metadata 'batch': '16.0000000000000001' is not a whole number"},
    {"silent", "mkdir $W/r && cp " LOGS " $W/r && sed -i 's/^90,/90.0000000000000001,/' "
               "$W/r/run_M16_s0.csv && " NU "$W/r/*.csv -o $W/o", 1,
     "field 'update': 90.0000000000000001 is not a whole number"},
    {"silent", "sed 's/^8,/8.0000000000000001,/' $E/nupdate_points.csv > $W/p.csv && $T mbfit "
               "nupdate $W/p.csv -o $W/o", 1,
     "field 'batch': 8.0000000000000001 is not a whole number in [1, 9007199254740992]"},
    /* L11: one law is fitted to one network's runs */
    {"silent", "mkdir $W/r && cp " LOGS " $W/r && sed -i 's/^# net=lenet5$/# net=resnet50/' "
               "$W/r/run_M16_s*.csv && " NU "$W/r/*.csv -o $W/o", 1,
     "/r/run_M16_s0.csv: trains net 'resnet50', the other logs 'lenet5': give one network's "
     "runs"},
    {"silent", "mkdir $W/r && cp " LV "/*.csv $W/r && sed -i 's/^# net=lenet5$/# net=resnet50/' "
               "$W/r/lenet5-momentum-b128-s0.csv && $T mbfit nupdate --extrapolate --target-loss "
               "0.4 $W/r/*.csv -o $W/o", 1, "b128-s0.csv: trains net 'resnet50', the other logs "
               "'lenet5'"},
    /* the ninth campaign (issue #25). L12: points whose N_update grows with M fit an inverse law
     * of alpha < 0, which no reader takes: refused, not written as `best` */
    {"silent", "printf 'batch,n_update,seed\\n8,60,0\\n16,80,0\\n32,100,0\\n64,120,0\\n' > "
               "$W/p.csv && $T mbfit nupdate $W/p.csv --json -o $W/o", 1,
     "the points file: N_update grows with M (the inverse law's alpha fitted at -463.035 < 0)"},
    /* the twelfth campaign (issue #25). P2: one resample gave the 95% interval as [0, 0]; a
     * percentile interval needs a resample in each 2.5% tail, 40 */
    {"silent", NU LOGS " --bootstrap 1 --json -o $W/o", 1,
     "--bootstrap: '1' is not 0 (none) or a whole number in 40..1000000"},
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 " LV "/*.csv --bootstrap 39 "
               "-o $W/o", 1, "--bootstrap: '39' is not 0 (none) or a whole number in 40..1000000"},
    /* P3: run logs' seconds per update past 1e9 s calibrated the step to gamma 0, m_t 1 (a tfit
     * every reader refuses), exit 0: a wall_s is capped as a step table's times are */
    {"nan", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^\\([0-9][0-9]*,[^,]*,[^,]*,"
            "\\)[^,]*/\\11e308/' $W/r/*.csv && $T mbfit tupdate $E/step.csv $W/r/*.csv --json "
            "-o $W/o", 1, "run_M128_s0.csv:11: field 'wall_s': 1e308 at update 0 is past 1e9 s"},
    {"nan", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^\\([0-9][0-9]*,[^,]*,[^,]*,"
            "\\)[^,]*/\\12e9/' $W/r/*.csv && $T mbfit tupdate $E/step.csv $W/r/*.csv -o $W/o", 1,
     "field 'wall_s': 2e9 at update 0 is past 1e9 s"},
    /* the thirteenth campaign (issue #25). Q1: a log's `# levels=` read with mbtrain's rules
     * (above its target, from the highest down, at most 16, beside staged checks): a level at
     * the target was fitted twice beside L1, into an nfit both its readers refuse */
#define LP(LEV, CHK)                                                                              \
    "mkdir $W/l && cp " LV "/*.csv $W/l/ && sed -i 's/^# target_loss=0.5$/# levels=" LEV         \
    "\\n" CHK "&/' $W/l/*.csv && $T mbfit nupdate --extrapolate --target-loss 0.4 --bootstrap 0 " \
    "$W/l/*.csv --json -o $W/o"
    {"silent", LP("0.65,0.6,0.55,0.5", "# check_frac=0.0625\\n"), 1,
     "b128-s0.csv: metadata 'levels': 0.5 is not above target_loss 0.5"},
    {"silent", LP("0.6,0.65,0.55", "# check_frac=0.0625\\n"), 1,
     "metadata 'levels': '0.6,0.65,0.55' is not from the highest down (0.65 after 0.6)"},
    {"silent", LP("0.69,0.68,0.67,0.66,0.65,0.64,0.63,0.62,0.61,0.6,0.59,0.58,0.57,0.56,0.55,"
                  "0.54,0.53", "# eval_adapt=1\\n"), 1,
     "metadata 'levels': 17 levels, more than mbtrain's 16"},
    {"silent", LP("0.65,0.6,0.55", ""), 1,
     "metadata 'levels' without a 'check_frac' in (0, 1) or 'eval_adapt=1'"},
    /* the fourteenth campaign. R1: a level a hair above the target (the same to a log's 6
     * digits) was fitted twice; R2: levels beside check_frac=0 or eval_adapt=0 were read */
    {"silent", LP("0.65,0.6,0.50000000000000011", "# check_frac=0.0625\\n"), 1,
     "metadata 'levels': 0.50000000000000011 is not above target_loss 0.5 by more than"},
    {"silent", LP("0.65,0.6,0.55", "# check_frac=0\\n"), 1,
     "metadata 'levels' without a 'check_frac' in (0, 1) or 'eval_adapt=1'"},
    {"silent", LP("0.65,0.6,0.55", "# eval_adapt=0\\n"), 1,
     "metadata 'levels' without a 'check_frac' in (0, 1) or 'eval_adapt=1'"},
    {"silent", LP("0.65,0.6,0.55", "# eval_adapt=1\\n") " && grep -q '\"levels\":.\\[0.65, 0.6, "
               "0.55, 0.5\\]' $W/o", 0, NULL},
    /* the fifteenth campaign: what stands beside the levels is as mbtrain writes it */
    {"silent", LP("0.65,0.6,0.55", "# eval_adapt=1\\n# check_frac=nan\\n"), 1,
     "metadata 'check_frac': 'nan' is not a fraction in [0, 1)"},
    {"silent", LP("0.65,0.6,0.55", "# eval_adapt=2\\n"), 1,
     "metadata 'eval_adapt': '2' is not 0 or 1"},
    {"silent", LP("0.65,0.6,0.55", "# check_frac=0.0625\\n# check_sigmas=-3\\n"), 1,
     "metadata 'check_sigmas': '-3' is not a number above 0"},
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.49999999 " LV "/*.csv -o $W/o", 1,
     "--target-loss 0.49999999000000001 lies within the 6 digits a log writes of the level 0.5"},
#undef LP
    /* Q5: wall_s a running total (as mbopt validate reads it) */
    {"silent", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^50,0.0133,800,0.050,/50,"
               "0.0133,800,0.001,/' $W/r/run_M16_s0.csv && $T mbfit tupdate $E/step.csv "
               "$W/r/*.csv -o $W/o", 1,
     "run_M16_s0.csv:16: field 'wall_s': 0.001 at update 50 is below 0.040"},
    /* the sixteenth campaign. S5: --extrapolate resamples (200 by default), so --seed seeds it,
     * as it does --bootstrap 200's */
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 " LV "/*.csv --seed 5 --json -o "
               "$W/a.json && $T mbfit nupdate --extrapolate --target-loss 0.4 " LV "/*.csv "
               "--bootstrap 200 --seed 5 --json -o $W/b.json && cmp -s $W/a.json $W/b.json", 0,
     NULL},
    /* S6: runs of another backend or (at P = 1) thread count than the step table times, and a
     * log whose samples contradict its batch, calibrated the table without a word */
#define RC(SED) "mkdir $W/r && cp " LV "/*.csv $W/r/ && sed -i '" SED "' $W/r/*.csv && "
    /* campaign 17's F2: a learner count timed at two thread counts was pooled into one knee */
    {"silent", S1T "printf 'cpu,lenet5,8,1,2,5,0.01,0.01,0.01,0.01,0.01,800\\n' >> $W/s1.csv && "
               "$T mbfit tupdate $W/s1.csv -o $W/o", 1,
     "field 'threads': 2 differs from 1 (line "},
    {"silent", "$T mbfit tupdate --threads 1 $E/step.csv -o $W/o", 1,
     "step.csv: no rows of --threads 1 (the table times 2)"},
    {"silent", "$T mbfit tupdate --threads 2 $E/step.csv > $W/t && grep -q '^# P = 4' $W/t", 0,
     NULL},
    {"usage", "$T mbfit comm --threads 2 $E/comm.csv -o $W/o", 2, "unknown option '--threads'"},
    /* campaign 17's minor: a summary line that contradicts the log's metadata, or itself */
#define SUM(LINE) RC("s/^#x$/#x/") "printf '# " LINE "\\n' >> $W/r/lenet5-momentum-b128-s0.csv && "
    {"silent", SUM("net=lenet5 algo=momentum batch=64 seed=0 reached=yes") NU "$W/r/*.csv -o $W/o",
     1, "summary line: field 'batch' is 64, but metadata 'batch' is 128"},
    {"silent", SUM("net=lenet5 algo=sgd batch=128 seed=0 reached=yes") NU "$W/r/*.csv -o $W/o", 1,
     "summary line: field 'algo' is sgd, but metadata 'algo' is momentum"},
    {"silent", SUM("net=lenet5 algo=momentum batch=128 seed=0 seed=1 reached=yes") NU
     "$W/r/*.csv -o $W/o", 1, "summary line: key 'seed' given twice"},
    {"silent", SUM("net=lenet5 batch=128 reached=yes\\n# net=lenet5 batch=128 reached=no") NU
     "$W/r/*.csv -o $W/o", 1, "two summary lines (net=... after the rows)"},
    {"silent", SUM("net=lenet5 algo=momentum batch=128.0 seed=0 reached=yes") NU
     "$W/r/*.csv -o $W/o", 0, NULL},
    /* campaign 18's M1: resamples whose inverse law had alpha < 0 went into the nfit's
     * bootstrap samples, which mbopt refuses: make run's check stage stopped on noisy runs */
    {"message", "$T mbtrain --net " NET " --data synthetic:n=256,test=16,c=1,h=8,w=8,classes=4,"
                "seed=3 --batch 4,8,16,32 --seeds 0:2 --threads 1 --lr 0.1 --target-loss 0.5 "
                "--levels 0.8,0.7,0.6 --check-frac 0.25 --eval-adapt --max-updates 3000 --epochs "
                "500 --eval-every 5 --log-dir $W/lv > /dev/null && " NU "--weights pooled "
                "--bootstrap 200 $W/lv/*.csv --json -o $W/nb.json && $T mbopt scale --nfit "
                "$W/nb.json --gamma 2e-5 --m-t 32 --comm none --procs 1 $W/lv > $W/t && grep -q "
                "'^spread: .* to 181 bootstrap' $W/t", 0, NULL},
    /* campaign 18's known minors: summary fields that mbtrain never writes */
    {"silent", SUM("net=lenet5 algo=momentum batch=128 seed=0 reached=maybe") NU
     "$W/r/*.csv -o $W/o", 1, "summary line: field 'reached' 'maybe' is not yes or no"},
    {"silent", SUM("net=lenet5 batch=128 updates=x reached=no") NU "$W/r/*.csv -o $W/o", 1,
     "summary line: field 'updates' 'x' is not a whole number of updates"},
    {"nan", SUM("net=lenet5 batch=128 wall_s=nan reached=no") NU "$W/r/*.csv -o $W/o", 1,
     "summary line: field 'wall_s' 'nan' is not a finite number"},
    {"nan", SUM("net=lenet5 batch=128 loss=-inf reached=no") NU "$W/r/*.csv -o $W/o", 1,
     "summary line: field 'loss' '-inf' is not a finite number"},
    /* campaign 17's minor: reached=no over a row under the log's own target_loss */
    {"silent", SUM("net=lenet5 algo=momentum batch=128 seed=0 reached=no") NU "$W/r/*.csv -o $W/o",
     1, "lenet5-momentum-b128-s0.csv:62: field 'eval_loss': 0.4986165 is under the log's "
        "target_loss 0.5, but its summary says reached=no"},
#undef SUM
    /* campaign 17's F4: an empty `# algo=` is refused by the run-log reader (mbfit, mbopt) */
    {"silent", RC("s/^# algo=momentum$/# algo=/") NU "$W/r/*.csv -o $W/o", 1,
     "metadata 'algo': empty (mbtrain writes the algorithm's name)"},
    {"silent", RC("s/^# backend=cpu$/# backend=cuda/") S1T "$T mbfit tupdate $W/s1.csv $W/r/*.csv "
               "-o $W/o", 1, "b128-s0.csv: metadata 'backend': 'cuda', but the step table times cpu"},
    {"silent", RC("s/^# threads=1$/# threads=8/") S1T "$T mbfit tupdate $W/s1.csv $W/r/*.csv -o "
               "$W/o", 1, "b128-s0.csv: metadata 'threads': 8, but the step table times 1 thread"},
    {"silent", RC("s/^# threads=1$/# threads=8/") "$T mbfit tupdate $E/step.csv $W/r/*.csv -o "
               "$W/o", 1, "metadata 'threads': 8, but the step table times 2 threads"},
    {"silent", RC("s/^# threads=1$/# threads=2/") "$T mbfit tupdate $E/step.csv $W/r/*.csv "
               "--json -o $W/t.json 2>/dev/null && grep -q '\"scale_above\"' $W/t.json", 0, NULL},
#undef RC
    {"silent", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^# batch=16$/# batch=4096/' "
               "$W/r/run_M16_s0.csv && $T mbfit nupdate --target-loss 0.5 $W/r/*.csv -o $W/o", 1,
     "run_M16_s0.csv:12: field 'samples': 160 at update 10 is not update x batch (metadata "
     "'batch' 4096)"},
    /* campaign 17's M4: a value of 100,000 digits is echoed cut short, so that the line still
     * says what is wrong with it (it carried the digits to the end of the message) */
    {"message", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && d=$(head -c 100000 /dev/zero | tr "
                "'\\0' 1) && sed -i \"s/^20,/$d,/\" $W/r/run_M16_s0.csv && " NU "$W/r/*.csv -o $W/o",
     1, "run_M16_s0.csv:13: field 'update': '111111111111111111111111111111111111111...' is not "
        "a finite number"},
    /* campaign 18's M8: an algorithm mbtrain never writes, in `# algo=` or the summary's algo=,
     * went into the fit ("algo": "bogus") and on to tupdate and mbopt; the names listed are
     * mbtrain's own tables' */
#define AB(SED) "mkdir $W/r && cp " LV "/*.csv $W/r/ && sed -i '" SED "' $W/r/*.csv && "
#define BOGUS "'bogus' is not an algorithm mbtrain writes (sgd, momentum, nesterov, sgd-sync, " \
              "downpour, easgd, easgd-async, eamsgd, easgd-hogwild, easgd-sync, sma)"
    {"silent", AB("s/^# algo=momentum$/# algo=bogus/") NU "$W/r/*.csv -o $W/o", 1,
     "b128-s0.csv:5: metadata 'algo': " BOGUS},
    {"silent", AB("s/^# algo=momentum$/# algo=bogus/") "$T mbfit nupdate --extrapolate "
               "--target-loss 0.4 $W/r/*.csv -o $W/o", 1, "b128-s0.csv:5: metadata 'algo': " BOGUS},
    {"silent", AB("s/^# algo=momentum$/# algo=bogus/") S1T "$T mbfit tupdate $W/s1.csv "
               "$W/r/*.csv -o $W/o", 1, "b128-s0.csv:5: metadata 'algo': " BOGUS},
    {"silent", AB("/^# algo=/d") "printf '# net=lenet5 algo=bogus batch=128 seed=0 reached=yes\\n' "
               ">> $W/r/lenet5-momentum-b128-s0.csv && " NU "$W/r/*.csv -o $W/o", 1,
     "b128-s0.csv:62: summary line: field 'algo': " BOGUS},
    {"silent", AB("s/^# algo=momentum$/# algo=Momentum/") NU "$W/r/*.csv -o $W/o", 1,
     "metadata 'algo': 'Momentum' is not an algorithm mbtrain writes"},
#undef BOGUS
#undef AB
    /* campaign 18's known minors: mbtrain writes one summary, last, when its run has ended (a
     * killed run leaves no log): a row after it, or an mbtrain log without it (cut short), is
     * refused; a hand-made log without one still reads (data/examples', the fixtures') */
#define ML TRAIN "--max-updates 20 --log $W/a.csv > /dev/null && "
    {"silent", ML "sed -i '$d' $W/a.csv && " NU "$W/a.csv -o $W/o", 1,
     "a.csv: no summary line (net=... after the rows), but metadata 'tool' is mbtrain, which "
     "ends every log with one: the log is cut short"},
    {"silent", ML "tail -n 2 $W/a.csv | head -n 1 >> $W/a.csv && " NU "$W/a.csv -o $W/o", 1,
     "a row after the summary line (line "},
    {"silent", ML "sed -i '$s/^# net=/# /' $W/a.csv && " NU "$W/a.csv -o $W/o", 1,
     "a.csv: no summary line"},
    {"silent", NU LOGS " > /dev/null", 0, NULL},
#undef ML
    /* campaign 19's G6: one Lightning run given twice (the same folder twice, a folder and its
     * own metrics.csv, a link to the folder) was fitted as two seeds; by device and inode of
     * the metrics file, as run logs given twice are */
#define LT1 LT "mkdir $W/v1 && printf 'epoch,step,val_loss\\n0,0,2.3\\n0,19,0.4\\n' > " \
           "$W/v1/metrics.csv && printf 'batch_size: 32\\n' > $W/v1/hparams.yaml && "
    {"silent", LT1 NU "--lightning $W/v0 $W/v0 $W/v1 -o $W/o", 1, "/v0: given twice (also as "},
    {"silent", LT1 NU "--lightning $W/v0 $W/v1 $W/v0/metrics.csv -o $W/o", 1,
     "/v0/metrics.csv: given twice (also as "},
    {"silent", LT1 "ln -s v0 $W/l && " NU "--lightning $W/v0 $W/v1 $W/l -o $W/o", 1,
     "/l: given twice (also as "},
#undef LT1
    /* campaign 20's minor: a log cut inside its summary line was read (the cut drops diverged=
     * and the rest): the file ending inside the line, or a key mbtrain always writes missing */
#define ML TRAIN "--max-updates 20 --log $W/a.csv > /dev/null && "
    {"silent", ML "head -c -30 $W/a.csv > $W/b.csv && " NU "$W/b.csv -o $W/o", 1,
     ": the summary line has no newline at its end: the log was cut inside it"},
    {"silent", ML "sed -i '$s/ diverged=.*//' $W/a.csv && " NU "$W/a.csv -o $W/o", 1,
     ": summary line: no field 'diverged', which mbtrain writes in every summary: the line is "
     "cut short"},
    {"silent", ML "sed -i '$s/ wall_s=[^ ]*//' $W/a.csv && " NU "$W/a.csv -o $W/o", 1,
     ": summary line: no field 'wall_s', which mbtrain writes"},
    {"silent", ML "sed -i '$s/diverged=no/diverged=/' $W/a.csv && " NU "$W/a.csv -o $W/o", 1,
     ": summary line: field 'diverged' '' is empty"},
#undef ML
    /* campaign 21 (issue #25). N19: a log whose epoch is -1, and one whose header says lossx
     * for loss (read on its evaluations alone), were taken without a word */
    {"silent", "mkdir $W/r && cp " LOGS " $W/r/ && sed -i '0,/^50,/s/^50,[^,]*,/50,-1,/' "
               "$W/r/run_M16_s0.csv && " NU "$W/r/*.csv -o $W/o", 1,
     "run_M16_s0.csv:16: field 'epoch': -1 is not a number in [0,"},
    {"silent", "mkdir $W/r && cp " LOGS " $W/r/ && sed -i '0,/^50,/s/^50,[^,]*,/50,0.0001,/' "
               "$W/r/run_M16_s0.csv && " NU "$W/r/*.csv -o $W/o", 1,
     "run_M16_s0.csv:16: field 'epoch': 0.0001 is below 0.0107 (line 15)"},
    {"silent", "mkdir $W/r && cp " LOGS " $W/r/ && sed -i 's/^update,epoch,samples,wall_s,loss,"
               "/update,epoch,samples,wall_s,lossx,/' $W/r/run_M16_s0.csv && " NU "$W/r/*.csv "
               "-o $W/o", 1, "run_M16_s0.csv: header: column 'lossx' is not a run log's, and 'loss' "
               "is missing"},
    /* N2: every command refuses a bad MBKIT_MPI_START_WAIT, MPI or not */
    {"silent", "MBKIT_MPI_START_WAIT=-5 $T mbfit tupdate $E/step.csv -o $W/o", 2,
     "MBKIT_MPI_START_WAIT='-5': must be a number of seconds from 1"},
    /* campaign 21's N11: the probe's other columns were taken as anything: bytes not a
     * multiple of 4 (float32 data), t_rank_min_s above t_rank_max_s, alg_bw_Bps not bytes / time,
     * wide 2, stop 'frob'; in a step table wide 7, stop 'bogus', drift -0.5 and two devices */
#define C21_C(SED) "printf 'op,procs,bytes,reps,t_median_s,t_min_s,t_max_s,t_rank_min_s,"      \
                   "t_rank_max_s,alg_bw_Bps,bus_bw_Bps,wide,stop\\nallreduce,2,4,5,1e-5,1e-5,"  \
                   "1e-5,1e-5,1e-5,4e5,4e5,0,ci\\nallreduce,2,8,5,2e-5,2e-5,2e-5,2e-5,2e-5,4e5," \
                   "4e5,0,ci\\nallreduce,2,16,5,3e-5,3e-5,3e-5,3e-5,3e-5,533333,533333,0,ci\\n' " \
                   "> $W/c.csv && sed -i '" SED "' $W/c.csv && $T mbfit comm $W/c.csv -o $W/o"
    {"silent", "sed '0,/^allreduce,2,4,/s//allreduce,2,6,/' $E/comm.csv > $W/c.csv && $T mbfit "
               "comm $W/c.csv -o $W/o", 1, "field 'bytes': 6 is not a multiple of 4"},
    {"silent", C21_C("s/^allreduce,2,4,5,1e-5,1e-5,1e-5,1e-5,/allreduce,2,4,5,1e-5,1e-5,1e-5,"
                     "3e-5,/"), 1, "c.csv:2: field 't_rank_max_s': 1e-5 is below 't_rank_min_s'"},
    {"silent", C21_C("s/,4e5,4e5,0,ci$/,5,4e5,0,ci/"), 1,
     "c.csv:2: field 'alg_bw_Bps': 5 is not bytes / t_median_s (400000)"},
    {"silent", C21_C("2s/,0,ci$/,2,ci/"), 1, "c.csv:2: field 'wide': '2' is not 0 or 1"},
    {"silent", C21_C("2s/,0,ci$/,0,frob/"), 1,
     "c.csv:2: field 'stop': 'frob' is not ci, budget or max-reps"},
    {"silent", C21_C("s/^x//") " > /dev/null", 0, NULL},
#define C21_S(SED) "printf 'backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s," \
                   "t_p75_s,t_max_s,samples_per_s,wide,stop,drift,device\\ncpu,t,1,1,1,5,0.001," \
                   "0.001,0.001,0.001,0.001,1000,0,ci,,D1\\ncpu,t,2,1,1,5,0.001,0.001,0.001,"      \
                   "0.001,0.001,2000,0,ci,,D1\\ncpu,t,8,1,1,5,0.002,0.002,0.002,0.002,0.002,4000,"  \
                   "0,ci,,D1\\n' > $W/s.csv && sed -i '" SED "' $W/s.csv && $T mbfit tupdate "      \
                   "$W/s.csv -o $W/o"
    {"silent", C21_S("3s/,0,ci,,D1$/,7,ci,,D1/"), 1, "s.csv:3: field 'wide': '7' is not 0 or 1"},
    {"silent", C21_S("3s/,0,ci,,D1$/,0,bogus,,D1/"), 1,
     "s.csv:3: field 'stop': 'bogus' is not ci, budget or max-reps"},
    {"silent", C21_S("3s/,0,ci,,D1$/,0,ci,-0.5,D1/"), 1, "s.csv:3: field 'drift': -0.5 is not "},
    {"silent", C21_S("4s/,D1$/,D2/"), 1,
     "s.csv:4: field 'device': 'D2' differs from 'D1' above; fit one device at a time"},
    {"silent", C21_S("s/^x//") " > /dev/null", 0, NULL},
#undef C21_S
#undef C21_C
    /* campaign 21's N3: runs of another data set, momentum, weight decay, lr schedule, eval
     * fraction, data seed or parameter count were fitted into one law (plain and --extrapolate);
     * only the net was compared. Settings that do not change the curve may differ. */
#define C21(SED) "mkdir $W/r && cp " LV "/*.csv $W/r/ && sed -i '" SED "' " \
                 "$W/r/lenet5-momentum-b16-s0.csv && "
#define C21X "$T mbfit nupdate --extrapolate --target-loss 0.4 $W/r/*.csv -o $W/o"
    {"silent", C21("s/^# momentum=0.9$/# momentum=0.5/") NU "$W/r/*.csv -o $W/o", 1,
     "lenet5-momentum-b16-s0.csv: metadata 'momentum': '0.5', but "},
    {"silent", C21("s/^# data=fashion-mnist$/# data=mnist/") NU "$W/r/*.csv -o $W/o", 1,
     "b16-s0.csv: metadata 'data': 'mnist', but "},
    {"silent", C21("s/^# data=fashion-mnist$/# data=mnist/") C21X, 1,
     "b16-s0.csv: metadata 'data': 'mnist', but "},
    {"silent", C21("s/^# weight_decay=0$/# weight_decay=0.01/") C21X, 1,
     "b16-s0.csv: metadata 'weight_decay': '0.01', but "},
    {"silent", C21("s/^# lr_step=0$/# lr_step=100/") NU "$W/r/*.csv -o $W/o", 1,
     "b16-s0.csv: metadata 'lr_step': '100', but "},
    {"silent", C21("s/^# lr_gamma=0.1$/# lr_gamma=0.5/") C21X, 1,
     "b16-s0.csv: metadata 'lr_gamma': '0.5', but "},
    {"silent", C21("s/^# eval_frac=0.2$/# eval_frac=0.05/") NU "$W/r/*.csv -o $W/o", 1,
     "b16-s0.csv: metadata 'eval_frac': '0.05', but "},
    {"silent", C21("s/^# data_seed=0$/# data_seed=7/") C21X, 1,
     "b16-s0.csv: metadata 'data_seed': '7', but "},
    {"silent", C21("s/^# params=61706$/# params=7/") NU "$W/r/*.csv -o $W/o", 1,
     "b16-s0.csv: metadata 'params': '7', but "},
    /* the same number written otherwise, and the threads, may differ */
    {"silent", C21("s/^# momentum=0.9$/# momentum=0.90/; s/^# threads=1$/# threads=2/") NU
               "$W/r/*.csv > /dev/null 2>&1", 0, NULL},
    /* a run --lr leaves out is not compared */
    {"silent", C21("s/^# lr=0.02$/# lr=0.05/; s/^# momentum=0.9$/# momentum=0.5/") NU
               "--lr 0.02 $W/r/*.csv > /dev/null 2>&1", 0, NULL},
    /* mbfit tupdate's calibration logs: one data set, recorded in the tfit */
    {"silent", C21("s/^# data=fashion-mnist$/# data=mnist/") S1T "$T mbfit tupdate $W/s1.csv "
               "$W/r/*.csv -o $W/o", 1, "b16-s0.csv: metadata 'data': 'mnist', but "},
#undef C21X
#undef C21
    /* campaign 21's N4: the fits record the workload, net and data, where the inputs say */
    {"silent", NU LOGS " --json -o $W/n.json 2>/dev/null && "
               "grep -q '\"net\":[[:space:]]*\"lenet5\"' $W/n.json && "
               "grep -q '\"data\":[[:space:]]*\"fashion-mnist\"' $W/n.json", 0, NULL},
    {"silent", NX "grep -q '\"net\":[[:space:]]*\"lenet5\"' $W/nx.json && "
               "grep -q '\"data\":[[:space:]]*\"fashion-mnist\"' $W/nx.json", 0, NULL},
    {"silent", S1T "$T mbfit tupdate $W/s1.csv " LV "/*.csv --json -o $W/t.json 2>/dev/null && "
               "grep -q '\"net\":[[:space:]]*\"lenet5\"' $W/t.json && "
               "grep -q '\"data\":[[:space:]]*\"fashion-mnist\"' $W/t.json", 0, NULL},
    /* campaign 21's N15: a level above every run's start was "crossed" at the first evaluation */
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 --levels 5,0.7,0.6,0.5 " LV
               "/*.csv -o $W/o", 1,
     "level 5: " },
    {"silent", "$T mbfit nupdate --extrapolate --target-loss 0.4 --levels 1.5,0.7,0.6,0.5 " LV
               "/*.csv -o $W/o", 1,
     " was already under it at its first evaluation (loss "},
    /* campaign 21's N16: flat N_update was said to grow with M (alpha fitted at -7e-14) */
    {"message", "printf 'batch,n_update\\n8,100\\n8,100\\n16,100\\n16,100\\n32,100\\n' > $W/p.csv && "
                "$T mbfit nupdate $W/p.csv -o $W/o", 1,
     "the points file: N_update is flat in M, not growing (the inverse law's alpha fitted at "},
    /* campaign 22's Q9: summary fields the reader passed over (a word without '=', an empty
     * key, counts and seconds that are no numbers, a negative update, samples that are not
     * updates x batch) and a `# tool=` in other letters, whose summary went unchecked */
#define ML TRAIN "--max-updates 20 --log $W/a.csv > /dev/null && "
#define MLS(SED) ML "sed -i '" SED "' $W/a.csv && " NU "$W/a.csv -o $W/o"
    {"silent", MLS("$s/ reached=/ garbage reached=/"), 1,
     ": summary line: 'garbage' is not key=value (mbtrain writes key=value fields"},
    {"silent", MLS("$s/ reached=/ =5 reached=/"), 1, ": summary line: '=5' has no key"},
    {"silent", MLS("$s/ evals=[0-9]*/ evals=abc/"), 1,
     ": summary line: field 'evals' 'abc' is not a whole number of evaluations"},
    {"silent", MLS("$s/ eval_s=[^ ]*/ eval_s=abc/"), 1,
     ": summary line: field 'eval_s' 'abc' is not a number of seconds >= 0"},
    {"silent", MLS("$s/ diverged_update=0/ diverged_update=abc/"), 1,
     "summary line: field 'diverged_update' 'abc' is not an update: a whole number >= 0 "
     "(mbtrain writes 0 where there is none)"},
    {"silent", MLS("$s/ reached_update=0/ reached_update=-5/"), 1,
     "summary line: field 'reached_update' '-5' is not an update"},
    {"silent", MLS("$s/ reached_update=0/ reached_update=-1/"), 1,
     "summary line: field 'reached_update' '-1' is not an update"},
    {"silent", MLS("$s/ samples=160 / samples=1 /"), 1,
     ": summary line: field 'samples' '1' is not updates x batch (20 x 8): the log "
     "contradicts itself"},
    {"silent", MLS("s/^# tool=mbtrain$/# tool=MBTRAIN/; $s/ diverged=.*//"), 1,
     "a.csv:2: metadata 'tool': 'MBTRAIN' is not mbtrain (a writer's name is matched as it "
     "writes it)"},
    /* what the PyTorch front end writes where there is none (-1) is read in its logs */
    {"silent", MLS("s/^# tool=mbtrain$/# tool=mbkit_torch runs/; $s/ test_[^ ]*//g; "
                   "$s/_update=0/_update=-1/g") " 2> $W/e; grep -q 'target-loss 0.5: none of the 1 "
     "runs reached it' $W/e", 0, NULL},
#undef MLS
#undef ML
    /* campaign 23 (issue #25). R14: a points file's batch or seed '1e1' was read as 10 where
     * --batch refuses it (counts in digits, "16.0" as pandas writes them still read); an
     * n_update below one update was fitted */
    {"silent", "sed 's/^16,/1e1,/' $E/nupdate_points.csv > $W/p.csv && $T mbfit nupdate $W/p.csv "
               "-o $W/o", 1, "p.csv:8: field 'batch': '1e1' is not a whole number written in "
                             "digits (a count, as on a command line)"},
    {"silent", "sed '5s/,0$/,1e0/' $E/nupdate_points.csv > $W/p.csv && $T mbfit nupdate $W/p.csv "
               "-o $W/o", 1, "p.csv:5: field 'seed': '1e0' is not a whole number written in "
                             "digits"},
    {"silent", "sed 's/^16,/16.0,/; 5s/,0$/,0.0/' $E/nupdate_points.csv > $W/p.csv && $T mbfit "
               "nupdate $W/p.csv -o $W/r 2>/dev/null && test -s $W/r", 0, NULL},
    {"silent", "sed '5s/^8,[^,]*,/8,0.25,/' $E/nupdate_points.csv > $W/p.csv && $T mbfit nupdate "
               "$W/p.csv -o $W/o", 1, "p.csv:5: field 'n_update': 0.25 is below 1: a run takes "
                                      "at least one update to reach its target"},
    {"silent", "sed '5s/^8,[^,]*,/8,4.9e-324,/' $E/nupdate_points.csv > $W/p.csv && $T mbfit "
               "nupdate $W/p.csv -o $W/o", 1, "field 'n_update': 4.9e-324 is below 1"},
    /* --choose and --form exited 2 (usage) for a bad value, where --weights, --algo and every
     * other command's named values exit 1 */
    {"message", NU "--choose AIC " LOGS " -o $W/o", 1,
     "--choose: 'AIC' is not shifted, inverse or aic"},
    {"message", "$T mbfit nupdate --extrapolate --target-loss 0.4 --form SHIFTED " LV "/*.csv "
               "-o $W/o", 1, "--form: 'SHIFTED' is not auto, separable, noise, per-level, floor "
                             "or shifted"},
    /* campaign 24's U7: the summary's counts in any spelling (6.8e2, +680, -0, the front end's
     * -1.0) were taken, and a `# tool=` with two spaces or a no-break space was another writer,
     * so a log without its summary passed; U9: a points file's ' 8' at a line's start and '0 '
     * at its end were taken where '8 ,' was refused (cells as written, the first and last too) */
#define ML TRAIN "--max-updates 20 --log $W/a.csv > /dev/null && "
#define MLS(SED) ML "sed -i '" SED "' $W/a.csv && " NU "$W/a.csv -o $W/o"
    {"silent", MLS("$s/ samples=160 / samples=1.6e2 /"), 1,
     "summary line: field 'samples' '1.6e2' is not a count written in digits (as mbtrain and "
     "the PyTorch front end write it)"},
    {"silent", MLS("$s/ samples=160 / samples=+160 /"), 1,
     "summary line: field 'samples' '+160' is not a count written in digits"},
    {"silent", MLS("$s/ diverged_update=0/ diverged_update=-0/"), 1,
     "summary line: field 'diverged_update' '-0' is not a count written in digits"},
    {"silent", MLS("s/^# tool=mbtrain$/# tool=mbkit_torch runs/; $s/ test_[^ ]*//g; "
                   "$s/_update=0/_update=-1.0/g"), 1,
     "summary line: field 'reached_update' '-1.0' is not a count written in digits"},
    {"silent", MLS("s/^# tool=mbtrain$/# tool=mbkit_torch  runs/; $d"), 1,
     "a.csv:2: metadata 'tool': 'mbkit_torch  runs' is not mbkit_torch runs (a writer's name "
     "is matched as it writes it)"},
    {"silent", MLS("s/^# tool=mbtrain$/# tool=mbtrain\\xc2\\xa0/; $d"), 1,
     "a.csv:2: metadata 'tool': a control or non-ASCII byte (0xc2) in the name"},
    /* campaign 25's V10: an update past the run's last was read on */
    {"silent", MLS("$s/ reached_update=0/ reached_update=25/"), 1,
     "summary line: field 'reached_update' 25 is past updates=20: the log contradicts itself"},
#undef MLS
#undef ML
    {"silent", "sed '5s/^8,/ 8,/' $E/nupdate_points.csv > $W/p.csv && $T mbfit nupdate $W/p.csv "
               "-o $W/o", 1, "p.csv:5: field 'batch': ' 8' is not a finite number (a space "
                             "before it)"},
    {"silent", "sed '5s/,0$/,0 /' $E/nupdate_points.csv > $W/p.csv && $T mbfit nupdate $W/p.csv "
               "-o $W/o", 1, "p.csv:5: field 'seed': '0 ' is not a finite number (a space after "
                             "it)"},
    {"silent", "sed 's/$/\\r/' $E/nupdate_points.csv > $W/p.csv && $T mbfit nupdate $W/p.csv -o "
               "$W/r 2>/dev/null && test -s $W/r", 0, NULL},
};

static const hcase opt_cases[] = {
    /* campaign 15's S3: a tfit's calibration names whole runs and batch sizes in order (the
     * example step table timed at 1 thread, as the levels' runs trained: campaign 16's S6) */
    {"silent", S1T "$T mbfit tupdate $W/s1.csv " LV "/*.csv --json -o $W/t.json 2>/dev/null && "
               "sed -i '0,/\"runs\":\t25/s//\"runs\":\t1.5/' $W/t.json && $T mbopt validate "
               "--nfit $E/nfit.json --tfit $W/t.json --target-loss 0.5 " LV " -o $W/o", 1,
     "field 'calibration.runs': 1.5 is not a whole count of runs"},
    {"silent", S1T "$T mbfit tupdate $W/s1.csv " LV "/*.csv --json -o $W/t.json 2>/dev/null && "
               "sed -i '0,/\"m_lo\":\t16/s//\"m_lo\":\t-5/' $W/t.json && $T mbopt validate "
               "--nfit $E/nfit.json --tfit $W/t.json --target-loss 0.5 " LV " -o $W/o", 1,
     "fields 'calibration.m_lo' and 'm_hi' (-5, "},
    {"runaway", "$T mbopt scale " SCALE_FLAGS "--procs 1:1e300 -o $W/o", 1, "--procs"},
    {"runaway", "$T mbopt amdahl --gpus 1e300 --efficiency 0.5 -o $W/o", 1, "whole number"},
    /* campaign 14's R4: a relative slack of 1e-12 is a whole device past 1e12: the speed-up
     * target was missed by one device, the efficiency floor broken by nine */
    {"silent", "$T mbopt amdahl --overhead-ratio 0 --speedup 1e12 --json -o $W/o && grep -q "
               "'\"gpus\":.1000000000000,' $W/o", 0, NULL},
    {"silent", "$T mbopt amdahl --overhead-ratio 1e-13 --efficiency 0.5 --json -o $W/o && grep -q "
               "'\"gpus\":.10000000000002,' $W/o", 0, NULL},
    {"runaway", "$T mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 "
                "--budget 1e300 --price-learner 1 --price-bandwidth 1e-5 --bandwidth-ref 1G "
                "-o $W/o",
     1, "2^53"},
    {"runaway", "$T mbopt scale " SCALE_FLAGS "--procs 1:8 --batch-range 1:1e300 -o $W/o", 1,
     "--batch-range"},
    {"silent", "$T mbopt amdahl --gpus 3.5 --efficiency 0.5 -o $W/o", 1, "whole number"},
    {"silent", "$T mbopt amdahl --gpus 4 --efficiency 1.5 -o $W/o", 1, "--efficiency"},
    {"silent", "$T mbopt amdahl --gpus 4 -o $W/o", 2, "two of"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1,,2 -o $W/o", 1, "empty item"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:8 --comm bogus -o $W/o", 1, "--comm"},
    {"silent", "$T mbopt scale --nfit $D/dup.json --gamma 2e-5 --m-t 32 --delta 0.004 --procs 1:8 -o $W/o", 1,
     "given twice"},
    {"silent", "$T mbopt scale --nfit $D/unknown_model.json --tfit $E/tfit.json --procs 1:8 "
               "--comm none -o $W/o",
     1, "unknown_model.json"},
    {"silent", "$T mbopt scale --nfit $E/nfit.json --tfit $D/dup.json --procs 1:8 --comm none "
               "-o $W/o",
     1, "given twice"},
    {"silent", "$T mbopt scale --nfit $D/notjson.json --tfit $E/tfit.json --procs 1:8 "
               "--comm none -o $W/o",
     1, "not valid JSON"},
    {"silent", "$T mbopt scale --nfit /dev/zero --tfit $E/tfit.json --procs 1:8 --comm none "
               "-o $W/o",
     1, "/dev/zero"},
    {"silent", "$T mbopt scale --nfit $D --tfit $E/tfit.json --procs 1:8 --comm none -o $W/o", 1,
     "cannot read"},
    {"silent", "$T mbopt mem --net " NET " --mem 12G --batch 8.5 -o $W/o", 1, "--batch"},
    {"silent", "$T mbopt mem --net " NET " --mem -1 --batch 8 -o $W/o", 1, "--mem"},
    {"silent", "$T mbopt mem --net /dev/zero --mem 12G --batch 8 -o $W/o", 1, "/dev/zero"},
    {"silent", "$T mbopt ps --compute-time 0.2 --workers 16 --bandwidth 10G --param-bytes nan "
               "-o $W/o",
     1, "--param-bytes"},
    {"silent", "$T mbopt ps --compute-time -0.2 --workers 16 --bandwidth 10G --param-bytes 240M "
               "-o $W/o",
     1, "--compute-time"},
    {"usage", "$T mbopt frob", 2, "unknown command"},
    {"usage", "$T mbopt scale --frob", 2, "unknown option"},
    {"fifo", "mkfifo $W/f && { $T cat $W/f > $W/got & r=$!; $T mbopt amdahl --gpus 4 "
             "--efficiency 0.8 -o $W/f; s=$?; wait $r; test $s = 0 && grep -q overhead $W/got; }",
     0, NULL},
    {"fifo", "mkfifo $W/f && { $T cat $E/nfit.json > $W/f & $T mbopt scale --nfit $W/f --tfit "
             "$E/tfit.json --procs 1:4 --comm none -o $W/n; s=$?; wait; test $s = 0; }",
     0, NULL},
    {"symlink", "echo old > $W/t && ln -s t $W/l && $T mbopt amdahl --gpus 4 --efficiency 0.8 "
                "-o $W/l && test -L $W/l && grep -q overhead $W/t",
     0, NULL},
    {"symlink", "ln -s t $W/l && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/l && "
                "test -L $W/l && grep -q rows $W/t",
     0, NULL},
    {"symlink", "mkdir $W/d && ln -s d/t $W/l && $T mbopt amdahl --gpus 4 --efficiency 0.8 --json "
                "-o $W/l && test -L $W/l && grep -q efficiency $W/d/t",
     0, NULL},
    {"io", "$T mbopt amdahl --gpus 4 --efficiency 0.8 -o $D", 1, "cannot write"},
    {"nan", "$T mbopt amdahl --overhead-ratio 1e300 --gpus 9007199254740992 | "
            "grep -v -q 'nan\\|inf'",
     0, NULL},
    {"message", "$T mbopt amdahl --overhead-ratio 1e-308 --gpus 4 >/dev/null", 0, NULL},
    {"message", "printf '\\357\\273\\277' > $W/b.json && cat $E/tfit.json >> $W/b.json && "
                "$T mbopt scale --nfit $E/nfit.json --tfit $W/b.json --procs 1:2 --comm none "
                ">/dev/null",
     0, NULL},
    {"message", "$T mbopt amdahl --speedup 1e-308 --efficiency 0.5 -o $W/o", 1,
     "got '1e-308'"},
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               "$E/fit_runs/run_M16_s0.csv $E/fit_runs/run_M16_s0.csv $E/fit_runs/run_M32_s0.csv "
               "-o $W/o",
     1, "given twice"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --holdout-plan 1e9 "
               "$E/fit_runs -o $W/o",
     1, "--holdout-plan"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --holdout-plan "
               "4.0000000000000001 $E/fit_runs -o $W/o", 1,
     "--holdout-plan: a whole number of seeds from 3 to 64, got '4.0000000000000001'"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --holdout-plan 3.0 "
               "$E/fit_runs", 1, "--holdout-plan: a whole number of seeds from 3 to 64, got '3.0'"},
    {"silent", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --procs 1 "
               "--comm none --procs-available 1.0 -o $W/o", 1,
     "--procs-available: must be a whole number in [1, 9007199254740992], got '1.0'"},
    /* the modes that print tokens for scripts wrote them to standard output whatever -o said */
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               "$E/fit_runs --missing -o $W/o",
     2, "do not apply"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --more-seeds --json "
               "$E/fit_runs",
     2, "do not apply"},
    {"silent", "$T mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0.004 "
               "--budget 1e5 --price-learner 0 --price-bandwidth 1e-5 --bandwidth-ref 1G -o $W/o",
     1, "--price-learner"},
    {"silent", "$T mbopt mem --net " NET " --mem 12G --batch 8 --state-copies nan -o $W/o", 1,
     "--state-copies"},
    {"runaway", "$T mbopt mem --net " NET " --mem 12G --batch 1:1e300 -o $W/o", 1,
     "'1:1e300' is not a whole number in [1, 1073741824]"},
    {"size", "$T mbopt conv --net " NET " --probe /dev/zero --mem 1G --batch 4 -o $W/o", 1,
     "/dev/zero"},
    /* lists name each value once; a batch range is searched to its ends as given */
    {"silent", "$T mbopt mem --net " NET " --mem 12G --batch 8,8 -o $W/o", 1, "given twice"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1,1 -o $W/o", 1, "given twice"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --batch-range 8.5:64 -o $W/o", 1,
     "--batch-range"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1 --batch-range 8:48 -o $W/o && grep -q "
               "'sought in \\[8, 48\\]' $W/o", 0, NULL},
    {"silent", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --comm alpha-beta "
               "--latency 1e-5 --s-per-byte 1e-9 --procs 1:4 -o $W/o", 2, "needs --bytes"},
    /* a fit whose top-level params were edited and its copy of the same law (best, laws,
     * by_learners) not: one of the two would be used, silently; learners not whole */
    {"silent", "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
               "sed '0,/\"alpha\":/s/\"alpha\":\t[0-9.e+-]*/\"alpha\":\t1e308/' $W/n.json > "
               "$W/m.json && $T mbopt scale --nfit $W/m.json --tfit $E/tfit.json --procs 1:4 "
               "--comm none -o $W/o", 1,
     "m.json: field 'params.alpha': 1e+308, but best.params.alpha is"},
    {"silent", "$T mbfit tupdate $E/step.csv --json -o $W/t.json 2>/dev/null && sed "
               "'0,/\"m_t\":/s/\"m_t\":\t[0-9.e+-]*/\"m_t\":\t1e-300/' $W/t.json > $W/u.json "
               "&& $T mbopt scale --nfit $E/nfit.json --tfit $W/u.json --procs 1:4 --comm none "
               "-o $W/o", 1, "field 'params.m_t': 1e-300, but by_learners[P = 1].params.m_t is"},
    {"silent", "$T mbfit tupdate $E/step.csv --json -o $W/t.json 2>/dev/null && sed "
               "'0,/\"learners\":/s/\"learners\":\t1,/\"learners\":\t2.5,/' $W/t.json > "
               "$W/u.json && $T mbopt scale --nfit $E/nfit.json --tfit $W/u.json --procs 1:4 "
               "--comm none -o $W/o", 1, "u.json: field 'learners': not a whole number >= 1"},
    /* --delta 0: bandwidth buys nothing and the budget buys 50 learners exactly; the search's
     * 49.9999... once gave a whole answer of 49 */
    {"message", "$T mbopt design --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --delta 0 "
                "--budget 100000 --price-learner 2000 --price-bandwidth 1e-5 --bandwidth-ref 1G "
                "-o $W/r && grep -q '^whole *50 learners and 0 bytes/s' $W/r", 0, NULL},
    /* a flag missing from the command line is a usage error (exit 2, the --help hint) in every
     * subcommand, as in mbopt design */
    {"usage", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --m-t 32 --delta 0.004 --procs 1:4 "
              "-o $W/o", 2, "gamma unknown: give --gamma or --tfit"},
    {"usage", "$T mbopt validate --gamma 1e-5 --m-t 1 --n-inf 3 --alpha 4 $E/fit_runs -o $W/o", 2,
     "no target loss: give --target-loss"},
    {"silent", "$T mbopt ps --compute-time 0.2 --workers 16 --bandwidth 10G --param-bytes 1.5 "
               "-o $W/o", 1, "--param-bytes: must be a whole number"},
    /* counts are whole numbers */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1.5 -o $W/o", 1, "is not a whole number"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --procs-available 2.5 -o $W/o", 1,
     "--procs-available: must be a whole number"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --m-strong 64.5 -o $W/o", 1,
     "--m-strong: must be a whole number"},
    {"silent", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --comm alpha-beta "
               "--latency 1e-5 --s-per-byte 1e-9 --bytes 241.5 --procs 1:4 -o $W/o", 1,
     "--bytes: must be a whole number"},
    {"silent", "$T mbopt ps --compute-time 0.2 --workers 16.5 --bandwidth 10G --param-bytes 240M "
               "-o $W/o", 1, "--workers: must be a whole number"},
    {"silent", "$T mbopt mem --net " NET " --mem 12G --batch 8 --grad-copies 1.5 -o $W/o", 1,
     "--grad-copies: must be a whole number"},
    {"nan", "$T mbopt mem --net " NET " --mem 12G --batch 8 --grad-copies 1e308 -o $W/o", 1,
     "--grad-copies"},
    {"nan", "$T mbopt mem --net " NET " --mem 12G --batch 8 --state-copies 1e308 -o $W/o", 1,
     "--state-copies"},
    /* an output over an input, refused before any work; the input left as it was */
    {"silent", "cp $E/nfit.json $W/n.json && $T mbopt scale --nfit $W/n.json --tfit $E/tfit.json "
               "--procs 1:2 --comm none --json -o $W/n.json", 1, "would overwrite the input"},
    {"silent", "cp $E/tfit.json $W/t.json && $T mbopt validate --nfit $E/nfit.json --tfit "
               "$W/t.json -o $W/t.json $W", 1, "would overwrite the input"},
    /* --tfit from a FIFO: read once (the fit and its calibration from the one read) */
    {"fifo", "mkfifo $W/f && { $T cat $E/tfit.json > $W/f & $T mbopt scale --nfit $E/nfit.json "
             "--tfit $W/f --procs 1:4 --comm none -o $W/n; s=$?; wait; test $s = 0; }",
     0, NULL},
    /* a NUL byte, or text after the document */
    {"silent", "{ cat $E/nfit.json; printf '\\000junk'; } > $W/n.json && $T mbopt scale --nfit "
               "$W/n.json --tfit $E/tfit.json --procs 1:4 --comm none -o $W/o", 1, "a NUL byte"},
    {"silent", "{ cat $E/nfit.json; echo junk; } > $W/n.json && $T mbopt scale --nfit "
               "$W/n.json --tfit $E/tfit.json --procs 1:4 --comm none -o $W/o", 1,
     "not valid JSON"},
    /* the third campaign: a law no fit gives, a knee model of gamma < 0 (named by its file),
     * an output among the logs of an input folder or over --net through a link, an algorithm
     * the CPU has not, a formula's nan */
    {"silent", "sed 's/\"n_inf\":[[:space:]]*1200/\"n_inf\": -5/' $E/nfit.json > $W/n.json && "
               "$T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --procs 1:4 --comm none -o $W/o",
     1, "needs n_inf > 0"},
    {"message", "sed 's/\"gamma\":[[:space:]]*[0-9.e-]*/\"gamma\": -1e-5/' $E/tfit.json > "
                "$W/t.json && $T mbopt scale --nfit $E/nfit.json --tfit $W/t.json --procs 1:4 "
                "--comm none -o $W/o", 1, "t.json: params: gamma"},
    {"silent", "cp -r $E/fit_runs $W/runs && $T mbopt validate --nfit $E/nfit.json --tfit "
               "$E/tfit.json $W/runs -o $W/runs/run_M16_s0.csv", 1, "would overwrite the input"},
    {"silent", "cp " NET " $W/n.cfg && ln -s n.cfg $W/l && $T mbopt mem --net $W/n.cfg --mem 1G "
               "--batch 8 -o $W/l", 1, "would overwrite the input"},
    {"silent", "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 --algos gemm -o "
               "$W/c.csv 2>/dev/null && sed 's/,gemm,/,magic,/' $W/c.csv > $W/m.csv && $T mbopt conv "
               "--net " NET " --probe $W/m.csv --mem 1G --batch 2 -o $W/o", 1, "'magic'"},
    {"nan", "$T mbopt scale --n-inf 1e-300 --alpha 1e300 --gamma 1e-300 --m-t 1 --delta 0 "
            "--procs 1:4 > $W/r && test -s $W/r && ! grep -q -i 'nan' $W/r", 0, NULL},
    /* another fit's file, or a model no mbfit writes */
    {"silent", "$T mbopt scale --nfit $E/tfit.json --tfit $E/tfit.json --procs 1:4 --comm none "
               "-o $W/o", 1, "not inverse-law"},
    {"silent", "$T mbopt scale --nfit $E/nfit.json --tfit $E/nfit.json --procs 1:4 --comm none "
               "-o $W/o", 1, "not update-time"},
    /* the fourth campaign: the law fitted or given, not both (the flags overrode the fit, and
     * the header still called it fitted); flags given twice; FIFOs with no writer, a late one,
     * one that writes late; a whole number past the range */
    {"silent", "$T mbopt scale --nfit $E/nfit.json --tfit $E/tfit.json --n-inf 5 -o $W/o", 2,
     "give '--nfit' or '--n-inf', not both"},
    {"silent", "$T mbopt design --alpha 5 --nfit $E/nfit.json --tfit $E/tfit.json -o $W/o", 2,
     "give '--nfit' or '--alpha', not both"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --n-inf 5 --tfit $E/tfit.json "
               "$E/fit_runs -o $W/o", 2, "not both"},
    {"silent", "$T mbopt amdahl --overhead-ratio 0.1 --overhead-ratio 0.2 -o $W/o", 2,
     "option '--overhead-ratio' given twice"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --procs 1:8 -o $W/o", 2,
     "option '--procs' given twice"},
    {"message", "$T mbopt mem --net " NET " --mem 1G --batch 4294967296 -o $W/o", 1,
     "--batch: '4294967296' is not a whole number in [1, 1073741824]"},
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbopt scale --nfit $W/f --tfit $E/tfit.json "
             "-o $W/o", 1, "a FIFO with no writer after 0.3 s"},
    {"fifo", "mkfifo $W/f && { (sleep 0.5; cat $E/nfit.json > $W/f) & MBKIT_FIFO_WAIT=5 $T mbopt "
             "scale --nfit $W/f --tfit $E/tfit.json --procs 1:2 -o $W/r; s=$?; wait; "
             "test $s = 0 && grep -q 'N_update' $W/r; }", 0, NULL},
    {"fifo", "mkfifo $W/f && { (exec 3>$W/f; sleep 1; cat $E/nfit.json >&3) & MBKIT_FIFO_WAIT=0.2 "
             "$T mbopt scale --nfit $W/f --tfit $E/tfit.json --procs 1:2 -o $W/r; s=$?; wait; "
             "test $s = 0 && grep -q 'N_update' $W/r; }", 0, NULL},
    /* the fifth campaign: a cfg's from= list is split as every list is (no empty item, no name
     * twice); a byte-order mark before a cfg is skipped, as before a CSV */
    {"silent", "printf '[net]\\nname=g\\nchannels=1\\nheight=8\\nwidth=8\\n[conv]\\nname=c1\\n"
               "filters=2\\nsize=3\\npad=1\\n[add]\\nfrom=c1,\\n[fc]\\noutputs=4\\n[softmax]\\n' "
               "> $W/g.cfg && $T mbopt mem --net $W/g.cfg --mem 1G --batch 8 -o $W/o", 1,
     "g.cfg:12: [add] 'from': empty item in 'c1,'"},
    {"silent", "printf '[net]\\nname=g\\nchannels=1\\nheight=8\\nwidth=8\\n[conv]\\nname=c1\\n"
               "filters=2\\nsize=3\\npad=1\\n[add]\\nfrom=c1,c1\\n[fc]\\noutputs=4\\n[softmax]\\n' "
               "> $W/g.cfg && $T mbopt mem --net $W/g.cfg --mem 1G --batch 8 -o $W/o", 1,
     "[add] 'from': 'c1' given twice"},
    {"message", "printf '\\357\\273\\277[net]\\nname=g\\nchannels=1\\nheight=8\\nwidth=8\\n[fc]\\n"
                "outputs=4\\n[softmax]\\n' > $W/g.cfg && $T mbopt mem --net $W/g.cfg --mem 1G "
                "--batch 8 -o $W/r && grep -q 'net g' $W/r", 0, NULL},
    /* the fifth campaign: a tfit of another kind; counts past 2^53 (servers, devices, workers);
     * bytes that are not whole; a FIFO inside a folder of run logs, refused, not waited on */
    {"silent", "sed '1s/{/{\"format\": \"mbkit-validate\\/1\", /' $E/tfit.json > $W/t.json && "
               "$T mbopt scale --nfit $E/nfit.json --tfit $W/t.json -o $W/o", 1, "not a fit"},
    {"runaway", "$T mbopt ps --compute-time 1e-300 --workers 16 --bandwidth 10G --param-bytes 240M "
                "-o $W/o", 1, "the server count passes 2^53"},
    {"runaway", "$T mbopt ps --compute-time 0.2 --workers 9007199254740993 --bandwidth 10G "
                "--param-bytes 240M -o $W/o", 1, "--workers: must be a whole number"},
    {"runaway", "$T mbopt amdahl --overhead-ratio 0.1 --efficiency 1e-300 -o $W/o", 1,
     "passes 2^53"},
    {"silent", "$T mbopt mem --net " NET " --mem 1.5 --batch 8 -o $W/o", 1,
     "--mem: must be a whole number"},
    {"fifo", "mkdir $W/runs && cp $E/fit_runs/*.csv $W/runs/ && mkfifo $W/runs/zz.csv && "
             "MBKIT_FIFO_WAIT=0.3 $T mbopt validate --target-loss 0.5 --nfit $E/nfit.json "
             "--tfit $E/tfit.json $W/runs -o $W/o", 1, "zz.csv: a FIFO with no writer"},
    /* the sixth campaign (issue #25, G2..G18) */
    /* G17: no held-out run reached the target: the check says so in words, '-' in the table,
     * never nan or inf; its JSON (verdict "none", ratios null) is one mbplot draws */
    {"nan", NX HX "$T mbopt validate --nfit $W/nx.json --tfit $E/tfit.json " LV " --holdout $W/h "
            "> $W/r && grep -q '^check: held out: no held-out run reached the target loss 0.4 "
            "(5 runs): nothing to grade' $W/r && ! grep -qi 'nan\\|inf' $W/r", 0, NULL},
    {"nan", NX HX "$T mbopt validate --nfit $W/nx.json --tfit $E/tfit.json " LV " --holdout $W/h "
            "--json -o $W/v.json && grep -q '\"verdict\":[[:space:]]*\"none\"' $W/v.json && "
            "$T mbplot validate $W/v.json -o $W/v.png && test -s $W/v.png", 0, NULL},
    {"nan", NX HX "$T mbopt validate --nfit $W/nx.json --tfit $E/tfit.json " LV " --holdout $W/h "
            "--holdout-beyond >$W/r 2>$W/e && grep -q 'no held-out best to extend from' $W/e",
     0, NULL},
    /* G11: the `extrapolated` object of an nfit, checked by every reader (mb_solver_fit_agrees) */
    {"silent", NX "sed 's/\"l1\":[[:space:]]*0.5/\"l1\": 0.3/' $W/nx.json > $W/n.json && $T mbopt "
               "scale --nfit $W/n.json --tfit $E/tfit.json --procs 1:4 --comm none -o $W/o", 1,
     "field 'extrapolated.l1': 0.3 is not above target_loss 0.4"},
    /* the fixture's form is the shifted one (--form auto); auto is asked for, never fitted */
    {"silent", NX "sed 's/\"form\":[[:space:]]*\"shifted\"/\"form\": \"bogus\"/' $W/nx.json > "
               "$W/n.json && $T mbopt validate --nfit $W/n.json --tfit $E/tfit.json " LV " -o $W/o",
     1, "field 'extrapolated.form'"},
    {"silent", NX "sed 's/\"form\":[[:space:]]*\"shifted\"/\"form\": \"auto\"/' $W/nx.json > "
               "$W/n.json && $T mbopt validate --nfit $W/n.json --tfit $E/tfit.json " LV " -o $W/o",
     1, "field 'extrapolated.form': not separable, noise, per-level, floor or shifted"},
    {"silent", NX "sed '0,/\"p\":[[:space:]]*[0-9.]*/s//\"p\": -3/' $W/nx.json > $W/n.json && $T "
               "mbplot nupdate $W/n.json -o $W/o", 1, "field 'extrapolated.fit.params.p': -3"},
    {"silent", NX "sed 's/\"extrapolated\":[[:space:]]*{/\"extrapolated\": true, \"x\": {/' "
               "$W/nx.json > $W/n.json && $T mbplot nupdate $W/n.json -o $W/o", 1,
     "field 'extrapolated': not an object"},
    /* its floor, per-level fits, levels and means at the levels, as mbfit writes them: a floor
     * at or above the target, or where the form has none, or not a number; per_level not one
     * fit per level in order; a level twice, L1 not the lowest, too few levels; a lower level
     * crossed sooner, or a count of means that is not the levels' */
#define XS "$T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --procs 1:4 --comm none -o $W/o"
    {"silent", NXF "sed 's/\"floor\":\t[0-9.e+-]*/\"floor\":\t0.45/' $W/nf.json > $W/n.json && "
               XS, 1, "field 'extrapolated.floor': 0.45 is not below target_loss 0.4"},
    {"silent", NXF "sed 's/\"floor\":\t[0-9.e+-]*/\"floor\":\t1e999/' $W/nf.json > $W/n.json "
               "&& " XS, 1, "field 'extrapolated.floor': not a finite number"},
    {"silent", NXF "sed 's/\"floor\":\t[0-9.e+-]*/\"floor\":\t\"0.3\"/' $W/nf.json > "
               "$W/n.json && " XS, 1, "field 'extrapolated.floor': not a finite number"},
    {"silent", NXF "sed 's/\"floor\":\t[0-9.e+-]*,//' $W/nf.json > $W/n.json && " XS, 1,
     "field 'extrapolated.floor': missing (the floor form fits one)"},
    {"silent", NX "sed 's/\"floor\":\tnull/\"floor\":\t0.1/' $W/nx.json > $W/n.json && " XS,
     1, "field 'extrapolated.floor': not null, but the form is shifted"},
    {"silent", NX "sed 's/\"per_level\":\t\\[/\"per_level\": [], \"x\": [/' $W/nx.json > "
               "$W/n.json && " XS, 1, "field 'extrapolated.per_level': not an array of 4 fits"},
    {"silent", NX "sed 's/\"per_level\":\t\\[/\"per_level\": 3, \"x\": [/' $W/nx.json > "
               "$W/n.json && $T mbplot nupdate $W/n.json -o $W/o", 1,
     "field 'extrapolated.per_level': not an array of 4 fits"},
    {"silent", NX "sed '0,/\"level\":\t0.65/s//\"level\":\t0.7/' $W/nx.json > $W/n.json && "
               XS, 1, "field 'extrapolated.per_level[0].level': not extrapolated.levels[0], 0.65"},
    {"silent", NX "sed '/\"per_level\"/,/\"stderr\"/s/\"n_inf\":\t[0-9.e+-]*/\"n_inf\":\t"
               "\"x\"/' $W/nx.json > $W/n.json && $T mbopt validate --nfit $W/n.json --tfit "
               "$E/tfit.json " LV " -o $W/o", 1,
     "field 'extrapolated.per_level[0].params.n_inf': not a finite number"},
    {"silent", NX "sed 's/\\[0.65, 0.6, 0.55, 0.5\\]/[0.65, 0.6, 0.6, 0.5]/' $W/nx.json > "
               "$W/n.json && " XS, 1, "field 'extrapolated.levels[2]': 0.6 given twice"},
    {"silent", NX "sed 's/\"l1\":\t0.5/\"l1\":\t0.45/' $W/nx.json > $W/n.json && " XS, 1,
     "field 'extrapolated.l1': 0.45 is not the lowest of extrapolated.levels"},
    {"silent", NX "sed 's/\\[0.65, 0.6, 0.55, 0.5\\]/[0.65, 0.5]/' $W/nx.json > $W/n.json && "
               XS, 1, "field 'extrapolated.levels': not an array of 3 to 32 levels"},
    {"silent", NX "sed 's/\\[230, 350, 545, 675\\]/[230, 350, 545, 500]/' $W/nx.json > "
               "$W/n.json && " XS, 1, "'extrapolated.per_m[0].mean_at_levels': 545 updates to "
               "level 0.55 but 500 to the lower level 0.5"},
    {"silent", NX "sed 's/\\[230, 350, 545, 675\\]/[230, 350, 545]/' $W/nx.json > $W/n.json "
               "&& " XS, 1, "'extrapolated.per_m[0].mean_at_levels': not an array of 4 counts"},
    {"silent", NX "sed 's/\\[230, 350, 545, 675\\]/[230, 350, 545, -1]/' $W/nx.json > "
               "$W/n.json && " XS, 1, "'extrapolated.per_m[0].mean_at_levels': not an array of 4"},
    /* what mbfit writes passes: the floor form's law, and levels in the order given */
    {"silent", NXF "$T mbopt scale --nfit $W/nf.json --tfit $E/tfit.json --procs 1:4 --comm none "
               ">/dev/null && $T mbfit nupdate --extrapolate --levels 0.5,0.65,0.55,0.6 "
               "--target-loss 0.4 " LV "/*.csv --json -o $W/n.json && " XS, 0, NULL},
#undef XS
    /* G8: --target-loss other than the fit's target grades one target's prediction with runs
     * timed to another; G9: a plain fit's runs that miss the target are not "calibration" */
    {"silent", NX "$T mbopt validate --nfit $W/nx.json --tfit $E/tfit.json " LV " --target-loss "
               "0.5 -o $W/o", 2, "--target-loss 0.5 is not the target of"},
    {"message", NX "sed 's/\"extrapolated\":[[:space:]]*{/\"x\": {/' $W/nx.json > $W/n.json && "
                "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json " LV " > $W/r && grep -q "
                "'no run given reached the target loss 0.4, so nothing in-sample' $W/r && ! grep "
                "-q 'extrapolated to it' $W/r", 0, NULL},
    /* G10: --grid-cost batch sizes are whole numbers in digits, at most 2^30 */
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               LOGS " --grid-cost 8.5 -o $W/o", 1, "--grid-cost: '8.5' is not a whole number"},
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               LOGS " --grid-cost 16,1e3 -o $W/o", 1, "--grid-cost: '1e3' is not a whole number"},
    {"runaway", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
                LOGS " --grid-cost 1:9007199254740992 -o $W/o", 1,
     "is past the largest mini-batch, 1073741824"},
    /* G12: -o through a link onto a run log inside a runs or held-out folder given as input */
    {"symlink", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r && ln -s r/run_M16_s0.csv $W/l && $T mbopt "
             "validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json $W/r -o $W/l",
     1, "/w/l would overwrite the input"},
    {"symlink", "mkdir $W/h && for f in $E/fit_runs/*.csv; do sed 's/^# seed=\\([0-9]\\)$/# "
             "seed=100\\1/' $f > $W/h/${f##*/}; done && ln -s h/run_M16_s0.csv $W/l && $T mbopt "
             "validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json $E/fit_runs "
             "--holdout $W/h -o $W/l", 1, "/w/l would overwrite the input"},
    /* the seventh campaign (issue #25). H1: an output FIFO with no reader is refused after
     * MBKIT_FIFO_WAIT, never waited on forever */
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbopt scale --nfit $E/nfit.json --tfit "
             "$E/tfit.json --procs 1:4 --comm none -o $W/f", 1, "a FIFO with no reader"},
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbopt validate --target-loss 0.5 --nfit "
             "$E/nfit.json --tfit $E/tfit.json $E/fit_runs -o $W/f", 1, "a FIFO with no reader"},
    /* H2: -o onto validate's --recommend file, directly or through a link */
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               "$E/fit_runs --recommend $W/o --json -o $W/o", 1, "/w/o would overwrite the input"},
    {"symlink", "ln -s o $W/l && $T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit "
                "$E/tfit.json $E/fit_runs --recommend $W/o --csv -o $W/l", 1,
     "/w/l would overwrite the input"},
    /* H8: a communication flag the --comm form does not read is refused, not ignored */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --comm none -o $W/o", 2,
     "--delta has no effect with --comm none"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --latency 1 -o $W/o", 2,
     "--latency has no effect with --comm allreduce (the default)"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --comm alpha-beta --latency 1e-5 "
               "--s-per-byte 1e-9 --bytes 4M -o $W/o", 2, "--delta has no effect with --comm "
               "alpha-beta"},
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               "$E/fit_runs --bytes 1G -o $W/o", 2,
     "--bytes has no effect with --comm none (the default)"},
    /* H14: --bytes 0 is a value out of range, not a missing --bytes */
    {"message", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --procs 1:4 "
                "--comm alpha-beta --latency 1e-5 --s-per-byte 1e-9 --bytes 0 -o $W/o", 1,
     "--bytes: must be a whole number in [1, 9007199254740991], got '0'"},
    {"message", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
                "$E/fit_runs --comm alpha-beta --latency 1e-5 --s-per-byte 1e-9 --bytes 0 -o "
                "$W/o", 1, "--bytes: must be a whole number in [1, 9007199254740991], got '0'"},
    /* H13: amdahl's devices past 2^53 are refused from the text, and the message says the range */
    {"runaway", "$T mbopt amdahl --gpus 9007199254740993 --efficiency 0.8 -o $W/o", 1,
     "--gpus: must be a whole number in [1, 9007199254740992], got '9007199254740993'"},
    {"message", "$T mbopt amdahl --gpus 1e16 --efficiency 0.8 -o $W/o", 1,
     "--gpus: must be a whole number in [1, 9007199254740992], got '1e16'"},
    /* the eighth campaign (issue #25). K4, K5: a shifted law no fit gives (its pole below 0, or
     * at or above the least M whose runs reached the target), or one whose copy in `laws`
     * disagrees, is refused naming the file and the field */
    {"silent", NS("-1", "") "$T mbopt scale --nfit $W/ns.json --gamma 2e-5 --m-t 32 --comm none "
               "-o $W/o", 1, "field 'best.params.m_0': -1: the shifted law needs m_0 >= 0"},
    {"silent", NS("9", "") "$T mbopt scale --nfit $W/ns.json --gamma 2e-5 --m-t 32 --comm none "
               "-o $W/o", 1, "'best.params.m_0': 9 is not below the converged range's least M 8"},
    {"silent", NS("5", ",\"laws\":{\"shifted-law\":{\"model\":\"shifted-law\",\"params\":"
               "{\"n_inf\":105.2,\"alpha\":5530.9,\"m_0\":3}}}") "$T mbopt scale --nfit "
               "$W/ns.json --gamma 2e-5 --m-t 32 --comm none -o $W/o", 1,
     "field 'best.params.m_0': 5, but laws.shifted-law.params.m_0 is 3"},
    /* K5, the rest: a bootstrap's best_law names the best law, or its samples would be dropped
     * (and the spread: line with them) without a word; each sample is 3 numbers of that law */
#define SC "$T mbopt scale --nfit $W/ns.json --gamma 2e-5 --m-t 32 --comm none "
    {"silent", NS("5", BOOT(",\"best_law\":\"bogus\"", "[105.3,5551.7,5.1]")) SC "-o $W/o", 1,
     "ns.json: field 'bootstrap.best_law': 'bogus' is not a law (inverse-law, power-law or "
     "shifted-law)"},
    {"silent", NS("5", BOOT(",\"best_law\":\"inverse-law\"", "[105.3,5551.7,5.1]")) SC
               "-o $W/o", 1, "field 'bootstrap.best_law': 'inverse-law', but the best law is the "
               "shifted-law (best.model)"},
    {"silent", NS("5", BOOT("", "[105.3,5551.7,5.1]")) SC "-o $W/o", 1,
     "field 'bootstrap.best_law': missing beside 'bootstrap.best_samples'"},
    {"silent", NS("5", BOOT(",\"best_law\":\"shifted-law\"", "[105.3,5551.7,5.1,1]")) SC
               "-o $W/o", 1, "field 'bootstrap.best_samples[1]': not 3 numbers [n_inf, alpha, "
               "m_0] with n_inf > 0, alpha >= 0 and m_0 >= 0"},
    {"silent", NS("5", BOOT(",\"best_law\":\"shifted-law\"", "[105.3,-5,5.1]")) SC "-o $W/o",
     1, "field 'bootstrap.best_samples[1]': not 3 numbers"},
    {"silent", NS("5", BOOT(",\"best_law\":\"shifted-law\"", "[105.3,5551.7,9]")) SC "-o $W/o",
     1, "field 'bootstrap.best_samples[1]': alpha 5551.7 and m_0 9: a shifted law needs"},
    /* the file as mbfit writes it: ten samples (the least a spread is drawn from) */
#define S3 "[105.3,5551.7,5.1],[105.1,5520.4,5],[105.6,5570.2,5.2]"
    {"silent", NS("5", BOOT(",\"best_law\":\"shifted-law\"", S3 "," S3 "," S3)) SC
               "> $W/r && grep -q '^spread: .* 10 bootstrap resamples' $W/r", 0, NULL},
#undef S3
#undef SC
    /* K14: design's closed form needs the inverse law: another asked for is refused, not used
     * as the inverse law; K3: conv's --law needs --nfit, as scale's */
    {"silent", NS("5", ",\"laws\":{\"shifted-law\":{\"model\":\"shifted-law\",\"params\":"
               "{\"n_inf\":105.2,\"alpha\":5530.9,\"m_0\":5}}}") "$T mbopt design --nfit "
               "$W/ns.json --law shifted-law --gamma 2e-5 "
               "--m-t 32 --delta 0.004 --budget 100 --price-learner 1 --price-bandwidth 1e-5 "
               "--bandwidth-ref 1G -o $W/o", 2, "the budget balance uses the inverse law"},
    {"silent", "$T mbopt conv --net " NET " --probe $W/p.csv --mem 1G --batch 4 --law "
               "shifted-law -o $W/o", 2, "--law needs --nfit"},
    /* K2: an M at or below the shifted law's M_0 has no T_C: '-' and a line that says why, never
     * nan */
    {"nan", "$T mbprobe conv --net " NET " --batch 4,8 --no-cache --budget 0.01 --algos gemm -o "
            "$W/c.csv 2>/dev/null && " NS("5", "") "$T mbopt conv --net " NET " --probe $W/c.csv "
            "--mem 1G --batch 4,8 --nfit $W/ns.json > $W/t && grep -q 'no T_C at M <= 5: the "
            "shifted law has no value' $W/t && ! grep -qi nan $W/t", 0, NULL},
    /* K12: --procs is read as every count flag is (past 2^53 refused from its text, the range
     * stated), and a learner count is printed whole, in text and JSON */
    {"runaway", "$T mbopt scale " SCALE_FLAGS "--procs 9007199254740993 -o $W/o", 1,
     "--procs: '9007199254740993' is not a whole number in [1, 9007199254740992]"},
    {"runaway", "$T mbopt scale " SCALE_FLAGS "--procs 1:9007199254740993 -o $W/o", 1,
     "--procs: '1:9007199254740993' is not a whole number in [1, 9007199254740992]"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 0:4 -o $W/o", 1,
     "--procs: '0:4' is not a range lo:hi of positive numbers"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 4:1 -o $W/o", 1,
     "--procs: range '4:1' has lo > hi"},
    {"message", "$T mbopt scale " SCALE_FLAGS "--procs 9007199254740991 > $W/r && $T mbopt scale "
                SCALE_FLAGS "--procs 9007199254740991 --json > $W/j && grep -q '^fastest: *P = "
                "9007199254740991 learners' $W/r && grep -q '\"procs\":.9007199254740991,' $W/j && "
                "! grep -q 'e+15' $W/j", 0, NULL},
    /* the ninth campaign (issue #25). L9: a count list is read from its text */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--comm none --procs 2.0000000000000001 -o $W/o", 1,
     "--procs: '2.0000000000000001' is not a whole number in [1, 9007199254740992]"},
    {"silent", "$T mbopt mem --net " NET " --mem 1G --batch 8.0000000000000001 -o $W/o", 1,
     "--batch: '8.0000000000000001' is not a whole number in [1, 1073741824]"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--comm none --procs 1:4 --procs-available "
               "2.0000000000000001 -o $W/o", 1, "--procs-available: must be a whole number"},
    /* (1.6e1 was taken as 16 here; campaign 17's M1: counts are digits, as mbtrain's) */
    {"silent", "$T mbopt mem --net " NET " --mem 1G --batch 8,16 > $W/t && "
               "grep -q '^16 ' $W/t", 0, NULL},
    {"silent", "$T mbopt mem --net " NET " --mem 1G --batch 8,1.6e1 -o $W/o", 1,
     "--batch: '1.6e1' is not a whole number in [1, 1073741824]"},
    /* L13: --delta's P:S list has no empty item (the one list splitter) */
    {"silent", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 32 --comm allreduce "
               "--delta 2:0.1, --procs 1:2 -o $W/o", 1, "--delta: empty item in '2:0.1,'"},
    /* L15: a workspace is whole bytes, as --mem is: the flag and the table's field */
    {"silent", "$T mbprobe conv --net " NET " --batch 8 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv --mem 1G "
               "--batch 8 --ws-limit 1.5 -o $W/o", 1,
     "--ws-limit: must be a whole number in [0, 9007199254740991], got '1.5'"},
    {"silent", "$T mbprobe conv --net " NET " --batch 8 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && sed -i 's/^\\(conv1,gemm,forward,8,[^,]*\\),[^,]*,/"
               "\\1,1.5,/' $W/c.csv && $T mbopt conv --net " NET " --probe $W/c.csv --mem 1G "
               "--batch 8 -o $W/o", 1,
     "field 'workspace_bytes': 1.5 is not a whole number in [0, 9007199254740992]"},
    /* campaign 10's M7, the rest: the table's other counts, reps and the layer's shape, are
     * whole as written too */
    {"silent", "$T mbprobe conv --net " NET " --batch 8 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && sed -i 's/^\\(conv1,gemm,forward,8,[^,]*,[^,]*\\),"
               "[^,]*,/\\1,19.0000000000000001,/' $W/c.csv && $T mbopt conv --net " NET " --probe "
               "$W/c.csv --mem 1G --batch 8 -o $W/o", 1,
     "field 'reps': 19.0000000000000001 is not a whole number in [1, 9007199254740992]"},
    {"silent", "$T mbprobe conv --net " NET " --batch 8 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && sed -i 's/,1,8,8,2,3,1,0,measured,/,1,8,"
               "8.0000000000000001,2,3,1,0,measured,/' $W/c.csv && $T mbopt conv --net " NET
               " --probe $W/c.csv --mem 1G --batch 8 -o $W/o", 1,
     "field 'in_w': 8.0000000000000001 is not a whole number in [1, 9007199254740992]"},
    /* L14: a flag the mode does not read is refused, not ignored: --cfit goes with alpha-beta,
     * and design balances the unconstrained optimum (no range of M) */
    {"silent", "$T mbfit comm $E/comm.csv --json -o $W/c.json && $T mbopt scale " SCALE_FLAGS
               "--cfit $W/c.json --comm allreduce --procs 1:2 -o $W/o", 2,
     "--cfit has no effect with --comm allreduce: it goes with alpha-beta"},
    {"silent", "$T mbopt design --n-inf 800 --alpha 2e5 --gamma 1e-5 --m-t 32 --comm ps --delta "
               "2e-4 --bandwidth-ref 1e9 --budget 1e5 --price-learner 1500 --price-bandwidth "
               "2e-5 --batch-range 8:64 -o $W/o", 2, "--batch-range has no effect in mbopt design"},
    {"silent", "$T mbopt design --n-inf 800 --alpha 2e5 --gamma 1e-5 --m-t 32 --comm ps --delta "
               "2e-4 --bandwidth-ref 1e9 --budget 1e5 --price-learner 1500 --price-bandwidth "
               "2e-5 --extrapolate -o $W/o", 2, "--extrapolate has no effect in mbopt design"},
    /* L17: two --nfit whose rates are one to 1e-9 (mb_solver_same_rate) are one rate; others
     * are printed as their shortest exact decimals, never alike */
    {"silent", "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/a.json 2>/dev/null && "
               "sed 's/\"lr\":[^,]*,/\"lr\": 0.05000000000000001,/' $W/a.json > $W/b.json && "
               "$T mbopt scale --nfit $W/a.json --nfit $W/b.json --gamma 2e-5 --m-t 32 --comm "
               "none --procs 1:2 -o $W/o", 1, "b.json: the same lr as another --nfit"},
    {"message", "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/a.json 2>/dev/null && "
                "sed 's/\"lr\":[^,]*,/\"lr\": 0.0500001,/' $W/a.json > $W/b.json && $T mbopt "
                "scale --nfit $W/a.json --nfit $W/b.json --gamma 2e-5 --m-t 32 --comm none "
                "--procs 1:2 > $W/t && grep -q '^# lr 0.0500001 ' $W/t && grep -q '^# lr 0.05 ' "
                "$W/t", 0, NULL},
    /* L18: a cfit's value is named as the file's field */
    {"message", "$T mbfit comm $E/comm.csv --json -o $W/c.json && sed -i '0,/\"latency_s\":"
                "[^,]*,/s//\"latency_s\": -1,/' $W/c.json && $T mbopt scale --n-inf 1200 "
                "--alpha 3.5e5 --gamma 2e-5 --m-t 32 --cfit $W/c.json --comm alpha-beta --bytes "
                "1K --procs 1:2 -o $W/o", 1, "/c.json: field 'params.latency_s': must be >= 0, "
                "got -1"},
    /* the ninth campaign (issue #25). L16: an nfit's power law rising with M, a converged range
     * of batch sizes that are not whole, a target or a rate that is not > 0 */
#define SC "$T mbopt scale --nfit $W/np.json --gamma 2e-5 --m-t 32 --comm none "
    {"silent", NP("[8,512]", NP_POW("-5")) SC "--law power-law -o $W/o", 1,
     "np.json: field 'laws.power-law.params.a': -5: the power law needs a >= 0"},
    {"silent", NP("[8,512]", NP_POW("16324.6")) SC "--law power-law > $W/r && grep -q "
               "'16324.6 M^-0.94' $W/r", 0, NULL},
    /* campaign 18's M3: an inverse-law sample's b is 1; another was taken and ignored */
    {"silent", NP("[8,512]", ",\"bootstrap\":{\"resamples\":2,\"fitted\":2,\"best_law\":"
                  "\"inverse-law\",\"best_samples\":[[91,9870,1],[92,9880,2]]}")
               "$T mbopt scale --nfit $W/np.json --gamma 2e-5 --m-t 32 --comm none -o $W/o", 1,
     "field 'bootstrap.best_samples[1]': not 3 numbers [n_inf, a, 1] (the inverse law)"},
    /* M4: more laws than resamples */
    {"silent", NP("[8,512]", ",\"bootstrap\":{\"resamples\":1,\"fitted\":1,\"best_law\":"
                  "\"inverse-law\",\"best_samples\":[[91,9870,1],[92,9880,1]]}")
               "$T mbopt scale --nfit $W/np.json --gamma 2e-5 --m-t 32 --comm none -o $W/o", 1,
     "field 'bootstrap.best_samples': 2 laws, more than the 1 resamples"},
    {"silent", NP("[16.5,512]", "") SC "-o $W/o", 1,
     "np.json: field 'converged_range[0]': 16.5 is not a whole batch size"},
    {"silent", NP("[16,512.5]", "") SC "-o $W/o", 1,
     "np.json: field 'converged_range[1]': 512.5 is not a whole batch size"},
    {"silent", NP("[8,512]", ",\"target_loss\":0") SC "-o $W/o", 1,
     "np.json: field 'target_loss': 0 is not above 0"},
    {"silent", NP("[8,512]", ",\"lr\":-0.05") SC "-o $W/o", 1,
     "np.json: field 'lr': -0.05 is not above 0"},
#undef SC
    /* the twelfth campaign (issue #25). P1: a run that reached the target in 0 s (or a
     * subnormal) gave validate's in-sample line "infx the best" and "nan%": a time after update
     * 0 is 1e-9 s or more, read as such by every reader of run logs */
#define Z0(V)                                                                                     \
    "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^\\([1-9][0-9]*,[^,]*,[^,]*,\\)[^,]*/" \
    "\\1" V "/' $W/r/run_M16_*.csv && "
    {"nan", Z0("0") "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit "
            "$E/tfit.json $W/r -o $W/o", 1, "run_M16_s0.csv:12: field 'wall_s': 0 at update 10 "
            "is no training time"},
    {"nan", Z0("1e-320") "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit "
            "$E/tfit.json $W/r --json -o $W/o", 1, "field 'wall_s': 1e-320 at update 10 is no "
            "training time"},
    {"nan", Z0("0") "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null "
            "&& $T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --procs 1 $W/r -o $W/o", 1,
     "field 'wall_s': 0 at update 10 is no training time"},
#undef Z0
    /* the thirteenth campaign (issue #25). Q5: wall_s is a running total; a row below an
     * earlier one's (a hand edit, another writer) contradicts the time at the crossing */
#define WB(FROM, TO)                                                                              \
    "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^" FROM "/" TO "/' $W/r/run_M16_s0.csv " \
    "&& "
    {"silent", WB("50,0.0133,800,0.050,", "50,0.0133,800,0.001,") "$T mbopt validate "
               "--target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json $W/r -o $W/o", 1,
     "run_M16_s0.csv:16: field 'wall_s': 0.001 at update 50 is below 0.040 at update 40 "
     "(training time up to this update)"},
    {"silent", WB("0,0.0000,0,0.000,", "0,0.0000,0,5.000,") "$T mbopt validate --target-loss "
               "0.5 --nfit $E/nfit.json --tfit $E/tfit.json $W/r --json -o $W/o", 1,
     "run_M16_s0.csv:12: field 'wall_s': 0.010 at update 10 is below 5.000 at update 0"},
#undef WB
    /* the sixteenth campaign. S2: a shifted or power law (or a resample of one) with n_inf <= 0
     * falls to 0 updates at a finite M, where T_C was "optimised" (M = 8, T_C 1e-5 s) */
#define SC "$T mbopt scale --nfit $W/np.json --gamma 2e-5 --m-t 32 --comm none -o $W/o"
    {"silent", NP("[8,512]", ",\"best\":{\"model\":\"shifted-law\",\"params\":{\"n_inf\":-500,"
                  "\"alpha\":5530.9,\"m_0\":5}}") SC, 1,
     "np.json: field 'best.params.n_inf': -500: the law needs n_inf > 0"},
    {"silent", NP("[8,512]", ",\"best\":{\"model\":\"power-law\",\"params\":{\"n_inf\":-50,"
                  "\"a\":1000,\"b\":1}}") SC, 1,
     "np.json: field 'best.params.n_inf': -50: the law needs n_inf > 0"},
#undef SC
    {"silent", NS("5", BOOT(",\"best_law\":\"shifted-law\"", "[-5,5551.7,5.1]")) "$T mbopt "
               "scale --nfit $W/ns.json --gamma 2e-5 --m-t 32 --comm none -o $W/o", 1,
     "field 'bootstrap.best_samples[1]': not 3 numbers [n_inf, alpha, m_0] with n_inf > 0"},
    /* S3: --recommend's file is a scale file whose recommendation is one of its rows, at a rate
     * of the fits */
#define RV "$T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --comm none --procs 1 --json " \
           "-o $W/s.json && "
#define VR "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json " LOGS " --recommend $W/s.json " \
           "-o $W/o"
#define NJ "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
    {"silent", NJ "printf '{\"format\":\"mbkit-fit/1\",\"enough\":{\"m_opt\":8,\"procs\":1}}' > "
               "$W/s.json && " VR, 1, "s.json: key 'format': mbkit-fit/1 is a fit, not a scale "
               "file"},
    {"runaway", NJ RV "sed -i '/\"enough\":/,/}/s/\"m_opt\":\t[^,]*,/\"m_opt\":\t1e300,/' "
                "$W/s.json && " VR, 1, "s.json: enough: 'm_opt': 1e+300 is not a number in (0, "
                "9007199254740992]"},
    {"silent", NJ RV "sed -i '/\"enough\":/,/}/s/\"m_opt\":\t[^,]*,/\"m_opt\":\t-4,/' $W/s.json "
               "&& " VR, 1, "s.json: enough: 'm_opt': -4 is not a number in (0, "},
    {"silent", NJ RV "sed -i '/\"enough\":/,/}/s/\"procs\":\t1,/\"procs\":\t2.5,/' $W/s.json && "
               VR, 1, "s.json: enough: 'procs': 2.5 is not a whole number in [1, "},
    {"silent", NJ RV "sed -i 's/\"lr\":\t0.05,/\"lr\":\t0.7,/' $W/s.json && " VR, 1,
     "s.json: field 'lr': 0.7 is the rate of none of the --nfit fits (0.05)"},
    {"silent", NJ RV "sed -i 's/\"lr\":\t0.05,/\"lr\":\t-1,/' $W/s.json && " VR, 1,
     "s.json: 'lr': -1 is not a number in (0, "},
    {"silent", NJ RV VR, 0, NULL},
#undef VR
#undef RV
    /* S4: a tfit's step tables hold whole M and seconds a step table or run log may hold, and
     * a calibration's factors what one can give */
#define TC(SED) S1T "$T mbfit tupdate $W/s1.csv " LV "/*.csv --json -o $W/t.json 2>/dev/null && " \
                "sed -i '" SED "' $W/t.json && $T mbopt validate --nfit $E/nfit.json --tfit "     \
                "$W/t.json --target-loss 0.5 " LV " -o $W/o"
    {"nan", TC("0,/\"probe_points\":\t\\[\\[1, [^]]*\\]/s//\"probe_points\":\t[[1, 1e300]/"), 1,
     "t.json: field 'probe_points[0]': not [M, seconds] with M whole, ascending, in [1, 2^53] "
     "and seconds in (0, 1e9]"},
    {"silent", TC("0,/\"points\":\t\\[\\[1,/s//\"points\":\t[[1.5,/"), 1,
     "t.json: field 'points[0]': not [M, seconds] with M whole"},
    {"runaway", TC("0,/\"scale_above\":\t[^,]*/s//\"scale_above\":\t1e300/"), 1,
     "fields 'calibration.scale_below' and 'scale_above' ("},
    {"runaway", TC("0,/\"scale_below\":\t[^,]*/s//\"scale_below\":\t1e-300/"), 1,
     "not factors in [0.001, 1000], what a calibration by runs gives"},
#undef TC
    /* S7: runs of another algorithm than the fit's graded and settled it; a parallel run's
     * optimiser is the fit's algorithm */
#define AL(SED) "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i '" SED "' $W/r/run_M16_s0.csv && "
    {"silent", NJ AL("s/^# algo=sgd$/# algo=momentum/") "$T mbopt validate --nfit $W/n.json "
               "--tfit $E/tfit.json $W/r -o $W/o", 1, "run_M16_s0.csv: metadata 'algo': "
               "'momentum' (P = 1), but "},
    {"silent", NJ AL("s/^# algo=sgd$/# algo=momentum/") "$T mbopt scale --nfit $W/n.json --tfit "
               "$E/tfit.json --comm none --procs 1 $W/r -o $W/o", 1, "fits runs of sgd at P = 1: "
               "another algorithm's N_update cannot grade or settle it"},
    {"silent", NJ AL("s/^# algo=sgd$/# algo=sgd-sync\\n# optim=nesterov/;s/^# learners=1$/# "
                     "learners=2/") "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json "
               "--comm allreduce --delta 0.001 $W/r -o $W/o", 1,
     "run_M16_s0.csv: metadata 'optim': 'nesterov' (P = 2), but "},
    /* campaign 17's F4: a log whose `# algo=` is empty or missing passed S7's check; an empty
     * value is refused by the run-log reader, a missing one against a fit that names its
     * algorithm (a hand-made log and a fit of such logs, neither saying, still go together) */
    {"silent", NJ AL("s/^# algo=sgd$/# algo=/") "$T mbopt validate --nfit $W/n.json --tfit "
               "$E/tfit.json $W/r -o $W/o", 1, "run_M16_s0.csv: metadata 'algo': empty"},
    {"silent", NJ AL("/^# algo=/d") "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json $W/r "
               "-o $W/o", 1, "run_M16_s0.csv: metadata 'algo': missing, but "},
    {"silent", NJ "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i '/^# algo=/d' $W/r/*.csv && "
               "$T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --comm none --procs 1 $W/r "
               "-o $W/o", 1, "n.json fits runs of sgd: a log that does not say its algorithm cannot "
               "grade or settle it"},
    {"silent", "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i '/^# algo=/d' $W/r/*.csv && "
               "$T mbfit nupdate --target-loss 0.5 $W/r/*.csv --json -o $W/n.json 2>/dev/null && "
               "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json $W/r > $W/v", 0, NULL},
#undef AL
#undef NJ
    /* campaign 17's M1: --procs is a count in digits, as mbtrain reads its counts */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1e1 -o $W/o", 1,
     "--procs: '1e1' is not a whole number in [1, 9007199254740992]"},
    /* campaign 16's minor (issue #25): a tfit's by_learners holding a learner count twice */
    {"silent", "$T mbfit tupdate $E/step.csv --json -o $W/t.json 2>/dev/null && sed -i "
               "'0,/^\t\t\t\"learners\":\t4,/s//\t\t\t\"learners\":\t1,/' $W/t.json && $T mbopt "
               "scale --nfit $E/nfit.json --tfit $W/t.json --comm none --procs 1:4 -o $W/o", 1,
     "t.json: by_learners: learners 1 given twice"},
    /* campaign 20's M4: a learner count of 2.5 was taken */
    {"silent", "$T mbfit tupdate $E/step.csv --json -o $W/t.json 2>/dev/null && sed -i "
               "'0,/^\t\t\t\"learners\":\t4,/s//\t\t\t\"learners\":\t2.5,/' $W/t.json && $T mbopt "
               "scale --nfit $E/nfit.json --tfit $W/t.json --comm none --procs 1:4 -o $W/o", 1,
     "t.json: by_learners: learners 2.5: not a whole number of learners"},
    /* campaign 18's M8: mbopt read logs of an algorithm mbtrain never writes */
#define NJ "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
#define AB "mkdir $W/r && cp $E/fit_runs/*.csv $W/r/ && sed -i 's/^# algo=sgd$/# algo=bogus/' " \
           "$W/r/run_M16_s0.csv && "
    {"silent", NJ AB "$T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --comm none --procs 1 "
                     "$W/r -o $W/o", 1,
     "run_M16_s0.csv:5: metadata 'algo': 'bogus' is not an algorithm mbtrain writes"},
    {"silent", NJ AB "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json $W/r -o $W/o", 1,
     "run_M16_s0.csv:5: metadata 'algo': 'bogus' is not an algorithm mbtrain writes"},
    {"silent", NJ AB "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json " LOGS " --holdout "
                     "$W/r -o $W/o", 1,
     "run_M16_s0.csv:5: metadata 'algo': 'bogus' is not an algorithm mbtrain writes"},
#undef AB
#undef NJ
    /* campaign 19 (issue #25). G1: a conv table timed on another layer shape than the net's
     * layer of that name (a cfg edited after probing) is refused naming the line and both
     * shapes; a table with some shape columns but not all is refused */
#define C19_CONV "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 --algos gemm " \
                 "-o $W/c.csv 2>/dev/null && "
#define C19_NET(SED) "sed '" SED "' " NET " > $W/n.cfg && "
    {"silent", C19_CONV C19_NET("s/size=3/size=5/; s/filters=2/filters=64/") "$T mbopt conv "
               "--net $W/n.cfg --probe $W/c.csv --mem 1G --batch 2 -o $W/o", 1,
     "layer 'conv1' was timed as 1x8x8 -> 2, k 3 (stride 1, pad 0); net 'tiny' has it as "
     "1x8x8 -> 64, k 5 (stride 1, pad 0): probe this net again (mbprobe conv)"},
    {"silent", C19_CONV C19_NET("s/filters=2/filters=3/") "$T mbopt conv --net $W/n.cfg --probe "
               "$W/c.csv --mem 1G --batch 2 -o $W/o", 1,
     "was timed as 1x8x8 -> 2, k 3 (stride 1, pad 0); net 'tiny' has it as 1x8x8 -> 3, k 3"},
    {"silent", C19_CONV C19_NET("s/height=8/height=16/; s/width=8/width=16/") "$T mbopt conv "
               "--net $W/n.cfg --probe $W/c.csv --mem 1G --batch 2 -o $W/o", 1,
     "was timed as 1x8x8 -> 2, k 3 (stride 1, pad 0); net 'tiny' has it as 1x16x16 -> 2, k 3"},
    {"silent", C19_CONV "awk -F, '/^#/ {print; next} {s = $1; for (i = 2; i <= NF; i++) if (i "
               "!= 17) s = s \",\" $i; print s}' $W/c.csv > $W/p.csv && $T mbopt conv --net " NET
               " --probe $W/p.csv --mem 1G --batch 2 -o $W/o", 1,
     "p.csv: column 'stride' missing beside the other shape columns"},
    /* a table without the shape columns (by hand) is matched by name, as before */
    {"silent", C19_CONV "awk -F, '/^#/ {print; next} {s = $1; for (i = 2; i <= 6; i++) s = s "
               "\",\" $i; print s}' $W/c.csv > $W/p.csv && $T mbopt conv --net " NET " --probe "
               "$W/p.csv --mem 1G --batch 2 > $W/r && grep -q '^2 ' $W/r", 0, NULL},
#undef C19_NET
#undef C19_CONV
    /* G5: a design whose M_opt overflows is an error, not "m_opt inf" (text and JSON alike) */
#define C19_DESIGN "--gamma 1e-5 --m-t 32 --comm ps --delta 2e-4 --budget 1e5 --price-learner " \
                   "1500 --price-bandwidth 2e-5 --bandwidth-ref 1e9B "
    {"nan", "$T mbopt design --n-inf 800 --alpha 1e300 " C19_DESIGN "-o $W/o", 1,
     "M_opt overflows (inf) at P = 66.6667 learners and 0.0079388 bytes/s: n_inf 800 and alpha "
     "1e+300 give no finite optimum"},
    {"nan", "$T mbopt design --n-inf 1e-300 --alpha 2e5 " C19_DESIGN "--json -o $W/o", 1,
     "M_opt overflows (inf) at P = 66.6667 learners"},
#undef C19_DESIGN
    /* M1: -o onto a hard link of a run log read from a folder (compared by device and inode,
     * as mbfit does); the log keeps its content */
#define C19_HL "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && " \
               "mkdir $W/h && cp $E/fit_runs/*.csv $W/h/ && ln $W/h/run_M32_s0.csv $W/hl && "
    {"silent", C19_HL "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json $W/h -o $W/hl; "
               "s=$?; cmp -s $W/hl $E/fit_runs/run_M32_s0.csv || exit 99; exit $s", 1,
     "hl would overwrite the input "},
    {"silent", C19_HL "$T mbopt scale --nfit $W/n.json --tfit $E/tfit.json --comm none --procs 1 "
               "$W/h -o $W/hl; s=$?; cmp -s $W/hl $E/fit_runs/run_M32_s0.csv || exit 99; exit $s",
     1, "h/run_M32_s0.csv (a link to it)"},
    {"silent", C19_HL "$T mbopt validate --nfit $W/n.json --tfit $E/tfit.json $E/fit_runs "
               "--holdout $W/h -o $W/hl; s=$?; cmp -s $W/hl $E/fit_runs/run_M32_s0.csv || exit 99; "
               "exit $s", 1, "h/run_M32_s0.csv (a link to it)"},
#undef C19_HL
    /* M3: --extrapolate where it changes nothing (a model given by flags searches every M >= 1)
     * is a flag with no effect */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --extrapolate -o $W/o", 2,
     "--extrapolate has no effect here: no --nfit with a converged range"},
    /* M4: an --m-t past 2^53 is named (the overflowed range was blamed on P = 2) */
    {"message", "$T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --m-t 1e308 --delta 0.004 "
                "--procs 1:4 -o $W/o", 1, "--m-t: 1e+308 samples is past 2^53"},
    /* campaign 20's F3: a device of 100 bytes was "device memory 0.0 MiB: ... needs 0.0 MiB" */
    {"message", "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 --algos gemm "
                "-o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv --mem 100 "
                "--batch 2 -o $W/o", 1, "device memory 100 bytes: net 'tiny' needs "},
    /* --holdout-seed0 (eighth session): from 1000, in digits, and only with --holdout-plan */
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --holdout-plan 3 "
               "--holdout-seed0 999 $E/fit_runs", 1,
     "--holdout-seed0: must be a whole number in [1000, 1000000000], got '999'"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --holdout-plan 3 "
               "--holdout-seed0 2e3 $E/fit_runs", 1,
     "--holdout-seed0: must be a whole number in [1000, 1000000000], got '2e3'"},
    {"silent", "$T mbopt validate --nfit $E/nfit.json --tfit $E/tfit.json --holdout-seed0 2000 "
               "$E/fit_runs -o $W/o", 2, "--holdout-seed0 sets where --holdout-plan's seeds start"},
    /* campaign 21 (issue #25). N19: --grad-copies 0 (no gradient of a trained parameter) was
     * taken; a switch given twice too */
    {"silent", "$T mbopt mem --net " NET " --mem 12G --batch 8 --grad-copies 0 -o $W/o", 1,
     "--grad-copies: must be a whole number in [1, 64], got '0'"},
    {"silent", "$T mbopt conv --net " NET " --probe $W/none.csv --mem 1G --batch 2 "
               "--grad-copies 0 -o $W/o", 1, "--grad-copies: must be a whole number in [1, 64]"},
    {"usage", "$T mbopt scale --nfit $E/nfit.json --tfit $E/tfit.json --json --json -o $W/o", 2,
     "option '--json' given twice"},
    {"usage", "$T mbopt conv --net " NET " --probe $W/none.csv --mem 1G --batch 2 --micro-batch "
              "--micro-batch -o $W/o", 2, "option '--micro-batch' given twice"},
    /* campaign 21's N6: mbopt conv took a table without its forward rows (T_update of
     * backward_filter alone), an unknown pass ('sideways', 'FORWARD'), backend 'tpu', t_min_s
     * above the median and rows of two devices */
#define C21_CV(SED) "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 --algos " \
                    "gemm,direct -o $W/c.csv 2>/dev/null && sed '" SED "' $W/c.csv > $W/c2.csv && " \
                    "! cmp -s $W/c.csv $W/c2.csv && $T mbopt conv --net " NET " --probe $W/c2.csv " \
                    "--mem 1G --batch 2 -o $W/o"
    {"silent", C21_CV("/,forward,/d"), 1,
     "c2.csv: layer 'conv1': no rows for pass 'forward' (every update runs it)"},
    {"silent", C21_CV("s/,forward,/,sideways,/"), 1,
     "field 'pass': 'sideways' is not forward, backward_data or backward_filter"},
    {"silent", C21_CV("s/,forward,/,FORWARD,/"), 1, "field 'pass': 'FORWARD' is not forward"},
    {"silent", C21_CV("s/,cpu,/,tpu,/"), 1, "field 'backend': 'tpu' is not cpu or cuda"},
    {"silent", C21_CV("0,/^conv1,gemm,forward,2,\\([^,]*\\),\\([^,]*\\),\\([^,]*\\),[^,]*,/"
                      "s//conv1,gemm,forward,2,\\1,\\2,\\3,9,/"), 1,
     "is below 't_min_s' (9): not a spread of times"},
    {"silent", C21_CV("$ s/,[^,]*$/,Other Device/"), 1,
     "field 'device': 'Other Device' differs from "},
#undef C21_CV
    /* campaign 21's N4: an nfit, a tfit and run logs of different nets or data sets were
     * combined (the fits said neither); old fits without them still read */
#define NF21 "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/nf.json 2>/dev/null && "
#define TF21 "$T mbfit tupdate $W/st.csv --json -o $W/tf.json 2>/dev/null && "
#define Q21(SED) "mkdir $W/q && cp $E/fit_runs/*.csv $W/q/ && sed -i '" SED "' $W/q/*.csv && "
    {"silent", NF21 "sed 's/,lenet5,/,tiny,/' $E/step.csv > $W/st.csv && " TF21
               "$T mbopt scale --nfit $W/nf.json --tfit $W/tf.json --comm none --procs 1 -o $W/o",
     1, "tf.json: net 'tiny', but "},
    {"silent", NF21 "cp $E/step.csv $W/st.csv && " TF21 Q21("s/^# net=lenet5$/# net=alexnet/")
               "$T mbopt validate --nfit $W/nf.json --tfit $W/tf.json $W/q -o $W/o", 1,
     "metadata 'net': 'alexnet', but "},
    {"silent", NF21 "cp $E/step.csv $W/st.csv && " TF21
               Q21("s/^# data=fashion-mnist$/# data=mnist/")
               "$T mbopt validate --nfit $W/nf.json --tfit $W/tf.json $W/q -o $W/o", 1,
     "metadata 'data': 'mnist', but "},
    {"silent", NF21 "cp $E/step.csv $W/st.csv && " TF21
               Q21("s/^# data=fashion-mnist$/# data=mnist/")
               "$T mbopt scale --nfit $W/nf.json --tfit $W/tf.json --comm none --procs 1 $W/q "
               "-o $W/o", 1, "metadata 'data': 'mnist', but "},
    {"silent", NF21 "sed -i 's/\"net\":[[:space:]]*\"lenet5\"/\"net\": 7/' $W/nf.json && "
               "$T mbopt scale --nfit $W/nf.json --tfit $E/tfit.json --comm none --procs 1 "
               "-o $W/o", 1, "nf.json: field 'net': not a string"},
    {"silent", Q21("s/^# net=lenet5$/# net=alexnet/") "$T mbopt validate --target-loss 0.5 "
               "--nfit $E/nfit.json --tfit $E/tfit.json $W/q > /dev/null 2>&1", 0, NULL},
    /* campaign 21's N5: runs of another learning rate were said to be at the wrong M (validate)
     * or dropped without a word (scale) */
    {"message", NF21 Q21("s/^# lr=0.05$/# lr=0.1/") "$T mbopt validate --nfit $W/nf.json "
                "--tfit $E/tfit.json $W/q -o $W/o", 1,
     "no run was trained at the fit's learning rate 0.05 (the runs have lr 0.1)"},
    {"message", NF21 Q21("s/^# lr=0.05$/# lr=0.1/") "$T mbopt scale --nfit $W/nf.json "
                "--tfit $E/tfit.json --comm none --procs 1 $W/q > $W/s.txt && grep -q "
                "'not by runs: no run was trained at the fit.s learning rate 0.05 (the runs "
                "have lr 0.1)' $W/s.txt", 0, NULL},
#undef Q21
#undef TF21
#undef NF21    /* campaign 22's Q8: rows with an empty backend cell were dropped without a word (conv1's
     * forward pass went from gemm to direct), a table of them all read as one without the
     * column; a row of a backend spelt otherwise was dropped beside --backend cpu */
#define C22_CV(SED, MORE) "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 " \
                          "--algos gemm,direct -o $W/c.csv 2>/dev/null && sed '" SED "' $W/c.csv " \
                          "> $W/c2.csv && ! cmp -s $W/c.csv $W/c2.csv && $T mbopt conv --net " \
                          NET " --probe $W/c2.csv --mem 1G --batch 2,4 " MORE "-o $W/o"
    {"silent", C22_CV("0,/,measured,cpu,/s//,measured,,/", ""), 1,
     "field 'backend': empty (mbprobe conv writes cpu or cuda on every row)"},
    {"silent", C22_CV("s/,measured,cpu,/,measured,,/", "--json "), 1,
     "field 'backend': empty (mbprobe conv writes cpu or cuda on every row)"},
    {"silent", C22_CV("$ s/,measured,cpu,/,measured,CPU,/", "--backend cpu "), 1,
     "field 'backend': 'CPU' is not cpu or cuda"},
#undef C22_CV
    /* campaign 23 (issue #25). R9: mbopt conv priced net tiny's T_update with lenet5's
     * N_update (an --nfit of another net), which mbopt scale refuses beside a tfit */
    {"silent", NX "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv --mem 1G "
               "--batch 2 --nfit $W/nx.json -o $W/o", 1,
     "/nx.json: net 'lenet5', but "},
    /* R14: --batch-range took '1e1' as 10 (a mini-batch size in digits, as --batch) */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1 --batch-range 1e1:64 -o $W/o", 1,
     "--batch-range: must be a whole number in [1, 9007199254740992], got '1e1'"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1 --batch-range 8:6e1 -o $W/o", 1,
     "--batch-range: must be a whole number in [1, 9007199254740992], got '6e1'"},
    /* tenth session: bootstrap.seeds widens the level interval; a count of seeds from 3 */
#define SEEDS_BOOT(N) NS("5", ",\"bootstrap\":{\"resamples\":200,\"fitted\":200,\"best_law\":"    \
                      "\"shifted-law\",\"best_samples\":[[104.9,5510.2,4.9]],\"seeds\":" N       \
                      ",\"best_samples_by_seed\":[[104.9,5510.2,4.9]]}")                          \
                      "$T mbopt scale --nfit $W/ns.json --gamma 2e-5 --m-t 32 --comm none -o $W/o"
    {"silent", SEEDS_BOOT("2.5"), 1, "ns.json: field 'bootstrap.seeds': not a whole number of "
                                     "seeds from 3"},
    {"silent", SEEDS_BOOT("2"), 1, "field 'bootstrap.seeds': not a whole number of seeds from 3"},
    {"silent", SEEDS_BOOT("\"3\""), 1, "field 'bootstrap.seeds': not a whole number"},
#undef SEEDS_BOOT
    /* campaign 25 (issue #25). V9: a conv table's layer or status cell with a space beside the
     * name dropped the row without a word (conv1's M = 2 choice went from gemm to direct):
     * cells as written, a layer of the net and a status mbprobe conv writes */
#define C25_CV(SED) "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 " \
                    "--algos gemm,direct -o $W/c.csv 2>/dev/null && sed '" SED "' $W/c.csv " \
                    "> $W/c2.csv && ! cmp -s $W/c.csv $W/c2.csv && $T mbopt conv --net " NET \
                    " --probe $W/c2.csv --mem 1G --batch 2,4 -o $W/o"
    {"silent", C25_CV("s/^conv1,gemm,forward,2,/conv1 ,gemm,forward,2,/"), 1,
     "field 'layer': 'conv1 ' is not a convolution layer of net 'tiny'"},
    {"silent", C25_CV("s/^conv1,gemm,forward,2,/ conv1,gemm,forward,2,/"), 1,
     "field 'layer': ' conv1' is not a convolution layer of net 'tiny'"},
    {"silent", C25_CV("/^conv1,gemm,forward,2,/s/,measured,/, measured,/"), 1,
     "field 'status': ' measured' is not measured, cached, unsupported, out of memory or over "
     "budget"},
    {"silent", C25_CV("/^conv1,gemm,forward,2,/s/,measured,/,Measured,/"), 1,
     "field 'status': 'Measured' is not measured, "},
    {"silent", C25_CV("/^conv1,direct,forward,2,/s/,measured,/,unsupported,/") " 2>/dev/null "
               "&& grep -q gemm $W/o", 0, NULL},
#undef C25_CV
    /* campaign 26's W3: a lo:hi past 2^30 was cut at the last doubling below it (8:2000000000
     * planned 8 .. 2^30) where the list form is refused; the end is held as written, and mbopt
     * mem names it (H070: 1:4000000000 named 2147483648, the first doubling past 2^30) */
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               LOGS " --grid-cost 8:2000000000 -o $W/o", 1,
     "--grid-cost: 8:2000000000: 2000000000 is past the largest mini-batch, 1073741824"},
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               LOGS " --grid-cost 8:1073741825 -o $W/o", 1,
     "--grid-cost: 8:1073741825: 1073741825 is past the largest mini-batch, 1073741824"},
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               LOGS " --grid-cost 8:1073741824 -o $W/r && grep -q '^grid: ' $W/r", 0, NULL},
    {"message", "$T mbopt mem --net " NET " --mem 1G --batch 1:4000000000 -o $W/o", 1,
     "--batch: 4000000000 (in '1:4000000000') is not a whole number in [1, 1073741824]"},
    {"message", "$T mbopt conv --net " NET " --probe $W/none.csv --mem 1G --batch 2:3000000000 "
                "-o $W/o", 1, "--batch: 3000000000 (in '2:3000000000') is not a whole number"},
};

static const hcase plot_cases[] = {
    /* campaign 15: the runs behind an extrapolated M are a count */
    {"silent", NX "sed -i '0,/\"runs\":\t5,/s//\"runs\":\t2.5,/' $W/nx.json && $T mbplot "
                  "nupdate $W/nx.json -o $W/n.png", 1,
     "field 'extrapolated.per_m[0].runs': 2.5 is not a whole count"},
    /* FIFOs among the report's inputs are read once each (every input is read twice) */
    {"fifo", "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s && "
             "mkfifo $W/r/scale.json $W/r/step.csv && { $T cat $W/s > $W/r/scale.json & "
             "$T cat $E/step.csv > $W/r/step.csv & $T mbplot report $W/r >/dev/null 2>&1; s=$?; "
             "wait; test $s = 0 && test -s $W/r/step.png && test -p $W/r/step.csv; }", 0, NULL},
    {"fifo", "mkdir $W/r && mkfifo $W/r/scale.json && { $T printf '{\"rows\": 3}' > "
             "$W/r/scale.json & $T mbplot report $W/r; s=$?; wait; exit $s; }", 1,
     "/r/scale.json: no 'rows' array"},
    /* the image's name and its format agree; what is drawn is what mbfit could fit */
    {"silent", "$T mbplot amdahl --format svg -o $W/o.png", 1, "the extension says png"},
    {"silent", "$T mbplot amdahl --format png -o $W/o.svg", 1, "the extension says svg"},
    {"silent", "$T mbplot amdahl -o $W/a.svg >/dev/null && grep -q '<svg' $W/a.svg", 0, NULL},
    {"silent", "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
               "sed '0,/\"n_inf\":[[:space:]]*[0-9.e+]*/s//\"n_inf\": -50/' $W/n.json > $W/m.json && "
               "$T mbplot nupdate $W/m.json -o $W/o", 1, "'n_inf': -50"},
    {"silent", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
               LOGS " --json -o $W/v.json 2>/dev/null >/dev/null && sed '0,/\"batch\":[[:space:]]*"
               "[0-9]*/s//\"batch\": 8.5/' $W/v.json > $W/w.json && $T mbplot validate "
               "$W/w.json -o $W/o", 1, "must be a whole number, got 8.5"},
    /* the third campaign: another command's flag, a scale of one P twice, a covariance that
     * is not one, a step table mbfit refuses, an empty name */
    {"usage", "$T mbplot comm $E/comm.csv --tfit $E/tfit.json -o $W/o", 2, "--tfit is an option"},
    {"usage", "$T mbplot step $E/step.csv --curves 3 -o $W/o", 2, "--curves is an option"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--json -o $W/s.json --procs 1,2 && sed "
               "'s/\"procs\":[[:space:]]*2,/\"procs\": 1,/' $W/s.json > $W/d.json && "
               "$T mbplot scale $W/d.json -o $W/o", 1, "procs 1 given twice"},
    {"silent", "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && sed "
               "'s/\"covariance\":/\"covariance\": \"x\", \"was\":/' $W/n.json > $W/m.json && "
               "$T mbplot nupdate $W/m.json -o $W/o", 1, "'covariance'"},
    {"silent", "{ grep '^#\\|^backend' $E/step.csv; echo cpu,lenet5,8,1,2,0,1e-3,1e-3,1e-3,1e-3,"
               "1e-3,1; } > $W/s.csv && $T mbplot step $W/s.csv -o $W/o", 1, "field 'reps'"},
    {"io", "$T mbplot amdahl -o ''", 1, "empty file name"},
    /* standard output closed: refused before anything is drawn (no image left behind) */
    {"io", "$T mbplot amdahl -o $W/c.png >&- ; s=$?; test ! -e $W/c.png && exit $s", 1,
     "write error"},
    {"silent", "$T mbplot amdahl --overhead-ratio 0.1,0.1 -o $W/o.png", 1, "given twice"},
    {"silent", "sed 's/\"inverse-law\"/\"mystery-law\"/' $E/nfit.json > $W/m.json && $T mbplot "
               "nupdate $W/m.json -o $W/o.png", 1, "not inverse-law"},
    {"silent", "sed 's/^cpu,lenet5,2,/cpu,lenet5,2.5,/' $E/step.csv > $W/s.csv && $T mbplot step "
               "$W/s.csv -o $W/o.png",
     1, "not a whole number"},
    {"silent", "$T mbplot amdahl --size 900x600junk -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size 900x600x3 -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size ' 900x600' -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size +900x600 -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size 99999999999x600 -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size 900x -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size x600 -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --size 50x600 -o $W/o", 1, "--size"},
    {"silent", "$T mbplot amdahl --gpus 4.5 -o $W/o", 1, "--gpus"},
    {"silent", "$T mbplot amdahl --gpus 1e300 -o $W/o", 1, "--gpus"},
    {"silent", "$T mbplot amdahl --curves 2.5 -o $W/o", 1, "--curves"},
    {"silent", "$T mbplot amdahl --overhead-ratio 0.1,,0.2 -o $W/o", 1, "empty item"},
    {"silent", "$T mbplot amdahl --format gif -o $W/o", 1, "--format"},
    {"silent", "cp $E/step.csv $W/s.csv && $T mbplot step $W/s.csv -o $W/s.csv", 1, "overwrite"},
    {"silent", "$T mbplot step $E/step.csv --tfit $W/o -o $W/o", 1, "overwrite"},
    {"silent", "$T mbplot nupdate $D/dup.json -o $W/o", 1, "given twice"},
    {"silent", "$T mbplot scale $D/dup.json -o $W/o", 1, "given twice"},
    {"silent", "$T mbplot comm $D/comm_p.csv -o $W/o", 1, "comm_p.csv"},
    {"silent", "$T mbplot validate $D/notjson.json -o $W/o", 1, "not valid JSON"},
    {"silent", "$T mbplot conv $D/dup.json -o $W/o", 1, "given twice"},
    {"usage", "$T mbplot frob", 2, "unknown command"},
    {"usage", "$T mbplot step -o $W/o", 2, "missing the input file"},
    {"usage", "$T mbplot amdahl --frob", 2, "unknown option"},
    {"usage", "$T mbplot report $D -o $W/o", 2, "-o is not used"},
    {"size", "$T mbplot step /dev/zero -o $W/o", 1, "/dev/zero"},
    {"size", "$T mbplot nupdate /dev/zero -o $W/o", 1, "/dev/zero"},
    {"size", "$T mbplot step $D -o $W/o", 1, "cannot read"},
    {"size", "$T mbplot report /dev/null", 1, "/dev/null"},
    {"fifo", "mkfifo $W/f && { $T cat $E/step.csv > $W/f & $T mbplot step $W/f -o $W/p.png "
             ">/dev/null; s=$?; wait; test $s = 0 && test -s $W/p.png; }",
     0, NULL},
    {"symlink", "echo old > $W/t && ln -s t $W/l && $T mbplot amdahl --format svg -o $W/l "
                ">/dev/null && test -L $W/l && grep -q svg $W/t",
     0, NULL},
    {"symlink", "ln -s t.svg $W/l && $T mbplot step $E/step.csv --format svg -o $W/l >/dev/null "
                "&& test -L $W/l && grep -q svg $W/t.svg",
     0, NULL},
    {"io", "$T mbplot amdahl -o $D", 1, "cannot write"},
    {"message", "$T mbplot step $D/step_bom.csv -o $W/p.png >/dev/null", 0, NULL},
    {"message", "$T mbplot amdahl --overhead-ratio 1e-308 -o $W/p.png >/dev/null", 0, NULL},
    {"runaway", "$T mbplot amdahl --overhead-ratio 1e309 -o $W/o", 1, "--overhead-ratio"},
    {"runaway", "$T mbplot tc $E/nfit.json --curves 99 -o $W/o", 1, "--curves"},
    {"size", "$T mbplot conv /dev/zero -o $W/o", 1, "/dev/zero"},
    {"silent", "$T mbplot validate $D/dup.json -o $W/o", 1, "given twice"},
    {"silent", "$T mbplot tc $D/dup.json -o $W/o", 1, "given twice"},
    {"silent", "$T mbplot comm $E/comm.csv --cfit $D/dup.json -o $W/o", 1, "given twice"},
    {"silent", "$T mbplot step $E/step.csv --tfit $D/dup.json -o $W/o", 1, "given twice"},
    {"io", "$T mbplot report $W", 1, "scale.json"},
    /* the fourth campaign: a flag given twice, a value quoted as written, a FIFO with no writer */
    {"silent", "$T mbplot amdahl --size 900x600 --size 800x600 -o $W/o", 2,
     "option '--size' given twice"},
    {"message", "$T mbplot amdahl --overhead-ratio 0.1,0.1 -o $W/o", 1,
     "--overhead-ratio: 0.1 given twice in '0.1,0.1'"},
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbplot scale $W/f -o $W/o", 1,
     "a FIFO with no writer after 0.3 s"},
    /* the fifth campaign: a JSON file of another kind than the figure draws */
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && "
               "sed -i 's/mbkit-scale/mbkit-fit/' $W/s.json && $T mbplot scale $W/s.json -o $W/o",
     1, "is a fit"},
    {"silent", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && "
               "$T mbplot validate $W/s.json -o $W/o", 1, "not a validation"},
    {"silent", "sed '1s/{/{\"format\": \"mbkit-scale\\/1\", /' $E/tfit.json > $W/t.json && "
               "$T mbplot step $E/step.csv --tfit $W/t.json -o $W/o", 1, "not a fit"},
    /* an image kind mbplot does not write; a report output linked onto its own input */
    {"silent", "$T mbplot amdahl --overhead-ratio 0.1 -o $W/o.jpg", 1,
     "mbplot writes png or svg, not jpg"},
    /* campaign 14's R5: o.SVG is an SVG; o.svgz (compressed) is not written */
    {"silent", "$T mbplot amdahl --overhead-ratio 0.1 -o $W/o.svgz", 1,
     "mbplot writes png or svg, not svgz"},
    {"silent", "$T mbplot amdahl --overhead-ratio 0.1 -o $W/o.SVG && head -c 200 $W/o.SVG | "
               "grep -q '<svg\\|<?xml'", 0, NULL},
    {"symlink", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && ln -s s.json "
                "$W/scale.json && ln -s s.json $W/report.html && $T mbplot report $W; s=$?; "
                "grep -q '\"rows\"' $W/s.json || exit 99; exit $s",
     1, "report.html would overwrite the input"},
    /* values no mbkit writer produces are not drawn: r2 above 1, an interval upside down, a
     * negative target, a count past 2^53, an M of 1e308 */
    /* a present runs/ is read: a log that is none, or a plain file named runs, is refused */
    {"silent", "mkdir -p $W/r/runs && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o "
               "$W/r/scale.json && echo a,b > $W/r/runs/x.csv && $T mbplot report $W/r 2>$W/e; "
               "s=$?; grep -v 'note:' $W/e >&2; test -e $W/r/report.html && exit 99; exit $s", 1,
     "runs/x.csv: no column 'update'"},
    {"silent", "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o "
               "$W/r/scale.json && echo x > $W/r/runs && $T mbplot report $W/r 2>$W/e; s=$?; "
               "grep -v 'note:' $W/e >&2; exit $s", 1, "r/runs: not a folder"},
#define NJ "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
    {"silent", NJ "sed 's/\"r2\":\t[0-9.e+-]*/\"r2\":\t5/' $W/n.json > $W/m.json && "
               "$T mbplot nupdate $W/m.json -o $W/o", 1, "m.json: 'r2': 5 is not a number in"},
    {"silent", NJ "sed 's/\"target_loss\":\t0.5/\"target_loss\":\t-1/' $W/n.json > $W/m.json "
               "&& $T mbplot nupdate $W/m.json -o $W/o", 1, "'target_loss': -1 is not"},
    {"silent", NJ "sed '/\"ci95\"/,/\"n_inf\"/s/\"n_inf\":\t\\[.*\\]/\"n_inf\":\t[400, "
               "300]/' $W/n.json > $W/m.json && $T mbplot nupdate $W/m.json -o $W/o", 1,
     "field 'ci95.n_inf': not an interval [lo, hi] with lo <= hi"},
    {"silent", NJ "sed '0,/\"alpha\":/s/\"alpha\":\t[0-9.e+-]*/\"alpha\":\t1e308/' $W/n.json "
               "> $W/m.json && $T mbplot nupdate $W/m.json -o $W/o", 1,
     "m.json: field 'params.alpha': 1e+308, but best.params.alpha is"},
#undef NJ
    {"runaway", "$T mbopt validate --target-loss 0.5 --nfit $E/nfit.json --tfit $E/tfit.json "
                "$E/fit_runs --json -o $W/v.json 2>/dev/null && sed '0,/\"runs\":/s/\"runs\":"
                "\t3/\"runs\":\t1e30/' $W/v.json > $W/w.json && $T mbplot validate $W/w.json "
                "-o $W/o", 1, "field 'rows[0].runs': must be a whole number up to 2^53"},
    {"runaway", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && sed "
                "'0,/\"m_opt\":/s/\"m_opt\":\t32/\"m_opt\":\t1e308/' $W/s.json > $W/t.json "
                "&& $T mbplot tc $W/t.json -o $W/o", 1, "rows[0]: 'm_opt': 1e+308 is not"},
    /* a newline or ESC in a flag's value or a file name, quoted in a line mbplot prints
     * itself, is escaped as mb_error_set escapes it (mb_cli_say): one line, no raw escape */
    {"message", "$T mbplot amdahl --format \"$(printf 'g\\nif')\" -o $W/o", 1,
     "--format: 'g\\nif' is not png or svg"},
    {"message", "$T mbplot amdahl --size \"$(printf '9\\033[2Jx6')\" -o $W/o", 1,
     "--size: '9\\x1b[2Jx6' is not WxH pixels"},
    {"message", "$T mbplot amdahl --curves \"$(printf '1\\n2')\" -o $W/o", 1,
     "--curves: '1\\n2' is not a whole number"},
    {"message", "$T mbplot amdahl --overhead-ratio 0.1 -o \"$W/a$(printf '\\nb').jpg\"", 1,
     "a\\nb.jpg: mbplot writes png or svg, not jpg"},
    {"message", "f=\"$W/s$(printf '\\033').csv\" && cp $E/step.csv \"$f\" && $T mbplot step "
                "\"$f\" -o \"$f\"", 1, "s\\x1b.csv would overwrite the input"},
    {"message", "d=\"$W/r$(printf '\\033')x\" && mkdir \"$d\" && $T mbopt scale " SCALE_FLAGS
                "--procs 1:4 --json -o \"$d/scale.json\" && $T mbplot report \"$d\" >/dev/null "
                "2>$W/e && ! grep -q \"$(printf '\\033')\" $W/e && grep -q 'r\\\\x1bx/step.csv "
                "is missing' $W/e", 0, NULL},
    /* the seventh campaign (issue #25). H1: an output FIFO with no reader (a figure, the report's
     * page) is refused after MBKIT_FIFO_WAIT, never waited on forever */
    {"fifo", "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbplot amdahl -o $W/f", 1,
     "a FIFO with no reader"},
    {"fifo", "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
             "mkfifo $W/f && MBKIT_FIFO_WAIT=0.3 $T mbplot nupdate $W/n.json -o $W/f", 1,
     "a FIFO with no reader"},
    {"fifo", "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "
             "mkfifo $W/r/scale.png && MBKIT_FIFO_WAIT=0.3 $T mbplot report $W/r", 1,
     "scale.png: a FIFO with no reader"},
    {"fifo", "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "
             "mkfifo $W/r/report.html && MBKIT_FIFO_WAIT=0.3 $T mbplot report $W/r 2>$W/e; s=$?; "
             "grep -v 'note:' $W/e >&2; exit $s", 1, "report.html: a FIFO with no reader"},
    /* H13: amdahl's devices past 2^53 are refused from the text, and the message says the range */
    {"runaway", "$T mbplot amdahl --gpus 9007199254740993 -o $W/o", 1,
     "--gpus: must be a whole number in [2, 9007199254740992], got '9007199254740993'"},
    {"message", "$T mbplot amdahl --gpus 1e16 -o $W/o", 1,
     "--gpus: must be a whole number in [2, 9007199254740992], got '1e16'"},
    /* H11: a fit of another model as tfit.json or cfit.json (or one without its parameters) is
     * refused, not listed under the wrong heading */
#define RS "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "
    {"silent", RS "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/r/tfit.json "
               "2>/dev/null && $T mbplot report $W/r", 1,
     "r/tfit.json: 'model' is 'inverse-law', not update-time"},
    {"silent", RS "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/r/cfit.json "
               "2>/dev/null && $T mbplot report $W/r", 1,
     "r/cfit.json: 'model' is 'inverse-law', not alpha-beta-ring"},
    {"silent", RS "printf '{\"format\":\"mbkit-fit/1\"}' > $W/r/tfit.json && $T mbplot report "
               "$W/r", 1, "r/tfit.json: no 'params' object"},
#undef RS
    /* H9: MBKIT_FIFO_WAIT that is not a number is refused by every command */
    {"silent", "MBKIT_FIFO_WAIT=-1 $T mbplot amdahl -o $W/o", 2,
     "MBKIT_FIFO_WAIT='-1': must be a number of seconds from 0 to 3600"},
    /* H12: a commands.txt that is there but cannot be read is an error naming it, not "missing" */
    {"message", "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o "
                "$W/r/scale.json && mkdir $W/r/commands.txt && $T mbplot report $W/r", 1,
     "r/commands.txt: cannot read: Is a directory"},
    /* H12, the rest: a commands.txt past the size cap or holding a NUL byte (the page showed it
     * cut there), a runs/ or an input that is a link in a loop or to nothing: exit 1 naming it,
     * and no page; a runs/ folder without logs is there, its logs are what is missing */
#define RP "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "
#define NOPAGE "; s=$?; test -e $W/r/report.html && exit 99; exit $s"
    {"size", RP "truncate -s 1100M $W/r/commands.txt && $T mbplot report $W/r" NOPAGE, 1,
     "r/commands.txt: 1153433600 bytes, more than the 1024 MiB an input may hold"},
    {"message", RP "head -c 64 /dev/zero > $W/r/commands.txt && $T mbplot report $W/r" NOPAGE, 1,
     "r/commands.txt: not text: a NUL byte at byte 1"},
    {"message", RP "printf 'mbtrain\\0x' > $W/r/scale.txt && $T mbplot report $W/r" NOPAGE, 1,
     "r/scale.txt: not text: a NUL byte at byte 8"},
    {"message", RP "ln -s runs $W/r/runs && $T mbplot report $W/r" NOPAGE, 1,
     "r/runs: cannot read: Too many levels of symbolic links"},
    {"message", RP "ln -s nowhere.json $W/r/nfit.json && $T mbplot report $W/r" NOPAGE, 1,
     "r/nfit.json: cannot read: No such file or directory"},
    {"message", RP "mkdir $W/r/runs && ln -s ../runs $W/r/runs/loop && $T mbplot report $W/r "
                "2>$W/e >/dev/null && grep -q 'r/runs/\\*.csv is missing (written by mbtrain)' "
                "$W/e && ! grep -q 'runs/ is missing' $W/e", 0, NULL},
    /* the eleventh campaign (issue #25). N2: a figure or the page linked (symbolically or hard)
     * onto a run log under runs/ or runs/RATE/, or onto an input the page reads (conv.csv), is
     * refused before anything is written, the log left as it was */
#define RL RP "mkdir -p $W/r/runs/lr1 && cp $E/fit_runs/run_M16_s0.csv $W/r/runs/ && " \
           "cp $E/fit_runs/run_M32_s0.csv $W/r/runs/lr1/ && "
#define LOGKEPT "; s=$?; cmp -s $W/r/runs/run_M16_s0.csv $E/fit_runs/run_M16_s0.csv && " \
                "cmp -s $W/r/runs/lr1/run_M32_s0.csv $E/fit_runs/run_M32_s0.csv || exit 99; " \
                "test -e $W/r/report.html && exit 98; exit $s"
    {"symlink", RL "ln -s runs/run_M16_s0.csv $W/r/tc.png && $T mbplot report $W/r" LOGKEPT, 1,
     "r/tc.png would overwrite the input " },
    {"symlink", RL "ln -s runs/lr1/run_M32_s0.csv $W/r/amdahl.png && $T mbplot report $W/r"
                LOGKEPT, 1, "amdahl.png would overwrite the input "},
    {"silent", RL "ln $W/r/runs/run_M16_s0.csv $W/r/report.html && $T mbplot report $W/r; s=$?; "
               "cmp -s $W/r/report.html $E/fit_runs/run_M16_s0.csv || exit 99; exit $s", 1,
     "report.html would overwrite the input "},
    {"symlink", RL "cp $E/step.csv $W/r/conv.csv && ln -s conv.csv $W/r/scale.png && "
                "$T mbplot report $W/r; s=$?; cmp -s $W/r/conv.csv $E/step.csv || exit 99; "
                "exit $s", 1, "scale.png would overwrite the input "},
#undef LOGKEPT
#undef RL
    /* N11: scale.json's recommendation (`enough`, `best`) is one of its rows, with one sample
     * a learner at least: P = 99 and M = 7 were drawn as advice */
#define EDIT(KEY, SED) "sed -i '/\"" KEY "\":/,/}/{" SED "}' $W/r/scale.json && $T mbplot report $W/r"
    {"silent", RP EDIT("enough", "s/\"procs\":\t1,/\"procs\":\t99,/") NOPAGE, 1,
     "r/scale.json: enough.procs 99 is not among rows' procs (1, 2, 4)"},
    {"silent", RP EDIT("best", "s/\"procs\":\t1,/\"procs\":\t4,/;s/\"m_opt\":\t32,/\"m_opt\":"
                  "\t483.045891539648,/;s/\"m_run\":\t32,/\"m_run\":\t2,/") NOPAGE, 1,
     "r/scale.json: best.m_run 2 is below best.procs 4"},
    {"silent", RP EDIT("enough", "s/\"m_opt\":\t32,/\"m_opt\":\t7,/") NOPAGE, 1,
     "r/scale.json: enough.m_opt 7 is not rows[0].m_opt 32"},
#undef EDIT
#undef NOPAGE
#undef RP
    /* the eighth campaign (issue #25). K13: a shifted-law nfit read from a FIFO is read once
     * (the optimised law comes from the root already read); K5: its values are checked as
     * mbopt checks them */
    {"fifo", NS("5", ",\"per_m\":[{\"batch\":16,\"mean\":400,\"se\":9}]") "mkfifo $W/f && "
             "(cat $W/ns.json > $W/f &) && $T mbplot nupdate $W/f -o $W/p.png && test -s "
             "$W/p.png", 0, NULL},
    {"silent", NS("-1", ",\"per_m\":[{\"batch\":16,\"mean\":400,\"se\":9}]") "$T mbplot "
               "nupdate $W/ns.json -o $W/o", 1, "the shifted law needs m_0 >= 0"},
    /* K5, the rest: mbplot reads a bootstrap as mbopt does (one reader) */
#define PER_M ",\"per_m\":[{\"batch\":16,\"mean\":400,\"se\":9}]"
    {"silent", NS("5", BOOT(",\"best_law\":\"bogus\"", "[105.3,5551.7,5.1]") PER_M) "$T mbplot "
               "nupdate $W/ns.json -o $W/o", 1,
     "field 'bootstrap.best_law': 'bogus' is not a law (inverse-law, power-law or shifted-law)"},
    {"silent", NS("5", BOOT(",\"best_law\":\"shifted-law\"", "[105.3,5551.7,5.1,1]") PER_M)
               "$T mbplot nupdate $W/ns.json -o $W/o", 1,
     "field 'bootstrap.best_samples[1]': not 3 numbers [n_inf, alpha, m_0]"},
    {"silent", "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json "
               "&& " NS("5", BOOT("", "[105.3,5551.7,5.1]")) "cp $W/ns.json $W/r/nfit.json && "
               "$T mbplot report $W/r 2>$W/e; s=$?; grep -v note: $W/e >&2; "
               "test -e $W/r/report.html && exit 99; exit $s", 1,
     "r/nfit.json: field 'bootstrap.best_law': missing beside 'bootstrap.best_samples'"},
    /* the ninth campaign (issue #25). L16: mbplot reads an nfit's fields as mbopt does */
    {"silent", NP("[8,512]", NP_POW("-5") PER_M) "$T mbplot nupdate $W/np.json -o $W/o", 1,
     "np.json: field 'best.params.a': -5: the power law needs a >= 0"},
    {"silent", NP("[16.5,512]", NP_POW("16324.6") PER_M) "$T mbplot nupdate $W/np.json -o $W/o",
     1, "np.json: field 'converged_range[0]': 16.5 is not a whole batch size"},
    {"silent", NP("[8,512]", ",\"lr\":0" NP_POW("16324.6") PER_M) "$T mbplot nupdate "
               "$W/np.json -o $W/o", 1, "np.json: field 'lr': 0 is not above 0"},
#undef PER_M
    /* the ninth campaign (issue #25). L18: a count's range is printed whole, not 9.0072e+15 */
    {"message", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && sed -i "
                "'0,/\"procs\":\\s*1,/s//\"procs\": 1.5,/' $W/s.json && $T mbplot scale "
                "$W/s.json -o $W/o", 1,
     "rows[0]: 'procs': 1.5 is not a whole number in [1, 9007199254740992]"},
    /* L18: a scale file's model that no fit gives is named as the file's field */
    {"message", "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && sed -i "
                "'s/\"n_inf\":[^,]*,/\"n_inf\": -1,/' $W/s.json && $T mbplot tc $W/s.json "
                "-o $W/o", 1, "/s.json: field 'model.n_inf': must be > 0, got -1"},
    /* the twelfth campaign (issue #25). P5: a value a log axis cannot draw (M_opt, T_C or a
     * speed-up of 0) */
#define SJ "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && sed -i "
    {"silent", SJ "'0,/\"m_opt\":\\s*[0-9.]*,/s//\"m_opt\": 0,/' $W/s.json && $T mbplot tc "
               "$W/s.json -o $W/o", 1, "s.json: rows[0]: 'm_opt': 0 is not a number in (0, "},
    {"silent", SJ "'0,/\"t_c_opt\":\\s*[0-9.]*,/s//\"t_c_opt\": 0,/' $W/s.json && $T mbplot "
               "scale $W/s.json -o $W/o", 1, "s.json: rows[0]: 't_c_opt': 0 is not a number in "
               "(0, "},
    {"silent", SJ "'s/\"speedup_opt\":\\s*0\\.[0-9]*,/\"speedup_opt\": 0,/' $W/s.json && $T mbplot "
               "scale $W/s.json -o $W/o", 1, "s.json: rows[1]: 'speedup_opt': 0 is not a number"},
#undef SJ
    /* P6: a validation row given twice, and a list of run times whose length disagrees with the
     * runs that reached the target (or lies outside the row's own min..max) */
#define VJ(ROWS)                                                                                  \
    "printf '{\"target_loss\":0.5,\"verdict\":\"v\",\"curve\":[{\"batch\":16,\"t_pred_s\":1.5,"  \
    "\"lr\":0.05}],\"recommended\":{\"batch\":16},\"rows\":[" ROWS "]}' > $W/v.json && "
#define VR(TS)                                                                                    \
    "{\"algo\":\"sgd\",\"batch\":16,\"procs\":1,\"lr\":0.05,\"runs\":3,\"reached\":3,"           \
    "\"t_train_median_s\":1.55,\"t_train_min_s\":1.5,\"t_train_max_s\":1.6,\"t_runs_s\":" TS "}"
    {"silent", VJ(VR("[1.5,1.55,1.6]")) "$T mbplot validate $W/v.json -o $W/p.png >/dev/null", 0,
     NULL},
    {"silent", VJ(VR("[1.5,1.55,1.6]") "," VR("[1.5,1.55,1.6]")) "$T mbplot validate $W/v.json "
               "-o $W/o", 1, "v.json: field 'rows[1]': the setting of rows[0] (P 1, M 16, lr "
               "0.05) given twice"},
    {"silent", VJ(VR("[]")) "$T mbplot validate $W/v.json -o $W/o", 1,
     "field 'rows[0].t_runs_s': 0 times, but 3 runs reached the target"},
    {"silent", VJ(VR("[1.5,1.5,1.5,1.55,1.6,1.6,1.6]")) "$T mbplot validate $W/v.json -o $W/o",
     1, "field 'rows[0].t_runs_s': 7 times, but 3 runs reached the target"},
    {"silent", VJ(VR("[1,1.55,1.6]")) "$T mbplot validate $W/v.json -o $W/o", 1,
     "field 'rows[0].t_runs_s[0]': 1 s is outside the row's t_train_min_s..t_train_max_s"},
    /* the thirteenth campaign (issue #25). Q4: times inside min..max that are not the row's
     * runs (their median or max another than the row's own) */
    {"silent", VJ(VR("[1.5,1.5,1.5]")) "$T mbplot validate $W/v.json -o $W/o", 1,
     "field 'rows[0].t_runs_s': median 1.5 s is not the row's t_train_median_s 1.55 s"},
    {"silent", VJ(VR("[1.55,1.55,1.5]")) "$T mbplot validate $W/v.json -o $W/o", 1,
     "field 'rows[0].t_runs_s': max 1.55 s is not the row's t_train_max_s 1.6 s"},
#undef VJ
#undef VR
    /* the thirteenth campaign (issue #25). Q2: scale.json's `settled` is checked before the
     * page draws it: "nan%", "nan s" and a recommended M = -5 were printed from edited ones */
#define ST(S)                                                                                     \
    "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "       \
    "sed -i '1s/^{/{\"settled\":" S ",/' $W/r/scale.json && $T mbplot report $W/r; s=$?; "     \
    "test -e $W/r/report.html && exit 99; exit $s"
#define SG(BAND, BATCH, CAND) "{\"by\":\"model and runs\",\"band\":" BAND ",\"candidates\":" CAND \
                             ",\"batch\":" BATCH ",\"t_pred_s\":1.5,\"t_train_median_s\":1.6}"
    {"nan", ST("{\"by\":\"model and runs\",\"candidates\":[],\"batch\":64,\"t_pred_s\":1.5,"
               "\"t_train_median_s\":1.6}"), 1,
     "r/scale.json: field 'settled.band': missing beside 'settled.batch'"},
    {"nan", ST("{\"batch\":64}"), 1,
     "r/scale.json: field 'settled.t_pred_s': missing beside 'settled.batch'"},
    {"silent", ST(SG("0.1", "-5", "[]")), 1,
     "r/scale.json: settled: 'batch': -5 is not a whole number in [1, "},
    {"silent", ST(SG("-3", "64", "[]")), 1, "r/scale.json: settled: 'band': -3 is not a number"},
    {"silent", ST(SG("0.1", "64", "\"x\"")), 1,
     "r/scale.json: field 'settled.candidates': not an array beside 'settled.batch'"},
    {"silent", ST("[]"), 1, "r/scale.json: field 'settled': not an object"},
    /* the model's run: both or neither (neither where no trained M stood for the optimum) */
    {"silent", ST("{\"by\":\"runs\",\"band\":0.1,\"candidates\":[],\"batch\":64,\"t_pred_s\":1.5,"
                  "\"t_train_median_s\":1.6,\"model_t_train_median_s\":1.7}"), 1,
     "r/scale.json: settled: 'model_batch_run' is missing"},
    {"nan", ST("{\"by\":\"model and runs\",\"band\":0.1,\"candidates\":[],\"batch\":64,"
               "\"t_pred_s\":1.5}"), 1,
     "r/scale.json: field 'settled.t_train_median_s': missing beside 'settled.batch'"},
    /* the fourteenth campaign's R3: an answer none of the candidates, no candidates, another
     * "by" were drawn */
    {"silent", ST(SG("0.1", "3", "[{\"batch\":32},{\"batch\":64}]")), 1,
     "r/scale.json: field 'settled.batch': 3 is none of 'settled.candidates'"},
    {"silent", ST(SG("0.1", "64", "[]")), 1,
     "r/scale.json: field 'settled.candidates': empty beside 'settled.batch'"},
    {"silent", ST("{\"by\":\"bogus\",\"band\":0.1,\"candidates\":[{\"batch\":64}],\"batch\":64,"
                  "\"t_pred_s\":1.5,\"t_train_median_s\":1.6}"), 1,
     "r/scale.json: field 'settled.by': not \"runs\" or \"model and runs\""},
    /* the fifteenth campaign: the weighing's fields and a rate none of the candidates had */
#define SW(F) "{\"by\":\"model and runs\",\"band\":0.1,\"candidates\":[{\"batch\":64,\"lr\":0.02}]," \
              "\"batch\":64,\"lr\":0.02,\"t_pred_s\":1.5,\"t_train_median_s\":1.6," F "}"
    {"silent", ST(SW("\"runs_reached\":2.5")), 1,
     "r/scale.json: settled: 'runs_reached': 2.5 is not a whole number"},
    {"silent", ST(SW("\"sd_seed\":-0.2")), 1, "r/scale.json: settled: 'sd_seed': -0.2 is not"},
    {"silent", ST(SW("\"t_weighed_s\":0")), 1, "r/scale.json: settled: 't_weighed_s': 0 is not"},
    {"silent", ST("{\"by\":\"model and runs\",\"band\":0.1,\"candidates\":[{\"batch\":64,"
                  "\"lr\":0.02}],\"batch\":64,\"lr\":0.05,\"t_pred_s\":1.5,"
                  "\"t_train_median_s\":1.6}"), 1,
     "r/scale.json: field 'settled.lr': 0.05 is the rate of none of 'settled.candidates'"},
#undef SW
#undef SG
#undef ST
    /* the sixteenth campaign. S1: an extrapolated nfit's law carries no standard errors, R^2 or
     * point count: the page said nan */
    {"nan", "mkdir $W/r && " NX "cp $W/nx.json $W/r/nfit.json && $T mbopt scale --nfit $W/nx.json "
            "--gamma 2e-5 --m-t 32 --comm none --procs 1 --json -o $W/r/scale.json && $T mbplot "
            "report $W/r >/dev/null 2>&1 && ! grep -q '>nan<\\|= nan\\|nan points' "
            "$W/r/report.html && grep -q 'R&sup2; not available' $W/r/report.html", 0, NULL},
    /* S8: the recommendation's values beside m_opt, and scale.json's own, are checked as its
     * m_opt is: "T_C = -1 s", "efficiency 7.000" at P = 1 and a regime 'bogus' were shown */
#define RP "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "
#define EDIT(SED) "sed -i '" SED "' $W/r/scale.json && $T mbplot report $W/r; s=$?; test -e " \
                  "$W/r/report.html && exit 99; exit $s"
#define EN(SED) EDIT("/\"enough\":/,/}/" SED)
    {"silent", RP EN("s/\"t_c\":\t[^,]*,/\"t_c\":\t-1,/"), 1,
     "r/scale.json: enough: 't_c': -1 is not a number in (0, "},
    {"silent", RP EN("s/\"efficiency\":\t1,/\"efficiency\":\t7,/"), 1,
     "r/scale.json: field 'enough.efficiency': 7 is not rows[0].efficiency_opt 1, of the same "
     "procs 1"},
    {"silent", RP EN("s/\"regime\":\t\"single\"/\"regime\":\t\"bogus\"/"), 1,
     "r/scale.json: field 'enough.regime': 'bogus' is not single, balance or knee"},
    {"silent", RP EN("s/\"regime\":\t\"single\"/\"regime\":\t\"knee\"/"), 1,
     "r/scale.json: field 'enough.regime': 'knee' is not the regime of its row"},
    {"silent", RP EDIT("s/\"lr\":\tnull/\"lr\":\t-1/"), 1, "r/scale.json: 'lr': -1 is not a "
               "number in (0, "},
    {"silent", RP EDIT("s/\"lr\":\tnull/\"lr\":\t\"x\"/"), 1, "r/scale.json: 'lr' is not a number"},
    {"silent", RP EDIT("s/\"procs_available\":\tnull/\"procs_available\":\t1.5/"), 1,
     "r/scale.json: 'procs_available': 1.5 is not a whole number in [1, "},
    {"silent", RP EDIT("/\"flat\":/,/}/s/\"m_lo\":\t[^,]*,/\"m_lo\":\t100,/"), 1,
     "r/scale.json: fields 'flat.m_lo' and 'flat.m_hi' (100, "},
    {"silent", RP EDIT("s/\"enough_slack\":\t0.1/\"enough_slack\":\t-1/"), 1,
     "r/scale.json: 'enough_slack': -1 is not a number in [0, "},
    {"silent", RP EDIT("s/mbkit-scale\\/1/mbkit-validate\\/1/"), 1,
     "r/scale.json: key 'format': mbkit-validate/1 is a validation file"},
#undef EN
#undef EDIT
#undef RP
    /* campaign 18's F6 (issue #25): validate.json's held-out object is checked before the page
     * draws it ("200% interval", "(0% interval", "M = 64 to 4", a row twice and "2 / 7" runs
     * were printed from edited ones): levels in (0, 1), the flat range whole M in order (or
     * null at both ends), one row a setting, runs within the seeds a setting, intervals in
     * order, the named settings held-out rows'; exit 1 naming the field, and no page */
#define HP "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json && "
#define HV(SED) HP "sed '/\"holdout\":/,$ {" SED "}' tests/fixtures/plots/validate.json > "       \
                   "$W/r/validate.json && $T mbplot report $W/r; s=$?; test -e "                  \
                   "$W/r/report.html && exit 99; exit $s"
#define HI(KV) "s/\"holdout\": {/\"holdout\": {" KV ",/"
#define ERRS "\"median_abs_rel_err_lo\": 0.05, \"median_abs_rel_err_hi\": 0.09"
#define PI(L, H, G) "\"pred_interval_level\": " L ", \"pred_interval_holds\": " H ", "           \
                    "\"pred_interval_graded\": " G
    {"silent", HP "sed '" HI("\"procs\": 1, \"best_procs\": 1, " ERRS ", " PI("0.95", "2", "3"))
               "' tests/fixtures/plots/validate.json > $W/r/validate.json && $T mbplot report "
               "$W/r >/dev/null 2>&1 && grep -q 'M = 24 to 32 measured within 5%' "
               "$W/r/report.html && grep -q '95% interval over resamples' $W/r/report.html", 0,
     NULL},
    {"silent", HV(HI(PI("2", "2", "3"))), 1,
     "r/validate.json: field 'holdout.pred_interval_level': 2 is not a level in (0, 1)"},
    {"silent", HV(HI("\"pred_interval_holds\": 2, \"pred_interval_graded\": 3")), 1,
     "r/validate.json: field 'holdout.pred_interval_level': missing"},
    {"silent", HV(HI(ERRS) ";s/\"level\": 0.95/\"level\": 0/"), 1,
     "r/validate.json: field 'holdout.level': 0 is not a level in (0, 1)"},
    {"silent", HV("s/\"level\": 0.95/\"level\": 1/"), 1,
     "r/validate.json: field 'holdout.level': 1 is not a level in (0, 1)"},
    {"silent", HV(HI(ERRS) ";s/\"level\": 0.95/\"level\": null/"), 1,
     "r/validate.json: field 'holdout.level': null, a number is needed here"},
    {"silent", HV("s/\"flat_lo\": 24/\"flat_lo\": 64/"), 1,
     "r/validate.json: field 'holdout.flat_lo': 64 is above flat_hi, 32"},
    {"silent", HV("s/\"flat_lo\": 24/\"flat_lo\": null/"), 1,
     "r/validate.json: field 'holdout.flat_lo': null, but flat_hi is 32 (both or neither)"},
    {"silent", HV("s/\"flat_hi\": 32/\"flat_hi\": 32.5/"), 1,
     "r/validate.json: field 'holdout.flat_hi': must be a whole number, got 32.5"},
    {"silent", HV("s/\"flat_lo\": 24/\"flat_lo\": 0/"), 1,
     "r/validate.json: field 'holdout.flat_lo': must be > 0, got 0"},
    {"silent", HV("/\"flat_lo\"/d"), 1, "r/validate.json: field 'holdout.flat_lo': missing"},
    {"silent", HV("s/\"flat_hi\": 32/\"flat_hi\": 40/"), 1,
     "r/validate.json: field 'holdout.flat_hi': M 40 is no held-out row's"},
    {"silent", HV("s/^    \"batch\": 24,/    \"batch\": 21,/"), 1,
     "r/validate.json: field 'holdout.rows[1]': the setting of holdout.rows[0] (P 1, M 21, lr "
     "0.0173) given twice"},
    {"silent", HV("s/\"runs\": 10,/\"runs\": 7,/"), 1,
     "r/validate.json: field 'holdout.rows[0].reached': 10 of 7 runs"},
    {"silent", HV("s/\"runs\": 10,/\"runs\": 12,/"), 1,
     "r/validate.json: field 'holdout.rows[0].runs': 12, outside holdout.seeds_min..seeds_max "
     "(10..10)"},
    {"silent", HV("s/\"runs\": 10,/\"runs\": 10.5,/"), 1,
     "r/validate.json: field 'holdout.rows[0].runs': must be a whole number, got 10.5"},
    {"silent", HV("s/\"reached\": 10,/\"reached\": null,/"), 1,
     "r/validate.json: field 'holdout.rows[0].reached': null, a number is needed here"},
    {"silent", HV("s/\"procs\": 1,/\"procs\": 0,/"), 1,
     "r/validate.json: field 'holdout.rows[0].procs': must be > 0, got 0"},
    {"silent", HV("s/\"t_pred_s\": 2.12,/\"t_pred_s\": -2.12,/"), 1,
     "r/validate.json: field 'holdout.rows[0].t_pred_s': must be > 0, got -2.12"},
    {"silent", HV("s/\"t_train_median_s\": 2.66,/\"t_train_median_s\": 1.66,/"), 1,
     "r/validate.json: field 'holdout.rows[0].t_runs_s': median 2.66 s is not the row's "
     "t_train_median_s 1.66 s"},
    {"silent", HV(HI(PI("0.95", "4", "3"))), 1,
     "r/validate.json: field 'holdout.pred_interval_holds': 4 of 3 graded"},
    {"silent", HV(HI(PI("0.95", "1", "5"))), 1,
     "r/validate.json: field 'holdout.pred_interval_graded': 5, but there are 4 held-out rows"},
    {"silent", HV("s/\"ratio_lo\": 1.0,/\"ratio_lo\": 5,/"), 1,
     "r/validate.json: field 'holdout.ratio_lo': 5 is above ratio_hi, 1.15"},
    {"silent", HV("s/\"ratio\": 1.0415,/\"ratio\": 0.5,/"), 1,
     "r/validate.json: field 'holdout.ratio': 0.5 is below 1"},
    {"silent", HV("s/\"rival_ratio_lo\": 0.93,/\"rival_ratio_lo\": 2,/"), 1,
     "r/validate.json: field 'holdout.rival_ratio_lo': 2 is above rival_ratio_hi, 1.15"},
    {"silent", HV(HI("\"median_abs_rel_err_lo\": 0.2, \"median_abs_rel_err_hi\": 0.1")), 1,
     "r/validate.json: field 'holdout.median_abs_rel_err_lo': 0.2 is above "
     "median_abs_rel_err_hi, 0.1"},
    {"silent", HV("s/\"verdict\": \"tied\"/\"verdict\": \"maybe\"/"), 1,
     "r/validate.json: field 'holdout.verdict': not \"ahead\", \"behind\", \"tied\" or \"none\""},
    {"silent", HV("s/\"seeds_min\": 10/\"seeds_min\": 12/"), 1,
     "r/validate.json: field 'holdout.seeds_min': 12 is above seeds_max, 10"},
    {"silent", HV("s/^  \"batch\": 32,/  \"batch\": 64,/"), 1,
     "r/validate.json: field 'holdout.batch': M 64 is no held-out row's"},
    {"silent", HV("s/\"best_batch\": 24,/\"best_batch\": 40,/"), 1,
     "r/validate.json: field 'holdout.best_batch': M 40 is no held-out row's"},
    {"silent", HV("s/\"rival_batch\": 24,/\"rival_batch\": 32,/"), 1,
     "r/validate.json: field 'holdout.rival_batch': M 32 is the recommendation's own"},
    {"silent", HV("s/\"best_t_train_median_s\": 2.41,/\"best_t_train_median_s\": -2.41,/"), 1,
     "r/validate.json: field 'holdout.best_t_train_median_s': must be > 0, got -2.41"},
    /* the learner counts of a check across them: whole, >= 1, a held-out row's */
    {"silent", HV(HI("\"procs\": 0")), 1,
     "r/validate.json: field 'holdout.procs': must be > 0, got 0"},
    {"silent", HV(HI("\"best_procs\": 1.5")), 1,
     "r/validate.json: field 'holdout.best_procs': must be a whole number, got 1.5"},
    {"silent", HV(HI("\"procs\": 2")), 1,
     "r/validate.json: field 'holdout.batch': M 32 at that P is no held-out row's"},
    /* an empty flat range (null at both ends) beside a graded check is said in words */
    {"silent", HP "sed '/\"flat_lo\"/s/24/null/;/\"flat_hi\"/s/32/null/' "
               "tests/fixtures/plots/validate.json > $W/r/validate.json && $T mbplot report "
               "$W/r >/dev/null 2>&1 && grep -q 'no one-learner M measured within 5% of the best' "
               "$W/r/report.html && ! grep -q 'M = nan' $W/r/report.html", 0, NULL},
    /* a check across learner counts: the recommendation a P = 2 row, the flat range one
     * learner's */
    {"silent", HP "sed '" HI("\"procs\": 2, \"best_procs\": 1") ";/\"flat_hi\"/s/32/24/;"
               "/^    \"procs\": 1,/{N;s/1,\\n    \"batch\": 32,/2,\\n    \"batch\": 32,/}' "
               "tests/fixtures/plots/validate.json > $W/r/validate.json && $T mbplot report "
               "$W/r >/dev/null 2>&1 && grep -q 'M = 24 to 24 at one learner measured' "
               "$W/r/report.html", 0, NULL},
    {"silent", HP "sed 's/\"within\": 0.05/\"within\": 2/' tests/fixtures/plots/validate.json > "
               "$W/r/validate.json && $T mbplot report $W/r; s=$?; test -e $W/r/report.html "
               "&& exit 99; exit $s", 1,
     "r/validate.json: field 'flat_pred.within': 2 is not a fraction in (0, 1)"},
    /* the figure reads it with the same reader */
    {"silent", "sed '/\"holdout\":/,$ s/\"level\": 0.95/\"level\": 2/' "
               "tests/fixtures/plots/validate.json > $W/v.json && $T mbplot validate $W/v.json "
               "-o $W/o", 1, "v.json: field 'holdout.level': 2 is not a level in (0, 1)"},
#undef PI
#undef ERRS
#undef HI
#undef HV
#undef HP
    /* campaign 17's M1 and M3: --gpus in digits; a negative count's message states the range
     * (it said ">= 0", though 0 is refused too) */
    {"silent", "$T mbplot amdahl --gpus 1e9 -o $W/o", 1,
     "--gpus: must be a whole number in [2, 9007199254740992], got '1e9'"},
    {"message", "$T mbplot amdahl --gpus -1 -o $W/o", 1,
     "--gpus: must be a whole number in [2, 9007199254740992], got '-1'"},
    /* campaign 16's minors (issue #25): an extrapolated nfit's bootstrap.fitted against its
     * samples, the best law's intervals in order, and its per-M batches whole */
#define NB "$T mbfit nupdate --extrapolate --bootstrap 40 --target-loss 0.4 " LV "/*.csv --json " \
           "-o $W/nb.json > /dev/null && "
    {"silent", NB "sed -i 's/\"fitted\":\t40/\"fitted\":\t39/' $W/nb.json && $T mbplot nupdate "
               "$W/nb.json -o $W/n.png", 1, "field 'bootstrap.fitted': 39, but "
               "'bootstrap.best_samples' holds 40 resamples"},
    {"silent", NB "sed -i '0,/\"m_0\":\t\\[\\([0-9.]*\\), \\([0-9.]*\\)\\]/s//\"m_0\":\t[\\2, "
               "\\1]/' $W/nb.json && $T mbplot nupdate $W/nb.json -o $W/n.png", 1,
     "field 'best.ci95.m_0': not an interval [lo, hi] with lo <= hi"},
    {"silent", NB "sed -i '/^\t\t\"per_m\"/,/\"batch\"/ s/\"batch\":\t\\([0-9]*\\),/\"batch\":\t"
               "\\1.5,/' $W/nb.json && $T mbplot nupdate $W/nb.json -o $W/n.png", 1,
     "field 'extrapolated.per_m[0].batch': 16.5 is not a whole batch size"},
#undef NB
    /* campaign 19 (issue #25). G2: mbplot conv checks every value it draws, as mbplot validate
     * does: one line naming the file and the field, exit 1, nothing drawn */
#define C19_CJ(SED) "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 --algos " \
                    "gemm -o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv " \
                    "--mem 1G --batch 2,4 --json -o $W/cj.json && sed '" SED "' $W/cj.json > "      \
                    "$W/c2.json && ! cmp -s $W/cj.json $W/c2.json && $T mbplot conv $W/c2.json "    \
                    "-o $W/o"
    {"silent", C19_CJ("0,/\"t_update\":\t[^,]*,/s//\"t_update\":\t-1,/"), 1,
     "c2.json: field 'batches[0].t_update': must be > 0, got -1"},
    {"silent", C19_CJ("s/\"batch\":\t4,/\"batch\":\t2.5,/"), 1,
     "c2.json: field 'batches[1].batch': must be a whole number, got 2.5"},
    {"silent", C19_CJ("0,/\"batch\":\t2,/s//\"batch\":\t0,/"), 1,
     "c2.json: field 'batches[0].batch': must be > 0, got 0"},
    {"silent", C19_CJ("0,/\"mem_used\":\t[0-9]*/s//\"mem_used\":\t\"x\"/"), 1,
     "c2.json: field 'batches[0].mem_used': not a finite number"},
    {"silent", C19_CJ("0,/\"mem_used\":\t[0-9]*/s//\"mem_used\":\t-5/"), 1,
     "c2.json: field 'batches[0].mem_used': must be >= 0, got -5"},
    {"silent", C19_CJ("0,/\"feasible\":\ttrue/s//\"feasible\":\t\"yes\"/"), 1,
     "c2.json: field 'batches[0].feasible': not true or false"},
    {"silent", C19_CJ("s/\"batch\":\t4,/\"batch\":\t2,/"), 1,
     "c2.json: field 'batches[1].batch': M = 2 is also batches[0]'s"},
    {"silent", C19_CJ("s/\"device_bytes\":\t[0-9]*/\"device_bytes\":\t-1/"), 1,
     "c2.json: field 'device_bytes': must be > 0, got -1"},
    {"silent", C19_CJ("0,/\"t_update\":/{/\"t_update\":/d}"), 1,
     "c2.json: field 'batches[0].t_update': missing"},
#undef C19_CJ
    /* G3: a validation file of another run than scale.json's is refused naming both: the P = 2
     * check beside a scale that recommends one learner; a P = 1 optimum that is not scale's
     * P = 1 row (SCALE_FLAGS: M_opt 32), which one of M_T 24.6 is */
#define C19_R "mkdir $W/r && $T mbopt scale --n-inf 1200 --alpha 3.5e5 --gamma 2e-5 --delta 0.004 "
#define C19_OPT "sed 's/^ \"recommended\": {/ \"model_optimum\": {\"batch\": 24.6, \"lr\": 0.0173, " \
                "\"procs\": 1},\\n&/' tests/fixtures/plots/validate.json > $W/r/validate.json && "
#define C19_NOPAGE "$T mbplot report $W/r; s=$?; test -e $W/r/report.html && exit 99; exit $s"
    {"silent", C19_R "--m-t 32 --procs 1:4 --json -o $W/r/scale.json && cp "
               "tests/fixtures/plots/validate-rec.json $W/r/ && " C19_NOPAGE, 1,
     "r/validate-rec.json: field 'model_optimum.procs': the check is of P = 2, M = 19.28, but "},
    {"silent", C19_R "--m-t 32 --procs 1:4 --json -o $W/r/scale.json && " C19_OPT C19_NOPAGE, 1,
     "r/validate.json: field 'model_optimum.batch': the P = 1 optimum checked is M = 24.6, but "},
    {"silent", C19_R "--m-t 24.6 --procs 1:4 --json -o $W/r/scale.json && " C19_OPT "$T mbplot "
               "report $W/r > /dev/null 2>&1 && test -s $W/r/report.html", 0, NULL},
#undef C19_NOPAGE
#undef C19_OPT
#undef C19_R
    /* campaign 20's minor: an empty or unknown choice.algo was drawn (as a change of choice);
     * the names are net/conv.c's, the CPU's, where the file's backend is cpu (mbopt conv
     * writes the table's) or not given; another backend's names live with it */
#define C20_CJ(SED) "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 --algos " \
                    "gemm -o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv " \
                    "--mem 1G --batch 2,4 --json -o $W/cj.json && sed '" SED "' $W/cj.json > "      \
                    "$W/c2.json && ! cmp -s $W/cj.json $W/c2.json && $T mbplot conv $W/c2.json "    \
                    "-o $W/o"
    {"silent", C20_CJ("0,/\"algo\":\t\"gemm\"/s//\"algo\":\t\"\"/"), 1,
     "c2.json: field 'batches[0].choice[0].algo': empty, a name is needed here"},
    {"silent", C20_CJ("s/\"algo\":\t\"gemm\"/\"algo\":\t\"bogus\"/"), 1,
     "c2.json: field 'batches[0].choice[0].algo': 'bogus' is not a CPU convolution algorithm "
     "(gemm, direct, fft, winograd)"},
    {"silent", C20_CJ("/\"backend\":/d; s/\"algo\":\t\"gemm\"/\"algo\":\t\"GEMM\"/"), 1,
     "c2.json: field 'batches[0].choice[0].algo': 'GEMM' is not a convolution algorithm of the "
     "CPU, the backend of a file that names none (gemm, direct, fft, winograd)"},
    {"silent", C20_CJ("s/\"backend\":\t\"cpu\"/\"backend\":\t7/"), 1,
     "c2.json: field 'backend': not a string or null"},
    {"silent", C20_CJ("s/\"algo\":\t\"gemm\"/\"algo\":\t\"direct\"/") " && test -s $W/o",
     0, NULL},
    {"silent", C20_CJ("s/\"backend\":\t\"cpu\"/\"backend\":\t\"cuda\"/; "
                      "s/\"algo\":\t\"gemm\"/\"algo\":\t\"implicit_gemm\"/") " && test -s $W/o",
     0, NULL},
#undef C20_CJ
    /* campaign 21 (issue #25). N2: every command refuses a bad MBKIT_MPI_START_WAIT */
    {"silent", "MBKIT_MPI_START_WAIT=abc $T mbplot amdahl -o $W/o", 2,
     "MBKIT_MPI_START_WAIT='abc': must be a number of seconds from 1 to 3600"},
    /* campaign 21's N7: the report drew inputs of another run than scale.json's (an nfit of
     * another target or law, a tfit of another table, a cfit beside `comm none`, a step table,
     * runs or conv.json of another net, runs of another rate or algorithm): one line naming
     * both files and the field, no page */
#define C21_R "mkdir -p $W/r/runs && cp $E/fit_runs/*.csv $W/r/runs/ && cp $E/step.csv $W/r/ && " \
              "$T mbfit nupdate --target-loss 0.5 $E/fit_runs/*.csv --json -o $W/r/nfit.json "     \
              "2>/dev/null && $T mbfit tupdate $E/step.csv --json -o $W/r/tfit.json 2>/dev/null " \
              "&& $T mbopt scale --nfit $W/r/nfit.json --tfit $W/r/tfit.json --comm none --procs " \
              "1 --json -o $W/r/scale.json && "
#define C21_NOPAGE " && $T mbplot report $W/r; s=$?; test -e $W/r/report.html && exit 99; exit $s"
    {"silent", C21_R "$T mbplot report $W/r >/dev/null 2>&1 && test -s $W/r/report.html", 0,
     NULL},
    {"silent", C21_R NX "cp $W/nx.json $W/r/nfit.json" C21_NOPAGE, 1,
     "r/nfit.json: field 'target_loss': 0.4, but "},
    {"silent", C21_R "$T mbfit nupdate --target-loss 0.5 --weights none $E/fit_runs/*.csv "
               "--json -o $W/r/nfit.json 2>/dev/null" C21_NOPAGE, 1, "r/nfit.json: field '"},
    {"silent", C21_R "$T mbfit tupdate --weights none $E/step.csv --json -o $W/r/tfit.json "
               "2>/dev/null" C21_NOPAGE, 1, "r/tfit.json: field 'params.gamma': "},
    {"silent", C21_R "$T mbfit comm $E/comm.csv --json -o $W/r/cfit.json 2>/dev/null" C21_NOPAGE,
     1, "r/cfit.json: a collective fit, but "},
    {"silent", C21_R "cp $E/comm.csv $W/r/" C21_NOPAGE, 1, "r/comm.csv: a collective table, but "},
    {"silent", C21_R "sed -i 's/^cpu,lenet5,/cpu,alexnet,/' $W/r/step.csv" C21_NOPAGE, 1,
     "r/step.csv's is 'alexnet': the report's inputs are of different nets"},
    {"silent", C21_R "sed -i 's/^# lr=0.05$/# lr=0.1/' $W/r/runs/run_M16_s0.csv" C21_NOPAGE, 1,
     "r/runs/run_M16_s0.csv:8: field 'lr': 0.1, but "},
    {"silent", C21_R "sed -i 's/^# algo=sgd$/# algo=momentum/' $W/r/runs/run_M16_s0.csv"
               C21_NOPAGE, 1, "r/runs/run_M16_s0.csv:5: field 'algo': momentum, but "},
    {"silent", C21_R "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 --algos "
               "gemm -o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv "
               "--mem 1G --batch 2 --json -o $W/r/conv.json" C21_NOPAGE, 1,
     "r/conv.json: net 'tiny', but "},
    /* N8: a validate.json model value that is not a number, or a model that is no object,
     * skipped the check of scale's run */
#define C21_V(SED) C21_R "$T mbopt validate --nfit $W/r/nfit.json --tfit $W/r/tfit.json "       \
                   "$E/fit_runs --json -o $W/v.json && sed '" SED "' $W/v.json > "               \
                   "$W/r/validate.json && ! cmp -s $W/v.json $W/r/validate.json" C21_NOPAGE
    {"silent", C21_V("/\"model\":\t{/,/}/ s/\"alpha\":\t\\([^,]*\\),/\"alpha\":\t\"\\1\",/"), 1,
     "r/validate.json: field 'model.alpha': not a number (or null)"},
    {"silent", C21_V("/\"model\":\t{/,/}/ s/\"m_t\":\t\\([^,]*\\),/\"m_t\":\ttrue,/"), 1,
     "r/validate.json: field 'model.m_t': not a number (or null)"},
    {"silent", C21_V("s/\"model\":\t{/\"model\":\t\"x\", \"model_was\":\t{/"), 1,
     "r/validate.json: field 'model': not an object"},
    {"silent", C21_V("s/\"target_loss\":\t0.5,/\"target_loss\":\t0.45,/"), 1,
     "r/validate.json: field 'target_loss': 0.45, but "},
#undef C21_V
#undef C21_NOPAGE
#undef C21_R
    /* N9: mbplot step --tfit and comm --cfit drew a fit of another table over the one given */
    {"silent", "$T mbprobe step --net " NET " --batch 2:32 --threads 1 --rounds 1 --budget 0.02 "
               "-o $W/s.csv >/dev/null && $T mbfit tupdate $E/step.csv --json -o $W/t.json "
               "2>/dev/null && $T mbplot step $W/s.csv --tfit $W/t.json -o $W/o", 1,
     "t.json: field 'by_learners[0].points[0]': M/P = 1 timed 0.00162839 s at 1 learner is no "
     "row of "},
    {"silent", "$T mbfit tupdate $E/step.csv --json -o $W/t.json 2>/dev/null && $T mbplot step "
               "$E/step.csv --tfit $W/t.json -o $W/p.png && test -s $W/p.png", 0, NULL},
    {"silent", "sed 's/^allreduce,2,4,20,9.71104e-06,/allreduce,2,4,20,1e-05,/' $E/comm.csv > "
               "$W/c.csv && $T mbfit comm $E/comm.csv --json -o $W/cf.json 2>/dev/null && "
               "$T mbplot comm $W/c.csv --cfit $W/cf.json -o $W/o", 1,
     "cf.json: field 'params.latency_s': "},
    {"silent", "$T mbfit comm $E/comm.csv --json -o $W/cf.json 2>/dev/null && $T mbplot comm "
               "$E/comm.csv --cfit $W/cf.json -o $W/p.png && test -s $W/p.png", 0, NULL},
    /* N10: values drawn unchecked: efficiency_opt 5 (and one that is not speedup / procs),
     * model.m_lo above m_hi, a per_m batch of 16.5, conv.json's m_fastest among no batches */
#define C21_SJ "$T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/s.json && sed -i "
    {"silent", C21_SJ "'0,/\"efficiency_opt\":\\s*[0-9.]*,/s//\"efficiency_opt\": 5,/' $W/s.json "
               "&& $T mbplot scale $W/s.json -o $W/o", 1,
     "s.json: rows[0]: 'efficiency_opt': 5 is not a number in (0, 1]"},
    {"silent", C21_SJ "'/\"procs\":\\s*2,/,/}/ s/\"efficiency_opt\":\\s*[0-9.e-]*,/"
               "\"efficiency_opt\": 0.3,/' $W/s.json && $T mbplot scale $W/s.json -o $W/o", 1,
     "s.json: rows[1]: 'efficiency_opt': 0.3 is not speedup_opt / procs"},
#undef C21_SJ
#define C21_NJ "$T mbfit nupdate --target-loss 0.5 " LOGS " --json -o $W/n.json 2>/dev/null && "
    {"silent", C21_NJ "$T mbopt scale --nfit $W/n.json --gamma 2e-5 --m-t 32 --comm none "
               "--procs 1:2 --json -o $W/s.json && sed -i '0,/\"m_lo\":\\s*16,/s//\"m_lo\": "
               "1024,/' $W/s.json && $T mbplot tc $W/s.json -o $W/o", 1,
     "s.json: fields 'model.m_lo' and 'model.m_hi' (1024, 512): not a range of M"},
    {"silent", C21_NJ "sed -i '/\"per_m\":/,/]/ s/\"batch\":\t16,/\"batch\":\t16.5,/' "
               "$W/n.json && $T mbplot nupdate $W/n.json -o $W/o", 1,
     "n.json: per_m[0]: 'batch': 16.5 is not a whole number in [1, "},
#undef C21_NJ
    {"silent", "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv --mem 1G "
               "--batch 2,4 --json -o $W/cj.json && sed 's/\"m_fastest\":\t[0-9]*/\"m_fastest\":"
               "\t999/' $W/cj.json > $W/c2.json && $T mbplot conv $W/c2.json -o $W/o", 1,
     "c2.json: field 'm_fastest': M = 999 is none of 'batches'"},
    /* campaign 22's Q7: a backend mbopt conv never writes had its names drawn unchecked */
    {"silent", "$T mbprobe conv --net " NET " --batch 2,4 --no-cache --budget 0.01 --algos gemm "
               "-o $W/c.csv 2>/dev/null && $T mbopt conv --net " NET " --probe $W/c.csv --mem 1G "
               "--batch 2,4 --json -o $W/cj.json && sed 's/\"backend\":\t\"cpu\"/\"backend\":"
               "\t\"CPU\"/' $W/cj.json > $W/c2.json && ! cmp -s $W/cj.json $W/c2.json && $T "
               "mbplot conv $W/c2.json -o $W/o", 1, "c2.json: field 'backend': 'CPU' is not cpu or "
                                                  "cuda"},
    /* campaign 23 (issue #25). R9: a folder whose conv.csv or conv.json is of net tiny beside
     * nfit.json and tfit.json of lenet5 was drawn as one page: the fits' nets are compared too.
     * R13: a folder refused for a step table its tfit is not of kept the nupdate.png drawn
     * before the refusal: every figure is a draft until the page is whole */
#define C23_R "mkdir $W/r && $T mbfit nupdate --target-loss 0.5 $E/fit_runs/*.csv --json -o "    \
              "$W/r/nfit.json 2>/dev/null && $T mbfit tupdate $E/step.csv --json -o "              \
              "$W/r/tfit.json 2>/dev/null && $T mbopt scale --nfit $W/r/nfit.json --tfit "          \
              "$W/r/tfit.json --comm none --procs 1 --json -o $W/r/scale.json && "
#define C23_CONV "$T mbprobe conv --net " NET " --batch 2 --no-cache --budget 0.01 --algos gemm " \
                 "-o $W/c.csv 2>/dev/null && "
#define C23_NOTHING "; s=$?; ls -A $W/r | grep -q 'report.html\\|png$\\|\\.tmp\\.' && exit 99; exit $s"
    {"silent", C23_R C23_CONV "cp $W/c.csv $W/r/conv.csv && $T mbplot report $W/r" C23_NOTHING, 1,
     "r/nfit.json: net 'lenet5', but "},
    {"silent", C23_R C23_CONV "$T mbopt conv --net " NET " --probe $W/c.csv --mem 1G --batch 2 "
               "--json -o $W/r/conv.json && $T mbplot report $W/r" C23_NOTHING, 1,
     "r/nfit.json: net 'lenet5', but "},
    {"silent", C23_R "awk -F, -v OFS=, '$3 == 8 && $4 == 1 { for (i = 7; i <= 11; i++) $i *= 1.01; "
             "$12 = 8 / $7 } 1' $E/step.csv > $W/r/step.csv && $T mbplot report $W/r" C23_NOTHING,
     1, "r/tfit.json: field 'by_learners[0].points[3]': M/P = 8 timed 0.00164871 s at 1 learner "
        "is no row of "},
    /* the drafts are put in place, links written through, when the page is whole */
    {"symlink", C23_R "cp $E/step.csv $W/r/ && ln -s real.png $W/r/nupdate.png && $T mbplot "
                "report $W/r >/dev/null 2>&1 && test -L $W/r/nupdate.png && test -s $W/r/real.png "
                "&& test -s $W/r/step.png && test -s $W/r/report.html && ! ls -A $W/r | grep -q "
                "'\\.tmp\\.'", 0, NULL},
#undef C23_NOTHING
#undef C23_CONV
#undef C23_R
    /* campaign 24 (issue #25). U2: a figure's place that could not be written (a folder, a link
     * to /dev/full) was refused after the figures before it were put in place, /dev/full's as a
     * bare "write error": every place is checked first, devices are written before the files are
     * renamed in, and the reason is named. U3: a conv.json that could not be drawn (garbage,
     * empty, {}, another command's JSON, a folder) was a note in a page that exited 0, and a
     * conv.csv without conv.json was never read: both refused in one line naming the file */
#define C24_R "mkdir $W/r && $T mbfit nupdate --target-loss 0.5 $E/fit_runs/*.csv --json -o "    \
              "$W/r/nfit.json 2>/dev/null && $T mbfit tupdate $E/step.csv --json -o "              \
              "$W/r/tfit.json 2>/dev/null && $T mbopt scale --nfit $W/r/nfit.json --tfit "          \
              "$W/r/tfit.json --comm none --procs 1 --json -o $W/r/scale.json && "
#define C24_NOTHING "; s=$?; find $W/r -maxdepth 1 -type f \\( -name '*.png' -o -name "         \
                    "report.html -o -name '*.tmp.*' \\) | grep -q . && exit 99; exit $s"
    {"io", C24_R "cp $E/step.csv $W/r/ && mkdir $W/r/amdahl.png && $T mbplot report $W/r"
             C24_NOTHING, 1, "r/amdahl.png: cannot write: Is a directory"},
    {"io", C24_R "cp $E/step.csv $W/r/ && ln -s /dev/full $W/r/amdahl.png && $T mbplot report "
             "$W/r" C24_NOTHING, 1, "r/amdahl.png: write error: No space left on device"},
    {"silent", C24_R "printf garbage > $W/r/conv.json && $T mbplot report $W/r" C24_NOTHING, 1,
     "r/conv.json: not valid JSON (at byte 0)"},
    {"silent", C24_R ": > $W/r/conv.json && $T mbplot report $W/r" C24_NOTHING, 1,
     "r/conv.json: not valid JSON"},
    {"silent", C24_R "printf '{}' > $W/r/conv.json && $T mbplot report $W/r" C24_NOTHING, 1,
     "r/conv.json: no 'batches' array"},
    {"silent", C24_R "cp $W/r/scale.json $W/r/conv.json && $T mbplot report $W/r" C24_NOTHING,
     1, "r/conv.json: no 'batches' array"},
    {"silent", C24_R "mkdir $W/r/conv.json && $T mbplot report $W/r" C24_NOTHING, 1,
     "r/conv.json: cannot read: Is a directory"},
    {"silent", C24_R "printf garbage > $W/r/conv.csv && $T mbplot report $W/r" C24_NOTHING, 1,
     "r/conv.csv: no column 'layer' in the header"},
#undef C24_NOTHING
#undef C24_R
    /* campaign 25 (issue #25). V3: a figure linked onto another figure (one image for two), two
     * links onto one file through different spellings, the page linked onto a figure (the
     * figure then held the page), a figure hard-linked to another: refused before any work,
     * naming both. V4: the page a link onto /dev/full failed after the figures were put in
     * place: the page is written before any figure is placed, a device's page whole */
#define C25_R "mkdir $W/r && $T mbopt scale " SCALE_FLAGS "--procs 1:4 --json -o $W/r/scale.json " \
              "&& cp $E/step.csv $W/r/ && "
#define C25_NOTHING "; s=$?; find $W $W/r -maxdepth 1 \\( -name '*.png' -o -name report.html -o " \
                    "-name '*.tmp.*' \\) -type f | grep -q . && exit 99; exit $s"
    {"symlink", C25_R "ln -s step.png $W/r/tc.png && $T mbplot report $W/r" C25_NOTHING, 1,
     "r/tc.png would overwrite the output "},
    {"symlink", C25_R "ln -s tc.png $W/r/step.png && $T mbplot report $W/r" C25_NOTHING, 1,
     "r/tc.png would overwrite the output "},
    {"symlink", C25_R "mkdir $W/s && ln -s ../s/a.png $W/r/tc.png && ln -s ../s/./a.png "
                "$W/r/scale.png && $T mbplot report $W/r; s=$?; test -e $W/s/a.png && exit 98; "
                "exit $s", 1, "r/scale.png would overwrite the output "},
    {"symlink", C25_R "echo x > $W/r/scale.png && ln -s scale.png $W/r/report.html && $T mbplot "
                "report $W/r; s=$?; test \"$(cat $W/r/scale.png)\" = x || exit 99; exit $s", 1,
     "r/report.html would overwrite the output "},
    {"silent", C25_R "echo x > $W/r/amdahl.png && ln $W/r/amdahl.png $W/r/tc.png && $T mbplot "
               "report $W/r; s=$?; test \"$(cat $W/r/tc.png)\" = x || exit 99; exit $s", 1,
     "r/amdahl.png would overwrite the output "},
    {"io", C25_R "ln -s /dev/full $W/r/report.html && $T mbplot report $W/r" C25_NOTHING, 1,
     "r/report.html: write error: No space left on device"},
    {"io", C25_R "ln -s /dev/null $W/r/report.html && $T mbplot report $W/r >/dev/null 2>&1 && "
           "test -L $W/r/report.html && test -s $W/r/step.png && test -s $W/r/amdahl.png", 0,
     NULL},
    /* campaign 27. X1: an output FIFO whose reader leaves early killed the command (SIGPIPE,
     * exit 141) and left its temporaries: a write error, exit 1, nothing left. X13: a link from
     * a figure the report does not draw (no input for it) was refused as an output. X14: a
     * /dev/tty without a terminal was read as a FIFO without reader, after 5 s */
    {"crash", C25_R "mkfifo $W/r/report.html && (head -c 100 $W/r/report.html >/dev/null &) && "
              "$T mbplot report $W/r" C25_NOTHING, 1, "r/report.html: write error: Broken pipe"},
    {"crash", C25_R "mkfifo $W/f && (head -c 100 $W/f >/dev/null &) && $T mbplot scale "
              "$W/r/scale.json --size 3000x3000 -o $W/f; s=$?; ls $W | grep -q tmp && exit 99; "
              "exit $s", 1, "f: write error: Broken pipe"},
    {"symlink", C25_R "ln -s scale.png $W/r/nupdate.png && $T mbplot report $W/r >/dev/null "
                "2>&1 && test -L $W/r/nupdate.png && test -s $W/r/scale.png", 0, NULL},
    {"symlink", C25_R "ln -s step.png $W/r/conv.png && $T mbplot report $W/r >/dev/null 2>&1 "
                "&& test -L $W/r/conv.png && test -s $W/r/step.png", 0, NULL},
    {"message", C25_R "ln -s /dev/tty $W/r/report.html && MBKIT_FIFO_WAIT=30 setsid -w $T mbplot "
                "report $W/r" C25_NOTHING, 1, "r/report.html: cannot write: No such device or "
     "address"},
#undef C25_NOTHING
#undef C25_R
};

/* ---- fixtures ------------------------------------------------------------------------------ */

static void put(const char *name, const char *text)
{
    char path[512];
    mb_test_write(path, sizeof path, dir, name, text);
}

/* An IDX pair under dir/name: n images of side x side, whose image file is gzip with `extra`
 * zero bytes after what the header promises (a small file that decompresses to much more). */
static int idx_set(const char *name, uint32_t n, uint32_t side, size_t extra, uint32_t claim)
{
    char d[512], p[600];
    snprintf(d, sizeof d, "%s/%s", dir, name);
    if (mkdir(d, 0777) != 0)
        return -1;
    static const char *const img[] = {"train-images-idx3-ubyte.gz", "t10k-images-idx3-ubyte.gz"};
    static const char *const lab[] = {"train-labels-idx1-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
    static unsigned char zero[1 << 16];
    for (int k = 0; k < 2; k++) {
        snprintf(p, sizeof p, "%s/%s", d, img[k]);
        gzFile g = gzopen(p, "wb9");
        if (!g)
            return -1;
        uint32_t h[4] = {0x803, claim ? claim : n, side, side};
        unsigned char hb[16];
        for (int i = 0; i < 4; i++)
            for (int b = 0; b < 4; b++)
                hb[4 * i + b] = (unsigned char)(h[i] >> (24 - 8 * b));
        gzwrite(g, hb, 16);
        for (size_t left = (size_t)n * side * side + extra; left > 0;) {
            unsigned k2 = left > sizeof zero ? (unsigned)sizeof zero : (unsigned)left;
            gzwrite(g, zero, k2);
            left -= k2;
        }
        gzclose(g);
        snprintf(p, sizeof p, "%s/%s", d, lab[k]);
        g = gzopen(p, "wb");
        if (!g)
            return -1;
        unsigned char lh[8] = {0, 0, 8, 1, (unsigned char)(n >> 24), (unsigned char)(n >> 16),
                               (unsigned char)(n >> 8), (unsigned char)n};
        gzwrite(g, lh, 8);
        for (uint32_t i = 0; i < n; i++)
            gzputc(g, (int)(i % 4));
        gzclose(g);
    }
    return 0;
}

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    put("tiny.cfg", "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                    "[conv]\nfilters=2\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n"
                    "[fc]\noutputs=4\n[softmax]\n");
    /* a layer of 5 x 10^14 flops a call (and a 0.5 TB column buffer at M = 1) */
    put("tiny10.cfg", "[net]\nname=tiny\nchannels=1\nheight=8\nwidth=8\n"
                      "[conv]\nfilters=2\nsize=3\nactivation=relu\n[maxpool]\nsize=2\n"
                      "[fc]\noutputs=10\n[softmax]\n"); /* an IDX set's 10 classes */
    put("huge.cfg", "[net]\nname=huge\nchannels=512\nheight=1024\nwidth=1024\n"
                    "[conv]\nfilters=512\nsize=31\n[fc]\noutputs=4\n[softmax]\n");
    put("wide.cfg", "[net]\nname=wide\nchannels=1000000\nheight=1000\nwidth=1000\n"
                    "[conv]\nfilters=4\nsize=1000\n[fc]\noutputs=4\n[softmax]\n");
    put("fc.cfg", "[net]\nname=fc\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n[softmax]\n");
    put("nosoftmax.cfg", "[net]\nname=n\nchannels=1\nheight=8\nwidth=8\n[fc]\noutputs=4\n");
    put("dupkey.cfg", "[net]\nname=d\nchannels=1\nheight=8\nheight=8\nwidth=8\n[fc]\noutputs=4\n"
                      "[softmax]\n");
    put("badint.cfg", "[net]\nname=b\nchannels=1\nheight=8\nwidth=8\n[conv]\nfilters=2.5\n"
                      "size=3\n[fc]\noutputs=4\n[softmax]\n");
    put("badcache.csv", "key,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\nk,-3,1,1,1,1,1\n");
    put("notackpt.bin", "MBCKPT3 but not really\n");
    static const char step_head[] =
        "backend,net,batch,learners,threads,reps,t_median_s,t_min_s,t_p25_s,t_p75_s,t_max_s\n"
        "cpu,t,1,1,1,5,0.001,0.001,0.001,0.001,0.001\ncpu,t,2,1,1,5,0.001,0.001,0.001,0.001,"
        "0.001\n";
    char buf[1024];
    snprintf(buf, sizeof buf, "%scpu,t,8.5,1,1,5,0.002,0.002,0.002,0.002,0.002\n", step_head);
    put("step_half.csv", buf);
    snprintf(buf, sizeof buf, "%scpu,t,9223372036854775808,1,1,5,0.002,0.002,0.002,0.002,0.002\n",
             step_head);
    put("step_huge.csv", buf);
    snprintf(buf, sizeof buf, "%scpu,t,8,1.5,1,5,0.002,0.002,0.002,0.002,0.002\n", step_head);
    put("step_p.csv", buf);
    snprintf(buf, sizeof buf, "\xEF\xBB\xBF# net=t\n%scpu,t,64,1,1,5,0.002,0.002,0.002,0.002,"
             "0.002\ncpu,t,128,1,1,5,0.004,0.004,0.004,0.004,0.004\n", step_head);
    put("step_bom.csv", buf);
    snprintf(buf, sizeof buf, "%scpu,t,4,1,1,5,1e308,1,1,1,1\ncpu,t,8,1,1,5,1.7e308,1,1,1,1\n",
             step_head);
    put("step_slow.csv", buf); /* times whose squares overflow: "fitted" to zeros before */
    put("comm_slow.csv", "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                         "allreduce,2,4,5,1e308,1,1\nallreduce,2,8,5,1.7e308,1,1\n");
    put("comm_p.csv", "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                      "allreduce,2.5,4,5,1e-5,1e-5,1e-5\n");
    put("comm_b.csv", "op,procs,bytes,reps,t_median_s,t_min_s,t_max_s\n"
                      "allreduce,2,4.25,5,1e-5,1e-5,1e-5\n");
    put("points_half.csv", "batch,n_update\n8.5,100\n16,80\n32,70\n");
    put("points_exact.csv", "batch,n_update\n8,2800\n16,1550\n32,925\n64,612.5\n");
    static const char log_meta[] = "# net=lenet5\n# algo=sgd\n# lr=0.05\n# seed=9\n";
    static const char log_rows[] = "update,epoch,samples,wall_s,loss,eval_loss,eval_acc\n"
                                   "0,0,0,0,2.3,2.3,0.1\n10,0,80,0.01,0.4,0.4,0.9\n";
    snprintf(buf, sizeof buf, "%s# batch=8.5\n%s", log_meta, log_rows);
    put("log_half.csv", buf);
    snprintf(buf, sizeof buf, "%s# batch=8\n# learners=1.5\n%s", log_meta, log_rows);
    put("log_lrn.csv", buf);
    snprintf(buf, sizeof buf, "%s# batch=8\nupdate,epoch,samples,wall_s,loss,eval_loss,eval_acc\n"
             "0,0,0,0,2.3,2.3,0.1\n10.5,0,80,0.01,0.4,0.4,0.9\n", log_meta);
    put("log_upd.csv", buf);
    snprintf(buf, sizeof buf, "%s# batch=8\n# batch=16\n%s", log_meta, log_rows);
    put("log_dup.csv", buf);
    put("dup.json", "{\"model\": \"inverse-law\", \"params\": {\"n_inf\": 300, \"n_inf\": 3000, "
                    "\"alpha\": 20000}, \"rows\": [], \"per_m\": []}\n");
    put("unknown_model.json", "{\"model\": \"mystery-law\", \"best\": \"mystery-law\", "
                              "\"params\": {\"n_inf\": 300, \"alpha\": 20000}}\n");
    put("notjson.json", "{\"model\": \n");
    /* a gzip bomb under a small header: 4 images of 8x8 promised, 64 MiB of zeros given */
    if (idx_set("bomb", 4, 8, (size_t)64 << 20, 0) != 0 ||
        idx_set("bigheader", 4, 8, 0, 0x7fffffffu) != 0 || idx_set("small", 16, 8, 0, 0) != 0)
        return 1;
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* ---- the runner ---------------------------------------------------------------------------- */

/* Whether W (case i's dir/cI/w) still holds o = "sentinel" and nothing named o.tmp.* lies
 * beside it. */
static int untouched(size_t i)
{
    char path[512], got[16] = "";
    snprintf(path, sizeof path, "%s/c%zu/w/o", dir, i);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(got, 1, sizeof got - 1, f);
    fclose(f);
    got[n] = '\0';
    if (strcmp(got, "sentinel") != 0)
        return 0;
    snprintf(path, sizeof path, "%s/c%zu/w", dir, i);
    DIR *d = opendir(path);
    int clean = d != NULL;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "o.tmp.", 6) == 0)
            clean = 0;
    if (d)
        closedir(d);
    return clean;
}

/* Runs a table's cases mb_test_jobs() at a time, each in its own W, then asserts each in table
 * order. The cases under mpirun run beside as many others: most of their time is mpirun ending
 * the ranks (Open MPI waits a second before each signal when a rank failed), not computing. */
static void run_cases(const char *prog, const hcase *c, size_t n)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char **cmds = calloc(n, sizeof *cmds);
    int *waits = calloc(n, sizeof *waits);
    mb_test_run *r = calloc(n, sizeof *r);
    CU_ASSERT_FATAL(cmds && waits && r);
    for (size_t i = 0; i < n; i++)
        waits[i] = strstr(c[i].cmd, "mpirun") != NULL;
    for (size_t i = 0; i < n; i++) {
        static const char fmt[] =
            "D='%s'; W=\"$D/c%zu/w\"; E=data/examples; T='timeout -k 1 10'; "
            "mkdir -p \"$W\" && printf sentinel > \"$W/o\" || exit 99; %s";
        size_t len = (size_t)snprintf(NULL, 0, fmt, dir, i, c[i].cmd) + 1;
        if ((cmds[i] = malloc(len)) == NULL)
            break;
        snprintf(cmds[i], len, fmt, dir, i, c[i].cmd);
    }
    CU_ASSERT_FATAL(cmds[n - 1] != NULL);
    CU_ASSERT_EQUAL(mb_test_sh_pool(r, (const char *const *)cmds, n, waits, mb_test_jobs()), 0);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        int ok = r[i].status == c[i].status;
        if (ok && c[i].status != 0) {
            ok = r[i].out[0] == '\0' &&
                 mb_test_lines(r[i].err) == (c[i].status == 2 ? 2u : 1u) &&
                 strstr(r[i].err, c[i].needle) != NULL && untouched(i);
        }
        CU_ASSERT_TRUE(ok);
        if (!ok) {
            bad++;
            printf("\n    [%s %s] %s\n    -> %d (want %d%s%s): %s%s", prog, c[i].cat, c[i].cmd,
                   r[i].status, c[i].status, c[i].needle ? ", " : "",
                   c[i].needle ? c[i].needle : "", r[i].err,
                   untouched(i) ? "" : " (output touched)");
        }
        char w[300];
        snprintf(w, sizeof w, "%s/c%zu", dir, i);
        mb_test_rmdir(w);
        mb_test_run_free(&r[i]);
        free(cmds[i]);
    }
    free(cmds);
    free(waits);
    free(r);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("\n    %s: %zu hostile cases, %zu failed, %.1f s", prog, n, bad,
           (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
}

#define RUN(prog, table) run_cases(prog, table, sizeof table / sizeof table[0])

static void test_probe(void) { RUN("mbprobe", probe_cases); }
static void test_train(void) { RUN("mbtrain", train_cases); }
static void test_fit(void) { RUN("mbfit", fit_cases); }
static void test_opt(void) { RUN("mbopt", opt_cases); }
static void test_plot(void) { RUN("mbplot", plot_cases); }

int mb_test_suite_hostile(void)
{
    CU_pSuite s = CU_add_suite("hostile", setup, teardown);
    return !s || !CU_add_test(s, "mbprobe: hostile inputs", test_probe) ||
           !CU_add_test(s, "mbtrain: hostile inputs", test_train) ||
           !CU_add_test(s, "mbfit: hostile inputs", test_fit) ||
           !CU_add_test(s, "mbopt: hostile inputs", test_opt) ||
           !CU_add_test(s, "mbplot: hostile inputs", test_plot);
}
