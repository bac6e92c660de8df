/* test_frontend_torch.c — the PyTorch front end (frontends/torch/mbkit_torch.py) against mbkit's
 * own readers: its step table passes `mbfit tupdate`, its run logs pass `mbfit nupdate`,
 * `mbfit tupdate` (calibration) and `mbopt validate`; its probe of P = 2 learners through
 * torch.distributed (gloo) is fitted per learner count; its exact first crossing (snapshots and
 * bisection) equals the crossing found by evaluating after every update of the same run; bad
 * input is one line and a non-zero exit, with nothing written.
 *
 * The Python is mb_test_python() (Debian's python3-torch, which make check installs): without
 * torch the suite holds one test, which fails naming it.
 *
 * The model is a tiny MLP on a generated, learnable set (written into a scratch folder), so a
 * run takes well under a second; each command pays Python's and torch's start-up (~1-2 s).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mb_test.h"

#define FE "frontends/torch/mbkit_torch.py"

static char py[512];  /* the Python under test */
static char dir[256]; /* the scratch folder, with tiny.py in it */

/* A learnable 10-class set of 2,000 samples in 20 dimensions (fixed generator: the same data
 * in every process) and a 20-32-10 MLP. */
static const char TINY[] =
    "import torch\n"
    "NAME = 'tiny'\n"
    "DATA = 'generated'\n"
    "def dataset():\n"
    "    g = torch.Generator().manual_seed(7)\n"
    "    means = torch.randn(10, 20, generator=g)\n"
    "    y = torch.randint(0, 10, (2000,), generator=g)\n"
    "    x = means[y] + 1.5 * torch.randn(2000, 20, generator=g)\n"
    "    return x, y\n"
    "def model():\n"
    "    return torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(),\n"
    "                               torch.nn.Linear(32, 10))\n";

static int suite_init(void)
{
    snprintf(py, sizeof py, "%s", mb_test_python());
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    char path[512];
    mb_test_write(path, sizeof path, dir, "tiny.py", TINY);
    return 0;
}

static int suite_clean(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* The value of `key=` (a whole number) in text, or -2 when absent. */
static long key_long(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s=", key);
    const char *p = text ? strstr(text, pat) : NULL;
    return p ? strtol(p + strlen(pat), NULL, 10) : -2;
}

/* The probe's step table is read by mbfit tupdate, and names the front end and the device. */
static void test_probe_table(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "%s " FE " probe --model %s/tiny.py --batch 4:32 --threads 1 "
                      "--budget 0.2 --rounds 2 -o %s/step.csv", py, dir, dir)) {
        mb_test_run_free(&r);
        if (mb_test_sh_ok(&r, "mbfit tupdate %s/step.csv && grep -c '^cpu,tiny,' %s/step.csv "
                          "&& grep -x '# frontend=torch' %s/step.csv && grep -x '# format=mbkit-step/1' "
                          "%s/step.csv && grep -q '^# device=' %s/step.csv", dir, dir, dir, dir,
                          dir))
            CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\n4\n")); /* M = 4, 8, 16, 32 */
    }
    mb_test_run_free(&r);
}

/* P = 1 and 2 learners through torch.distributed (gloo): the step table holds both learner
 * counts and mbfit tupdate fits each; an M that P does not divide is refused before timing. */
static void test_probe_procs(void)
{
    mb_test_run r;
    if (mb_test_sh_ok(&r, "%s " FE " probe --model %s/tiny.py --batch 8:32 --procs 1,2 "
                      "--threads 2 --budget 0.2 --rounds 2 -o %s/step2.csv", py, dir, dir)) {
        mb_test_run_free(&r);
        if (mb_test_sh_ok(&r, "grep -c '^cpu,tiny,[0-9]*,2,2,' %s/step2.csv && grep -x "
                          "'# dist_backend=gloo' %s/step2.csv && mbfit tupdate %s/step2.csv "
                          "--json | tr -d ' \\t' | grep -c '^\"learners\":2,'", dir, dir, dir))
            CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "3\n# dist_backend=gloo\n1\n"));
    }
    mb_test_run_free(&r);
    char prog[700], args[1024];
    snprintf(prog, sizeof prog, "%s " FE " probe", py);
    snprintf(args, sizeof args, "--model %s/tiny.py --batch 9 --procs 2 -o %s/bad2.csv", dir,
             dir);
    mb_test_expect_failure(prog, args, 1, "--procs 2: M = 9 is not a multiple of 2");
    /* a loss that fails only in the learner processes: their one line, nothing written */
    char path[512];
    mb_test_write(path, sizeof path, dir, "distbad.py",
                  "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
                  "import torch.distributed as dist\nfrom tiny import dataset, model\n"
                  "NAME = 'distbad'\n"
                  "def loss(out, y):\n    if dist.is_initialized():\n"
                  "        raise RuntimeError('no loss under torch.distributed')\n"
                  "    import torch\n    return torch.nn.functional.cross_entropy(out, y)\n");
    snprintf(args, sizeof args, "--model %s --batch 8 --procs 1,2 --threads 2 --budget 0.1 -o "
             "%s/bad2.csv", path, dir);
    mb_test_expect_failure(prog, args, 1, "RuntimeError: no loss under torch.distributed");
    snprintf(path, sizeof path, "%s/bad2.csv", dir);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(path, &st), 0);
}

/* Short real runs: their logs are read by mbfit nupdate, mbfit tupdate (with the probe's
 * table: the same net) and mbopt validate. */
static void test_runs_logs(void)
{
    mb_test_run r;
    if (!mb_test_sh_ok(&r, "%s " FE " runs --model %s/tiny.py --batch 8,16,32 --seeds 0:1 "
                       "--threads 1 --lr 0.02 --target-loss 0.6 --eval-frac 0.25 "
                       "--log-dir %s/runs", py, dir, dir)) {
        mb_test_run_free(&r);
        return;
    }
    CU_ASSERT_EQUAL(mb_test_lines(r.out), 6u); /* one summary line a run */
    CU_ASSERT_PTR_NULL(strstr(r.out, "reached=no"));
    mb_test_run_free(&r);
    mb_test_sh_ok(&r, "grep -x '# batch=16' %s/runs/tiny-momentum-b16-s1.csv && "
                  "grep -x '# learners=1' %s/runs/tiny-momentum-b16-s1.csv && "
                  "grep -x '# target_loss=0.6' %s/runs/tiny-momentum-b16-s1.csv", dir, dir, dir);
    mb_test_run_free(&r);
    if (mb_test_sh_ok(&r, "mbfit nupdate --target-loss 0.6 %s/runs/*.csv --json -o %s/n.json",
                      dir, dir)) {
        mb_test_run_free(&r);
        /* the step table of test_probe_table when it ran, else a fresh one */
        struct stat st;
        char step[512];
        snprintf(step, sizeof step, "%s/step.csv", dir);
        if (stat(step, &st) != 0) {
            mb_test_sh_ok(&r, "%s " FE " probe --model %s/tiny.py --batch 4:32 --threads 1 "
                          "--budget 0.1 --rounds 1 -o %s", py, dir, step);
            mb_test_run_free(&r);
        }
        mb_test_sh_ok(&r, "mbfit tupdate %s %s/runs/*.csv --json -o %s/t.json", step, dir,
                      dir);
        mb_test_run_free(&r);
        /* validate reads the logs against a T_update given by hand: the tiny model's seconds
         * per update are flat in M and noisy (Python's overhead per update), so a fitted gamma
         * may come out <= 0, which mbopt rightly refuses; what is tested here is the logs */
        char tfit[512];
        mb_test_write(tfit, sizeof tfit, dir, "t-hand.json",
                      "{\"model\": \"update-time\", \"params\": {\"gamma\": 2.5e-6, "
                      "\"m_t\": 16, \"delta\": 3e-4}}\n");
        if (mb_test_sh_ok(&r, "mbopt validate --nfit %s/n.json --tfit %s %s/runs", dir, tfit,
                          dir))
            CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "momentum"));
    }
    mb_test_run_free(&r);
}

