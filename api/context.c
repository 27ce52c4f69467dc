/* The public API's context (include/cmrs.h): the device, the per-context
 * error message, version and status names. Every public entry point turns
 * the library's internal status (base/status.h, same numeric order as
 * cmrs_status) into its return value through cmrs_api_status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/device.h"
#include "base/gpu/upload.h"
#include "api_internal.h"

#define STR2(x) #x
#define STR(x) STR2(x)

/* The calling thread's last failure, for cmrs_last_error(NULL). */
static _Thread_local char g_last[1024];

const char *cmrs_version(void)
{
    return STR(CMRS_VERSION_MAJOR) "." STR(CMRS_VERSION_MINOR) "." STR(
        CMRS_VERSION_PATCH);
}

const char *cmrs_status_name(cmrs_status s)
{
    static const char *const names[] = {
        "SUCCESS", "ERROR_USAGE", "ERROR_INPUT", "ERROR_LIMIT",
        "ERROR_NOMEM", "ERROR_IO", "ERROR_GPU", "ERROR_NODEVICE",
        "ERROR_INTERNAL"};
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "UNKNOWN";
}

cmrs_status cmrs_api_status(cmrs_context *ctx, cmrs_code code)
{
    if (code == CMRS_OK) return CMRS_SUCCESS;
    const char *msg = cmrs_error_message();
    if (!*msg) msg = cmrs_code_name(code); /* a failure always says what */
    snprintf(g_last, sizeof g_last, "%s", msg);
    if (ctx) snprintf(ctx->error, sizeof ctx->error, "%s", msg);
    return (cmrs_status)code;
}

cmrs_code cmrs_api_enter(const cmrs_context *ctx)
{
    cmrs_error_clear();
    if (ctx->device >= 0) CMRS_CHECK(cmrs_gpu_set(ctx->device));
    return CMRS_OK;
}

/* AUTO resolved; a GPU index checked against the devices present. The CPU
 * asks CUDA nothing: counting the devices starts the driver (0.13-0.24 s on
 * an H100 machine). */
static cmrs_code resolve_device(int device, int *out)
{
    if (device == CMRS_DEVICE_CPU) {
        *out = device;
        return CMRS_OK;
    }
    int count = cmrs_gpu_count(); /* 0 without a driver */
    CMRS_ENSURE(device >= CMRS_DEVICE_AUTO, CMRS_E_USAGE, "device %d: use a "
                "GPU index, CMRS_DEVICE_CPU (-1) or CMRS_DEVICE_AUTO (-2)",
                device);
    if (device == CMRS_DEVICE_AUTO) device = count > 0 ? 0 : CMRS_DEVICE_CPU;
    CMRS_ENSURE(device < 0 || cmrs_gpu_built(), CMRS_E_NODEVICE, "GPU %d "
                "asked for: %s (CMRS_DEVICE_CPU runs without one)", device,
                cmrs_gpu_missing());
    CMRS_ENSURE(device < count, CMRS_E_NODEVICE, "GPU %d asked for: %d CUDA "
                "GPU(s) present (CMRS_DEVICE_CPU runs without one)", device,
                count);
    *out = device;
    return CMRS_OK;
}

/* "cpu", or the GPU's name straight from CUDA (cmrs_gpu_name's static
 * buffer would be shared by threads creating contexts at once). */
static cmrs_code device_name(int device, char *name, size_t n)
{
    snprintf(name, n, "cpu");
    if (device < 0) return CMRS_OK;
    CMRS_CHECK(cmrs_gpu_device_name(device, name, n));
    return CMRS_OK;
}

static cmrs_code context_create(int device, cmrs_context **out)
{
    cmrs_context *c = calloc(1, sizeof *c);
    CMRS_ENSURE(c, CMRS_E_NOMEM, "cannot allocate a context");
    cmrs_code rc = resolve_device(device, &c->device);
    if (rc == CMRS_OK) rc = cmrs_api_enter(c);
    if (rc == CMRS_OK)
        rc = device_name(c->device, c->device_name, sizeof c->device_name);
    if (rc != CMRS_OK) {
        free(c);
        return rc;
    }
    *out = c;
    return CMRS_OK;
}

cmrs_status cmrs_context_create(int device, cmrs_context **ctx)
{
    cmrs_error_clear();
    if (!ctx) {
        cmrs_error_set(CMRS_E_USAGE, __FILE__, __LINE__,
                       "cmrs_context_create: ctx is NULL");
        return cmrs_api_status(NULL, CMRS_E_USAGE);
    }
    *ctx = NULL;
    return cmrs_api_status(NULL, context_create(device, ctx));
}

void cmrs_context_destroy(cmrs_context *ctx)
{
    /* One context per thread: this thread's pinned upload buffers
     * (base/gpu/upload.h) go with it (made again if another context of the
     * thread uploads later). */
    if (ctx && ctx->device >= 0 && cmrs_gpu_select(ctx->device))
        cmrs_upload_release(); /* (a failure here has no one to tell) */
    free(ctx);
}

int cmrs_context_device(const cmrs_context *ctx)
{
    return ctx ? ctx->device : CMRS_DEVICE_CPU;
}

const char *cmrs_context_device_name(const cmrs_context *ctx)
{
    return ctx ? ctx->device_name : "";
}

const char *cmrs_last_error(const cmrs_context *ctx)
{
    return ctx ? ctx->error : g_last;
}
