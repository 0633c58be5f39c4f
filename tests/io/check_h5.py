#!/usr/bin/env python3
"""check_h5.py - an independent reader of pmesh's HDF5 + XDMF results (issue 4).

  check_h5.py FILE.h5 [--xmf FILE.xmf] [--msh MESH.msh] [--np N] [--same-as REF.h5]
              [--view [--ranks-of RESULT.h5]] [--series STEPS] [--expect-empty-type] [--wide]
              [--and FILE.h5 OPTIONS...]...

--and starts the checks of another file (one process for several files: the test scripts make
hundreds of checks, and each start of python with h5py costs a third of a second).

Checks, with h5py/numpy and the MSH file parsed here (not with pmesh's code):
  - the documented datasets, shapes, dtypes and root attributes (connectivity int32 below 2^31
    nodes, int64 with --wide: written with PMESH_H5_WIDE=1);
  - global ids ascending and exactly the tags of the nodes the mesh's top-dimension cells use;
    coordinates equal to the MSH file's, cell node lists (through the cell field `tag`) equal
    to the MSH file's elements; connectivity in range; /mesh/mixed consistent with the per-type
    datasets; the cell rank is the rank of the cell's node with the smallest index;
  - u == x + 2y + 3z + 3 exactly at every node (series: step k holds (k+1)(x + 2y + 3z + 3)); cx
    equals the centroid x of every cell;
  - 3D: tetrahedra, hexahedra and prisms in /mesh/<type> in VTK's (XDMF's) vertex order, which
    is Gmsh's but for the prism (VTK's wedge lists the bottom triangle the other way round:
    Gmsh's vertices 0, 2, 1, 3, 5, 4); /mesh/mixed with XDMF's codes (6 tetrahedron, 9
    hexahedron, 8 wedge); n_tetrahedra, n_hexahedra, n_prisms;
  - --same-as: mesh datasets, u, cx, tag and mesh_fingerprint byte-identical with REF.h5;
  - --ranks-of (a view): the part ids are the ranks of RESULT.h5, a run on that partition;
  - the XDMF is well-formed XML, and every dataset it references exists with its Dimensions,
    NumberType and Precision.
Exits 1 with one line per failure."""
import os
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

errors = []

# Per cell type: dataset, vertices, XDMF's Mixed code, Gmsh code, Gmsh vertex k of VTK vertex k.
TYPES = [("lines", 2, 2, 1, None), ("triangles", 3, 4, 2, None), ("quadrangles", 4, 5, 3, None),
         ("tetrahedra", 4, 6, 4, None), ("hexahedra", 8, 9, 5, None), ("prisms", 6, 8, 6, [0, 2, 1, 3, 5, 4])]
BY_CODE = {t[2]: t for t in TYPES}
GMSH_DIM = {1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 3}


def to_gmsh(name, row):
    """A dataset row (VTK order) in Gmsh's vertex order."""
    perm = [t for t in TYPES if t[0] == name][0][4]
    if perm is None:
        return list(row)
    out = [0] * len(row)
    for k, g in enumerate(perm):
        out[g] = row[k]
    return out


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