/* The exact crossing: evaluating every 25 updates and bisecting over the snapshots finds the
 * same first update at or under the target as evaluating after every update of the same run
 * (the same seed: the same updates; evaluation does not touch the training's state). */
static void test_exact_crossing(void)
{
    mb_test_run a, b;
    const char *run = "%s " FE " runs --model %s/tiny.py --batch 16 --seeds 3 --threads 1 "
                      "--lr 0.02 --target-loss 0.6 --eval-frac 0.25 --eval-every %d "
                      "--log-dir %s/x%d";
    int ok_a = mb_test_sh_ok(&a, run, py, dir, 25, dir, 25);
    int ok_b = mb_test_sh_ok(&b, run, py, dir, 1, dir, 1);
    if (ok_a && ok_b) {
        long ua = key_long(a.out, "reached_update"), ub = key_long(b.out, "reached_update");
        CU_ASSERT_TRUE(ua > 0);
        CU_ASSERT_EQUAL(ua, ub);
        /* fewer looks at the evaluation subset: the point of the bisection */
        CU_ASSERT_TRUE(key_long(a.out, "evals") + key_long(a.out, "checks") <
                       key_long(b.out, "evals") + key_long(b.out, "checks"));
        if (ua != ub || ua <= 0)
            fprintf(stderr, "\n  bisection: %s\n  every update: %s", a.out, b.out);
        /* what mbfit reads from each log: the first row at or under the target */
        mb_test_run f;
        if (mb_test_sh_ok(&f, "for e in 25 1; do awk -F, '!/^#/ && $6 != \"\" && $6 <= 0.6 "
                          "{ print $1; exit }' %s/x$e/tiny-momentum-b16-s3.csv; done", dir)) {
            char want[64];
            snprintf(want, sizeof want, "%ld\n%ld\n", ua, ua);
            CU_ASSERT_STRING_EQUAL(f.out, want);
        }
        mb_test_run_free(&f);
    }
    mb_test_run_free(&a);
    mb_test_run_free(&b);
}

/* Bad input: one line, non-zero exit, nothing written. */
static void test_bad_input(void)
{
    char prog[700], args[1024], path[512];
    snprintf(prog, sizeof prog, "%s " FE " probe", py);
    mb_test_write(path, sizeof path, dir, "noimport.py", "import no_such_module_here\n");
    snprintf(args, sizeof args, "--model %s --batch 4 -o %s/bad.csv", path, dir);
    mb_test_expect_failure(prog, args, 1, "does not import");
    mb_test_write(path, sizeof path, dir, "raises.py",
                  "import torch\ndef dataset():\n    return torch.zeros(8, 3), torch.zeros(8)\n"
                  "def model():\n    raise ValueError('no model today')\n");
    snprintf(args, sizeof args, "--model %s --batch 4 -o %s/bad.csv", path, dir);
    mb_test_expect_failure(prog, args, 1, "model() raised ValueError: no model today");
    snprintf(args, sizeof args, "--model %s/tiny.py --batch 4 --no-such-flag", dir);
    mb_test_expect_failure(prog, args, 2, "--no-such-flag");
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(stat(path, &st), 0); /* nothing half-written */

    /* a target never reached: the log is written and says so, and the exit is 1 at the end */
    mb_test_run r;
    mb_test_sh(&r, "%s " FE " runs --model %s/tiny.py --batch 32 --seeds 0 --threads 1 "
               "--target-loss 0.001 --max-updates 40 --log-dir %s/never", py, dir, dir);
    CU_ASSERT_EQUAL(r.status, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "reached=no"));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "did not reach target loss 0.001"));
    mb_test_run_free(&r);
    mb_test_sh(&r, "grep -c 'reached=no' %s/never/tiny-momentum-b32-s0.csv", dir);
    CU_ASSERT_STRING_EQUAL(r.out, "1\n");
    mb_test_run_free(&r);
    /* its summary says "-" where a value is none (reached_wall_s=nan was refused by the
     * readers): mbfit reads the log and counts the run as one that did not reach */
    mb_test_sh(&r, "grep -c '=nan\\|=inf' %s/never/tiny-momentum-b32-s0.csv", dir);
    CU_ASSERT_STRING_EQUAL(r.out, "0\n");
    mb_test_run_free(&r);
    mb_test_sh(&r, "mbfit nupdate --target-loss 0.001 %s/never/tiny-momentum-b32-s0.csv", dir);
    CU_ASSERT_PTR_NULL(strstr(r.err, "reached_wall_s"));
    CU_ASSERT_PTR_NULL(strstr(r.err, "summary line"));
    mb_test_run_free(&r);
}

/* ---- hostile input (campaign 23): one line, the right exit status, outputs untouched ---- */

/* Model files beside tiny.py, each wrong in one way (or failing on rank 1 only). */
#define HEAD "import os, sys, torch\nsys.path.insert(0, os.path.dirname(__file__))\n" \
             "import tiny\nfrom tiny import dataset, model\n"
