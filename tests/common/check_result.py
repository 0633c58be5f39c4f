#!/usr/bin/env python3
"""check_result.py - read solve's result.h5 with h5py (not with pmesh) and check it.

  check_result.py RESULT.h5 DUMP_PREFIX NP [--linear] [--same-as REF.h5 [--u-tol T]] [--polyline]

- datasets /mesh/coordinates, /mesh/global_id, /fields/u, /fields/node_rank of one size, global ids
  ascending; the attributes iterations, residual, nranks present;
- u equals, bit for bit, the values solve printed with --dump-solution (PREFIX.0 .. PREFIX.NP-1)
  for the same global ids, and the node's rank is the rank whose dump lists it;
- --linear: u == x + 2y at every node to 1e-9 (a linear field is exact for P1/Q1);
- --same-as: mesh datasets byte-identical and u within 1e-10 (or T) relative of another run's file;
- --polyline: the XDMF beside it has a Polyline topology (1D)."""
import sys

import h5py
import numpy as np

path, prefix, nranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
opts = sys.argv[4:]
errors = []
f = h5py.File(path, "r")
xyz = f["/mesh/coordinates"][...]
gid = f["/mesh/global_id"][...]
u = f["/fields/u"][...]
rank = f["/fields/node_rank"][...]
n = len(gid)
if xyz.shape != (n, 3) or u.shape != (n,) or rank.shape != (n,):
    errors.append("shapes %s %s %s for %d nodes" % (xyz.shape, u.shape, rank.shape, n))
if np.any(np.diff(gid) <= 0):
    errors.append("global ids are not ascending")
for a in ("iterations", "residual", "nranks", "mesh_fingerprint"):
    if a not in f.attrs:
        errors.append("attribute %s missing" % a)
if int(f.attrs.get("nranks", -1)) != nranks:
    errors.append("nranks %s, expected %d" % (f.attrs.get("nranks"), nranks))
pos = {int(g): i for i, g in enumerate(gid)}
seen = 0
for r in range(nranks):
    for line in open("%s.%d" % (prefix, r)):
        fields = line.split()  # "gid x y u" (1D, 2D) or "gid x y z u" (3D)
        g, val = fields[0], fields[-1]
        i = pos.get(int(g))
        if i is None:
            errors.append("global id %s of rank %d is not in the file" % (g, r))
            continue
        seen += 1
        if u[i] != float(val):
            errors.append("u at %s: file %r, solve printed %s" % (g, u[i], val))
        if rank[i] != r:
            errors.append("node %s: rank %d in the file, dumped by rank %d" % (g, rank[i], r))
if seen != n:
    errors.append("%d dumped nodes, %d in the file" % (seen, n))
if "--linear" in opts:
    d = np.abs(u - (xyz[:, 0] + 2 * xyz[:, 1]))
    if d.max() > 1e-9:
        errors.append("linear field: max |u - (x + 2y)| = %g" % d.max())
if "--same-as" in opts:
    g = h5py.File(opts[opts.index("--same-as") + 1], "r")
    for name in sorted(set(f["/mesh"].keys()) | set(g["/mesh"].keys())):
        a, b = name in f["/mesh"], name in g["/mesh"]
        if a != b or (a and not np.array_equal(f["/mesh/" + name][...], g["/mesh/" + name][...])):
            errors.append("/mesh/%s differs from the reference file" % name)
    v = g["/fields/u"][...]
    tol = float(opts[opts.index("--u-tol") + 1]) if "--u-tol" in opts else 1e-10
    if v.shape != u.shape or np.max(np.abs(u - v)) > tol * max(1.0, np.max(np.abs(v))):
        errors.append("u differs from the reference file by more than %g" % tol)
if "--polyline" in opts:
    xmf = open(path[:-3] + ".xmf").read()
    if 'TopologyType="Polyline"' not in xmf:
        errors.append("the XDMF has no Polyline topology")
for e in errors[:20]:
    print("FAIL: " + e)
print("%s: %d nodes, %s" % (path, n, "FAILED" if errors else "ok"))
sys.exit(1 if errors else 0)
