/* dist_gpu.h in a build without CUDA (CMRS_CUDA=OFF): parts on GPUs
 * (--gpus N) fail with CMRS_E_NODEVICE (exit 4), saying why; parts on the
 * CPU (--parts) and on MPI ranks are built as in any build. */
#include "base/device.h"
#include "dist/dist_gpu.h"

cmrs_code cmrs_backend_dist_gpu_create(const cmrs_csr *A,
                                       const cmrs_dist_gpu_params *prm,
                                       cmrs_backend **out)
{
    (void)A;
    *out = NULL;
    CMRS_FAIL(CMRS_E_NODEVICE, "--gpus %d: %s", prm->ngpus,
              cmrs_gpu_missing());
}

cmrs_code cmrs_backend_dist_mpi_gpu_create(const cmrs_csr *A,
                                           const cmrs_dist_gpu_params *prm,
                                           const int64_t *comm_f,
                                           const int64_t *row0,
                                           cmrs_backend **out)
{
    (void)A, (void)prm, (void)comm_f, (void)row0;
    *out = NULL;
    CMRS_FAIL(CMRS_E_NODEVICE, "mpirun with GPUs: %s (run the ranks on the "
              "CPU: --device cpu)", cmrs_gpu_missing());
}