static const char *const VARIANTS[][2] = {
    {"lab.py", HEAD "def dataset():\n    x, y = tiny.dataset()\n    y[5] = 11\n    return x, y\n"},
    {"neglab.py", HEAD "def dataset():\n    x, y = tiny.dataset()\n    y[3] = -1\n"
                  "    return x, y\n"},
    {"fraclab.py", HEAD "def dataset():\n    x, y = tiny.dataset()\n"
                   "    return x, y.float() + 0.5\n"},
    {"nanx.py", HEAD "def dataset():\n    x, y = tiny.dataset()\n    x[4, 2] = float('nan')\n"
                "    return x, y\n"},
    {"lossvec.py", HEAD "def loss(out, y):\n    return torch.nn.functional.cross_entropy(out, y, "
                   "reduction='none')\n"},
    {"shape.py", HEAD "def model():\n    return torch.nn.Linear(21, 10)\n"},
    {"nameup.py", HEAD "NAME = '../esc'\n"},
    {"datanl.py", HEAD "DATA = 'gen\\n# lr=9'\n"},
    {"classx.py", HEAD "CLASSES = 'x'\n"},
    {"r1loss.py", HEAD "def loss(out, y):\n    import torch.distributed as dist\n"
                  "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                  "        raise RuntimeError('rank 1 fails')\n"
                  "    return torch.nn.functional.cross_entropy(out, y)\n"},
    /* campaign 24 */
    {"noparam.py", HEAD "def model():\n"
                   "    return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Identity())\n"},
    {"notcall.py", HEAD "loss = 5\n"},
    {"dotname.py", HEAD "NAME = '.hidden'\n"},
    {"dashname.py", HEAD "NAME = '-rf'\n"},
    {"r1sleep.py", HEAD "def loss(out, y):\n    import time, torch.distributed as dist\n"
                   "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                   "        time.sleep(60)\n"
                   "    return torch.nn.functional.cross_entropy(out, y)\n"},
    {"printer.py", HEAD "print('hello from the model file')\n"},
    {"r1print.py", HEAD "def loss(out, y):\n    import torch.distributed as dist\n"
                   "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                   "        print('rank 1 chatter')\n"
                   "    return torch.nn.functional.cross_entropy(out, y)\n"},
    /* campaign 25: a rank stopped (SIGSTOP; every rank), sys.stdout closed, writes below
     * Python (fd 1, a child process, C's printf) */
    {"r1stop.py", HEAD "def loss(out, y):\n    import signal, torch.distributed as dist\n"
                  "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                  "        open('r1.pid', 'w').write(str(os.getpid()))\n"
                  "        os.kill(os.getpid(), signal.SIGSTOP)\n"
                  "    return torch.nn.functional.cross_entropy(out, y)\n"},
    {"allstop.py", HEAD "def loss(out, y):\n    import signal, torch.distributed as dist\n"
                   "    if dist.is_initialized():\n"
                   "        open(f'r{dist.get_rank()}.pid', 'w').write(str(os.getpid()))\n"
                   "        os.kill(os.getpid(), signal.SIGSTOP)\n"
                   "    return torch.nn.functional.cross_entropy(out, y)\n"},
    {"closeout.py", HEAD "sys.stdout.close()\n"},
    {"fdchat.py", HEAD "import ctypes, subprocess\nos.write(1, b'fd chatter\\n')\n"
                  "subprocess.run(['echo', 'echo chatter'])\n"
                  "ctypes.CDLL(None).printf(b'printf chatter\\n')\n"},
    {"r1fdchat.py", HEAD "os.write(1, b'import fd chatter\\n')\n"
                    "def loss(out, y):\n    import torch.distributed as dist\n"
                    "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                    "        os.write(1, b'rank 1 fd chatter\\n')\n"
                    "    return torch.nn.functional.cross_entropy(out, y)\n"},
    /* campaign 26: sys.exit() in the model file (main process, rank 1), a KeyboardInterrupt
     * raised on rank 1, a loss that is always nan (every run diverges) */
    {"dsexit0.py", HEAD "def dataset():\n    sys.exit(0)\n"},
    {"lossexit3.py", HEAD "def loss(out, y):\n    sys.exit(3)\n"},
    {"r1dsexit.py", HEAD "def dataset():\n    import torch.distributed as dist\n"
                    "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                    "        sys.exit(0)\n"
                    "    return tiny.dataset()\n"},
    {"r1kbd.py", HEAD "def loss(out, y):\n    import torch.distributed as dist\n"
                 "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                 "        raise KeyboardInterrupt\n"
                 "    return torch.nn.functional.cross_entropy(out, y)\n"},
    {"nanloss.py", HEAD "def loss(out, y):\n    return out.sum() * float('nan')\n"},
    /* campaign 27: sys.stderr or sys.__stdout__ closed; fds 3 and up closed, or all made one
     * user file; a rank killed by a real-time signal, gone with exit 0, forking a daemon */
    {"errclose.py", HEAD "sys.stderr.close()\n"},
    {"dunderclose.py", HEAD "def dataset():\n    sys.__stdout__.close()\n"
                       "    return tiny.dataset()\n"},
    {"closeall.py", HEAD "def dataset():\n    os.closerange(3, 1 << 16)\n"
                    "    return tiny.dataset()\n"},
    {"reopen.py", HEAD "def dataset():\n    fd = os.open('userfile', os.O_WRONLY | os.O_CREAT)\n"
                  "    for n in range(3, 1 << 16):\n        try:\n"
                  "            n != fd and os.dup2(fd, n)\n        except OSError:\n"
                  "            break\n    return tiny.dataset()\n"},
    {"r1rt.py", HEAD "def loss(out, y):\n    import signal, torch.distributed as dist\n"
                "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                "        os.kill(os.getpid(), signal.SIGRTMIN + 6)\n"
                "    return torch.nn.functional.cross_entropy(out, y)\n"},
    {"r1exit0.py", HEAD "def loss(out, y):\n    import torch.distributed as dist\n"
                   "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                   "        os._exit(0)\n"
                   "    return torch.nn.functional.cross_entropy(out, y)\n"},
    {"r1daemon.py", HEAD "def model():\n    import time, torch.distributed as dist\n"
                    "    if dist.is_initialized() and dist.get_rank() == 1 and os.fork() == 0:\n"
                    "        open('child.pid', 'w').write(str(os.getpid()))\n"
                    "        fd = os.open(os.devnull, os.O_RDWR)\n"
                    "        for k in (0, 1, 2):\n            os.dup2(fd, k)\n"
                    "        time.sleep(40)\n        os._exit(0)\n"
                    "    return tiny.model()\n"},
    /* campaign 28: a BaseException of the user's own, GeneratorExit */
    {"bstop.py", HEAD "class Stop(BaseException):\n    pass\n"
                 "def dataset():\n    raise Stop('user stop')\n"},
    {"genexit.py", HEAD "def loss(out, y):\n    raise GeneratorExit('gen exit')\n"},
    /* campaign 29: x on the meta device; a module-level __getattr__ that raises; a loss that
     * turns nan at its 3rd call (the first is all probe checked); a chdir at import; a slow
     * loss (each rank's pid written once, and rank 1's "started") */
    {"xmeta.py", HEAD "def dataset():\n    x, y = tiny.dataset()\n    return x.to('meta'), y\n"},
    {"modgetattr.py", HEAD "def __getattr__(n):\n    raise RuntimeError('no attribute ' + n)\n"},
    {"nanlate.py", HEAD "_n = [0]\ndef loss(out, y):\n    _n[0] += 1\n"
                   "    l = torch.nn.functional.cross_entropy(out, y)\n"
                   "    return l * float('nan') if _n[0] > 2 else l\n"},
    {"divonce.py", HEAD "_n = [0]\ndef loss(out, y):\n    _n[0] += 1\n"
                   "    l = torch.nn.functional.cross_entropy(out, y)\n"
                   "    return l * float('nan') if _n[0] == 6 else l\n"},
    /* campaign 39's F5: nan at the 2nd call, the first at the second M (probe_setup's) */
    {"nanat2.py", HEAD "_n = [0]\ndef loss(out, y):\n    _n[0] += 1\n"
                  "    l = torch.nn.functional.cross_entropy(out, y)\n"
                  "    return l * float('nan') if _n[0] == 2 else l\n"},
    {"chdirup.py", HEAD "os.chdir('..')\n"},
    {"slowloss.py", HEAD "def loss(out, y):\n    import time, torch.distributed as dist\n"
                    "    r = dist.get_rank() if dist.is_initialized() else -1\n"
                    "    if r >= 0 and not os.path.exists(f'r{r}.pid'):\n"
                    "        with open(f'r{r}.pid', 'w') as f:\n"
                    "            f.write(str(os.getpid()))\n"
                    "        if r == 1:\n            open('started', 'w').close()\n"
                    "    time.sleep(0.02)\n    return torch.nn.functional.cross_entropy(out, y)\n"},
    /* campaign 30: a NAME of Unicode white space (an ideographic space) */
    {"wsname.py", HEAD "NAME = 'tm\\u3000x'\n"},
    /* campaign 31: parameters or a buffer on the meta device (shapes without data); the
     * user's to(), parameters() or state_dict() raising, parameters() giving non-leaf tensors
     * (the optimiser refuses them), a model of another shape on rank 1 (DDP refuses it) */
    {"metaw.py", HEAD "def model():\n    return torch.nn.Linear(20, 10, device='meta')\n"},
    {"metabuf.py", HEAD "def model():\n    m = tiny.model()\n"
                   "    m.register_buffer('b', torch.zeros(3, device='meta'))\n    return m\n"},
    {"toraise.py", HEAD "class M(torch.nn.Sequential):\n    def to(self, *a, **k):\n"
                   "        raise RuntimeError('no move')\n"
                   "def model():\n    return M(torch.nn.Linear(20, 10))\n"},
    {"paramraise.py", HEAD "class M(torch.nn.Sequential):\n"
                      "    def parameters(self, recurse=True):\n"
                      "        raise RuntimeError('no parameters')\n"
                      "def model():\n    return M(torch.nn.Linear(20, 10))\n"},
    {"nonleaf.py", HEAD "class M(torch.nn.Sequential):\n    def parameters(self, recurse=True):\n"
                   "        return iter([p * 1 for p in super().parameters()])\n"
                   "def model():\n    return M(torch.nn.Linear(20, 10))\n"},
    {"sdraise.py", HEAD "class M(torch.nn.Sequential):\n    def state_dict(self, *a, **k):\n"
                   "        raise RuntimeError('no state')\n"
                   "def model():\n    return M(torch.nn.Linear(20, 10))\n"},
    /* campaign 32: a to() that returns a meta copy, or None; parameters() giving a meta tensor
     * that named_parameters() does not show */
    {"tometa.py", HEAD "class M(torch.nn.Linear):\n    def to(self, *a, **k):\n"
                  "        return super().to('meta')\n"
                  "def model():\n    return M(20, 10)\n"},
    {"tonone.py", HEAD "class M(torch.nn.Linear):\n    def to(self, *a, **k):\n"
                  "        return None\n"
                  "def model():\n    return M(20, 10)\n"},
    {"parammeta.py", HEAD "class M(torch.nn.Linear):\n    def parameters(self, recurse=True):\n"
                     "        return iter([torch.nn.Parameter(torch.zeros(3, device='meta'))])\n"
                     "def model():\n    return M(20, 10)\n"},
    {"ddpdiff.py", HEAD "def model():\n    import torch.distributed as dist\n    m = tiny.model()\n"
                   "    if dist.is_initialized() and dist.get_rank() == 1:\n"
                   "        m.append(torch.nn.Linear(10, 10))\n    return m\n"},
    /* campaign 33's D12: parameters() giving copies of the model's, another module's, or a
     * named parameter that is sparse (nothing trained); D13: a train() or eval() that raises */
    {"parcopy.py", HEAD "class M(torch.nn.Sequential):\n    def parameters(self, recurse=True):\n"
                   "        return iter([torch.nn.Parameter(p.detach().clone())\n"
                   "                     for p in super().parameters(recurse)])\n"
                   "def model():\n    return M(*tiny.model())\n"},
    {"parother.py", HEAD "class M(torch.nn.Sequential):\n    def parameters(self, recurse=True):\n"
                    "        return torch.nn.Linear(20, 10).parameters()\n"
                    "def model():\n    return M(*tiny.model())\n"},
    {"parsparse.py", HEAD "def model():\n    m = tiny.model()\n    m.register_parameter('s', "
                     "torch.nn.Parameter(torch.zeros(3, 3).to_sparse()))\n    return m\n"},
    {"trainraise.py", HEAD "class M(torch.nn.Sequential):\n    def train(self, mode=True):\n"
                      "        raise RuntimeError('no train mode')\n"
                      "def model():\n    return M(*tiny.model())\n"},
    {"evalraise.py", HEAD "class M(torch.nn.Sequential):\n    def eval(self):\n"
                     "        raise RuntimeError('no eval mode')\n"
                     "def model():\n    return M(*tiny.model())\n"},
    /* a run that says it has started training, then takes its time (campaign 34's E6) */
    {"slowrun.py", HEAD "def loss(out, y):\n    import time\n"
                   "    if not os.path.exists('started'):\n        open('started', 'w').close()\n"
                   "    time.sleep(0.02)\n    return torch.nn.functional.cross_entropy(out, y)\n"},
    /* campaign 33: a signal between the front end's summary and its exit (here from an atexit
     * handler of the model file's) ended it with no line of its own */
    {"lateterm.py", HEAD "import atexit, signal\n"
                    "atexit.register(lambda: os.kill(os.getpid(), signal.SIGTERM))\n"},
};

