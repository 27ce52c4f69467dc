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

/* Under MPI (initialised by the caller): a part per rank of the
 * communicator whose Fortran handle is *comm_f (NULL: MPI_COMM_WORLD),
 * each on a GPU of its node (the rank's place among the node's ranks,
 * from prm->device0, modulo the node's GPUs), the NCCL exchange with its
 * id broadcast over MPI (exchange.h). prm->ngpus is ignored (the ranks
 * decide). row0 NULL: every rank passes the whole A; else A is this
 * rank's rows from global row *row0 (rows mode, dist.h: blocks of the
 * ranks' rows, prm->method ignored). CMRS_E_USAGE where this build
 * lacks MPI or NCCL; CMRS_E_NODEVICE where NCCL or the GPUs are missing
 * at run time. */
cmrs_code cmrs_backend_dist_mpi_gpu_create(const cmrs_csr *A,
                                           const cmrs_dist_gpu_params *prm,
                                           const int64_t *comm_f,
                                           const int64_t *row0,
                                           cmrs_backend **out);

#endif
