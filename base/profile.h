/* The setup profile: where a solver's setup (or a values update) spends
 * its time, by phase, PETSc-log style. The API's setup installs a profile
 * as the calling thread's current one (cmrs_profile_start); the layers
 * below mark their phases with cmrs_phase_push/pop and count uploaded
 * bytes, without a parameter through every signature. With no current
 * profile (the default: option profile off) every call is a no-op.
 *
 * Times are exclusive: a phase pushed inside another (an upload inside the
 * format's conversion) stops the outer one's clock, so the phases never
 * overlap and their sum is at most the total; what no phase claims is
 * "other". At every push and pop the profile calls its sync hook (the API
 * gives cudaDeviceSynchronize on a GPU context), so asynchronous GPU work
 * is charged to the phase that queued it -- only while profiling. Error
 * state is left alone; nothing here can fail. One profile per thread. */
#ifndef CMRS_PROFILE_H
#define CMRS_PROFILE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cmrs_phase {
    CMRS_PHASE_OTHER = 0,     /* nothing more specific: the height
                                 search, small host work */
    CMRS_PHASE_HOST_STAGING,  /* host-side copies, narrowing, scans
                                 before an upload */
    CMRS_PHASE_TRANSFER,      /* host-to-device uploads (with the
                                 chunk-wise narrowing they overlap) */
    CMRS_PHASE_CONVERSION,    /* the SpMV format's build */
    CMRS_PHASE_PRECOND,       /* preconditioner setup (D^-1, AMG) */
    CMRS_PHASE_LIBRARIES,     /* the back end's stream and library
                                 handles (cuBLAS loaded and created) */
    CMRS_PHASE_ALLOCATION,    /* device and host arrays: the solver's
                                 vectors, the preconditioner's, the
                                 update's diagonal positions */
    CMRS_PHASE_COUNT
} cmrs_phase;

#define CMRS_PROFILE_DEPTH 16

typedef struct cmrs_profile {
    double seconds[CMRS_PHASE_COUNT]; /* exclusive time per phase */
    double total;                     /* start to stop */
    double transfer_bytes;            /* bytes landed on the device */
    long transfers;                   /* uploads counted */
    /* private */
    void (*sync)(void);
    double t0, mark;
    int depth, lost;                  /* lost: pushes past the stack */
    int overlap;                      /* cmrs_profile_overlap's count */
    cmrs_phase stack[CMRS_PROFILE_DEPTH];
} cmrs_profile;

/* Zeroes *p, makes it the thread's current profile, starts its clock
 * (phase other). sync (may be NULL) is called at every phase boundary. */
void cmrs_profile_start(cmrs_profile *p, void (*sync)(void));
/* Charges the open phases, sets p->total, and uninstalls p. */
void cmrs_profile_stop(cmrs_profile *p);
/* The thread's current profile, or NULL. */
cmrs_profile *cmrs_profile_current(void);
/* Enter / leave a phase (no-ops without a current profile). Every push
 * needs its pop on every path, errors included. */
void cmrs_phase_push(cmrs_phase ph);
void cmrs_phase_pop(void);
/* Between overlap(1) and overlap(0) (nested: a count) the phase
 * boundaries do not call the sync hook: the caller runs device work
 * beside its uploads on purpose (the conversion's pipeline, spmv/cmrs),
 * which a sync at every upload would serialise. Each phase is then
 * charged the host's wall time (an upload returns once its bytes have
 * landed: its own time; kernels queued meanwhile: where the host waits
 * for them). */
void cmrs_profile_overlap(int on);
/* One upload of `bytes` (device side) landed. */
void cmrs_profile_bytes(double bytes);
/* "host_staging", "transfer", ... (JSON keys, less the "_s"). */
const char *cmrs_phase_name(cmrs_phase ph);

#ifdef __cplusplus
}
#endif

#endif
