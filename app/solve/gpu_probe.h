/* CUDA's start (the driver, then the device's primary context: 0.29-0.41 s
 * on the H100 machines, docs/BENCHMARKS.md "Cold start") in a helper
 * thread while `cmrs solve` reads its input, which needs no CUDA: a cold
 * solve pays the longer of the two instead of their sum. */
#ifndef CMRS_APP_GPU_PROBE_H
#define CMRS_APP_GPU_PROBE_H

/* Starts the probe (wanted = 0: nothing, e.g. --device cpu, which never
 * touches CUDA); without a thread, nothing either (the solve starts CUDA
 * itself later, as before). */
void gpu_probe_start(int wanted);
/* Waits for it (safe without a start, and more than once). */
void gpu_probe_join(void);

#endif
