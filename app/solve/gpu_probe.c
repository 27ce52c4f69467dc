/* gpu_probe.h. The probe's outcome is not used: it only warms the runtime
 * (whose later calls from the main thread then find the driver started
 * and the context made); errors stay CUDA's, cleared, for the main
 * thread's own checks to meet again. */
#include "gpu_probe.h"

#include <pthread.h>

#include "base/device.h"
#include "base/thread.h"

static pthread_t g_thread;
static int g_running;

static void *probe_main(void *arg)
{
    (void)arg;
    if (cmrs_gpu_available() && cmrs_gpu_select(0))
        (void)cmrs_gpu_start(); /* its error is this thread's, dropped */
    cmrs_gpu_clear_error();
    return NULL;
}

void gpu_probe_start(int wanted)
{
    if (!wanted || g_running) return;
    g_running = cmrs_thread_start(&g_thread, probe_main, NULL);
}

void gpu_probe_join(void)
{
    if (g_running) (void)pthread_join(g_thread, NULL);
    g_running = 0;
}