#define PB "probe --model ../tiny.py --threads 1 --budget 0.05 --rounds 1 --batch 8 "
#define RN "runs --threads 1 --target-loss 0.6 --log-dir d --model "
/* probe on 2 ranks of 2 threads, the model file M of the folder above */
#define P1(M) "probe --model ../" M " --threads 1 --budget 0.05 --rounds 1 --batch 8 "
#define P2(M) "probe --model ../" M " --threads 2 --budget 0.05 --rounds 1 --batch 8 --procs 2 "

/* A refusal: what the folder holds first (sh), the front end's arguments, the status, a piece
 * of its one line (two for status 2: the hint), and a check after (sh; prints to stderr what is
 * wrong). Every case runs in its own folder holding o = "sentinel", which must stay so, and
 * must leave no run log behind; each has 60 s (--threads 100000 hung, --seeds 0:100000000
 * filled the memory). */
static const struct bad {
    const char *setup, *args;
    int status;
    const char *needle, *post;
} BAD[] = {
    /* outputs: the model file, a folder, a FIFO without a reader */
    {"cp ../tiny.py m.py", "probe --model m.py --batch 8 --threads 1 -o m.py", 1,
     "-o m.py would overwrite --model m.py", "cmp -s m.py ../tiny.py || echo 'm.py CHANGED' >&2"},
    {"mkdir od", PB "-o od", 1, "od: cannot write: Is a directory", ":"},
    {"mkfifo f && export MBKIT_FIFO_WAIT=0.2", PB "-o f", 1, "f: a FIFO with no reader after 0.2 s",
     "test -p f || echo 'f REPLACED' >&2"},
    {"export MBKIT_FIFO_WAIT=x", PB "-o o", 2, "MBKIT_FIFO_WAIT=x: seconds from 0 to 3600", ":"},
    {"mkdir -p d/tiny-momentum-b8-s0.csv", RN "../tiny.py --batch 8", 1,
     "d/tiny-momentum-b8-s0.csv: cannot write: Is a directory", ":"},
    {":", PB "-o - >&-", 1, "standard output: write error: Bad file descriptor (closed)", ":"},
    {":", "runs --threads 1 --target-loss 0.6 --model ../tiny.py --batch 32 --log-dir d "
     ">/dev/full", 1, "standard output: write error: No space left on device",
     "rm -r d" /* its log is written: the summary printed after it is what failed */},
    /* flags: once each, values once each, in range, none the mode would ignore */
    {":", PB "--lr 0.1 --lr 0.2 -o o", 2, "option '--lr' given twice", ":"},
    {":", "probe --model ../tiny.py --batch 8,8 -o o", 1, "--batch: 8 given twice", ":"},
    {":", PB "--procs 2,2 -o o", 1, "--procs: 2 given twice", ":"},
    {":", RN "../tiny.py --batch 8 --seeds 0,0", 1, "--seeds: 0 given twice", ":"},
    {":", RN "../tiny.py --plan '8,0.05,0 8,5e-2,0'", 1, "--plan: '8,5e-2,0' given twice", ":"},
    {":", RN "../tiny.py --plan '8,0.05,0 8,0.1,0'", 1, "would both write", ":"},
    {":", RN "../tiny.py --batch 8 --plan '8,0.05,0'", 2, "--batch with --plan", ":"},
    {":", RN "../tiny.py --batch 8 --algo sgd --momentum 0.5", 2, "--momentum with --algo sgd",
     ":"},
    {":", RN "../tiny.py --batch 8 --momentum 1.5", 1, "--momentum: must be in [0, 1), got '1.5'",
     ":"},
    {":", RN "../tiny.py --batch 8 --weight-decay inf", 1,
     "--weight-decay: 'inf' is not a finite number", ":"},
    {":", PB "--rel-ci 1 -o o", 1, "--rel-ci: must be in (0, 1), got '1'", ":"},
    {":", RN "../tiny.py --batch 8 --data-seed 99999999999999999999999", 1,
     "--data-seed: 99999999999999999999999 is not in [0, 1099511627776]", ":"},
    {":", RN "../tiny.py --batch 8 --eval-frac 0.001", 1,
     "--eval-frac 0.001 draws 2 of the 2000 training samples", ":"},
    {":", RN "../tiny.py --batch 8 --seeds 0:100000000", 1, "at most 100000 seeds", ":"},
    {":", RN "../tiny.py --batch 8 --seeds 0:1500", 1, "--seeds: 1501 seeds, more than 1000", ":"},
    {":", PB "--threads 100000 -o o", 1, "--threads: 100000 is not in [1, 256]", ":"},
    /* the model file: what it is, its NAME and DATA, its data, model and loss */
    {":", RN "/dev/null --batch 8", 1, "/dev/null: not a model file: a device", ":"},
    {"mkdir m.py", RN "m.py --batch 8", 1, "m.py: not a model file: a directory", ":"},
    {":", RN "../nameup.py --batch 8", 1, "NAME '../esc' is not a plain name",
     "! ls esc-* >/dev/null 2>&1 || echo 'a log ESCAPED --log-dir' >&2"},
    {":", RN "../datanl.py --batch 8", 1, "DATA 'gen\\n# lr=9' is not a data set's name", ":"},
    {":", RN "../classx.py --batch 8", 1, "CLASSES 'x' is not a whole number", ":"},
    {":", RN "../lab.py --batch 8", 1, "dataset(): label 11 but model() gives 10 outputs", ":"},
    {":", RN "../neglab.py --batch 8", 1, "dataset(): label -1 at sample 3 is negative", ":"},
    {":", RN "../fraclab.py --batch 8", 1, "is not a whole number (y holds integer class labels)",
     ":"},
    {":", RN "../nanx.py --batch 8", 1, "dataset(): x holds nan at sample 4", ":"},
    {":", RN "../lossvec.py --batch 8", 1, "loss() returned shape (8,), not a scalar tensor", ":"},
    {":", RN "../shape.py --batch 8", 1, "model() does not take dataset()'s x (20,)", ":"},
    /* rank 1's loss() raising: its cause, not rank 0's "Connection closed by peer" */
    {":", "probe --model ../r1loss.py --threads 2 --budget 0.05 --rounds 1 --batch 8 "
     "--procs 1,2 -o o", 1, "rank 1: ", "grep -q 'RuntimeError: rank 1 fails' .err || "
     "echo 'the cause is not said' >&2"},
    /* campaign 24: a model with nothing to train, a loss that is not a function, NAMEs a glob
     * skips or a reader takes for an option, a --log-dir that is a dangling link, --lr's range,
     * a rank that stalls (ended by --wait-timeout within seconds, not gloo's 30 min; 5 s, not 2:
     * the row failed once beside a load of 11, the stall well within its bound) */
    {":", P1("noparam.py") "-o o", 1,
     "noparam.py: model() has no parameters to train", ":"},
    {":", RN "../noparam.py --batch 8", 1, "noparam.py: model() has no parameters to train", ":"},
    {":", RN "../notcall.py --batch 8", 1, "notcall.py: loss is not a function (loss = 5, int)",
     ":"},
    {":", RN "../dotname.py --batch 8", 1, "NAME '.hidden' is not a plain name (one file-name "
     "word that starts with a letter or digit", ":"},
    {":", RN "../dashname.py --batch 8", 1, "NAME '-rf' is not a plain name", ":"},
    {"ln -s nowhere d", RN "../tiny.py --batch 8", 1,
     "--log-dir d: a link to a missing folder (nowhere)", "test -L d || echo 'd REPLACED' >&2"},
    {":", RN "../tiny.py --batch 8 --lr 0", 1, "--lr: must be > 0, got '0'", ":"},
    {"date +%s > .t0", P2("r1sleep.py") "--wait-timeout 5 -o o", 1,
     "rank 0: waited 5 s for the other ranks (--wait-timeout 5): a rank has stalled",
     "[ $(($(date +%s) - $(cat .t0))) -lt 30 ] || echo 'the stall was not ended in time' >&2"},
    {":", PB "--procs 2 --wait-timeout 0.5 -o o", 1, "--wait-timeout: 0.5 s is too short", ":"},
    {":", PB "--wait-timeout 5 -o o", 2, "--wait-timeout without --procs above 1", ":"},
    /* campaign 25's V8: a number that only reads as 0 (no limit), full-width digits */
    {":", PB "--procs 2 --wait-timeout 1e-400 -o o", 1,
     "--wait-timeout: '1e-400' is too small a number: it reads as 0", ":"},
    {":", PB "--lr \xef\xbc\x90.05 -o o", 1, "--lr: '\xef\xbc\x90.05' is not a finite number", ":"},
    /* campaign 25's V2: a rank stopped by SIGSTOP (SIGTERM stays pending on it): rank 0's
     * --wait-timeout line, the rank killed; every rank stopped: the parent's own line */
    {"date +%s > .t0", P2("r1stop.py") "--wait-timeout 5 -o o", 1,
     "rank 0: waited 5 s for the other ranks (--wait-timeout 5): a rank has stalled",
     "[ $(($(date +%s) - $(cat .t0))) -lt 30 ] || echo 'the stop was not ended in time' >&2; "
     "test -s r1.pid && ! kill -0 $(cat r1.pid) 2>/dev/null || echo 'rank 1 LEFT' >&2"},
    {"date +%s > .t0", P2("allstop.py") "--wait-timeout 2 -o o", 1,
     " stopped (a signal) for 12 s, beyond --wait-timeout 2: a rank has stalled; ending the job",
     "[ $(($(date +%s) - $(cat .t0))) -lt 45 ] || echo 'the stop was not ended in time' >&2; "
     "for f in r0.pid r1.pid; do test -s $f && ! kill -0 $(cat $f) 2>/dev/null || "
     "echo \"$f LEFT\" >&2; done"},
    /* campaign 26's W5: sys.exit() in the model file is one line naming it and the function,
     * exit 1, not the command's status (0: quiet, no log); a rank's KeyboardInterrupt is an
     * interrupt of the command (130), not a rank gone quietly */
    {":", RN "../dsexit0.py --batch 8", 1, "dsexit0.py: dataset() raised SystemExit: 0", ":"},
    {":", RN "../lossexit3.py --batch 8", 1, "lossexit3.py: loss() raised SystemExit: 3", ":"},
    {":", P2("r1dsexit.py")
     "-o o", 1, "rank 1: ../r1dsexit.py: dataset() raised SystemExit: 0", ":"},
    {":", P2("r1kbd.py") "-o o", 130, "mbkit_torch probe: interrupted; nothing half-written", ":"},
    /* campaign 27's X4: the user's code closes fds 3 and up (the saved standard output), or
     * makes each a copy of its own file: one line naming the model file, nothing written into
     * the user's file; X5, X11: a rank killed by a signal Python does not name, a rank that
     * exits 0 early (not rank 0's "Connection reset by peer") */
    {":", "probe --model ../closeall.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -", 1,
     "closeall.py: the model closed or replaced the front end's output (standard output)", ":"},
    {":", "probe --model ../reopen.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -", 1,
     "reopen.py: the model closed or replaced the front end's output (standard output)",
     "test -f userfile && ! test -s userfile || echo 'userfile WRITTEN' >&2"},
    {":", P2("r1rt.py") "--wait-timeout 2 -o o", 1,
     "--procs 2: a learner process failed (process 1 terminated with signal 40)", ":"},
    {":", P2("r1exit0.py") "--wait-timeout 2 -o o", 1,
     "--procs 2: rank 1 exited (status 0) before the job ended", ":"},
    /* campaign 28's Z1: a BaseException that is not SystemExit (a traceback), Z3: --model '' */
    {":", P1("bstop.py") "-o o", 1,
     "bstop.py: dataset() raised Stop: user stop", ":"},
    {":", RN "../genexit.py --batch 8", 1, "genexit.py: loss() raised GeneratorExit: gen exit",
     ":"},
    {":", P2("bstop.py")
     "--wait-timeout 2 -o o", 1, "bstop.py: dataset() raised Stop: user stop", ":"},
    {":", "probe --model '' --threads 1 --batch 8 -o o", 1, "--model: empty", ":"},
    /* campaign 29's A3: x on the meta device, a module __getattr__ that raises (tracebacks);
     * A6: a loss that turns nan after the first call at each M was timed, exit 0; A9: SIGTERM
     * to probe --procs 2 left Python's "leaked semaphore" warning and no line of its own */
    {":", P1("xmeta.py") "-o o", 1,
     "xmeta.py: dataset(): x is on device meta (cpu or the --device)", ":"},
    {":", P2("xmeta.py") "-o o", 1, "xmeta.py: dataset(): x is on device meta", ":"},
    {":", P1("modgetattr.py") "-o o",
     1, "modgetattr.py: reading loss raised RuntimeError: no attribute loss", ":"},
    {":", P2("modgetattr.py") "-o o", 1, "modgetattr.py: reading loss raised RuntimeError", ":"},
    /* a loss that is nan at every step after a restart: a bad rate, as mbprobe step's (a
     * budget that ten quick restarts cannot outlast under make check's load: at 0.05 s the
     * probe once ended after 8 and exited 0) */
    {":", "probe --model ../nanlate.py --threads 1 --budget 30 --rounds 1 --batch 8 -o o", 1,
     "nanlate.py: the loss at M = 8 is nan: the timed training diverged, again right after each "
     "of 10 restarts (lower --lr ", ":"},
    /* campaign 40's D6: inside a timed block too, P learners that cannot restart name --lr, as
     * the untimed path's line does (campaign 39's F5) */
    {":", P2("nanlate.py") "-o o", 1, "nanlate.py: the loss at M = 8 is not finite: the timed "
     "training diverged, and 2 learners cannot restart (lower --lr 0.02)", ":"},
    {":", PB "--rel-ci 1.5 -o o", 1, "--rel-ci: must be in (0, 1), got '1.5'", ":"},
    {":", "probe --model ../slowloss.py --threads 2 --budget 60 --rounds 1 --batch 8 --procs 2 "
     "-o o & for i in $(seq 300); do [ -e started ] && "
     "break; sleep 0.1; done; kill -TERM $!; wait $!; s=$?; sleep 1; (exit $s)", 143,
     "mbkit_torch probe: terminated (SIGTERM); nothing half-written",
     "for f in r0.pid r1.pid; do test -s $f && ! kill -0 $(cat $f) 2>/dev/null || "
     "echo \"$f LEFT\" >&2; done"},
    /* campaign 30: Unicode white space in NAME trained, then failed at the summary (A-C5); a
     * newline in --model's path split the error line in two (A-C4) */
    {":", RN "../wsname.py --batch 8", 1, "is not a plain name", ":"},
    {":", "probe --model \"$(printf 'a\\nb.py')\" --threads 1 --batch 8 -o o", 1,
     "a\\nb.py", ":"},
    /* campaign 31's A4: a model with parameters or buffers on the meta device ended in a
     * traceback (probe, --procs 2) or "training failed" (runs); the user's to(), parameters(),
     * state_dict() raising, or the optimiser or DDP refusing the model: one line naming it */
    {":", P1("metaw.py") "-o o", 1,
     "metaw.py: model() returned parameters or buffers on the meta device (no data): "
     "parameter weight", ":"},
    {":", RN "../metaw.py --batch 8", 1,
     "metaw.py: model() returned parameters or buffers on the meta device", ":"},
    {":", P2("metaw.py") "-o o", 1,
     "metaw.py: model() returned parameters or buffers on the meta device", ":"},
    {":", P1("metabuf.py") "-o o", 1,
     "metabuf.py: model() returned parameters or buffers on the meta device (no data): "
     "buffer b", ":"},
    {":", P1("toraise.py") "-o o", 1,
     "toraise.py: moving model() to cpu raised RuntimeError: no move", ":"},
    {":", P1("paramraise.py") "-o o",
     1, "paramraise.py: reading model()'s parameters and buffers raised RuntimeError: no "
     "parameters", ":"},
    {":", P1("nonleaf.py") "-o o", 1, /* campaign 33's D12 check sees them first */
     "nonleaf.py: model()'s parameters() gives 2 tensors (of 2) that are not among", ":"},
    {":", RN "../sdraise.py --batch 8", 1,
     "sdraise.py: model()'s state_dict() (a snapshot) raised RuntimeError: no state", ":"},
    {":", P2("ddpdiff.py") "--wait-timeout 10 -o o", 1,
     "ddpdiff.py: wrapping model() in DistributedDataParallel raised RuntimeError", ":"},
    /* campaign 32's B1, B5, B4: a traceback, a shape error, and a probe that timed nothing */
    {":", P1("tometa.py") "-o o", 1,
     "tometa.py: moving model() to cpu left parameters or buffers on the meta device", ":"},
    {":", P1("tonone.py") "-o o", 1,
     "tonone.py: moving model() to cpu returned NoneType, not a torch.nn.Module", ":"},
    {":", P1("parammeta.py") "-o o",
     1, "parammeta.py: model() returned parameters or buffers on the meta device (no data): "
     "parameter 0 of parameters()", ":"},
    /* campaign 33's D12, D13: parameters() that are not the model's own dense ones (a probe
     * and runs that trained nothing), a train() or eval() that raises (blamed on the input) */
    {":", P1("parcopy.py") "-o o", 1, "parcopy.py: model()'s parameters() gives 4 tensors "
     "(of 4) that are not among model()'s named parameters", ":"},
    {":", P2("parcopy.py") "--wait-timeout 10 -o o", 1,
     "parcopy.py: model()'s parameters() gives 4 tensors (of 4) that are not among", ":"},
    {":", RN "../parother.py --batch 8 --max-updates 40", 1,
     "parother.py: model()'s parameters() gives 2 tensors (of 2) that are not among", ":"},
    {":", P1("parsparse.py") "-o o", 1, "parsparse.py: model()'s parameters() gives parameter "
     "s, a sparse tensor (torch.sparse_coo): the optimiser's tensors must be dense", ":"},
    {":", P1("trainraise.py") "-o o", 1,
     "trainraise.py: model().train() raised RuntimeError: no train mode", ":"},
    {":", RN "../evalraise.py --batch 8", 1,
     "evalraise.py: model().eval() raised RuntimeError: no eval mode", ":"},
    /* D4: a Python that cannot import torch (a torch.py that fails first on its path) */
    {"mkdir t && echo 'raise ModuleNotFoundError(\"no torch here\")' > t/torch.py && "
     "export PYTHONPATH=$PWD/t", PB "-o o", 1,
     "mbkit_torch probe: cannot import torch with ", ":"},
    /* campaign 33: under a memory limit torch cannot load: libtorch's std::bad_alloc (no line of
     * ours) at 600 MB, "cannot import torch ... installs" at 400 MB; now one line naming it */
    {"ulimit -S -v 500000", PB "-o o", 1, "mbkit_torch probe: the memory limit (ulimit -v) is "
     "488 MiB: torch needs about 1024 MiB of address space", ":"},
    /* D5: --procs 2 where no temporary folder can be written (ulimit -f 0 for the front end
     * alone; its line comes through a FIFO, which the limit does not bound) */
    {"mkfifo p && ulimit -S -f 0", PB "--procs 2 -o o 2>p & c=$!; ulimit -S -f unlimited; "
     "cat p >&2; wait $c", 1,
     "--procs 2: no folder for the learners' rendezvous (TMPDIR=", ":"},
    /* D3: SIGTERM or SIGHUP to the front end while torch imports (libtorch mapped; the signal
     * is acted on once the import is done, which a loaded machine makes seconds): a traceback;
     * D6: SIGHUP as SIGTERM (no line, and --procs 2 left its ranks and its folder) */
    {":", RN "../tiny.py --batch 8 & for i in $(seq 3000); do c=$(pgrep -P $! | head -1); "
     "[ -n \"$c\" ] && grep -q libtorch /proc/$c/maps 2>/dev/null && break; sleep 0.01; "
     "done; kill -TERM $c; wait $!", 143,
     "mbkit_torch runs: terminated (SIGTERM); nothing half-written", ":"},
    {":", PB "-o o & for i in $(seq 3000); do c=$(pgrep -P $! | head -1); [ -n \"$c\" ] && "
     "grep -q libtorch /proc/$c/maps 2>/dev/null && break; sleep 0.01; done; kill -HUP $c; "
     "wait $!", 129, "mbkit_torch probe: hung up (SIGHUP); nothing half-written", ":"},
    /* campaign 34's E6: a second signal after the first (TERM, then INT): the line named the
     * first, the exit status the second's; now both the first's. E10: a rate below float's
     * least normal number, logged as given and stepped by 0 */
    {":", RN "../slowrun.py --batch 8 --allow-unreached --max-updates 100000 & for i in "
     "$(seq 600); do [ -e started ] && break; sleep 0.1; done; c=$(pgrep -P $! | head -1); "
     "kill -TERM $c; sleep 0.05; kill -INT $c; wait $!", 143,
     "mbkit_torch runs: terminated (SIGTERM); nothing half-written", ":"},
    {":", RN "../tiny.py --batch 8 --lr 1e-300", 1,
     "mbkit_torch runs: --lr: '1e-300' is below the least rate a step in float can take", ":"},
    {"export TMPDIR=$PWD", "probe --model ../slowloss.py --threads 2 --budget 60 --rounds 1 "
     "--batch 8 --procs 2 -o o & for i in $(seq 300); do [ -e started ] && break; sleep 0.1; "
     "done; kill -HUP $!; wait $!; s=$?; sleep 1; (exit $s)", 129,
     "mbkit_torch probe: hung up (SIGHUP); nothing half-written",
     "for f in r0.pid r1.pid; do test -s $f && ! kill -0 $(cat $f) 2>/dev/null || "
     "echo \"$f LEFT\" >&2; done; ! ls -d mbkit_dist.* >/dev/null 2>&1 || echo 'folder LEFT' >&2"},
    /* campaign 35's E1: a momentum that is 1 in float, a weight decay that is inf there (the
     * step takes them in float32); E7: a --plan rate below float's range, as --lr's */
    {":", RN "../tiny.py --batch 8 --momentum 0.99999999999", 1,
     "mbkit_torch runs: --momentum: '0.99999999999' is 1 in float, the type the step takes it "
     "in (a momentum of 1 never decays): at most 0.99999994", ":"},
    {":", RN "../tiny.py --batch 8 --weight-decay 1e39", 1,
     "mbkit_torch runs: --weight-decay: '1e39' is above the largest float (3.4e+38), the type "
     "training takes it in", ":"},
    {":", RN "../tiny.py --plan '8,1e-300,0'", 1,
     "mbkit_torch runs: --plan: '8,1e-300,0': LR: '1e-300' is below the least rate a step in "
     "float can take (1.2e-38)", ":"},
    /* campaign 36's E3: a rate above float's largest ended in torch's own overflow error (no
     * flag named); the bounds are mbtrain's --lr's and make's TORCH_LR's */
    {":", RN "../tiny.py --batch 8 --lr 1e39", 1,
     "mbkit_torch runs: --lr: '1e39' is above the largest float (3.4e+38), the type training "
     "takes it in", ":"},
    {":", RN "../tiny.py --plan '8,1e39,0'", 1,
     "mbkit_torch runs: --plan: '8,1e39,0': LR: '1e39' is above the largest float (3.4e+38)",
     ":"},
    {":", PB "--lr 3.4028236e38 -o o", 1,
     "mbkit_torch probe: --lr: '3.4028236e38' is above the largest float (3.4e+38)", ":"},
    /* campaign 39's F5: a loss not finite at a later M's first call (the weights trained by
     * the calls before it) ended the probe blaming the model; only the first call's is the
     * model's. One learner restarts and times on (GOOD); P learners, and a rate that diverges
     * after every restart, say so naming --lr */
    {":", "probe --model ../nanloss.py --threads 1 --budget 0.05 --rounds 1 --batch 4,8 -o o", 1,
     "nanloss.py: the loss at M = 4 is not finite at the model's first parameters, before any "
     "update", ":"},
    {":", "probe --model ../tiny.py --threads 1 --budget 0.05 --rounds 1 --batch 4,8 --lr 3e38 "
     "-o o", 1, "the timed training diverged, again right after each of 10 restarts (lower --lr "
     "3e+38)", ":"},
    {":", "probe --model ../nanat2.py --threads 2 --budget 0.05 --rounds 1 --batch 4,8 --procs 2 "
     "-o o", 1, "nanat2.py: the loss at M = 8 is not finite: the training diverged in the "
     "updates before it (lower --lr 0.02)", ":"},
};

