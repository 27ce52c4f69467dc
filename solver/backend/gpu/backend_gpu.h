/* Internal to the GPU back end (backend_gpu.c: the arithmetic ops;
 * backend_gpu_setup.c: creation, vectors, preconditioner, measurements). */
#ifndef CMRS_SOLVER_BACKEND_GPU_H
#define CMRS_SOLVER_BACKEND_GPU_H

#include <pthread.h>

#include "base/gpu/cuda_check.h"
#include "solver/amg/amg_builder.h"
#include "solver/backend/backend.h"

typedef struct gpu_impl {
    cmrs_spmv *spmv;        /* the chosen format, on `stream` */
    cudaStream_t stream;
    cublasHandle_t blas;    /* host pointer mode except inside resnorm;
                               made by the libraries thread: read only
                               after cmrs_gpu_libs_join */
    int have_stream, have_blas;
    pthread_t libs_thread;  /* backend_gpu_libs.c: cuBLAS loaded and
                               created beside A's upload and conversion */
    int libs_pending;       /* 1: the thread runs (join it) */
    int libs_device;        /* the creating thread's CUDA device */
    cmrs_code libs_rc;      /* the thread's result and message */
    char libs_msg[1024];
    pthread_t spgemm_thread; /* SpGEMM's first launch beside the first
                               level's aggregation, once a process */
    int spgemm_pending, spgemm_started;
    void *history_d;        /* residual norms, in the precision's type */
    void *history_h;        /* host copy of history_d, read once per solve */
    int64_t history_cap;
    void *scalar_h;         /* pinned: the norm read back each iteration */
    float *stage_h;         /* single precision: max_len floats for
                               set/get */
    int64_t max_len;        /* the longest kit array: max(rows, cols) of
                               A (a distributed part's A has its ghost
                               columns beyond its rows) */
    int32_t *diag_d;        /* n: CSR position of a_ii (-1: none), for
                               dinv_d; NULL when nnz exceeds int32 */
    double *diagval_d;      /* n: a_ii at creation (0: none), and the
                               smallest row whose a_ii is missing or not
                               > 0 (~0: none): found by the format's setup
                               (cmrs_diag_d), or NULL: host scan */
    unsigned long long *diagbad_d;
    const cmrs_csr *diag_of;/* the host A they are of (own_dinv) */
    int diag_fresh;         /* 1 until the values change (own_dinv) */
    unsigned long long *flags_d, *flags_h; /* device-update error words:
                               two pairs (bad value, bad row) taken in
                               turn, then own_dinv's word; pinned copy */
    unsigned long long *flags_cur; /* the pair of the update under way */
    int flags_next;         /* the pair the next update takes, all ~0
                               unless flags_dirty (an update stopped
                               before its clean-up was queued) */
    int flags_dirty;
    int32_t *tile_rows_d;   /* the fused update's rows per tile of entries
                               (cmrs_gpu_tile_rows), and its refusal word */
    unsigned long long *tiles_bad_d;
    int64_t tiles_stored;   /* the store's length they were made for */
    const void *dinv_done;  /* D^-1 of dinv_of (values_d) written there
                               by the last update_values_d: dinv_d of the
                               same pair has nothing left to do (once) */
    const void *dinv_of;
    cmrs_backend *parent;   /* a twin (twin_create) of the same A: the
                               back end it was made from, whose double
                               format gives the AMG its fine level; else
                               NULL */
} gpu_impl;

#define GPU(be) ((gpu_impl *)(be)->impl)
#define IS_SINGLE(be) ((be)->prec == CMRS_PREC_SINGLE)
#define VBYTES(be) cmrs_prec_value_bytes((be)->prec)

/* The libraries thread (backend_gpu_libs.c). start: the handle made
 * (blas, have_blas) on g->stream, which must exist, in a helper thread
 * (in this one if no thread can start); fails only if the current device
 * cannot be read. wait: joins it if it runs (the wait charged to the
 * profile's libraries phase); every path that frees g waits first. join:
 * wait, then the helper's failure re-raised here (its code and message:
 * "cannot load cuBLAS ..." and the like). */
cmrs_code cmrs_gpu_libs_start(gpu_impl *g);
/* The SpGEMM warm-up (AMG's coarse_prepare): its kernels' first launches
 * in a helper thread while the first level is aggregated, once a process
 * and device; nothing if it started. join: waits for it (it takes scratch
 * from the AMG setup's pool, which the setup's end trims: joined before;
 * and before the back end is freed). */
