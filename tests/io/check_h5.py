#!/usr/bin/env python3
"""check_h5.py - an independent reader of pmesh's HDF5 + XDMF results (issue 4).

  check_h5.py FILE.h5 [--xmf FILE.xmf] [--msh MESH.msh] [--np N] [--same-as REF.h5]
              [--view] [--series STEPS] [--expect-empty-type]

Checks, with h5py/numpy and the MSH file parsed here (not with pmesh's code):
  - the documented datasets, shapes, dtypes and root attributes;
  - global ids ascending and exactly the tags of the nodes the mesh's top-dimension cells use;
    coordinates equal to the MSH file's, cell node lists (through the cell field `tag`) equal
    to the MSH file's elements; connectivity in range; /mesh/mixed consistent with the per-type
    datasets; the cell rank is the rank of the cell's node with the smallest index;
  - u == x + 2y + 3 exactly at every node (series: step k holds (k+1)(x + 2y + 3)); cx equals
    the centroid x of every cell;
  - --same-as: mesh datasets, u, cx, tag and mesh_fingerprint byte-identical with REF.h5;
  - the XDMF is well-formed XML, and every dataset it references exists with its Dimensions,
    NumberType and Precision.
Exits 1 with one line per failure."""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

errors = []


def fail(msg):
    errors.append(msg)


def read_msh(path):
    """Nodes {tag: (x, y, z)} and elements [(type, tag, [node tags])] of an ASCII MSH 2.2/4.1."""
    with open(path) as f:
        lines = f.read().split("\n")
    i, version = 0, None
    nodes, elems = {}, []
    while i < len(lines):
        s = lines[i].strip()
        if s == "$MeshFormat":
            version = lines[i + 1].split()[0]
            if lines[i + 1].split()[1] != "0":
                raise SystemExit("check_h5.py: %s is binary; use an ASCII mesh" % path)
        elif s == "$Nodes" and version.startswith("4"):
            nb = int(lines[i + 1].split()[0])
            i += 2
            for _ in range(nb):
                n = int(lines[i].split()[3])
                tags = [int(lines[i + 1 + k]) for k in range(n)]
                for k in range(n):
                    nodes[tags[k]] = tuple(float(v) for v in lines[i + 1 + n + k].split()[:3])
                i += 1 + 2 * n
            continue
        elif s == "$Nodes":
            n = int(lines[i + 1])
            for k in range(n):
                w = lines[i + 2 + k].split()
                nodes[int(w[0])] = tuple(float(v) for v in w[1:4])
            i += 2 + n
            continue
        elif s == "$Elements" and version.startswith("4"):
            nb = int(lines[i + 1].split()[0])
            i += 2
            for _ in range(nb):
                _, _, etype, n = (int(v) for v in lines[i].split())
                for k in range(n):
                    w = [int(v) for v in lines[i + 1 + k].split()]
                    elems.append((etype, w[0], w[1:]))
                i += 1 + n
            continue
        elif s == "$Elements":
            n = int(lines[i + 1])
            for k in range(n):
                w = [int(v) for v in lines[i + 2 + k].split()]
                elems.append((w[1], w[0], w[3 + w[2]:]))
            i += 2 + n
            continue
        i += 1
    return nodes, elems


def attr(f, name):
    v = f.attrs[name]
    return v.decode() if isinstance(v, bytes) else v