/* A run that must succeed: setup, arguments, and a check of what it wrote (sh, exit 0). */
static const struct good {
    const char *setup, *args, *verify;
} GOOD[] = {
    /* outputs that are links, FIFOs and devices are written through, never replaced */
    {"ln -s real.csv l", PB "-o l", "test -L l && grep -q '^cpu,tiny,8,' real.csv"},
    {"mkfifo f && { timeout 30 cat f > got & }", PB "-o f",
     "wait; test -p f && grep -q '^cpu,tiny,8,' got"},
    {"mknod n c 1 3 2>/dev/null || exit 0", PB "-o n", "test -c n"},
    {"mkdir d && ln -s ../real.csv d/tiny-momentum-b32-s0.csv", RN "../tiny.py --batch 32 "
     "--eval-frac 0.25", "test -L d/tiny-momentum-b32-s0.csv && grep -q '^# target_loss=0.6' "
     "real.csv && grep -q '^# command=mbkit_torch runs --threads 1 ' real.csv"},
    /* a probe whose training diverges once goes back to its first parameters and times on, as
     * mbprobe step (probe/step.c), and says so */
    {":", P1("divonce.py") "-o o", "grep -q '^cpu,divonce,8,' o && grep -q '^(the timed training "
     "diverged 1 time with 1 learner: each time the model went back to its first parameters' "
     "out && ! grep -qi 'nan,\\|,nan' o"},
    {":", "probe --model ../nanat2.py --threads 1 --budget 0.05 --rounds 1 --batch 4,8 -o o",
     "grep -q '^cpu,nanat2,8,' o && grep -q '^(the timed training diverged 1 time with 1 "
     "learner' out"},
    /* campaign 40's F2: --rounds 2 whose first pass took all --max-reps named that, not "it
     * needs --rounds 2 or more" (a budget that 3 samples cannot outlast under load) */
    {":", "probe --model ../tiny.py --threads 1 --budget 1 --rounds 2 --max-reps 3 --min-reps 2 "
     "--batch 8,16 -o o", "grep -q '^cpu,tiny,16,' o && grep -q '^steadiness: not measured: the "
     "first of the 2 passes took all --max-reps 3 samples at every point' out && "
     "! grep -q 'it needs --rounds' out"},
    /* a diverged run: mbtrain's summary, '-' for what is none, never nan */
    {":", RN "../tiny.py --batch 32 --lr 1e30",
     "grep -q ' loss=- eval_loss=- eval_acc=- reached=no reached_update=0 reached_wall_s=0.000 ' "
     "out && grep -q ' diverged=yes diverged_update=[1-9]' out && "
     "! grep -qi '[=,]-*\\(nan\\|inf\\)' out d/*.csv"},
    /* campaign 24: the user's prints (at import; rank 1's loss()) go to stderr, never into the
     * step table written to standard output */
    {":", "probe --model ../printer.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -",
     "grep -q hello err && ! grep -q hello out && head -1 out | grep -qx '# format=mbkit-step/1' "
     "&& [ $(grep -vc '^#' out) = 2 ]"},
    {":", P2("r1print.py") "-o -", "grep -q 'rank 1 chatter' err && ! grep -q chatter out && "
     "[ $(grep -vc '^#' out) = 2 ]"},
    /* campaign 25's V5: the model file closes sys.stdout: stderr and the table unharmed */
    {":", "probe --model ../closeout.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -",
     "head -1 out | grep -qx '# format=mbkit-step/1' && [ $(grep -vc '^#' out) = 2 ] && "
     "grep -q '^steadiness: ' err && ! grep -qi 'fatal\\|lost sys' err"},
    /* V7: fd 1 is stderr while the user's code runs (C's stdio buffered: no PYTHONUNBUFFERED),
     * every rank's too */
    {"unset PYTHONUNBUFFERED", "probe --model ../fdchat.py --threads 1 --budget 0.05 --rounds 1 "
     "--batch 8 -o -", "grep -q 'fd chatter' err && grep -q 'echo chatter' err && "
     "grep -q 'printf chatter' err && ! grep -q chatter out && "
     "head -1 out | grep -qx '# format=mbkit-step/1' && [ $(grep -vc '^#' out) = 2 ]"},
    {":", P2("r1fdchat.py")
     "-o -", "grep -q 'rank 1 fd chatter' err && grep -q 'import fd chatter' err && "
     "! grep -q chatter out && "
     "head -1 out | grep -qx '# format=mbkit-step/1' && [ $(grep -vc '^#' out) = 2 ]"},
    /* campaign 26's W4: every run diverges: as mbtrain's, each log written (# diverged=U,
     * diverged=yes), one line each on stderr, the sweep goes on, exit 0 (not "did not reach") */
    {":", RN "../nanloss.py --batch 8,16",
     "[ $(grep -c ': diverged at update 1 (lower --lr); the log says so$' err) = 2 ] && "
     "[ $(grep -lx '# diverged=1' d/nanloss-momentum-b8-s0.csv d/nanloss-momentum-b16-s0.csv | "
     "wc -l) = 2 ] && [ $(grep -c ' reached=no .* diverged=yes diverged_update=1$' out) = 2 ] && "
     "! grep -q 'did not reach' err && [ $(wc -l < err) = 2 ]"},
    /* campaign 27's X2, X3: the model file closes sys.stderr, or sys.__stdout__: the table
     * and the front end's lines unharmed, no fatal dump; X6: a rank forks a daemon that holds
     * the rank's pipe: the job ends when the rank does, not 30 s later */
    {":", "probe --model ../errclose.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -",
     "head -1 out | grep -qx '# format=mbkit-step/1' && [ $(grep -vc '^#' out) = 2 ] && "
     "grep -q '^steadiness: ' err && ! grep -qi 'fatal\\|lost sys' err"},
    {":", "probe --model ../dunderclose.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -",
     "head -1 out | grep -qx '# format=mbkit-step/1' && [ $(grep -vc '^#' out) = 2 ] && "
     "grep -q '^steadiness: ' err && ! grep -qi 'error\\|traceback' err"},
    {":", RN "../dunderclose.py --batch 8 --allow-unreached",
     "grep -q ' reached=' out && ! grep -qi 'error\\|traceback' err"},
    {"date +%s > .t0", P2("r1daemon.py")
     "--wait-timeout 5 -o o", "s=$(($(date +%s) - $(cat .t0))); "
     "kill $(cat child.pid) 2>/dev/null; [ $s -lt 20 ] && grep -q '^cpu,' o"},
    /* campaign 29's A7: a chdir at import moved --log-dir d with it; A2: a newline in
     * --log-dir wrote a "# lr=" line of its own: # command= escapes it as mbtrain's does */
    {":", RN "../chdirup.py --batch 8 --allow-unreached --max-updates 20",
     "test -s d/chdirup-momentum-b8-s0.csv && ! test -e ../d"},
    {":", "runs --threads 1 --target-loss 0.6 --model ../tiny.py --batch 8 --allow-unreached "
     "--max-updates 20 --log-dir 'e\t\n# lr=9'",
     "[ $(grep -c '^# lr=' e*/tiny-momentum-b8-s0.csv) = 1 ] && "
     "grep -q '^# command=mbkit_torch runs .* --log-dir e\\\\t\\\\n# lr=9$' "
     "e*/tiny-momentum-b8-s0.csv"},
    /* campaign 33's D7: a legal name of 240 bytes was refused "File name too long" (its
     * temporary's PATH.tmp.PID.XXXXXXXX was past 255: cut to fit now, as mbkit's C writer's) */
    {":", PB "-o $(printf 'a%.0s' $(seq 240))",
     "grep -q '^cpu,tiny,8,' $(printf 'a%.0s' $(seq 240)) && [ $(ls | grep -c tmp) = 0 ]"},
    /* a SIGTERM once the command is over (the model file's atexit handler sends it): the table
     * whole, exit 0, no traceback (it cuts nothing: the command ignores it from then on) */
    {":", "probe --model ../lateterm.py --threads 1 --budget 0.05 --rounds 1 --batch 8 -o -",
     "head -1 out | grep -qx '# format=mbkit-step/1' && [ $(grep -vc '^#' out) = 2 ] && "
     "! grep -qi 'traceback\\|exception\\|terminated' err"},
};

