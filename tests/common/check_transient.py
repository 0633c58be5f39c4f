#!/usr/bin/env python3
"""check_transient.py - read solve's transient results with h5py (not with pmesh) and check them.

  check_transient.py series FILE.h5 STEPS DT EVERY
      the series holds the steps 0, EVERY, 2 EVERY, ..., STEPS (the last always) as /steps/0..,
      each with a "time" attribute = step * DT and a nodal u; the root attributes n_steps, times,
      dt, steps, every; the XDMF beside it is a temporal collection of those steps in order,
      each grid's u pointing at its /steps/k/u.
  check_transient.py monotone FILE.h5 X Y
      u at the node (X, Y) grows strictly from step to step while heating (then, steady, it may
      stay equal) and u >= 0 everywhere at every step (heating from u = 0).
  check_transient.py compare A.h5 B.h5 RTOL [STEP_A [STEP_B]]
      max |u_A - u_B| <= RTOL * max |u_B| for the given series steps (default the last; a
      single result: /fields/u); the meshes' coordinates are identical.
  check_transient.py eigen FILE.h5 KIND H DT N [AMP]
      u^0 = AMP sin(pi x) [sin(pi y)] on the unit interval/square with u = 0 on the boundary is
      an eigenvector of K and M on a uniform grid of spacing H, so backward Euler gives exactly
      u^N = (1 + DT lambda_h)^-N u^0 at the nodes.  KIND: line-consistent, line-lumped,
      q1-consistent, q1-lumped, fdm5 (lambda_h from the 1D stencils, computed here).  Checked
      to 1e-9 relative, against the last step."""
import math
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

errors = []


def last_u(f, step=None):
    if "n_steps" in f.attrs and int(f.attrs["n_steps"]) > 0:
        k = int(f.attrs["n_steps"]) - 1 if step is None else int(step)
        return f["/steps/%d/u" % k][...]
    if step not in (None, 0, "0"):
        errors.append("%s is a single result: no step %s" % (f.filename, step))
    return f["/fields/u"][...]


def series(path, steps, dt, every):
    f = h5py.File(path, "r")
    want = list(range(0, steps + 1, every))
    if want[-1] != steps:
        want.append(steps)
    n = int(f.attrs.get("n_steps", -1))
    if n != len(want):
        errors.append("n_steps %d, expected %d (steps %s)" % (n, len(want), want))
    names = sorted(f["/steps"].keys(), key=int) if "steps" in f else []
    if names != [str(k) for k in range(len(want))]:
        errors.append("groups under /steps: %s, expected 0..%d" % (names, len(want) - 1))
    times = f.attrs.get("times", np.array([]))
    nodes = int(f.attrs["global_nodes"])
    for k, s in enumerate(want):
        g = "/steps/%d" % k
        if g not in f:
            continue
        t = float(f[g].attrs.get("time", float("nan")))
        if abs(t - s * dt) > 1e-12 * max(1.0, s * dt):
            errors.append("%s: time %r, expected step %d * dt = %r" % (g, t, s, s * dt))
        if k < len(times) and times[k] != t:
            errors.append("root attribute times[%d] = %r, but %s has time %r" % (k, times[k], g, t))
        u = f[g + "/u"][...]
        if u.shape != (nodes,) or not np.all(np.isfinite(u)):
            errors.append("%s/u: shape %s or non-finite values" % (g, u.shape))
    for a, v in (("dt", dt), ("steps", steps), ("every", every), ("converged", 1)):
        if a not in f.attrs or float(f.attrs[a]) != v:
            errors.append("attribute %s = %s, expected %s" % (a, f.attrs.get(a), v))
    for a in ("iterations", "iterations_min", "iterations_max", "mass", "problem", "mesh_fingerprint"):
        if a not in f.attrs:
            errors.append("attribute %s missing" % a)
    # XDMF: one temporal collection, its grids in step order with the right times and datasets.
    root = ET.parse(path[:-3] + ".xmf").getroot()
    coll = [g for g in root.iter("Grid") if g.get("CollectionType") == "Temporal"]
    if len(coll) != 1:
        errors.append("the XDMF has %d temporal collections, expected 1" % len(coll))
        return
    grids = coll[0].findall("Grid")
    if len(grids) != len(want):
        errors.append("the XDMF collection has %d grids, expected %d" % (len(grids), len(want)))
    for k, g in enumerate(grids[: len(want)]):
        t = float(g.find("Time").get("Value"))
        if abs(t - want[k] * dt) > 1e-12 * max(1.0, want[k] * dt):
            errors.append("XDMF grid %d: time %r, expected %r" % (k, t, want[k] * dt))
        us = [a for a in g.findall("Attribute") if a.get("Name") == "u"]
        if len(us) != 1 or not us[0].find("DataItem").text.strip().endswith(":/steps/%d/u" % k):
            errors.append("XDMF grid %d: u does not point at /steps/%d/u" % (k, k))
    print("%s: %d steps at times %s" % (path, n, ", ".join("%g" % t for t in times)))


