/* Writes the seed corpus of fuzz_h5: one small valid file per layout, made
 * with the same helpers as the reader tests. Usage: seeds DIR */
#include <stdio.h>

#include "io/h5_make.h"

static char g_path[4096];

static const char *path_in(const char *dir, const char *name)
{
    snprintf(g_path, sizeof g_path, "%s/%s", dir, name);
    return g_path;
}

static int tagged(const char *path, const char *tag, const char *value,
                  const char *shape_name)
{
    hid_t f = h5m_create(path, 0);
    int64_t shape[2] = {4, 4};
    int rc = h5m_csr(f, "/A", H5T_STD_I32LE, H5T_STD_I64LE, H5T_IEEE_F32LE);
    rc |= h5m_attr_str(f, "/A", tag, value, 1);
    rc |= h5m_attr_ints(f, "/A", shape_name, H5T_STD_I64LE, shape, 2);
    rc |= h5m_write(f, "/b", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, k_b, 4);
    return h5m_close(f, rc);
}

int main(int argc, char **argv)
{
    const char *dir = h5m_dir_arg(argc, argv, "seeds");
    int rc = h5m_native(path_in(dir, "native.h5"), 1, 1);
    rc |= h5m_native(path_in(dir, "native_nob.h5"), 0, 0);
    rc |= h5m_matlab(path_in(dir, "matlab.mat"));
    rc |= tagged(path_in(dir, "anndata.h5"), "encoding-type", "csr_matrix",
                 "shape");
    rc |= tagged(path_in(dir, "h5sparse.h5"), "h5sparse_format", "csc",
                 "h5sparse_shape");
    if (rc) fprintf(stderr, "seeds: writing failed\n");
    return rc ? 1 : 0;
}
