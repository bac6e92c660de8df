/* backend.c — the backend registry and the context: the one place that knows whether CUDA was
 * built (every other file asks here instead of testing MB_HAVE_CUDA itself), the context that
 * binds a backend, its device and a thread pool, and the context's public face (memory, copies,
 * convolution algorithms and plans) over the backend's operations (backend_impl.h).
 *
 * Does not: compute anything itself (train/backend/cpu/, train/backend/cuda/ do), or know about networks.
 */
#include "backend_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if MB_HAVE_CUDA
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* The CUDA backend is a shared object of its own (libmbkit-cuda.so: train/backend/cuda/ with
 * cuBLAS and cuDNN), loaded the first time CUDA is asked about: linked into every command, those
 * libraries cost each mbtrain start 0.06 s and 155 MB, and make run starts about 150 (docs/
 * results.md, "Data-set loading"). It is looked for in lib/ beside the running command's bin/,
 * then where this build put it (MB_CUDA_PLUGIN); the first that exists is the one, and it must be
 * a regular file (dlopen would wait on a FIFO forever): a broken plugin is named, never passed
 * over for another. It takes mb_error_set and the convolution geometry from the command that
 * loads it (exported by the link, Makefile). */
#ifndef MB_CUDA_PLUGIN
#define MB_CUDA_PLUGIN ""
#endif
#define NOT_LOADED "the CUDA backend could not be loaded: "
static struct {
    pthread_once_t once;
    const mb_backend_ops *ops;
    int (*device_count)(char *why, size_t n);
    char why[400];
} cuda = {.once = PTHREAD_ONCE_INIT};

#if defined(__x86_64__)
#define MB_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define MB_ELF_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define MB_ELF_MACHINE EM_PPC64
#endif

/* 1 when `path` (size bytes) is a whole 64-bit ELF shared object of this machine: its header,
 * every program header's file range and the section header table lie within the file. Else 0
 * with why. dlopen does not check this: it maps each segment by its headers, past the end of a
 * cut-short file (an interrupted copy or install), and the first touch of those pages (glibc
 * zeroing the tail of .bss) is SIGBUS, not an error (campaign 17's F3). */
static int elf_whole(const char *path, off_t size, char *why, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return 0;
    }
    Elf64_Ehdr h;
    uint64_t fsz = (uint64_t)size, need = 0; /* need: where the last range ends (past fsz: cut) */
    int ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 &&
             h.e_ident[EI_CLASS] == ELFCLASS64 && h.e_type == ET_DYN &&
#ifdef MB_ELF_MACHINE
             h.e_machine == MB_ELF_MACHINE &&
#endif
             h.e_phentsize == sizeof(Elf64_Phdr) && h.e_phnum > 0 &&
             (h.e_shnum == 0 || h.e_shentsize == sizeof(Elf64_Shdr)) &&
             h.e_phoff < UINT64_C(1) << 62 && h.e_shoff < UINT64_C(1) << 62;
    if (ok) { /* the two tables, then every segment's bytes */
        uint64_t ph_end = h.e_phoff + (uint64_t)h.e_phnum * sizeof(Elf64_Phdr);
        uint64_t sh_end = h.e_shoff + (uint64_t)h.e_shnum * sizeof(Elf64_Shdr);
        need = ph_end > sh_end ? ph_end : sh_end;
        ok = need <= fsz && fseeko(f, (off_t)h.e_phoff, SEEK_SET) == 0;
        for (unsigned i = 0; ok && i < h.e_phnum; i++) {
            Elf64_Phdr p;
            ok = fread(&p, sizeof p, 1, f) == 1 && p.p_offset < UINT64_C(1) << 62 &&
                 p.p_filesz < UINT64_C(1) << 62;
            if (ok && p.p_offset + p.p_filesz > need)
                need = p.p_offset + p.p_filesz;
        }
        ok = ok && need <= fsz;
    }
    fclose(f);
    if (!ok && need > fsz)
        snprintf(why, n, "%s: truncated or not a shared library (%llu bytes; its headers and "
                 "segments need %llu)", path, (unsigned long long)fsz, (unsigned long long)need);
    else if (!ok)
        snprintf(why, n, "%s: truncated or not a shared library (no 64-bit ELF shared object "
                 "header for this machine)", path);
    return ok;
}

/* 1 when `path` (size bytes) is the plugin this build wrote: its size and CRC-32 (zlib's) are
 * those the build put beside it in PATH.crc ("SIZE CRC"). Else 0 with why. A whole ELF file
 * with damage inside (a flipped byte in its dynamic section, a program header that lies) passes
 * elf_whole, and dlopen then dies of SIGSEGV inside the dynamic loader, not with an error
 * (campaign 18): no reading of ELF's tables short of the loader's own can rule that out, and a
 * checksum of the whole file can. */