static void test_hostile(void)
{
    enum { NB = sizeof BAD / sizeof *BAD, NG = sizeof GOOD / sizeof *GOOD };
    char path[512];
    for (size_t i = 0; i < sizeof VARIANTS / sizeof *VARIANTS; i++)
        mb_test_write(path, sizeof path, dir, VARIANTS[i][0], VARIANTS[i][1]);
    static char buf[NB + NG][2048];
    const char *cmds[NB + NG];
    for (size_t i = 0; i < NB + NG; i++) {
        const struct bad *b = i < NB ? &BAD[i] : NULL;
        const struct good *g = i < NB ? NULL : &GOOD[i - NB];
        char *c = buf[i];
        if (b)
            snprintf(c, sizeof buf[i],
                     "S=$PWD; mkdir %s/h%zu && cd %s/h%zu && printf sentinel > o && { %s; } && "
                     "{ timeout -k 5 60 %s $S/" FE " %s; } 2> .err; s=$?; cat .err >&2; %s; "
                     "[ \"$(cat o)\" = sentinel ] || echo 'o TOUCHED' >&2; "
                     "[ -z \"$(find . -name '*.csv' -type f)\" ] || echo 'a log WRITTEN' >&2; "
                     "exit $s", dir, i, dir, i, b->setup, py, b->args, b->post);
        else
            snprintf(c, sizeof buf[i],
                     "S=$PWD; mkdir %s/h%zu && cd %s/h%zu && { %s; } && "
                     "timeout -k 5 60 %s $S/" FE " %s > out 2> err; s=$?; cat out err; "
                     "[ $s = 0 ] || exit $s; %s", dir, i, dir, i, g->setup, py, g->args,
                     g->verify);
        cmds[i] = c;
    }
    mb_test_run r[NB + NG];
    CU_ASSERT_EQUAL(mb_test_sh_pool(r, cmds, NB + NG, NULL, mb_test_jobs()), 0);
    for (size_t i = 0; i < NB + NG; i++) {
        int ok;
        if (i < NB) {
            const struct bad *b = &BAD[i];
            ok = r[i].status == b->status && strstr(r[i].err, b->needle) &&
                 mb_test_lines(r[i].err) == (b->status == 2 ? 2u : 1u) && !*r[i].out;
        } else {
            ok = r[i].status == 0;
        }
        CU_ASSERT_TRUE(ok);
        if (!ok)
            fprintf(stderr, "\n  case %zu: %s\n  -> %d\n  out: %s\n  err: %s", i, cmds[i],
                    r[i].status, r[i].out, r[i].err);
        mb_test_run_free(&r[i]);
    }
}