void cmrs_gpu_spgemm_warm_start(gpu_impl *g);
void cmrs_gpu_spgemm_warm_join(gpu_impl *g);
void cmrs_gpu_libs_wait(gpu_impl *g);
/* g's cuBLAS handle back to the process's handles of device d (kept for
 * the next back end there, 2 at most, or destroyed), its stream done. */
void cmrs_gpu_blas_give(int d, cublasHandle_t h);
cmrs_code cmrs_gpu_libs_join(gpu_impl *g);

/* The arithmetic ops (backend_gpu.c), installed by the setup file. */
cmrs_code cmrs_gpu_op_spmv(cmrs_backend *be, double alpha, const cmrs_vec *x,
                           double beta, cmrs_vec *y);
cmrs_code cmrs_gpu_op_dot(cmrs_backend *be, const cmrs_vec *x,
                          const cmrs_vec *y, double *out);
cmrs_code cmrs_gpu_op_nrm2(cmrs_backend *be, const cmrs_vec *x, double *out);
cmrs_code cmrs_gpu_op_axpy(cmrs_backend *be, double a, const cmrs_vec *x,
                           cmrs_vec *y);
cmrs_code cmrs_gpu_op_scal(cmrs_backend *be, double a, cmrs_vec *x);
cmrs_code cmrs_gpu_op_copy(cmrs_backend *be, const cmrs_vec *x, cmrs_vec *y);
cmrs_code cmrs_gpu_op_xpby(cmrs_backend *be, const cmrs_vec *x, double b,
                           cmrs_vec *y);
cmrs_code cmrs_gpu_op_resnorm(cmrs_backend *be, const cmrs_vec *r, int64_t k,
                              double *out);
cmrs_code cmrs_gpu_op_history_get(cmrs_backend *be, int64_t count,
                                  double *h);
cmrs_code cmrs_gpu_op_sync(cmrs_backend *be);

/* The device-values update (backend_gpu_update.c), as backend.h says;
 * its buffers made at creation and freed with the back end. */
cmrs_code cmrs_gpu_update_prepare(cmrs_backend *be, const cmrs_csr *A);
/* The same for a twin of p's matrix A: p's diagonal (positions, values,
 * flagged row) copied on the device, no host scan; where p has none,
 * cmrs_gpu_update_prepare. */
cmrs_code cmrs_gpu_update_prepare_from(cmrs_backend *be, const gpu_impl *p,
                                       const cmrs_csr *A);
void cmrs_gpu_update_free(gpu_impl *g);
cmrs_code cmrs_gpu_op_update_values_d(cmrs_backend *be, const void *values_d,
                                      void *dinv, int *in_place);
cmrs_code cmrs_gpu_op_dinv_d(cmrs_backend *be, const void *values_d,
                             void *dinv);
cmrs_code cmrs_gpu_op_update_check(cmrs_backend *be, int64_t *bad_value,
                                   int64_t *bad_row);
cmrs_code cmrs_gpu_op_values_get(cmrs_backend *be, double *values_h);
int cmrs_gpu_op_rows_nonempty(cmrs_backend *be);
cmrs_code cmrs_gpu_op_own_dinv(cmrs_backend *be, const cmrs_csr *A,
                               const char *what, void **dinv, int *done);

/* The preconditioners' kit (backend_gpu_kit.c), as backend.h describes;
 * float_error: arr_set's error for entry i (v) beyond single precision. */
cmrs_code cmrs_gpu_kit_float_error(int64_t i, double v);
cmrs_code cmrs_gpu_kit_arr_create(cmrs_backend *be, int64_t n, void **a);
void cmrs_gpu_kit_arr_destroy(cmrs_backend *be, void *a);
cmrs_code cmrs_gpu_kit_arr_set(cmrs_backend *be, int64_t n, void *a,
                               const double *h);
cmrs_code cmrs_gpu_kit_arr_start(cmrs_backend *be, int64_t n, void *a);
cmrs_code cmrs_gpu_kit_arr_get(cmrs_backend *be, int64_t n, const void *a,
                               double *h);
cmrs_code cmrs_gpu_kit_arr_dot(cmrs_backend *be, int64_t n, const void *x,
                               const void *y, double *out);
cmrs_code cmrs_gpu_kit_op_create(cmrs_backend *be, const cmrs_csr *M,
                                 const char *format, cmrs_op **op);
