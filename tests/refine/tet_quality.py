#!/usr/bin/env python3
"""tet_quality.py COARSE_DIR FINE1_DIR FINE2_DIR: shape quality of refined tetrahedra, computed
here from the local files (not through pmesh).

- the worst radius ratio (circumradius / inradius; 3 for a regular tetrahedron) of the coarse
  mesh (COARSE_DIR), of the mesh refined once (FINE1_DIR) and twice (FINE2_DIR);
- brute force, on both levels: for every tetrahedron, its three inner diagonals (midpoints of
  opposite edges) are computed; exactly one is an edge of the mesh refined once more, and it is
  a shortest one;
- the worst ratio after two levels is within 2x of the coarse mesh's, and the same two
  refinements done here with a fixed diagonal (midpoints of edges 0-1 and 2-3 of each cell as
  listed) break that bound (the choice matters on this mesh).
Prints "coarse R1 R2 fixed2" and exits non-zero on a failed check."""
import glob
import sys

import numpy as np


def read_dir(d):
    """{element tag: 4x3 array} of the tetrahedra in every local file of d."""
    tets = {}
    for path in sorted(glob.glob(d + "/local.*")):
        lines = open(path).read().split("\n")
        i = 0
        xyz = None
        while i < len(lines):
            if lines[i] == "#COORD":
                n = int(lines[i + 1])
                xyz = np.array([[float(v) for v in lines[i + 2 + k].split()] for k in range(n)])
                i += n + 2
                continue
            if lines[i] == "#ELEMENT":
                n = int(lines[i + 1])
                rows = [lines[i + 2 + k].split() for k in range(n)]
                i += n + 2
                continue
            i += 1
        refs = [int(v) for r in rows for v in r[4:]]
        base = 1 if max(refs) == len(xyz) else 0  # local node numbers, 1- or 0-based
        for r in rows:
            if r[0] != "4":
                sys.exit(f"{path}: element {r[1]} is not a tetrahedron")
            tets[int(r[1])] = xyz[[int(v) - base for v in r[4:8]]]
    return tets


def ratio(t):
    a, b, c, d = t
    vol = abs(np.dot(b - a, np.cross(c - a, d - a))) / 6
    area = sum(np.linalg.norm(np.cross(q - p, r - p)) / 2 for p, q, r in ((a, b, c), (a, b, d), (a, c, d), (b, c, d)))
    m = 2 * np.array([b - a, c - a, d - a])
    rhs = np.array([np.dot(b, b) - np.dot(a, a), np.dot(c, c) - np.dot(a, a), np.dot(d, d) - np.dot(a, a)])
    centre = np.linalg.solve(m, rhs)
    return np.linalg.norm(centre - a) / (3 * vol / area)


def mid(p, q):
    return 0.5 * (p + q)


def children(t, fixed):
    """The 8 children of t (vertices 0..3); inner diagonal: the shortest, or m01-m23 if fixed."""
    v = list(t)
    m = {(i, j): mid(v[i], v[j]) for i in range(4) for j in range(i + 1, 4)}
    out = [[v[0], m[0, 1], m[0, 2], m[0, 3]], [m[0, 1], v[1], m[1, 2], m[1, 3]],
           [m[0, 2], m[1, 2], v[2], m[2, 3]], [m[0, 3], m[1, 3], m[2, 3], v[3]]]
    diags = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
    if fixed:
        k = 0
    else:
        k = min(range(3), key=lambda i: np.sum((m[diags[i][0]] - m[diags[i][1]]) ** 2))
    p, q = diags[k]
    ring = [e for e in m if e not in (p, q)]  # the other four midpoints, in a cycle around p-q
    cyc = [ring[0]]
    while len(cyc) < 4:
        cyc.append(next(e for e in ring if e not in cyc and len(set(e) & set(cyc[-1])) == 1))
    for j in range(4):
        out.append([m[p], m[q], m[cyc[j]], m[cyc[(j + 1) % 4]]])
    return [np.array(c) for c in out]


def edge_key(p, q):
    a, b = tuple(p), tuple(q)
    return (a, b) if a < b else (b, a)


def check_diagonals(coarse, fine, what, errors):
    edges = set()
    for t in fine.values():
        for i in range(4):
            for j in range(i + 1, 4):
                edges.add(edge_key(t[i], t[j]))
    for tag, t in coarse.items():
        diags = [(mid(t[0], t[1]), mid(t[2], t[3])), (mid(t[0], t[2]), mid(t[1], t[3])),
                 (mid(t[0], t[3]), mid(t[1], t[2]))]
        lens = [np.sum((p - q) ** 2) for p, q in diags]
        taken = [k for k, (p, q) in enumerate(diags) if edge_key(p, q) in edges]
        if len(taken) != 1:
            errors.append(f"{what} tetrahedron {tag}: {len(taken)} of its inner diagonals are refined edges")
        elif lens[taken[0]] > min(lens):
            errors.append(f"{what} tetrahedron {tag}: diagonal {taken[0]} taken, length^2 {lens[taken[0]]} > {min(lens)}")


coarse, fine1, fine2 = (read_dir(d) for d in sys.argv[1:4])
errors = []
check_diagonals(coarse, fine1, "coarse", errors)
check_diagonals(fine1, fine2, "once refined", errors)
worst = [max(ratio(t) for t in m.values()) for m in (coarse, fine1, fine2)]
level = list(coarse.values())
for _ in range(2):
    level = [c for t in level for c in children(t, True)]
fixed = max(ratio(t) for t in level)
if worst[2] > 2 * worst[0]:
    errors.append(f"worst radius ratio {worst[2]:.4f} after 2 levels: more than twice the coarse {worst[0]:.4f}")
if fixed <= 2 * worst[0]:
    errors.append(f"a fixed diagonal gives {fixed:.4f} after 2 levels: this mesh does not tell the choices apart")
print("%.4f %.4f %.4f %.4f" % (worst[0], worst[1], worst[2], fixed))
for e in errors[:10]:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