def monotone(path, x, y):
    f = h5py.File(path, "r")
    xyz = f["/mesh/coordinates"][...]
    i = int(np.argmin((xyz[:, 0] - x) ** 2 + (xyz[:, 1] - y) ** 2))
    n = int(f.attrs["n_steps"])
    c = [float(f["/steps/%d/u" % k][i]) for k in range(n)]
    for k in range(n):
        u = f["/steps/%d/u" % k][...]
        if u.min() < 0:
            errors.append("step %d: u has the negative value %g" % (k, u.min()))
    # Strict growth while heating; once within 1e-9 of the last value (steady: CG may stop at
    # once), no decrease beyond the solver's tolerance.
    for k in range(1, n):
        heating = c[k - 1] < c[-1] * (1 - 1e-9)
        if not (c[k] > c[k - 1] if heating else c[k] >= c[k - 1] - 1e-10 * abs(c[-1])):
            errors.append("u at (%g, %g) does not grow from step %d (%r) to %d (%r)" % (x, y, k - 1, c[k - 1], k, c[k]))
    if n < 3 or not c[1] > c[0] or not c[2] > c[1]:
        errors.append("u at (%g, %g) does not grow over the first written steps: %s" % (x, y, c[:3]))
    print("u at (%g, %g): %s" % (x, y, " ".join("%.6g" % v for v in c)))


def compare(pa, pb, rtol, sa=None, sb=None):
    fa, fb = h5py.File(pa, "r"), h5py.File(pb, "r")
    if not np.array_equal(fa["/mesh/coordinates"][...], fb["/mesh/coordinates"][...]):
        errors.append("%s and %s are not of the same mesh" % (pa, pb))
        return
    ua, ub = last_u(fa, sa), last_u(fb, sb)
    d = float(np.max(np.abs(ua - ub)))
    scale = float(np.max(np.abs(ub)))
    print("%s vs %s: max |du| = %.3e, max |u| = %.6g, relative %.3e (tolerance %g)" % (pa, pb, d, scale, d / scale, rtol))
    if not d <= rtol * scale:
        errors.append("%s and %s differ by %g > %g * %g" % (pa, pb, d, rtol, scale))


def eigen(path, kind, h, dt, n, amp=1.0):
    f = h5py.File(path, "r")
    xyz = f["/mesh/coordinates"][...]
    th = math.pi * h
    k1 = 2.0 / h * (1 - math.cos(th))       # 1D stiffness (1/h)[-1 2 -1] on the sine mode
    m1c = h / 3.0 * (2 + math.cos(th))      # 1D consistent mass (h/6)[1 4 1]
    lam = {
        "line-consistent": k1 / m1c,
        "line-lumped": k1 / h,
        "q1-consistent": 2 * k1 * m1c / (m1c * m1c),  # K = K1 x M1 + M1 x K1, M = M1 x M1
        "q1-lumped": 2 * k1 * m1c / (h * h),          # lumped M = h^2 I
        "fdm5": 2 * k1 / h,                           # 5-point stencil, M = I
    }[kind]
    g = (1.0 / (1.0 + dt * lam)) ** n
    mode = np.sin(math.pi * xyz[:, 0])
    if not kind.startswith("line"):
        mode = mode * np.sin(math.pi * xyz[:, 1])
    u0, u = f["/steps/0/u"][...], last_u(f)
    if np.max(np.abs(u0 - amp * mode)) > 1e-12 * amp:
        errors.append("step 0 is not %g sin(pi x)...: max difference %g" % (amp, np.max(np.abs(u0 - amp * mode))))
    d = float(np.max(np.abs(u - g * amp * mode)))
    print("%s: amplification %.10g over %d steps (exp(-lambda t) = %.6g), max nodal deviation %.3e" %
          (kind, g, n, math.exp(-(2 if kind[0] in "qf" else 1) * math.pi ** 2 * n * dt), d))
    if not d <= 1e-9 * g * amp:
        errors.append("%s: u^N deviates from (1 + dt lambda_h)^-N u^0 by %g" % (kind, d))


cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "series":
    series(args[0], int(args[1]), float(args[2]), int(args[3]))
elif cmd == "monotone":
    monotone(args[0], float(args[1]), float(args[2]))
elif cmd == "compare":
    compare(args[0], args[1], float(args[2]), *(args[3:5]))
elif cmd == "eigen":
    eigen(args[0], args[1], float(args[2]), float(args[3]), int(args[4]), *(float(a) for a in args[5:6]))
else:
    sys.exit("usage: check_transient.py series|monotone|compare|eigen ...")
for e in errors[:20]:
    print("FAIL: " + e)
sys.exit(1 if errors else 0)
