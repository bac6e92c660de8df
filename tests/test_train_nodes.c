/* test_train_nodes.c — mbtrain across "nodes" (issue 28): two Linux network namespaces on this
 * machine, joined by veth pairs to a bridge, each link held to 100 Mbit/s by tc, Open MPI's TCP
 * transport between them (tests/nodes/netns.sh). sgd-sync trains across them and its allreduce
 * crosses the links (the veths' byte counters); each rank's checkpoint part lies in its own
 * node's private folder only, and a resume across the nodes, with no filesystem they share,
 * logs the rows of a straight run; a node whose part is gone refuses the resume in one line; a
 * server algorithm's resume sends its learner the record from the server's node. Parts of two
 * runs are refused (plain mpirun).
 *
 * Where network namespaces cannot be made (not root, a container without the capability) the
 * suite says so in one line and passes: that is a property of the machine, not of mbkit.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mb_test.h"

#define NODES_ENV "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 "

static char dir[256];
static char net[512];
static int can = -1; /* namespaces can be made here: 1, 0, or not asked yet */

static int setup(void)
{
    if (mb_test_tmpdir(dir, sizeof dir) != 0)
        return 1;
    mb_test_write(net, sizeof net, dir, "n.cfg",
                  "[net]\nname=nodenet\nchannels=1\nheight=12\nwidth=12\n"
                  "[fc]\noutputs=256\nactivation=relu\n[fc]\noutputs=4\n[softmax]\n");
    return 0;
}

static int teardown(void)
{
    mb_test_rmdir(dir);
    return 0;
}

/* 1 where tests/nodes/netns.sh can make namespaces; else its one line, once, and 0. */
static int nodes_here(void)
{
    if (can >= 0)
        return can;
    mb_test_run r;
    CU_ASSERT_EQUAL_FATAL(mb_test_sh(&r, "bash tests/nodes/netns.sh check"), 0);
    can = r.status == 0;
    if (r.status == 77)
        fprintf(stderr, "\n  %s", r.out);
    else
        CU_ASSERT_EQUAL(r.status, 0); /* anything else is the script's own failure */
    mb_test_run_free(&r);
    return can;
}

#define COMMON                                                                                  \
    "--data synthetic:n=4000,test=100,c=1,h=12,w=12,classes=4,seed=2 --algo sgd-sync "          \
    "--batch 32 --lr 0.05 --seed 1 --threads 1 --eval-every 20 --no-test-eval "