/* campaign 39's D4: a restart after a divergence (load_state_dict) ran inside the timed block
 * and its seconds went into the step's median. measure_share takes out the seconds a call
 * reports as restarting (call.restart_s, probe_setup's): here each call does nothing but 2 ms
 * of "restart", and every sample must be far below it (the harness's own cost: microseconds).
 * No torch needed: the harness alone. */
static void test_restart_untimed(void)
{
    mb_test_run r;
    mb_test_sh_ok(&r, "%s -c \"import sys, time, types; sys.path.insert(0, 'frontends/torch'); "
                  "import mbkit_torch as f\n"
                  "acc = [0.0]\n"
                  "def call():\n"
                  "    s = time.perf_counter(); time.sleep(0.002); acc[0] += time.perf_counter() - s\n"
                  "call.restart_s = lambda: acc[0]\n"
                  "a = types.SimpleNamespace(warmup=1, max_reps=5, rel_ci=0.01)\n"
                  "pt = f.Point(8)\n"
                  "f.measure_share(pt, call, a, 0.2, 3)\n"
                  "assert pt.x and max(pt.x) < 2e-4, pt.x\n\"", py);
    mb_test_run_free(&r);
}

static int add_tests(CU_pSuite s)
{
    return !CU_add_test(s, "probe: step table read by mbfit tupdate", test_probe_table) ||
           !CU_add_test(s, "probe --procs 1,2: torch.distributed learners", test_probe_procs) ||
           !CU_add_test(s, "runs: logs read by mbfit nupdate, tupdate, mbopt validate",
                        test_runs_logs) ||
           !CU_add_test(s, "exact crossing equals evaluating every update", test_exact_crossing) ||
           !CU_add_test(s, "bad input: one line, non-zero exit, nothing written", test_bad_input) ||
           !CU_add_test(s, "hostile input: one line, its status, outputs untouched", test_hostile) ||
           !CU_add_test(s, "probe: a restart's seconds are not the step's", test_restart_untimed);
}

int mb_test_suite_frontend_torch(void)
{
    CU_pSuite s = CU_add_suite("frontend_torch", suite_init, suite_clean);
    return !s || mb_test_need_torch(s, "torch front end", add_tests);
}