def check_xmf(path, h5file, n_nodes, n_cells, nsteps):
    try:
        tree = ET.parse(path)
    except ET.ParseError as e:
        fail("%s: not well-formed XML: %s" % (path, e))
        return
    root = tree.getroot()
    if root.tag != "Xdmf":
        fail("%s: root element %s, expected Xdmf" % (path, root.tag))
    grids = [g for g in root.iter("Grid") if g.get("GridType") == "Uniform"]
    coll = [g for g in root.iter("Grid") if g.get("GridType") == "Collection"]
    if nsteps:
        if len(coll) != 1 or coll[0].get("CollectionType") != "Temporal" or len(grids) != nsteps:
            fail("%s: expected one temporal collection of %d grids" % (path, nsteps))
        times = [float(g.find("Time").get("Value")) for g in grids]
        if not np.array_equal(times, attr(h5file, "times")):
            fail("%s: times %s differ from the file's %s" % (path, times, attr(h5file, "times")))
    elif len(grids) != 1:
        fail("%s: expected one uniform grid, found %d" % (path, len(grids)))
    base = os.path.dirname(path)
    for g in grids:
        topo = g.find("Topology")
        if topo is None or g.find("Geometry") is None:
            fail("%s: grid %s lacks Topology or Geometry" % (path, g.get("Name")))
            continue
        if int(topo.get("NumberOfElements")) != n_cells:
            fail("%s: NumberOfElements %s, expected %d" % (path, topo.get("NumberOfElements"), n_cells))
        if g.find("Geometry").get("GeometryType") != "XYZ":
            fail("%s: GeometryType must be XYZ" % path)
        names = set()
        for a in g.findall("Attribute"):
            center = a.get("Center")
            names.add((a.get("Name"), center))
            dims = [int(v) for v in a.find("DataItem").get("Dimensions").split()]
            want = n_nodes if center == "Node" else n_cells
            if dims != [want]:
                fail("%s: attribute %s (%s) has Dimensions %s, expected %d" % (path, a.get("Name"), center, dims, want))
        view = h5file.attrs.get("nparts") is not None
        needs = [("global_id", "Node")] + ([("part", "Node"), ("part", "Cell")] if view else
                                           [("u", "Node"), ("node_rank", "Node"), ("cell_rank", "Cell"),
                                            ("cell_group", "Cell")])
        for need in needs:
            if need not in names:
                fail("%s: grid %s has no %s attribute %s" % (path, g.get("Name"), need[1], need[0]))
        for item in g.iter("DataItem"):
            if item.get("Format") != "HDF":
                fail("%s: DataItem Format %s" % (path, item.get("Format")))
                continue
            fname, _, dset = item.text.strip().partition(":")
            fpath = fname if os.path.isabs(fname) else os.path.join(base, fname)
            if not os.path.exists(fpath):
                fail("%s: references %s, which does not exist" % (path, fpath))
                continue
            with h5py.File(fpath, "r") as hf:
                if dset not in hf:
                    fail("%s: references %s:%s, which does not exist" % (path, fname, dset))
                    continue
                d = hf[dset]
                dims = [int(v) for v in item.get("Dimensions").split()]
                if list(d.shape) != dims:
                    fail("%s: %s has shape %s, the XDMF says %s" % (path, dset, d.shape, dims))
                kind = {"f": "Float", "i": "Int", "u": "UInt"}[d.dtype.kind]
                if kind != item.get("NumberType") or str(d.dtype.itemsize) != item.get("Precision"):
                    fail("%s: %s is %s, the XDMF says %s %s" % (path, dset, d.dtype, item.get("NumberType"),
                                                              item.get("Precision")))