/* why (n bytes) from fmt; returns 0, plugin_sum's "no" (a message cut at n still names the file
 * first). */
static int refuse(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return 0;
}

static int plugin_sum(const char *path, off_t size, char *why, size_t n)
{
    char sum[PATH_MAX + 8];
    snprintf(sum, sizeof sum, "%s.crc", path);
    struct stat st;
    FILE *f = NULL;
    unsigned long long want_size = 0;
    unsigned long want_crc = 0;
    char extra;
    const char *bad = stat(sum, &st) != 0              ? strerror(errno)
                      : !S_ISREG(st.st_mode)           ? "not a regular file"
                      : st.st_size > 64                ? "not 'SIZE CRC'"
                      : !(f = fopen(sum, "r"))         ? strerror(errno)
                      : fscanf(f, "%llu %lu %c", &want_size, &want_crc, &extra) != 2
                          ? "not 'SIZE CRC'"
                          : NULL;
    if (f)
        fclose(f);
    if (bad) {
        return refuse(why, n, "%s: no checksum beside it (.crc: %s; the build writes the "
                      "plugin's size and CRC-32 there, and a plugin without them is not known "
                      "to be whole)", path, bad);
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    unsigned char buf[65536];
    size_t k;
    int ok = (f = fopen(path, "rb")) != NULL;
    while (ok && (k = fread(buf, 1, sizeof buf, f)) > 0)
        crc = crc32(crc, buf, (uInt)k);
    ok = ok && !ferror(f);
    if (f)
        fclose(f);
    if (!ok || want_size != (unsigned long long)size || want_crc != crc) {
        return refuse(why, n, "%s: damaged or not this build's plugin (%lld bytes, CRC-32 %lu; "
                      "its .crc says %llu bytes, %lu)", path, (long long)size,
                      (unsigned long)crc, want_size, want_crc);
    }
    return 1;
}

/* Opens the plugin at `path` (a regular file) and finds its two symbols, or says why not. */
static void cuda_open(const char *path, const struct stat *st)
{
    if (!S_ISREG(st->st_mode)) {
        snprintf(cuda.why, sizeof cuda.why, NOT_LOADED "%s: not a regular file", path);
        return;
    }
    char why[sizeof cuda.why - sizeof NOT_LOADED];
    if (!elf_whole(path, st->st_size, why, sizeof why) ||
        !plugin_sum(path, st->st_size, why, sizeof why)) {
        snprintf(cuda.why, sizeof cuda.why, NOT_LOADED "%s", why);
        return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(cuda.why, sizeof cuda.why, NOT_LOADED "%s", e ? e : path);
        return;
    }
    cuda.ops = (const mb_backend_ops *)dlsym(h, "mb_backend_cuda");
    *(void **)&cuda.device_count = dlsym(h, "mb_cuda_device_count");
    if (!cuda.ops || !cuda.device_count) {
        snprintf(cuda.why, sizeof cuda.why, NOT_LOADED "%s: not mbkit's CUDA backend", path);
        cuda.ops = NULL;
    }
}

static void cuda_load(void)
{
    char exe[PATH_MAX], beside[PATH_MAX + 32] = "";
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = k > 0 ? (exe[k] = '\0', strrchr(exe, '/')) : NULL;
    if (slash) {
        *slash = '\0';
        snprintf(beside, sizeof beside, "%s/../lib/libmbkit-cuda.so", exe);
    }
    const char *cand[2] = {beside, MB_CUDA_PLUGIN};
    for (int i = 0; i < 2; i++) {
        struct stat st; /* a link to nothing is there, and broken: never passed over (N8) */
        if (!*cand[i] || (lstat(cand[i], &st) != 0 && errno == ENOENT))
            continue;
        if (stat(cand[i], &st) != 0)
            snprintf(cuda.why, sizeof cuda.why, NOT_LOADED "%s: %s", cand[i], strerror(errno));
        else
            cuda_open(cand[i], &st);
        return;
    }
    snprintf(cuda.why, sizeof cuda.why, NOT_LOADED "no libmbkit-cuda.so beside the command (%s) "
             "or in the build (%s)", beside, MB_CUDA_PLUGIN);
}

/* The loaded backend's operations, or NULL with why. */
static const mb_backend_ops *cuda_ops(char *why, size_t n)
{
    pthread_once(&cuda.once, cuda_load);
    if (!cuda.ops && n)
        snprintf(why, n, "%s", cuda.why);
    return cuda.ops;
}
#endif

/* ---- registry -------------------------------------------------------------------------------- */

int mb_train_backend_built(mb_backend_kind kind)
{
    switch (kind) {
    case MB_BACKEND_CPU: return 1;
    case MB_BACKEND_CUDA: return MB_HAVE_CUDA;
    }
    return 0;
}

int mb_train_backend_usable(mb_backend_kind kind, char *why, size_t n)
{
    if (n)
        why[0] = '\0';
    switch (kind) {
    case MB_BACKEND_CPU: return 1;
    case MB_BACKEND_CUDA:
#if MB_HAVE_CUDA
        return cuda_ops(why, n) && cuda.device_count(why, n) > 0;
#else
        snprintf(why, n, "built without CUDA (nvcc not found, or CUDA=0)");
        return 0;
#endif
    }
    snprintf(why, n, "unknown backend");
    return 0;
}

const char *mb_backend_name(mb_backend_kind kind)
{
    switch (kind) {
    case MB_BACKEND_CPU: return "cpu";
    case MB_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

int mb_backend_parse(const char *name, mb_backend_kind *kind)
{
    if (name && strcmp(name, "cpu") == 0)
        *kind = MB_BACKEND_CPU;
    else if (name && strcmp(name, "cuda") == 0)
        *kind = MB_BACKEND_CUDA;
    else
        return MB_EINVAL;
    return MB_OK;
}

/* The operations of a built backend, NULL when it was not built. */
static const mb_backend_ops *backend_ops(mb_backend_kind kind)
{
    switch (kind) {
    case MB_BACKEND_CPU: return &mb_backend_cpu;
    case MB_BACKEND_CUDA:
#if MB_HAVE_CUDA
        return cuda_ops(NULL, 0);
#else
        return NULL;
#endif
    }
    return NULL;
}

/* ---- contexts -------------------------------------------------------------------------------- */

void mb_ctx_options_init(mb_ctx_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = MB_BACKEND_CPU;
    o->threads = 1;
    o->blas_threads = 1;
}

int mb_ctx_create(const mb_ctx_options *o, mb_ctx **out, mb_error *err)
{
    *out = NULL;
    if (o->threads < 0 || o->threads > MB_CTX_MAX_THREADS)
        return mb_error_set(err, MB_EINVAL, "threads %d: need 0 .. %d", o->threads,
                            MB_CTX_MAX_THREADS);
    if (o->blas_threads < 0 || o->blas_threads > MB_CTX_MAX_THREADS || o->device < 0)
        return mb_error_set(err, MB_EINVAL, "BLAS threads %d or device %d: out of range",
                            o->blas_threads, o->device);
    char why[400];
    if (!mb_train_backend_usable(o->backend, why, sizeof why))
        return mb_error_set(err, MB_ENOTSUP, "backend %s: %s", mb_backend_name(o->backend), why);
    mb_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return mb_error_set(err, MB_ENOMEM, "context: out of memory");
    ctx->ops = backend_ops(o->backend);
    ctx->kind = o->backend;
    ctx->device = o->device;
    ctx->threads = o->threads > 1 ? o->threads : 1;
    ctx->blas_threads = o->blas_threads > 1 ? o->blas_threads : 1;
    int rc = ctx->ops->open(ctx, err);
    if (rc != MB_OK) {
        free(ctx);
        return rc;
    }
    if (mb_pool_create(ctx->threads, &ctx->pool) != MB_OK) {
        ctx->ops->close(ctx);
        free(ctx);
        return mb_error_set(err, MB_ENOMEM, "context: could not start %d threads", o->threads);
    }
    *out = ctx;
    return MB_OK;
}

void mb_ctx_free(mb_ctx *ctx)
{
    if (!ctx)
        return;
    mb_pool_free(ctx->pool);
    ctx->ops->close(ctx);
    free(ctx);
}

mb_backend_kind mb_ctx_backend(const mb_ctx *ctx) { return ctx->kind; }
const char *mb_ctx_device_name(const mb_ctx *ctx) { return ctx->device_name; }
int mb_ctx_threads(const mb_ctx *ctx) { return ctx->threads; }
int mb_ctx_host_memory(const mb_ctx *ctx) { return ctx->ops->host_memory; }

void mb_ctx_run(mb_ctx *ctx, int parts, void (*fn)(void *arg, int w), void *arg)
{
    mb_pool_run(ctx->pool, parts, fn, arg);
}

void mb_ctx_sync(mb_ctx *ctx) { ctx->ops->sync(ctx); }
void *mb_ctx_alloc(mb_ctx *ctx, size_t bytes) { return ctx->ops->alloc(ctx, bytes ? bytes : 1); }

void mb_ctx_release(mb_ctx *ctx, void *p)
{
    if (p)
        ctx->ops->release(ctx, p);
}

int mb_ctx_upload(mb_ctx *ctx, void *dst, const void *host, size_t bytes)
{
    return ctx->ops->upload(ctx, dst, host, bytes);
}

int mb_ctx_download(mb_ctx *ctx, void *host, const void *src, size_t bytes)
{
    return ctx->ops->download(ctx, host, src, bytes);
}

/* ---- convolutions ---------------------------------------------------------------------------- */

struct mb_ctx_conv {
    mb_ctx *ctx;
    int algo[3];          /* per pass */
    void *plan;           /* the backend's plan */
};

static int pass_ok(mb_conv_pass pass)
{
    return pass >= MB_PASS_FORWARD && pass <= MB_PASS_BACKWARD_FILTER;
}

int mb_ctx_conv_algo_count(const mb_ctx *ctx, mb_conv_pass pass)
{
    return pass_ok(pass) ? ctx->ops->conv_algo_count(pass) : 0;
}

const char *mb_ctx_conv_algo_name(const mb_ctx *ctx, mb_conv_pass pass, int algo)
{
    if (algo < 0 || algo >= mb_ctx_conv_algo_count(ctx, pass))
        return "unknown";
    return ctx->ops->conv_algo_name(pass, algo);
}

int mb_ctx_conv_algo_find(const mb_ctx *ctx, mb_conv_pass pass, const char *name)
{
    for (int a = 0; name && a < mb_ctx_conv_algo_count(ctx, pass); a++)
        if (strcmp(ctx->ops->conv_algo_name(pass, a), name) == 0)
            return a;
    return -1;
}

int mb_ctx_conv_algo_default(mb_ctx *ctx, mb_conv_pass pass, const mb_conv_shape *s)
{
    return ctx->ops->conv_default(ctx, pass, s);
}

int mb_ctx_conv_supported(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s,
                          char *why, size_t n)
{
    if (algo < 0 || algo >= mb_ctx_conv_algo_count(ctx, pass)) {
        if (n)
            snprintf(why, n, "algorithm %d: not one of the %s backend's", algo, ctx->ops->name);
        return 0;
    }
    return ctx->ops->conv_supported(ctx, pass, algo, s, why, n);
}

size_t mb_ctx_conv_workspace(mb_ctx *ctx, mb_conv_pass pass, int algo, const mb_conv_shape *s)
{
    if (!mb_ctx_conv_supported(ctx, pass, algo, s, NULL, 0))
        return 0;
    return ctx->ops->conv_workspace(ctx, pass, algo, s);
}

int mb_ctx_conv_create(mb_ctx *ctx, const mb_conv_shape *s, const int algo[3],
                       mb_ctx_conv **out, mb_error *err)
{
    *out = NULL;
    for (int p = 0; p < 3; p++)
        if (algo[p] < 0 || algo[p] >= mb_ctx_conv_algo_count(ctx, (mb_conv_pass)p))
            return mb_error_set(err, MB_EINVAL, "%s: algorithm %d is not one of the %s backend's",
                                mb_conv_pass_name((mb_conv_pass)p), algo[p], ctx->ops->name);
    mb_ctx_conv *c = calloc(1, sizeof *c);
    if (!c)
        return mb_error_set(err, MB_ENOMEM, "convolution plan: out of memory");
    c->ctx = ctx;
    memcpy(c->algo, algo, sizeof c->algo);
    int rc = ctx->ops->conv_plan_create(ctx, s, algo, &c->plan, err);
    if (rc != MB_OK) {
        free(c);
        return rc;
    }
    *out = c;
    return MB_OK;
}

void mb_ctx_conv_free(mb_ctx_conv *c)
{
    if (!c)
        return;
    c->ctx->ops->conv_plan_free(c->ctx, c->plan);
    free(c);
}

int mb_ctx_conv_forward(const mb_ctx_conv *c, int batch, const float *x, const float *w,
                        const float *b, float *y, void *ws)
{
    return c->ctx->ops->conv_forward(c->ctx, c->plan, batch, x, w, b, y, ws);
}

int mb_ctx_conv_backward_data(const mb_ctx_conv *c, int batch, const float *dy, const float *w,
                              float *dx, void *ws)
{
    return c->ctx->ops->conv_backward_data(c->ctx, c->plan, batch, dy, w, dx, ws);
}

int mb_ctx_conv_backward_filter(const mb_ctx_conv *c, int batch, const float *x,
                                const float *dy, float *dw, float *db, void *ws)
{
    return c->ctx->ops->conv_backward_filter(c->ctx, c->plan, batch, x, dy, dw, db, ws);
}