cmrs_code cmrs_gpu_kit_op_create_lmat(cmrs_backend *be, const cmrs_lmat *M,
                                      const char *format, cmrs_op **op);
void cmrs_gpu_kit_op_destroy(cmrs_backend *be, cmrs_op *op);
const char *cmrs_gpu_kit_op_format(const cmrs_op *op);
cmrs_code cmrs_gpu_kit_galerkin(cmrs_backend *be, const cmrs_csr *R,
                                const cmrs_csr *A, const cmrs_csr *P,
                                cmrs_csr *Ac);
/* amg_kit_gpu.c: the GPU's AMG level builder (amg_builder.h), the
 * coarsest level's inverse by the device sweep (amg_dense_gpu.c),
 * aggregation and smoothed levels
 * on the device, level matrices kept there; its table names the kit's
 * level-matrix ops above and below. */
extern const cmrs_amg_builder_ops cmrs_amg_builder_gpu;
cmrs_code cmrs_gpu_kit_dense_inverse(cmrs_backend *be, const cmrs_csr *A,
                                     double *inv, int *spd);
cmrs_code cmrs_gpu_kit_aggregate(cmrs_backend *be,
                                 const cmrs_amg_agg_method *m, cmrs_lmat *A,
                                 const cmrs_amg_params *p, int32_t *agg,
                                 int64_t *naggs, cmrs_lmat *P, cmrs_lmat *R,
                                 cmrs_lmat *Ac, void **agg_dev);
cmrs_code cmrs_gpu_kit_agg_fetch(cmrs_backend *be, const void *agg_dev,
                                 int32_t *agg, int64_t n);
void cmrs_gpu_kit_agg_dev_free(cmrs_backend *be, void *agg_dev);
cmrs_code cmrs_gpu_kit_sa_level(cmrs_backend *be, cmrs_lmat *A,
                                const int32_t *agg, int64_t naggs,
                                const cmrs_amg_params *p, cmrs_lmat *P,
                                cmrs_lmat *R, cmrs_lmat *Ac, int *done);
cmrs_code cmrs_gpu_kit_lmat_download(cmrs_backend *be, cmrs_lmat *M);
cmrs_code cmrs_gpu_kit_lmat_own(cmrs_backend *be, cmrs_lmat *M, int *ok);
void cmrs_gpu_kit_lmat_free_dev(cmrs_backend *be, void *dev);
cmrs_code cmrs_gpu_kit_lmat_dinv(cmrs_backend *be, const cmrs_lmat *M,
                                 void **dinv, int *ok);
cmrs_code cmrs_gpu_kit_lmat_rows(cmrs_backend *be, const cmrs_lmat *M,
                                 int64_t r0, int64_t r1, cmrs_lmat *S,
                                 cmrs_lmat *T, int *done);
cmrs_code cmrs_gpu_kit_sa_again(cmrs_backend *be, void **state,
                                 const cmrs_lmat *A, int own_a,
                                 const int32_t *agg, const void *agg_dev,
                                 int64_t naggs,
                                 const cmrs_amg_params *p, cmrs_lmat *P,
                                 cmrs_lmat *R, cmrs_lmat *Ac, int *done);
void cmrs_gpu_kit_sa_state_free(cmrs_backend *be, void *state);
cmrs_code cmrs_gpu_kit_coarse_update(cmrs_backend *be, const cmrs_lmat *M,
                                     cmrs_op *op, int *spd, int *done,
                                     int *in_place);
cmrs_code cmrs_gpu_kit_coarse_create(cmrs_backend *be, const cmrs_lmat *M,
                                     const char *format, cmrs_op **op,
                                     int *spd, int *done);
cmrs_code cmrs_gpu_kit_op_update(cmrs_backend *be, cmrs_op *op,
                                 const cmrs_lmat *M, int *done,
                                 int *in_place);
cmrs_code cmrs_gpu_kit_lmat_same(cmrs_backend *be, const cmrs_lmat *a,
                                 const cmrs_lmat *b, int *same);
cmrs_code cmrs_gpu_kit_op_apply(cmrs_backend *be, const cmrs_op *op,
                                double alpha, const void *x, double beta,
                                void *y);
cmrs_code cmrs_gpu_kit_dxpby(cmrs_backend *be, int64_t n, double alpha,
                             const void *d, const void *x, double beta,
                             void *y);

#endif
