#!/usr/bin/env python3
"""An unstructured P1 finite-element Laplacian on tetrahedra of a bifurcating
tube (an aorta-like Y: a trunk splitting into two branches), for the
benchmark set: the matrices the structured generators of `cmrs gen` cannot
make (docs/CASES.md, "Unstructured FEM case").

    gen-fem.py OUT.h5|OUT.mtx [--points N] [--refine K] [--mesh odt|delaunay]
               [--slivers perturb|keep] [--order mesh|random]
               [--element p1|p2] [--aniso EPS]

The mesh, of about N points: `--mesh odt` (the default) points on the
tube's surface and inside it, smoothed by optimal-Delaunay rounds (nearly
free of slivers, as a mesher leaves a mesh: odt_mesh; the last few
perturbed away unless `--slivers keep`); `--mesh delaunay` a
jittered grid's points inside the tube tetrahedralised by Delaunay
(scipy.spatial.Delaunay, Qhull), the tetrahedra whose centroid lies outside
the tube dropped, slivers kept (mesh). Then K uniform (red) refinements,
each splitting every tetrahedron into 8 (Bey's rule), the new nodes (edge
midpoints) numbered after the old ones: the "refinement numbering" a
mesh-refining code leaves. `--order random` renumbers the rows randomly
(seeded). Rows: about 8 N (odt) or 13 N (delaunay) with one refinement,
8x more per further one; entries per row vary with the mesh (15 on
average, 5 to about 31; 37 on the raw mesh). The summary line gives the
mesh's quality before refinement (its smallest dihedral angles).

The system: the stiffness matrix of -div(D grad u) = 1, D = diag(1, 1,
EPS) (`--aniso`, 1: the Laplacian), with linear (`--element p1`) or
quadratic tetrahedra (`p2`: the edge midpoints as nodes, about 60 entries
per row), u = 0 on the trunk's inlet cap (those rows and columns removed:
A is SPD) and natural conditions elsewhere; b the load of f = 1 (P1: each
node's share of the volume; P2: the consistent load).
Written as the native HDF5 layout (needs h5py) or Matrix Market (A only,
general; `cmrs` then uses b = A*1). Needs numpy and scipy only otherwise.
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.spatial import Delaunay

# The tube: three capsules (segment a-b, radius r) in a unit-ish box.
TRUNK = (np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.2]), 0.25)
LEFT = (np.array([0.0, 0.0, 1.2]), np.array([-0.55, 0.1, 2.0]), 0.17)
RIGHT = (np.array([0.0, 0.0, 1.2]), np.array([0.5, -0.15, 1.9]), 0.15)
INLET_Z = 0.0


def capsule_distance(p, a, b, r):
    """Signed distance of points p (n, 3) to a capsule (negative inside)."""
    ab = b - a
    t = np.clip(((p - a) @ ab) / (ab @ ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[:, None] * ab), axis=1) - r


def inside(p):
    """Points inside the tube, the trunk cut flat at the inlet."""
    d = np.minimum.reduce([capsule_distance(p, *c) for c in (TRUNK, LEFT, RIGHT)])
    return (d < 0) & (p[:, 2] >= INLET_Z)


# The box around the tube; the tube fills about 8% of it.
BOX_LO, BOX_HI = np.array([-0.8, -0.5, INLET_Z]), np.array([0.75, 0.45, 2.2])


def spacing(n_target):
    """The grid spacing that puts about n_target points inside the tube."""
    return (np.prod(BOX_HI - BOX_LO) * 0.08 / n_target) ** (1 / 3)


def jittered_grid(h, pad, rng):
    """The box's grid of spacing h, pad spacings wider on every side, each
    point moved at random by up to 0.3 h along each axis (grid order)."""
    axes = [np.arange(BOX_LO[i] - pad * h, BOX_HI[i] + (1 + pad) * h, h)
            for i in range(3)]
    g = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    g += rng.uniform(-0.3 * h, 0.3 * h, g.shape)
    return g


def points(n_target, rng):
    """About n_target jittered grid points inside the tube (grid order)."""
    h = spacing(n_target)
    g = jittered_grid(h, 0, rng)
    g[:, 2] = np.maximum(g[:, 2], INLET_Z)  # a flat inlet cap
    return g[inside(g)], h


def sdf(p):
    """Signed distance to the tube (negative inside), the trunk cut flat at
    the inlet: exact inside each capsule and on the cap, a bound elsewhere."""
    d = np.minimum.reduce([capsule_distance(p, *c) for c in (TRUNK, LEFT, RIGHT)])
    return np.maximum(d, INLET_Z - p[:, 2])


def project(p):
    """Points moved onto the tube's surface along sdf's gradient (finite
    differences), those on the inlet cap exactly at z = INLET_Z."""
    d = sdf(p)
    grad = np.empty_like(p)
    for k in range(3):
        s = p.copy()
        s[:, k] += 1e-7
        grad[:, k] = (sdf(s) - d) / 1e-7
    q = p - d[:, None] * grad / np.linalg.norm(grad, axis=1)[:, None]
    q[np.abs(q[:, 2] - INLET_Z) < 1e-6, 2] = INLET_Z
    return q


def thin(p, r):
    """The points no closer than r to an earlier point kept (greedy, in
    order): an even sampling of the surface from a dense one."""
    from scipy.spatial import cKDTree
    keep = np.ones(len(p), bool)
    for i, near in enumerate(cKDTree(p).query_ball_point(p, r)):
        if keep[i]:
            for j in near:
                if j > i:
                    keep[j] = False
    return p[keep]


def circumcenters(x, tets):
    a = x[tets[:, 0]]
    e = x[tets[:, 1:]] - a[:, None, :]
    return a + np.linalg.solve(e, 0.5 * np.sum(e * e, axis=2)[..., None])[..., 0]


def min_dihedral(x, tets):
    """Each tetrahedron's smallest dihedral angle (degrees): at edge (i, j)
    it is pi minus the angle between the gradients of lambda_k, lambda_l."""
    _, grad = barycentric(x, tets)
    grad = grad / np.linalg.norm(grad, axis=1)[:, None, :]
    cos = [-np.einsum("ti,ti->t", grad[:, :, k], grad[:, :, l])
           for k, l in PAIRS]
    return np.degrees(np.arccos(np.clip(np.max(cos, axis=0), -1, 1)))


def tet_volumes(x, tets):
    e1 = x[tets[:, 1]] - x[tets[:, 0]]
    e2 = x[tets[:, 2]] - x[tets[:, 0]]
    e3 = x[tets[:, 3]] - x[tets[:, 0]]
    return np.abs(np.einsum("ij,ij->i", e1, np.cross(e2, e3))) / 6.0


def longest_edge(x, tets):
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    return np.max([np.linalg.norm(x[tets[:, i]] - x[tets[:, j]], axis=1)
                   for i, j in pairs], axis=0)


def delaunay_inside(x, h, centroid_in, min_volume):
    """The Delaunay tetrahedra of x that lie in the tube. Qhull's hull
    spans the concave parts between the branches: those tetrahedra have
    long edges (a jittered grid's are below ~2.8 h) or a centroid outside
    (centroid_in: a test of points); flat ones (all four points on a plane)
    no volume (min_volume h^3)."""
    tets = Delaunay(x).simplices.astype(np.int64)
    keep = (centroid_in(x[tets].mean(axis=1)) & (longest_edge(x, tets) < 3 * h)
            & (tet_volumes(x, tets) > min_volume * h ** 3))
    return tets[keep]


def drop_unused(x, tets):
    """The points no tetrahedron uses removed (the order of the rest kept)."""
    used = np.zeros(len(x), bool)
    used[tets.ravel()] = True
    new = np.cumsum(used) - 1
    return x[used], new[tets]


def mesh(n_target, rng):
    """Delaunay tetrahedra of the points, those outside or slivers dropped,
    unused points removed (the grid order kept)."""
    x, h = points(n_target, rng)
    return drop_unused(x, delaunay_inside(x, h, inside, 1e-9))


PAIRS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def perturb_slivers(x, tets, inner, h, rng, trimmed, rounds=6):
    """Sliver perturbation (Edelsbrunner and Guoy): the inner points of
    the tetrahedra under 5 degrees moved at random by up to 0.15 h (those
    it would take within 0.1 h of the surface stay), then tetrahedralised
    again; a round kept only where it leaves no more such tetrahedra and
    no smaller angle. Smoothing leaves a few inner slivers (37 at 26000
    points, the worst 0.13 degrees); three rounds remove them there."""
    angle = min_dihedral(x, tets)
    for _ in range(rounds):
        bad = angle < 5
        if not bad.any():
            break
        v = np.unique(tets[bad].ravel())
        v = v[inner[v]]
        y = x.copy()
        y[v] += rng.uniform(-0.15 * h, 0.15 * h, (len(v), 3))
        near = sdf(y) > -0.1 * h
        y[near] = x[near]
        t2 = trimmed(y)
        a2 = min_dihedral(y, t2)
        if np.sum(a2 < 5) <= np.sum(bad) and a2.min() >= angle.min():
            x, tets, angle = y, t2, a2
    return x, tets


def odt_mesh(n_target, rng, sweeps=8, perturb=True):
    """A mesh of quality: points on the tube's surface (a jittered grid's
    points near it, projected and thinned to 0.75 h apart) and inside it
    (those at least 0.6 h in), Delaunay-tetrahedralised; then `sweeps`
    rounds of optimal-Delaunay smoothing (Chen and Xu: each inner point
    moved to the volume-weighted mean of its tetrahedra's circumcentres,
    then tetrahedralised again), which removes nearly all slivers; last,
    the flat tetrahedra with all four points on the surface dropped. The
    points stay in grid order (surface first): the "mesher's numbering"."""
    # 1.17: the surface points added make about n_target points in all
    h = 1.17 * spacing(n_target)
    g = jittered_grid(h, 1, rng)
    d = sdf(g)
    surface = thin(project(project(g[np.abs(d) < 0.8 * h])), 0.75 * h)
    x = np.concatenate([surface, g[d < -0.6 * h]])
    inner = np.arange(len(x)) >= len(surface)

    def tetrahedralise(x):
        return delaunay_inside(x, h, lambda p: sdf(p) < 0, 1e-12)

    def trimmed(x):
        """Tetrahedralised, the flat tetrahedra on the surface dropped."""
        tets = tetrahedralise(x)
        flat = ~inner[tets].any(axis=1) & (min_dihedral(x, tets) < 10)
        return tets[~flat]

    for _ in range(sweeps):
        tets = tetrahedralise(x)
        vol = np.repeat(tet_volumes(x, tets), 4)
        cc = np.repeat(circumcenters(x, tets), 4, axis=0)
        w = np.bincount(tets.ravel(), vol, len(x))
        moved = x.copy()
        ok = inner & (w > 0)
        for k in range(3):
            moved[ok, k] = np.bincount(tets.ravel(), vol * cc[:, k], len(x))[ok] / w[ok]
        # a point the mean would take to the surface stays
        ok &= sdf(moved) < -0.25 * h
        x[ok] = moved[ok]
    tets = trimmed(x)
    if perturb:
        x, tets = perturb_slivers(x, tets, inner, h, rng, trimmed)
    return drop_unused(x, tets)


def midpoints(x, tets):
    """Every edge's midpoint a new node, numbered after the old ones in
    edge order: the nodes x extended and, per tetrahedron, its 6 midpoints
    (T, 6) in the order m01 m02 m03 m12 m13 m23."""
    e = np.sort(np.concatenate([tets[:, [i, j]] for i, j in PAIRS]), axis=1)
    # unique rows by one int64 key per edge, ordered as (a, b) rows would
    # be: 3-5x faster than np.unique(axis=0), the same edges and inverse
    key, inv = np.unique(e[:, 0] * len(x) + e[:, 1], return_inverse=True)
    edges = np.stack([key // len(x), key % len(x)], axis=1)
    mid = len(x) + inv.reshape(6, -1).T
    return np.concatenate([x, 0.5 * (x[edges[:, 0]] + x[edges[:, 1]])]), mid


def refine(x, tets):
    """Red refinement: every edge's midpoint a new node (numbered after the
    old ones, in edge order), every tetrahedron into 8."""
    x, mid = midpoints(x, tets)
    v0, v1, v2, v3 = tets.T
    m01, m02, m03, m12, m13, m23 = mid.T
    children = [  # 4 corners, the inner octahedron cut along m02-m13
        (v0, m01, m02, m03), (m01, v1, m12, m13), (m02, m12, v2, m23),
        (m03, m13, m23, v3), (m01, m02, m03, m13), (m01, m02, m12, m13),
        (m02, m03, m13, m23), (m02, m12, m13, m23)]
    return x, np.concatenate([np.stack(c, axis=1) for c in children])


def barycentric(x, tets):
    """Volumes (T,) and the gradients of the barycentric coordinates
    (T, 3, 4): grad[:, :, i] is that of lambda_i."""
    m = np.ones((len(tets), 4, 4))
    m[:, :, 1:] = x[tets]
    return np.abs(np.linalg.det(m)) / 6.0, np.linalg.inv(m)[:, 1:, :]


# The degree-2 rule on a tetrahedron (4 points, weights 1/4): exact for
# the P2 gradients' products, which are quadratic.
QA, QB = 0.5854101966249685, 0.1381966011250105


def p2_gradients(grad, lam):
    """Gradients (T, 3, 10) of the 10 quadratic shape functions at the
    point of barycentric coordinates lam (4,): vertices lambda_i (2
    lambda_i - 1), then the edges of PAIRS 4 lambda_i lambda_j."""
    g = [(4 * lam[i] - 1) * grad[:, :, i] for i in range(4)]
    g += [4 * (lam[i] * grad[:, :, j] + lam[j] * grad[:, :, i])
          for i, j in PAIRS]
    return np.stack(g, axis=2)


def element_matrices(x, tets, element, diffusion):
    """Per element: the stiffness of -div(D grad u), D = diag(diffusion)
    (T, k, k), its node numbers (T, k), the nodes x, and the consistent
    load of f = 1 (T, k); k = 4 (P1) or 10 (P2, edge midpoints added)."""
    vol, grad = barycentric(x, tets)
    d = np.asarray(diffusion)[None, :, None]
    if element == "p1":
        ke = vol[:, None, None] * np.einsum("tki,tkj->tij", grad, d * grad)
        return ke, tets, x, np.repeat(vol[:, None] / 4.0, 4, axis=1)
    x, mid = midpoints(x, tets)
    ke = 0.0
    for q in range(4):
        lam = np.full(4, QB)
        lam[q] = QA
        g = p2_gradients(grad, lam)
        ke = ke + (0.25 * vol)[:, None, None] * np.einsum("tki,tkj->tij", g,
                                                          d * g)
    load = np.concatenate([np.repeat(-vol[:, None] / 20.0, 4, axis=1),
                           np.repeat(vol[:, None] / 5.0, 6, axis=1)], axis=1)
    return ke, np.concatenate([tets, mid], axis=1), x, load


def assemble(x, tets, element="p1", diffusion=(1.0, 1.0, 1.0)):
    """Stiffness (CSR, duplicates summed) and load of P1 or P2 elements;
    the nodes (P2 adds the edge midpoints)."""
    ke, nodes, x, le = element_matrices(x, tets, element, diffusion)
    n, k = len(x), nodes.shape[1]
    rows = np.repeat(nodes, k, axis=1).ravel()
    cols = np.tile(nodes, (1, k)).ravel()
    A = sp.csr_matrix((ke.ravel(), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    # The sums of (i, j) and (j, i) ran in different orders: exactly
    # symmetric again ((a + b) / 2 == (b + a) / 2 in floating point).
    A = ((A + A.T) * 0.5).tocsr()
    load = np.bincount(nodes.ravel(), weights=le.ravel(), minlength=n)
    return A, load, x


def dirichlet(A, b, x):
    """u = 0 on the inlet cap: those rows and columns removed."""
    free = np.flatnonzero(x[:, 2] > INLET_Z + 1e-12)
    return A[free][:, free].tocsr(), b[free]


def write(path, A, b):
    A.sort_indices()
    if path.endswith(".h5"):
        import h5py
        with h5py.File(path + ".tmp", "w") as f:
            g = f.create_group("A")
            g.attrs["shape"] = A.shape
            g["data"], g["indices"], g["indptr"] = A.data, A.indices, A.indptr
            f["b"] = b
    else:
        coo = A.tocoo()
        with open(path + ".tmp", "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n")
            f.write(f"{A.shape[0]} {A.shape[1]} {A.nnz}\n")
            np.savetxt(f, np.column_stack([coo.row + 1, coo.col + 1, coo.data]),
                       fmt="%d %d %.17g")
    import os
    os.replace(path + ".tmp", path)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="OUT.h5 (native layout, needs h5py) or OUT.mtx")
    ap.add_argument("--points", type=int, default=32000,
                    help="points of the mesh before refinement (odt: 52000 "
                         "make 0.41M rows with --refine 1, 3.2M with 2; "
                         "delaunay: 32000 make 0.42M and 3.4M)")
    ap.add_argument("--refine", type=int, default=1,
                    help="uniform refinements, 0..3 (1)")
    ap.add_argument("--mesh", choices=("odt", "delaunay"), default="odt",
                    help="odt: points on the surface and inside, smoothed "
                         "(optimal Delaunay), nearly sliver-free; delaunay: "
                         "a jittered grid's Delaunay tetrahedra as they come, "
                         "with their slivers (odt)")
    ap.add_argument("--slivers", choices=("perturb", "keep"), default="perturb",
                    help="odt: perturb the inner points of the tetrahedra "
                         "under 5 degrees until none is left (at most 6 "
                         "rounds), or keep the few smoothing leaves (perturb)")
    ap.add_argument("--order", choices=("mesh", "random"), default="mesh")
    ap.add_argument("--element", choices=("p1", "p2"), default="p1",
                    help="linear (about 15 entries per row) or quadratic "
                         "tetrahedra (29 on average, up to about 110; edge "
                         "midpoints numbered after the vertices) (p1)")
    ap.add_argument("--aniso", type=float, default=1.0,
                    help="diffusion along the trunk's axis (z) against 1 "
                         "across it: anisotropic for values far from 1 (1)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    if a.points < 100 or not 0 <= a.refine <= 3:
        ap.error("--points >= 100 and --refine 0..3")
    if not 1e-6 <= a.aniso <= 1e6:
        ap.error("--aniso in [1e-6, 1e6]")
    if not (a.out.endswith(".h5") or a.out.endswith(".mtx")):
        ap.error("OUT must end in .h5 or .mtx")
    t0 = time.time()
    rng = np.random.default_rng(a.seed)
    if a.mesh == "odt":
        x, tets = odt_mesh(a.points, rng, perturb=a.slivers == "perturb")
    else:
        x, tets = mesh(a.points, rng)
    # the mesh's quality before refinement (red refinement keeps the
    # shapes within a few similarity classes)
    angle = min_dihedral(x, tets)
    quality = (f"{a.mesh} mesh of {len(x)} points: min dihedral angle "
               f"{angle.min():.1f} deg, 1% below {np.quantile(angle, 0.01):.1f}, "
               f"{np.sum(angle < 5)} of {len(tets)} below 5 deg")
    for _ in range(a.refine):
        x, tets = refine(x, tets)
    A, b, x = assemble(x, tets, a.element, (1.0, 1.0, a.aniso))
    A, b = dirichlet(A, b, x)
    if a.order == "random":
        p = rng.permutation(A.shape[0])
        A, b = A[p][:, p].tocsr(), b[p]
    write(a.out, A, b)
    per_row = np.diff(A.indptr)
    print(f"{a.out}: {A.shape[0]} rows, {A.nnz} nonzeros ({per_row.mean():.1f} "
          f"per row, {per_row.min()}-{per_row.max()}), {len(tets)} "
          f"{a.element.upper()} tetrahedra, {a.order} order, aniso {a.aniso:g}, "
          f"{time.time() - t0:.1f} s; {quality}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
