/* NCCL (the halo exchange of several GPUs, dist/exchange_nccl.c) through
 * the loader of cuda_dl.h, with nccl.h's prototypes. Built only when
 * CMake found nccl.h (CMRS_HAVE_NCCL); add a function here when the code
 * calls a new one. */
#ifdef CMRS_HAVE_NCCL
#include <nccl.h>

#include "cuda_dl.h"

#define CMRS_DL_THIS CMRS_DL_NCCL
#define CMRS_DL_FNS nccl_fns
#define NOT_LOADED ncclSystemError

#define NCCL_FUNCS(X)                                                       \
    X(ncclResult_t, ncclCommInitAll,                                        \
      (ncclComm_t * comm, int ndev, const int *devlist),                    \
      (comm, ndev, devlist), NOT_LOADED)                                    \
    X(ncclResult_t, ncclCommDestroy, (ncclComm_t comm), (comm), NOT_LOADED) \
    X(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * id), (id), NOT_LOADED) \
    X(ncclResult_t, ncclCommInitRank,                                       \
      (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank),           \
      (comm, nranks, id, rank), NOT_LOADED)                                 \
    X(ncclResult_t, ncclGroupStart, (void), (), NOT_LOADED)                 \
    X(ncclResult_t, ncclGroupEnd, (void), (), NOT_LOADED)                   \
    X(ncclResult_t, ncclSend,                                               \
      (const void *sendbuff, size_t count, ncclDataType_t datatype,         \
       int peer, ncclComm_t comm, cudaStream_t stream),                     \
      (sendbuff, count, datatype, peer, comm, stream), NOT_LOADED)          \
    X(ncclResult_t, ncclRecv,                                               \
      (void *recvbuff, size_t count, ncclDataType_t datatype, int peer,     \
       ncclComm_t comm, cudaStream_t stream),                               \
      (recvbuff, count, datatype, peer, comm, stream), NOT_LOADED)          \
    X(ncclResult_t, ncclAllReduce,                                          \
      (const void *sendbuff, void *recvbuff, size_t count,                  \
       ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,            \
       cudaStream_t stream),                                                \
      (sendbuff, recvbuff, count, datatype, op, comm, stream), NOT_LOADED)  \
    X(ncclResult_t, ncclReduce,                                             \
      (const void *sendbuff, void *recvbuff, size_t count,                  \
       ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,  \
       cudaStream_t stream),                                                \
      (sendbuff, recvbuff, count, datatype, op, root, comm, stream),        \
      NOT_LOADED)                                                           \
    X(ncclResult_t, ncclBroadcast,                                          \
      (const void *sendbuff, void *recvbuff, size_t count,                  \
       ncclDataType_t datatype, int root, ncclComm_t comm,                  \
       cudaStream_t stream),                                                \
      (sendbuff, recvbuff, count, datatype, root, comm, stream), NOT_LOADED) \
    X(const char *, ncclGetErrorString, (ncclResult_t result), (result),    \
      cmrs_dl_error(CMRS_DL_NCCL))

enum { NCCL_FUNCS(CMRS_DL_INDEX) NCCL_COUNT };
static const char *const nccl_names[] = {NCCL_FUNCS(CMRS_DL_NAME) NULL};
static cmrs_dl_fn nccl_fns[NCCL_COUNT];
const cmrs_dl_table cmrs_dl_nccl_table = {nccl_names, nccl_fns};

NCCL_FUNCS(CMRS_DL_DEFINE)
#else
typedef int cmrs_no_nccl; /* ISO C: a translation unit declares something */
#endif
