/* hostile.h — what the hostile suite's tables share (tests/hostile/NAME.inc, run by
 * tests/test_hostile.c): one case, and the shell fragments many cases start from (a tiny
 * network and data set, the commands with their usual flags, fit files made on the spot).
 */
#ifndef MB_TEST_HOSTILE_H
#define MB_TEST_HOSTILE_H

/* One case: a shell command run from the source tree with D (the suite's scratch folder), W
 * (a fresh folder per case, holding W/o = "sentinel"), E (data/examples) and T (timeout -k 1 10)
 * set. Expected: `status`; for a failure, `needle` in the one line on standard error. */
typedef struct hcase {
    const char *cat; /* category, for the counts */
    const char *cmd;
    int status;
    const char *needle;
} hcase;

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

/* CMD run with the file PLACE (under $W, there before) a mount point: $W/b (holding "old")
 * bind-mounted onto it, in a private mount namespace that ends with CMD (no mount is left
 * behind; skipped with one line where none can be made: root with CAP_SYS_ADMIN). CMD is
 * read by the inner sh in single quotes (D, W, E and T exported to it). Leaves CMD's status in
 * s: 95 when PLACE changed, 96 when the mounted file was written (campaign 32's P6). */
#define BIND_SKIP "{ echo 'skip: no bind mount here (unshare -m and mount --bind need "           \
                  "CAP_SYS_ADMIN)' >&2; exit 77; }"
#define BIND(PLACE, CMD) "printf old > $W/b && cp " PLACE " $W/was && { unshare -m true "          \
    "2>/dev/null || " BIND_SKIP "; } && D=$D W=$W E=$E T=\"$T\" unshare -m sh -c 'mount "         \
    "--bind $W/b " PLACE " 2>/dev/null || exit 77; " CMD "'; s=$?; [ $s = 77 ] && " BIND_SKIP "; " \
    "cmp -s $W/was " PLACE " || s=95; [ \"$(cat $W/b)\" = old ] || s=96; "

/* CMD run under `ulimit -f N` (RLIMIT_FSIZE, in KiB): a write past it fails with EFBIG, said as
 * any write error, where SIGXFSZ would end the command unsaid (campaign 33's D1); the command's
 * standard error goes through a pipe (no limit there), and a temporary left under $W is exit 99.
 * FSIZE_LAST keeps the command's last line only (one that prints its progress first). */
#define FSIZE_(N, CMD, KEEP) "{ (ulimit -f " N "; exec " CMD "); echo $? > $W/s; } 2>&1 | " KEEP \
                             " >&2; s=$(cat $W/s); ls -A $W | grep -q '[.]tmp[.]' && s=99; exit $s"
#define FSIZE(N, CMD) FSIZE_(N, CMD, "cat")
#define FSIZE_LAST(N, CMD) FSIZE_(N, CMD, "tail -n 1")

/* CMD (a command of the suite, its arguments after it) run under the soft memory limit KB KiB
 * (ulimit -S -v) with OpenBLAS left its thread per core (make check sets OPENBLAS_NUM_THREADS=1),
 * under the case's timeout, its output in $W/h; skipped in a sanitizer build, whose shadow
 * memory no such limit leaves room for (campaign 33's Q2: the threads' buffers, not to be had,
 * hung the command at exit) */
#define ULIMIT_V(KB, CMD) "grep -q __asan_init \"$(command -v mbopt)\" && { echo 'skip: a "      \
    "sanitizer build cannot run under ulimit -v' >&2; exit 77; }; (ulimit -S -v " KB " && exec " \
    "env -u OPENBLAS_NUM_THREADS $T " CMD ") > $W/h"

#endif /* MB_TEST_HOSTILE_H */