def main():
    args = sys.argv[1:]
    opts = {"--xmf": None, "--msh": None, "--np": None, "--same-as": None, "--series": "0"}
    flags = set()
    files = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        elif a in ("--view", "--expect-empty-type"):
            flags.add(a)
        else:
            files.append(a)
    if len(files) != 1:
        raise SystemExit(__doc__)
    path = files[0]
    view = "--view" in flags
    nsteps = int(opts["--series"])
    f = h5py.File(path, "r")

    # Attributes.
    for a in ["format", "format_version", "pmesh_version", "dim", "global_nodes", "global_elems", "n_triangles",
              "n_quadrangles", "n_lines", "mesh_fingerprint", "partition_fingerprint"] + (
                  ["nparts"] if view else ["nranks", "mesh_file", "mesh_file_checksum", "cell_group_names"]):
        if a not in f.attrs:
            fail("%s: root attribute %s missing" % (path, a))
    if errors:
        return
    if attr(f, "format") != "pmesh-h5" or attr(f, "format_version") != 1:
        fail("%s: format %s version %s" % (path, attr(f, "format"), attr(f, "format_version")))
    if not attr(f, "pmesh_version"):
        fail("%s: empty pmesh_version" % path)
    nranks = attr(f, "nparts") if view else attr(f, "nranks")
    if opts["--np"] and nranks != int(opts["--np"]):
        fail("%s: nranks %s, expected %s" % (path, nranks, opts["--np"]))
    if not view and nsteps == 0:
        if attr(f, "iterations") != 42 or attr(f, "residual") != 1.5e-9 or attr(f, "problem") != "u = x + 2y + 3":
            fail("%s: caller attributes iterations/residual/problem wrong" % path)
    dim = attr(f, "dim")
    nn, ne = attr(f, "global_nodes"), attr(f, "global_elems")
    nt, nq, nl = attr(f, "n_triangles"), attr(f, "n_quadrangles"), attr(f, "n_lines")
    if nt + nq + nl != ne:
        fail("%s: type counts %d + %d + %d != global_elems %d" % (path, nt, nq, nl, ne))

    # Shapes and types.
    want = {"mesh/coordinates": ((nn, 3), "f8"), "mesh/global_id": ((nn,), "i8")}
    if nt:
        want["mesh/triangles"] = ((nt, 3), "i8")
    if nq:
        want["mesh/quadrangles"] = ((nq, 4), "i8")
    if nl:
        want["mesh/lines"] = ((nl, 2), "i8")
    if nt and nq:
        want["mesh/mixed"] = ((4 * nt + 5 * nq,), "i8")
    rk, erk = ("fields/part", "fields/elem_part") if view else ("fields/node_rank", "fields/cell_rank")
    want[rk] = ((nn,), "i4")
    want[erk] = ((ne,), "i4")
    if not view:
        want["fields/cell_group"] = ((ne,), "i4")
    if not view and nsteps == 0:
        want.update({"fields/u": ((nn,), "f8"), "fields/cx": ((ne,), "f8"), "fields/tag": ((ne,), "i4")})
    for k in range(nsteps):
        want["steps/%d/u" % k] = ((nn,), "f8")
    for d, (shape, dt) in want.items():
        if d not in f:
            fail("%s: dataset /%s missing" % (path, d))
        elif f[d].shape != shape or f[d].dtype != np.dtype("<" + dt):
            fail("%s: /%s is %s %s, expected %s %s" % (path, d, f[d].shape, f[d].dtype, shape, dt))
    for g in ("mesh", "fields"):
        for d in f[g]:
            if "%s/%s" % (g, d) not in want and not (g == "fields" and d in ("u", "cx", "tag")):
                fail("%s: unexpected dataset /%s/%s" % (path, g, d))
    if errors:
        return
    for d in [rk, erk, "mesh/global_id"] + [k for k in want if k.startswith("fields/") or k.startswith("steps/")]:
        c = f[d].attrs.get("center")
        c = c.decode() if isinstance(c, bytes) else c
        exp = "cell" if f[d].shape[0] == ne and d in (erk, "fields/cx", "fields/tag", "fields/cell_group") else "node"
        if c != exp:
            fail("%s: /%s center %r, expected %r" % (path, d, c, exp))

    xyz = f["mesh/coordinates"][:]
    gid = f["mesh/global_id"][:]
    rank = f[rk][:]
    erank = f[erk][:]
    if np.any(np.diff(gid) <= 0):
        fail("%s: global ids are not strictly ascending" % path)
    # Cells in global element order, as lists of node rows.
    cells = []
    if nt and nq:
        m = f["mesh/mixed"][:]
        i, tri, quad = 0, [], []
        while i < len(m):
            if m[i] not in (4, 5):
                fail("%s: /mesh/mixed has type code %d at %d" % (path, m[i], i))
                break
            nv = 3 if m[i] == 4 else 4
            cells.append(list(m[i + 1:i + 1 + nv]))
            (tri if nv == 3 else quad).append(cells[-1])
            i += 1 + nv
        if not (np.array_equal(tri, f["mesh/triangles"][:]) and np.array_equal(quad, f["mesh/quadrangles"][:])):
            fail("%s: /mesh/mixed disagrees with /mesh/triangles and /mesh/quadrangles" % path)
    else:
        for d in ("mesh/triangles", "mesh/quadrangles", "mesh/lines"):
            if d in f:
                cells = [list(r) for r in f[d][:]]
    if len(cells) != ne:
        fail("%s: %d cells, expected %d" % (path, len(cells), ne))
    flat = np.concatenate([np.asarray(c) for c in cells]) if cells else np.zeros(0, int)
    if flat.size and (flat.min() < 0 or flat.max() >= nn):
        fail("%s: connectivity out of range [0, %d)" % (path, nn))
        return
    used = np.zeros(nn, bool)
    used[flat] = True
    if not used.all():
        fail("%s: %d nodes used by no cell" % (path, (~used).sum()))
    # The cell rank is the rank of its node with the smallest index (the local meshes' rule).
    own = np.array([rank[min(c)] for c in cells])
    if not np.array_equal(own, erank):
        fail("%s: %d cells whose rank is not their smallest node's" % (path, (own != erank).sum()))
    if rank.min() < 0 or rank.max() >= nranks or set(np.unique(rank)) != set(range(nranks)):
        fail("%s: node ranks %s, expected every rank in 0..%d" % (path, np.unique(rank), nranks - 1))
    if "--expect-empty-type" in flags:
        types = np.array([len(c) for c in cells])
        empty = [r for r in range(nranks) if np.sum((erank == r) & (types == 3)) == 0 or
                 np.sum((erank == r) & (types == 4)) == 0]
        p = nranks
        slabs = [(ne // p) * r + (ne % p) * r // p for r in range(p + 1)]
        empty_slab = [r for r in range(p) if len(set(types[slabs[r]:slabs[r + 1]])) < 2]
        if not empty or not empty_slab:
            fail("%s: expected a rank owning no cell of some type and one whose slab has none (%s, %s)" %
                 (path, empty, empty_slab))
        else:
            print("ranks owning no cell of one type: %s; ranks writing no row of one type (H5Sselect_none): %s" %
                  (empty, empty_slab))

    # Fields.
    lin = xyz[:, 0] + 2.0 * xyz[:, 1] + 3.0
    if not view and nsteps == 0:
        if not np.array_equal(f["fields/u"][:], lin):
            fail("%s: u differs from x + 2y + 3 at %d nodes" % (path, (f["fields/u"][:] != lin).sum()))
        cx = np.array([sum_seq([xyz[n, 0] for n in c]) / len(c) for c in cells])
        if not np.array_equal(f["fields/cx"][:], cx):
            fail("%s: cx differs from the centroid x at %d cells" % (path, (f["fields/cx"][:] != cx).sum()))
    for k in range(nsteps):
        g = f["steps/%d" % k]
        if g.attrs["time"] != attr(f, "times")[k]:
            fail("%s: /steps/%d time %s" % (path, k, g.attrs["time"]))
        if not np.array_equal(g["u"][:], (k + 1.0) * lin):
            fail("%s: /steps/%d/u differs from %d (x + 2y + 3)" % (path, k, k + 1))
    if nsteps and attr(f, "n_steps") != nsteps:
        fail("%s: n_steps %s, expected %d" % (path, attr(f, "n_steps"), nsteps))

    # Against the MSH file.
    if opts["--msh"]:
        mnodes, melems = read_msh(opts["--msh"])
        topdim = {1: 1, 2: 2, 3: 2}
        top = [e for e in melems if e[0] in topdim and topdim[e[0]] == dim]
        want_gid = np.array(sorted({t for e in top for t in e[2]}))
        if not np.array_equal(gid, want_gid):
            fail("%s: global ids are not the ascending tags of the mesh's cell nodes" % path)
        else:
            mxyz = np.array([mnodes[t] for t in gid])
            if not np.array_equal(mxyz, xyz):
                fail("%s: coordinates differ from %s" % (path, opts["--msh"]))
        if len(top) != ne:
            fail("%s: %d cells, the mesh has %d" % (path, ne, len(top)))
        if "fields/tag" in f and not errors:
            bytag = {e[1]: e[2] for e in top}
            tags = f["fields/tag"][:]
            bad = sum(1 for c, t in zip(cells, tags) if [int(gid[n]) for n in c] != bytag.get(int(t)))
            if bad:
                fail("%s: %d cells whose node tags differ from the mesh's element with their tag" % (path, bad))

    # Against another rank count.
    if opts["--same-as"]:
        with h5py.File(opts["--same-as"], "r") as r:
            for d in list(f["mesh"]):
                if not np.array_equal(f["mesh/" + d][:], r["mesh/" + d][:]):
                    fail("%s: /mesh/%s differs from %s" % (path, d, opts["--same-as"]))
            for d in ("u", "cx", "tag"):
                if "fields/" + d in f and not np.array_equal(f["fields/" + d][:], r["fields/" + d][:]):
                    fail("%s: /fields/%s differs from %s" % (path, d, opts["--same-as"]))
            if attr(f, "mesh_fingerprint") != attr(r, "mesh_fingerprint"):
                fail("%s: mesh_fingerprint differs from %s's" % (path, opts["--same-as"]))
    if opts["--xmf"]:
        check_xmf(opts["--xmf"], f, nn, ne, nsteps)


def sum_seq(v):
    s = 0.0
    for x in v:
        s += x
    return s


if __name__ == "__main__":
    main()
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
