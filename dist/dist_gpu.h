/* The distributed back end on several GPUs of this process (--gpus N):
 * part p on device device0 + p with its own GPU back end (the SpMV format
 * `format`, its stream and cuBLAS handle), halos over NCCL
 * (exchange_nccl.c). Needs a build with nccl.h and libnccl.so.2 at run
 * time; CMRS_E_NODEVICE, in one line, where either or the GPUs are
 * missing. Every part must own rows (a GPU back end has at least one). */
#ifndef CMRS_DIST_DIST_GPU_H
#define CMRS_DIST_DIST_GPU_H

#include "dist.h"

typedef struct cmrs_dist_gpu_params {
    int ngpus;                /* parts, one per GPU: 2 .. CMRS_MAX_PARTS */
    int device0;              /* the first GPU */
    cmrs_part_method method;
    const char *format;       /* SpMV format of each part */
    cmrs_prec prec;
    const cmrs_spmv_opts *opts; /* NULL: the format's defaults */
} cmrs_dist_gpu_params;

cmrs_code cmrs_backend_dist_gpu_create(const cmrs_csr *A,
                                       const cmrs_dist_gpu_params *prm,
                                       cmrs_backend **out);

#endif
