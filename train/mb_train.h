/* mb_train.h — the trainer: tensors, layers, kernels, optimisers, parallel learners.
 *
 * For now this header holds only the backend registry: which compute backends were built and
 * can run here. The CPU backend is always present; CUDA is built when nvcc is found.
 */
#ifndef MB_TRAIN_H
#define MB_TRAIN_H

#include <stddef.h>

#include "../model/mb_model.h"

/* The compute backends mbkit knows. */
typedef enum mb_backend_kind {
    MB_BACKEND_CPU = 0,  /* OpenBLAS and FFTW on the host; always available */
    MB_BACKEND_CUDA = 1  /* cuBLAS and cuDNN on an NVIDIA device */
} mb_backend_kind;

/* 1 when the backend was compiled into this build. */
int mb_train_backend_built(mb_backend_kind kind);

/* 1 when the backend was built and can run here (for CUDA: a device is present); otherwise 0
 * with the reason in why (e.g. "built without CUDA (nvcc not found)", "CUDA runtime: no
 * device"). */
int mb_train_backend_usable(mb_backend_kind kind, char *why, size_t n);

#endif /* MB_TRAIN_H */