/* Bytes node `i` sent, from netns.sh's "node I: sent S received R" lines; -1 when absent. */
static double sent(const char *out, int i)
{
    char key[32];
    snprintf(key, sizeof key, "node %d: sent ", i);
    const char *p = strstr(out, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

static int exists(const char *fmt, const char *a)
{
    char p[512];
    snprintf(p, sizeof p, fmt, a);
    FILE *f = fopen(p, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* sgd-sync over 2 nodes: it trains, the gradients cross the links, each rank's part is on its
 * own node; then --resume across the nodes finishes with a straight run's rows. */
static void test_sgd_sync_nodes(void)
{
    if (!nodes_here())
        return;
    mb_test_run r;
    /* 40 updates, a checkpoint every 20, into each node's own folder (DIR/n/local) */
    if (!mb_test_sh_ok(&r, NODES_ENV "bash tests/nodes/netns.sh run %s/n 2 100mbit mbtrain "
                       "--net %s " COMMON "--max-updates 40 --checkpoint %s/n/local/ck "
                       "--checkpoint-every 20 --log %s/n/local/a.csv", dir, net, dir, dir)) {
        mb_test_run_free(&r);
        return;
    }
    /* 38,148 parameters: a ring allreduce of P = 2 sends each node's n floats an update */
    double floats = 12 * 12 * 256 + 256 + 256 * 4 + 4;
    for (int i = 1; i <= 2; i++) {
        double s = sent(r.out, i);
        CU_ASSERT_TRUE(s >= 40 * 4 * floats);
        if (!(s >= 40 * 4 * floats))
            fprintf(stderr, "\n  node %d sent %.0f bytes, want >= %.0f:\n%s", i, s,
                    40 * 4 * floats, r.out);
    }
    /* it trained: 4 classes start near ln 4 = 1.39 */
    const char *e = strstr(r.out, " eval_loss=");
    CU_ASSERT_PTR_NOT_NULL(e);
    CU_ASSERT_TRUE(e && strtod(e + 11, NULL) < 0.6);
    mb_test_run_free(&r);
    /* nothing of one node on the other: the log and PATH on node 1, rank R's part on node R+1 */
    CU_ASSERT_TRUE(exists("%s/n/node1/a.csv", dir));
    CU_ASSERT_TRUE(exists("%s/n/node1/ck", dir));
    CU_ASSERT_TRUE(exists("%s/n/node1/ck.learners.rank0", dir));
    CU_ASSERT_TRUE(exists("%s/n/node2/ck.learners.rank1", dir));
    CU_ASSERT_FALSE(exists("%s/n/node2/ck", dir));
    CU_ASSERT_FALSE(exists("%s/n/node2/a.csv", dir));
    CU_ASSERT_FALSE(exists("%s/n/node1/ck.learners.rank1", dir));
    CU_ASSERT_FALSE(exists("%s/n/node2/ck.learners.rank0", dir));
    CU_ASSERT_FALSE(exists("%s/n/local/ck", dir));

    /* resumed across the nodes to 60 updates: the rows of a straight run of 2 learners
     * (threads, one process) to the digit (update, epoch, samples, loss, eval loss, accuracy;
     * a sum of two is the same in either order) */
    if (mb_test_sh_ok(&r, NODES_ENV "bash tests/nodes/netns.sh run %s/n 2 100mbit mbtrain "
                      "--net %s " COMMON "--max-updates 60 --resume %s/n/local/ck "
                      "--log %s/n/local/b.csv", dir, net, dir, dir)) {
        mb_test_run_free(&r);
        mb_test_sh_ok(&r, "cd %s && mbtrain --net %s " COMMON "--learners 2 --max-updates 60 "
                      "--log s.csv > /dev/null && grep -v '^#' s.csv | cut -d, -f1-3,5-7 > s.rows "
                      "&& grep -v '^#' n/node1/b.csv | cut -d, -f1-3,5-7 > b.rows && "
                      "test $(wc -l < b.rows) = 61 && cmp s.rows b.rows", dir, net);
    }
    mb_test_run_free(&r);
}

/* A node whose part of the checkpoint is gone: the resume ends at once, one line naming rank 1
 * and its part, a non-zero status, no log. */
static void test_resume_part_missing(void)
{
    if (!nodes_here())
        return;
    mb_test_run r;
    if (!exists("%s/n/node2/ck.learners.rank1", dir)) /* the test above did not get there */
        return;
    mb_test_sh(&r, "rm -f %s/n/node2/ck.learners.rank1*", dir);
    mb_test_run_free(&r);
    mb_test_sh(&r, NODES_ENV "bash tests/nodes/netns.sh run %s/n 2 100mbit mbtrain --net %s "
               COMMON "--max-updates 80 --resume %s/n/local/ck --log %s/n/local/c.csv 2>&1",
               dir, net, dir, dir);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    size_t lines = 0;
    for (const char *p = r.out; (p = strstr(p, "mbtrain:")) != NULL; p++)
        lines++;
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "mbtrain: rank 1: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "ck.learners.rank1"));
    if (lines != 1 || !strstr(r.out, "mbtrain: rank 1: "))
        fprintf(stderr, "\n  resume without rank 1's part said:\n%s", r.out);
    CU_ASSERT_FALSE(exists("%s/n/node1/c.csv", dir));
    mb_test_run_free(&r);
}

/* A checkpoint folder that only node 1 has: refused before training, in one line from rank 1
 * (each rank checks the folder its part goes to). */
static void test_folder_on_one_node(void)
{
    if (!nodes_here())
        return;
    mb_test_run r;
    mb_test_sh(&r, "mkdir -p %s/f/node1/sub && " NODES_ENV "bash tests/nodes/netns.sh run %s/f 2 "
               "100mbit mbtrain --net %s " COMMON "--max-updates 40 --checkpoint %s/f/local/sub/ck "
               "--checkpoint-every 20 --log %s/f/local/f.csv 2>&1", dir, dir, net, dir, dir);
    CU_ASSERT_NOT_EQUAL(r.status, 0);
    size_t lines = 0;
    for (const char *p = r.out; (p = strstr(p, "mbtrain:")) != NULL; p++)
        lines++;
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "mbtrain: rank 1: --checkpoint "));
    if (lines != 1 || !strstr(r.out, "mbtrain: rank 1: --checkpoint "))
        fprintf(stderr, "\n  a folder only node 1 has said:\n%s", r.out);
    CU_ASSERT_FALSE(exists("%s/f/node1/f.csv", dir));
    mb_test_run_free(&r);
}

/* A server algorithm across 2 nodes (easgd-async: the server on node 1, one learner on node
 * 2): the checkpoint is on the server's node alone, and the resume sends the learner its record
 * from there (no file on node 2). */
static void test_server_nodes(void)
{
    if (!nodes_here())
        return;
    mb_test_run r;
    const char *async = "--data synthetic:n=4000,test=100,c=1,h=12,w=12,classes=4,seed=2 "
                        "--algo easgd-async --batch 32 --lr 0.05 --seed 1 --threads 1 "
                        "--eval-every 20 --no-test-eval ";
    if (mb_test_sh_ok(&r, NODES_ENV "bash tests/nodes/netns.sh run %s/s 2 100mbit mbtrain "
                      "--net %s %s --max-updates 40 --checkpoint %s/s/local/ck "
                      "--checkpoint-every 20 > /dev/null", dir, net, async, dir)) {
        CU_ASSERT_TRUE(exists("%s/s/node1/ck.learners", dir));
        CU_ASSERT_FALSE(exists("%s/s/node2/ck.learners", dir));
        mb_test_run_free(&r);
        mb_test_sh_ok(&r, NODES_ENV "bash tests/nodes/netns.sh run %s/s 2 100mbit mbtrain "
                      "--net %s %s --max-updates 60 --resume %s/s/local/ck --log %s/s/local/r.csv "
                      "> /dev/null && grep -q '^# resumed_from=' %s/s/node1/r.csv && "
                      "test $(grep -vc '^#' %s/s/node1/r.csv) -ge 60", dir, net, async, dir, dir,
                      dir, dir);
    }
    mb_test_run_free(&r);
}

/* Parts of two checkpoints (issue 28): rank 1's part (and its .prev) replaced by another run's
 * of the same update; the resume refuses in one line from rank 1 naming its part, not mixing
 * two runs. Plain mpirun on this machine: no namespaces needed. */
static void test_parts_of_two_runs(void)
{
    mb_test_run r;
    if (mb_test_sh(&r, "command -v mpirun") != 0 || r.status != 0) {
        CU_FAIL("mpirun not found: make deps installs Open MPI");
        mb_test_run_free(&r);
        return;
    }
    mb_test_run_free(&r);
    const char *mpi = NODES_ENV "mpirun --allow-run-as-root --oversubscribe -np 2 mbtrain";
    if (mb_test_sh_ok(&r, "cd %s && for k in a b; do %s --net %s " COMMON "--max-updates 20 "
                      "--checkpoint $k.ck --checkpoint-every 10 > /dev/null 2>&1 || exit 1; "
                      "done && cp b.ck.learners.rank1 a.ck.learners.rank1 && "
                      "cp b.ck.learners.rank1.prev a.ck.learners.rank1.prev", dir, mpi, net)) {
        mb_test_run_free(&r);
        mb_test_sh(&r, "cd %s && %s --net %s " COMMON "--max-updates 30 --resume a.ck "
                   "--log mixed.csv 2>&1", dir, mpi, net);
        CU_ASSERT_NOT_EQUAL(r.status, 0);
        size_t lines = 0;
        for (const char *p = r.out; (p = strstr(p, "mbtrain:")) != NULL; p++)
            lines++;
        CU_ASSERT_EQUAL(lines, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "mbtrain: rank 1: a.ck.learners.rank1: of update 20"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "the parts are of different checkpoints"));
        if (lines != 1 || !strstr(r.out, "different checkpoints"))
            fprintf(stderr, "\n  resume with another run's part said:\n%s", r.out);
        CU_ASSERT_FALSE(exists("%s/mixed.csv", dir));
    }
    mb_test_run_free(&r);
}

int mb_test_suite_train_nodes(void)
{
    CU_pSuite s = CU_add_suite("train_nodes", setup, teardown);
    if (!s || !CU_add_test(s, "sgd-sync across 2 network namespaces; resume, no shared files",
                           test_sgd_sync_nodes) ||
        !CU_add_test(s, "a node's checkpoint part missing", test_resume_part_missing) ||
        !CU_add_test(s, "checkpoint parts of two runs", test_parts_of_two_runs) ||
        !CU_add_test(s, "a server algorithm across 2 nodes; resume", test_server_nodes) ||
        !CU_add_test(s, "a checkpoint folder only one node has", test_folder_on_one_node))
        return 1;
    return 0;
}
