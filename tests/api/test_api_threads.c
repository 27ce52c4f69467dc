/* The thread-safety rule: one context per thread, used concurrently. Each
 * thread reads vessel_3k, sets up and solves on its own CPU context and
 * also makes one call fail; every thread gets the same iterations and x,
 * and each sees only its own error message. */
#include <pthread.h>

#include "tapi_case.h"

#define THREADS 4

typedef struct job {
    const char *file;
    int id;
    int64_t iterations;
    double x_sum;
    int own_error;  /* the thread's failure left its own message */
} job;

static void *solve_in_thread(void *arg)
{
    job *j = arg;
    cmrs_context *ctx = NULL;
    cmrs_matrix *A = NULL;
    cmrs_solver *s = NULL;
    cmrs_solve_info info;
    char bad[32];
    if (cmrs_context_create(CMRS_DEVICE_CPU, &ctx) != CMRS_SUCCESS ||
        cmrs_matrix_read(ctx, j->file, NULL, &A) != CMRS_SUCCESS ||
        cmrs_solver_create(ctx, &s) != CMRS_SUCCESS)
        return NULL;
    int64_t n = cmrs_matrix_rows(A);
    double *b = malloc((size_t)n * sizeof *b), *x = calloc((size_t)n, 8);
    snprintf(bad, sizeof bad, "rtol-%d", j->id);
    j->own_error = cmrs_solver_set_option(s, bad, "1") == CMRS_ERROR_USAGE &&
                   strstr(cmrs_last_error(ctx), bad) &&
                   strstr(cmrs_last_error(NULL), bad);
    if (cmrs_matrix_file_vector(A, CMRS_FILE_RHS, b, NULL) == CMRS_SUCCESS &&
        cmrs_solver_setup(s, A) == CMRS_SUCCESS &&
        cmrs_solver_solve(s, b, x) == CMRS_SUCCESS &&
        cmrs_solver_get_info(s, &info) == CMRS_SUCCESS) {
        j->iterations = info.iterations;
        for (int64_t i = 0; i < n; ++i) j->x_sum += x[i];
    }
    j->own_error &= strstr(cmrs_last_error(ctx), bad) != NULL;
    free(b);
    free(x);
    cmrs_solver_destroy(s);
    cmrs_matrix_destroy(A);
    cmrs_context_destroy(ctx);
    return NULL;
}

int main(void)
{
    char file[1024];
    pthread_t t[THREADS];
    job jobs[THREADS];
    case_path("vessel_3k.h5", file, sizeof file);
    for (int i = 0; i < THREADS; ++i) {
        jobs[i] = (job){file, i, -1, 0.0, 0};
        CHECK(pthread_create(&t[i], NULL, solve_in_thread, &jobs[i]) == 0,
              "thread %d", i);
    }
    for (int i = 0; i < THREADS; ++i) pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; ++i)
        CHECK(jobs[i].iterations > 0 &&
                  jobs[i].iterations == jobs[0].iterations &&
                  jobs[i].x_sum == jobs[0].x_sum && jobs[i].own_error,
              "thread %d: %lld its, sum x %.17g, own error %d", i,
              (long long)jobs[i].iterations, jobs[i].x_sum,
              jobs[i].own_error);
    return check_summary();
}
