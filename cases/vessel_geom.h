/* Geometry of the aorta-like vessel (internal to cases/): a union of
 * capsules (segment + radius) along a curved trunk and two branches, cut
 * flat at the inlet and the two outlets. Lengths in units of the trunk's
 * inlet radius R = 1. */
#ifndef CMRS_CASES_VESSEL_GEOM_H
#define CMRS_CASES_VESSEL_GEOM_H

#define VSL_MAX_CAPSULES 64

typedef struct vsl_capsule {
    double a[3], b[3], r;  /* segment a-b, radius r */
    double lo[3], hi[3];   /* bounding box */
} vsl_capsule;

/* An inlet or outlet: the flat cut through centre c with outward normal t,
 * on a tube of radius r. */
typedef struct vsl_port {
    double c[3], t[3], r;
} vsl_port;

typedef struct vsl_geom {
    vsl_capsule cap[VSL_MAX_CAPSULES];
    int ncap;
    vsl_port inlet, outlet[2];
    double lo[3], hi[3];   /* bounding box of every capsule */
} vsl_geom;

typedef enum vsl_face { VSL_WALL, VSL_INLET, VSL_OUTLET } vsl_face;

/* The fixed vessel: trunk of length 8 tapering from radius 1 to 0.85 with a
 * gentle bend in x and an S in y; at its end (~60% of the length) two
 * branches of radius 0.65 and length 6 leave at +-30 degrees and turn back
 * to +-15 degrees. Polylines of segments of length 0.5. */
void vsl_geom_build(vsl_geom *g);

/* Whether p is inside capsule c. */
int vsl_in_capsule(const vsl_capsule *c, const double p[3]);

/* Whether p lies beyond the inlet or an outlet cut (so outside the vessel),
 * and which: VSL_INLET, VSL_OUTLET, or VSL_WALL when it is beyond none. */
vsl_face vsl_beyond_port(const vsl_geom *g, const double p[3]);

/* Inflow velocity at p on the inlet: Poiseuille, 2 (1 - rho^2/R^2) with rho
 * the distance from the inlet axis (mean 1 over the inlet disc), >= 0. */
double vsl_inlet_velocity(const vsl_geom *g, const double p[3]);

#endif
