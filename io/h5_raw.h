/* The raw read of a large contiguous dataset (h5_raw.c; internal to the
 * readers): the bytes straight from the file by threads, where HDF5 would
 * copy them as stored, in one thread. */
#ifndef CMRS_H5_RAW_H
#define CMRS_H5_RAW_H

#include <hdf5.h>

#include "h5_util.h"

/* Elements [first, first + count) of a->dset into out with pread(2) by
 * threads, where that reads what H5Dread would: the dataset stored
 * contiguously (no chunks, filters or external files) in a file of HDF5's
 * default (sec2) driver, its type equal to mem_type (no conversion), at
 * least CMRS_H5_RAW_MIN bytes, and CMRS_H5_RAW is not "0"; returns 1.
 * Else 0, and out is to be read by HDF5: also where a read came short (a
 * truncated file: HDF5 then says so) or its first or last element
 * differs from HDF5's own read of it (checked every time). */
#define CMRS_H5_RAW_MIN ((int64_t)16 << 20)
/* CMRS_H5_RAW=all: any size (for tests, with CMRS_PARALLEL_GRAIN to split
 * small reads between threads). */
int cmrs_h5_raw_read(const cmrs_h5_array *a, hid_t mem_type, int64_t first,
                     int64_t count, void *out);

/* Reads this process made the raw way (for tests: which path ran). */
long cmrs_h5_raw_reads(void);

#endif
