/* The raw read of a large contiguous dataset (h5_raw.h). H5Dread of a
 * contiguous dataset whose type needs no conversion copies the stored bytes
 * into the caller's array in one thread: the kernel's copy from the page
 * cache and the first touch of the array's pages (the read phase of the
 * vessel 50M, 3.4 GB, took 3-4 s on the GPU machines). The same bytes,
 * located by H5Dget_offset, are read here by threads with pread(2), each
 * into its own share of the array. */
#define _GNU_SOURCE /* pread's declaration under -std=c11 */
#include "h5_raw.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/thread.h"

/* Bytes a thread reads at least. */
#define RAW_GRAIN ((int64_t)8 << 20)

typedef struct raw_job {
    int fd;
    int64_t at;       /* the first byte's offset in the file */
    char *out;
    int failed[CMRS_PARALLEL_CHUNKS]; /* a chunk's short read or error */
} raw_job;

/* Bytes [lo, hi) of the range, into out + lo. */
static void read_chunk(void *ctx, int t, int64_t lo, int64_t hi)
{
    raw_job *j = ctx;
    while (lo < hi) {
        ssize_t got = pread(j->fd, j->out + lo, (size_t)(hi - lo),
                            (off_t)(j->at + lo));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            j->failed[t] = 1;
            return;
        }
        lo += got;
    }
}

/* Where a->dset's element 0 lies in its file (the address H5Dget_offset
 * gives counts a user block in: a 512-byte one moved every read by 512
 * bytes when added), and *fd the descriptor HDF5's sec2 driver reads the
 * file through (open while the dataset is; pread moves no file offset),
 * or -1 where the raw read would not read what H5Dread does. */
static int64_t raw_offset(const cmrs_h5_array *a, hid_t mem_type,
                          int64_t end_bytes, int *fd)
{
    hid_t d = (hid_t)a->dset, dcpl = H5Dget_create_plist(d);
    hid_t type = H5Dget_type(d), file = H5Iget_file_id(d);
    hid_t fapl = file >= 0 ? H5Fget_access_plist(file) : -1;
    haddr_t addr = H5Dget_offset(d);
    void *handle = NULL;
    int ok = dcpl >= 0 && type >= 0 && fapl >= 0 &&
             H5Pget_layout(dcpl) == H5D_CONTIGUOUS &&
             H5Pget_nfilters(dcpl) == 0 && H5Pget_external_count(dcpl) == 0 &&
             H5Tequal(type, mem_type) > 0 &&
             H5Pget_driver(fapl) == H5FD_SEC2 && addr != HADDR_UNDEF &&
             H5Dget_storage_size(d) >= (hsize_t)end_bytes;
    ok = ok && H5Fget_vfd_handle(file, fapl, &handle) >= 0 && handle;
    if (ok) *fd = *(const int *)handle;
    if (fapl >= 0) H5Pclose(fapl);
    if (file >= 0) H5Fclose(file); /* an id of the file, not the file */
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return ok ? (int64_t)addr : -1;
}

static atomic_long g_raw_reads;

long cmrs_h5_raw_reads(void)
{
    return atomic_load(&g_raw_reads);
}

/* Whether a read of `bytes` may go the raw way (CMRS_H5_RAW). */
static int raw_wanted(int64_t bytes)
{
    const char *env = getenv("CMRS_H5_RAW");
    if (env && strcmp(env, "0") == 0) return 0;
    return bytes >= CMRS_H5_RAW_MIN || (env && strcmp(env, "all") == 0);
}

/* Element k of a->dset as HDF5 reads it equals `got` (elem bytes): the
 * raw read's ends checked, so that an offset HDF5 means otherwise than
 * read here shows instead of passing wrong values on. */
static int same_as_hdf5(const cmrs_h5_array *a, hid_t mem_type, int64_t k,
                        const char *got, int64_t elem)
{
    char want[16];
    return elem <= (int64_t)sizeof want &&
           cmrs_h5_array_read_element(a, mem_type, k, want) &&
           memcmp(want, got, (size_t)elem) == 0;
}

int cmrs_h5_raw_read(const cmrs_h5_array *a, hid_t mem_type, int64_t first,
                     int64_t count, void *out)
{
    const int64_t elem = (int64_t)H5Tget_size(mem_type);
    const int64_t bytes = count * elem;
    int fd = -1;
    if (elem <= 0 || bytes <= 0 || !raw_wanted(bytes)) return 0;
    const int64_t at = raw_offset(a, mem_type, (first + count) * elem, &fd);
    if (at < 0 || fd < 0) return 0; /* HDF5 reads it its way */
    raw_job j = {.fd = fd, .at = at + first * elem, .out = out};
    const int nt = cmrs_parallel_threads(bytes, RAW_GRAIN);
    cmrs_parallel_ranges(bytes, nt, read_chunk, &j);
    for (int t = 0; t < nt; ++t)
        if (j.failed[t]) return 0; /* HDF5 reads, or says why not */
    const char *o = out;
    if (!same_as_hdf5(a, mem_type, first, o, elem) ||
        !same_as_hdf5(a, mem_type, first + count - 1,
                      o + (count - 1) * elem, elem))
        return 0; /* not HDF5's bytes: HDF5 reads them */
    atomic_fetch_add(&g_raw_reads, 1);
    return 1;
}
