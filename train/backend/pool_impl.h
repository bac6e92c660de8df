/* pool_impl.h — private to train/: a persistent pool of worker threads that a network owns
 * (mb_net_options.threads). One job at a time: mb_pool_run calls fn(ctx, w) for w = 0..n-1,
 * w = 0 on the calling thread and the others on the pool's threads, and returns when all have
 * returned. Workers spin briefly before sleeping on a condition variable, because a training
 * step of a small network at M = 1 takes about 1e-4 s and a condition-variable wake-up alone
 * costs tens of microseconds. Not a general scheduler: no queues, no nesting, one caller.
 */
#ifndef MB_POOL_IMPL_H
#define MB_POOL_IMPL_H

typedef struct mb_pool mb_pool;

/* A pool that can run jobs of up to `n` parallel parts (n - 1 threads are started; n <= 1 starts
 * none and mb_pool_run calls fn on the caller alone). MB_OK, or MB_ENOMEM when threads or memory
 * cannot be had (*pool is then NULL). */
int mb_pool_create(int n, mb_pool **pool);

/* Stops and joins the threads; NULL-safe. */
void mb_pool_free(mb_pool *pool);

/* Runs fn(ctx, w) for w = 0 .. n-1 (1 <= n <= the pool's threads), part 0 on the calling thread, and
 * returns after every part has returned; the parts' writes are visible to the caller then. */
void mb_pool_run(mb_pool *pool, int n, void (*fn)(void *ctx, int w), void *ctx);

#endif /* MB_POOL_IMPL_H */