def main(args):
    opts = {"--xmf": None, "--msh": None, "--np": None, "--same-as": None, "--series": "0", "--ranks-of": None}
    flags = set()
    files = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        elif a in ("--view", "--expect-empty-type", "--wide"):
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
    if attr(f, "format") != "pmesh-h5" or attr(f, "format_version") != 2:
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
    names3 = ["tetrahedra", "hexahedra", "prisms"]
    for n in names3:
        if (dim == 3) != ("n_" + n in f.attrs):
            fail("%s: root attribute n_%s %s in a %dD file" % (path, n, "missing" if dim == 3 else "present", dim))
    if errors:
        return
    count = {t[0]: int(attr(f, "n_" + t[0])) if "n_" + t[0] in f.attrs else 0 for t in TYPES}
    present = [t for t in TYPES if count[t[0]] > 0]
    if sum(count.values()) != ne:
        fail("%s: type counts %s do not add up to global_elems %d" % (path, count, ne))

    # Shapes and types.
    want = {"mesh/coordinates": ((nn, 3), "f8"), "mesh/global_id": ((nn,), "i8")}
    conn = "i4" if nn < 2**31 and "--wide" not in flags else "i8"  # format 2: int32 below 2^31 nodes
    for t in present:
        want["mesh/" + t[0]] = ((count[t[0]], t[1]), conn)
    if len(present) > 1:
        want["mesh/mixed"] = ((sum(count[t[0]] * (1 + t[1]) for t in present),), conn)
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
    # Cells in global element order, as lists of node rows in Gmsh's vertex order.
    cells = []
    if len(present) > 1:
        m = f["mesh/mixed"][:]
        i, bytype = 0, {t[0]: [] for t in present}
        while i < len(m):
            if m[i] not in BY_CODE or BY_CODE[m[i]][0] not in bytype:
                fail("%s: /mesh/mixed has type code %d at %d" % (path, m[i], i))
                break
            t = BY_CODE[m[i]]
            row = list(m[i + 1:i + 1 + t[1]])
            bytype[t[0]].append(row)
            cells.append(to_gmsh(t[0], row))
            i += 1 + t[1]
        for t in present:
            if not np.array_equal(np.array(bytype[t[0]]).reshape(-1, t[1]), f["mesh/" + t[0]][:]):
                fail("%s: /mesh/mixed disagrees with /mesh/%s" % (path, t[0]))
    else:
        for t in present:
            cells = [to_gmsh(t[0], r) for r in f["mesh/" + t[0]][:]]
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
    lin = xyz[:, 0] + 2.0 * xyz[:, 1] + 3.0 * xyz[:, 2] + 3.0
    if not view and nsteps == 0:
        if not np.array_equal(f["fields/u"][:], lin):
            fail("%s: u differs from x + 2y + 3z + 3 at %d nodes" % (path, (f["fields/u"][:] != lin).sum()))
        cx = np.array([sum_seq([xyz[n, 0] for n in c]) / len(c) for c in cells])
        if not np.array_equal(f["fields/cx"][:], cx):
            fail("%s: cx differs from the centroid x at %d cells" % (path, (f["fields/cx"][:] != cx).sum()))
    for k in range(nsteps):
        g = f["steps/%d" % k]
        if g.attrs["time"] != attr(f, "times")[k]:
            fail("%s: /steps/%d time %s" % (path, k, g.attrs["time"]))
        if not np.array_equal(g["u"][:], (k + 1.0) * lin):
            fail("%s: /steps/%d/u differs from %d (x + 2y + 3z + 3)" % (path, k, k + 1))
    if nsteps and attr(f, "n_steps") != nsteps:
        fail("%s: n_steps %s, expected %d" % (path, attr(f, "n_steps"), nsteps))

    # Against the MSH file.
    if opts["--msh"]:
        mnodes, melems = read_msh(opts["--msh"])
        top = [e for e in melems if GMSH_DIM.get(e[0]) == dim]
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
    if opts["--ranks-of"]:
        with h5py.File(opts["--ranks-of"], "r") as r:
            if not (np.array_equal(r["fields/node_rank"][:], rank) and np.array_equal(r["fields/cell_rank"][:], erank)):
                fail("%s: the view's part ids differ from the ranks of %s" % (path, opts["--ranks-of"]))
    if opts["--xmf"]:
        check_xmf(opts["--xmf"], f, nn, ne, nsteps)


def sum_seq(v):
    s = 0.0
    for x in v:
        s += x
    return s


if __name__ == "__main__":
    group, checked = [], 0
    for a in sys.argv[1:] + ["--and"]:
        if a != "--and":
            group.append(a)
        elif group:  # an empty group (a leading --and) is skipped
            main(group)
            group, checked = [], checked + 1
    if not checked:
        raise SystemExit(__doc__)
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
