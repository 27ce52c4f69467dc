#include "vessel_geom.h"

#include <math.h>

#define PI 3.14159265358979323846
#define SEG 0.5         /* polyline segment length */
#define TRUNK_LEN 8.0
#define BRANCH_LEN 6.0
#define BRANCH_R 0.65

static double dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub(const double a[3], const double b[3], double out[3])
{
    for (int d = 0; d < 3; ++d) out[d] = a[d] - b[d];
}

static void add_capsule(vsl_geom *g, const double a[3], const double b[3],
                        double r)
{
    vsl_capsule *c = &g->cap[g->ncap++];
    for (int d = 0; d < 3; ++d) {
        c->a[d] = a[d];
        c->b[d] = b[d];
        c->lo[d] = fmin(a[d], b[d]) - r;
        c->hi[d] = fmax(a[d], b[d]) + r;
        g->lo[d] = fmin(g->lo[d], c->lo[d]);
        g->hi[d] = fmax(g->hi[d], c->hi[d]);
    }
    c->r = r;
}

/* Port at the end b of segment a->b (outward normal along a->b). */
static vsl_port make_port(const double a[3], const double b[3], double r)
{
    vsl_port p = {{b[0], b[1], b[2]}, {0, 0, 0}, r};
    sub(b, a, p.t);
    double len = sqrt(dot(p.t, p.t));
    for (int d = 0; d < 3; ++d) p.t[d] /= len;
    return p;
}

/* Trunk centreline: a bend of 1.2 in x and an S of amplitude 0.6 in y,
 * both with zero slope at the inlet and at the bifurcation. */
static void trunk_point(double s, double p[3])
{
    double u = 2 * PI * s / TRUNK_LEN;
    p[0] = 1.2 * (1 - cos(u)) / 2;
    p[1] = 0.6 * sin(u) * sin(u / 2);
    p[2] = s;
}

static void build_trunk(vsl_geom *g)
{
    int nseg = (int)(TRUNK_LEN / SEG);
    double a[3], b[3];
    trunk_point(0, a);
    for (int m = 0; m < nseg; ++m) {
        trunk_point((m + 1) * SEG, b);
        double r = 1.0 - 0.15 * (m + 0.5) / nseg; /* tapers to 0.85 */
        add_capsule(g, a, b, r);
        if (m == 0) g->inlet = make_port(b, a, 1.0);
        for (int d = 0; d < 3; ++d) a[d] = b[d];
    }
}

/* Branch of side sign = +-1 from the bifurcation point start. */
static vsl_port build_branch(vsl_geom *g, const double start[3], int sign)
{
    int nseg = (int)(BRANCH_LEN / SEG);
    double a[3] = {start[0], start[1], start[2]}, b[3];
    for (int m = 0; m < nseg; ++m) {
        double deg = 30.0 - 15.0 * (m + 0.5) / nseg, th = deg * PI / 180;
        b[0] = a[0] + sign * SEG * sin(th);
        b[1] = a[1];
        b[2] = a[2] + SEG * cos(th);
        add_capsule(g, a, b, BRANCH_R);
        if (m < nseg - 1)
            for (int d = 0; d < 3; ++d) a[d] = b[d];
    }
    return make_port(a, b, BRANCH_R);
}

void vsl_geom_build(vsl_geom *g)
{
    g->ncap = 0;
    for (int d = 0; d < 3; ++d) {
        g->lo[d] = INFINITY;
        g->hi[d] = -INFINITY;
    }
    build_trunk(g);
    double fork[3];
    trunk_point(TRUNK_LEN, fork);
    g->outlet[0] = build_branch(g, fork, -1);
    g->outlet[1] = build_branch(g, fork, +1);
}

int vsl_in_capsule(const vsl_capsule *c, const double p[3])
{
    double ab[3], ap[3];
    sub(c->b, c->a, ab);
    sub(p, c->a, ap);
    double t = dot(ap, ab) / dot(ab, ab);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double d2 = 0;
    for (int d = 0; d < 3; ++d) {
        double e = ap[d] - t * ab[d];
        d2 += e * e;
    }
    return d2 <= c->r * c->r;
}

/* Beyond the cut plane, within 1.5 r of the port's axis: the margin takes in
 * the neighbours of rim voxels; nothing else of the vessel is that close. */
static int beyond(const vsl_port *port, const double p[3])
{
    double cp[3];
    sub(p, port->c, cp);
    double along = dot(cp, port->t);
    if (along <= 0) return 0;
    double perp2 = dot(cp, cp) - along * along;
    return perp2 <= 2.25 * port->r * port->r;
}

vsl_face vsl_beyond_port(const vsl_geom *g, const double p[3])
{
    if (beyond(&g->inlet, p)) return VSL_INLET;
    if (beyond(&g->outlet[0], p) || beyond(&g->outlet[1], p))
        return VSL_OUTLET;
    return VSL_WALL;
}

double vsl_inlet_velocity(const vsl_geom *g, const double p[3])
{
    const vsl_port *in = &g->inlet;
    double cp[3];
    sub(p, in->c, cp);
    double along = dot(cp, in->t);
    double rho2 = (dot(cp, cp) - along * along) / (in->r * in->r);
    return rho2 < 1 ? 2 * (1 - rho2) : 0.0;
}
