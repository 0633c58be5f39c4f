#!/usr/bin/env python3
"""check_box.py FILE NX NY NZ LX LY LZ hex|tet|prism|pyramid: check a box written by `meshgen box`.

Reads the MSH 4.1 ASCII file with its own small parser (not pmesh's) and checks, against the
box's definition: the node tags and coordinates, the cell count and type, every cell's volume
positive (by an independent split into tetrahedra), the volumes summing to LX*LY*LZ, the faces
matching (each cell face shared by at most two cells), the boundary faces being exactly the
faces of one cell, each on its side's plane, pointing out, covering the side's area, and the
physical groups named as documented."""
import sys

import numpy as np

# Faces of each cell type as vertex lists in Gmsh's vertex order (Gmsh's documentation).
FACES = {
    4: [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)],
    5: [(0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)],
    6: [(0, 1, 2), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)],
    7: [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4), (0, 1, 2, 3)],
}
# The same cells as tetrahedra (each positive when the cell is), for the volumes.
TETS = {
    4: [(0, 1, 2, 3)],
    5: [(0, 1, 3, 4), (1, 2, 3, 6), (1, 3, 4, 6), (3, 4, 6, 7), (1, 4, 5, 6)],
    6: [(0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5)],
    7: [(0, 1, 3, 4), (1, 2, 3, 4)],
}
NODES_OF = {2: 3, 3: 4, 4: 4, 5: 8, 6: 6, 7: 5}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def read(path):
    lines = [l.split() for l in open(path)]
    names, nodes, blocks, surf_phys = {}, {}, [], {}
    i = 0
    while i < len(lines):
        w = lines[i]
        if w == ["$PhysicalNames"]:
            n = int(lines[i + 1][0])
            for k in range(n):
                d, t, name = lines[i + 2 + k]
                names[(int(d), int(t))] = name.strip('"')
            i += 2 + n
        elif w == ["$Entities"]:
            npt, ncu, nsu, nvo = map(int, lines[i + 1])
            assert npt == 0 and ncu == 0
            for k in range(nsu + nvo):
                r = lines[i + 2 + k]
                tag, nph = int(r[0]), int(r[7])
                dim = 2 if k < nsu else 3
                surf_phys[(dim, tag)] = [int(x) for x in r[8:8 + nph]]
            i += 2 + nsu + nvo
        elif w == ["$Nodes"]:
            nb = int(lines[i + 1][0])
            i += 2
            for _ in range(nb):
                n = int(lines[i][3])
                tags = [int(lines[i + 1 + k][0]) for k in range(n)]
                for k, t in enumerate(tags):
                    nodes[t] = np.array([float(x) for x in lines[i + 1 + n + k]])
                i += 1 + 2 * n
        elif w == ["$Elements"]:
            nb = int(lines[i + 1][0])
            i += 2
            for _ in range(nb):
                dim, ent, typ, n = map(int, lines[i])
                els = [[int(x) for x in lines[i + 1 + k]] for k in range(n)]
                blocks.append((dim, ent, typ, els))
                i += 1 + n
        else:
            i += 1
    return names, nodes, blocks, surf_phys


def tet_volume(p):
    return np.linalg.det(np.array([p[1] - p[0], p[2] - p[0], p[3] - p[0]])) / 6


def main():
    path, nx, ny, nz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    L = [float(x) for x in sys.argv[5:8]]
    kind = sys.argv[8]
    ctype, per = {"hex": (5, 1), "tet": (4, 6), "prism": (6, 2), "pyramid": (7, 6)}[kind]
    names, nodes, blocks, phys = read(path)

    want = {(2, 1): "xmin", (2, 2): "xmax", (2, 3): "ymin", (2, 4): "ymax", (2, 5): "zmin", (2, 6): "zmax",
            (2, 7): "boundary", (3, 8): "domain"}
    if names != want:
        fail("physical names %s" % names)
    ncell = (nx - 1) * (ny - 1) * (nz - 1)
    centres = ncell if kind == "pyramid" else 0  # the pyramids' apexes, after the grid's nodes
    if len(nodes) != nx * ny * nz + centres:
        fail("%d nodes, expected %d" % (len(nodes), nx * ny * nz + centres))
    n3 = (nx, ny, nz)
    for k in range(nz):
        for j in range(ny):
            for i in range(nx):
                t = (k * ny + j) * nx + i + 1
                x = np.array([i * L[0] / (nx - 1), j * L[1] / (ny - 1), k * L[2] / (nz - 1)])
                if t not in nodes or np.abs(nodes[t] - x).max() > 1e-12 * max(L):
                    fail("node %d is not at %s" % (t, x))
    for c in range(centres):
        i, j, k = c % (nx - 1), c // (nx - 1) % (ny - 1), c // ((nx - 1) * (ny - 1))
        x = np.array([(i + 0.5) * L[0] / (nx - 1), (j + 0.5) * L[1] / (ny - 1), (k + 0.5) * L[2] / (nz - 1)])
        t = nx * ny * nz + 1 + c
        if t not in nodes or np.abs(nodes[t] - x).max() > 1e-12 * max(L):
            fail("centre node %d is not at %s" % (t, x))

    cells = [b for b in blocks if b[0] == 3]
    if len(cells) != 1 or cells[0][2] != ctype or phys[(3, cells[0][1])] != [8]:
        fail("one volume block of type %d in physical volume 8 expected" % ctype)
    els = cells[0][3]
    if len(els) != (nx - 1) * (ny - 1) * (nz - 1) * per:
        fail("%d cells, expected %d" % (len(els), (nx - 1) * (ny - 1) * (nz - 1) * per))
    ncells, total, faces = len(els), 0.0, {}
    for e in els:
        v = e[1:]
        if len(v) != NODES_OF[ctype]:
            fail("element %d has %d nodes" % (e[0], len(v)))
        p = [nodes[t] for t in v]
        for tet in TETS[ctype]:
            vol = tet_volume([p[a] for a in tet])
            if vol <= 0:
                fail("cell %d is inverted or flat (a sub-tetrahedron's volume %g)" % (e[0], vol))
            total += vol
        for f in FACES[ctype]:
            key = tuple(sorted(v[a] for a in f))
            faces[key] = faces.get(key, 0) + 1
    if abs(total - L[0] * L[1] * L[2]) > 1e-12 * L[0] * L[1] * L[2]:
        fail("the cells' volumes sum to %.17g, not %.17g" % (total, L[0] * L[1] * L[2]))
    if max(faces.values()) > 2:
        fail("a face is shared by more than two cells")
    outer = {f for f, c in faces.items() if c == 1}

    seen, area = set(), [0.0] * 6
    for dim, ent, typ, els in blocks:
        if dim != 2:
            continue
        if not 1 <= ent <= 6 or phys[(2, ent)] != [ent, 7]:
            fail("surface %d: physical tags %s" % (ent, phys.get((2, ent))))
        axis, high = (ent - 1) // 2, (ent - 1) % 2
        for e in els:
            v = e[1:]
            p = [nodes[t] for t in v]
            if any(abs(q[axis] - (L[axis] if high else 0)) > 1e-12 for q in p):
                fail("face %d of surface %d is not on its side" % (e[0], ent))
            n = np.zeros(3)
            for a in range(1, len(p) - 1):  # area vector, fan from the first vertex
                n += np.cross(p[a] - p[0], p[a + 1] - p[0]) / 2
            if n[axis] * (1 if high else -1) <= 0:
                fail("face %d of surface %d points into the box" % (e[0], ent))
            area[ent - 1] += abs(n[axis])
            key = tuple(sorted(v))
            if key not in outer:
                fail("boundary face %d is not the face of exactly one cell" % e[0])
            seen.add(key)
    if seen != outer:
        fail("%d cell faces on the boundary have no boundary element" % len(outer - seen))
    for s in range(6):
        a = s // 2
        want_area = L[(a + 1) % 3] * L[(a + 2) % 3]
        if abs(area[s] - want_area) > 1e-12 * want_area:
            fail("side %d: faces cover %g of %g" % (s + 1, area[s], want_area))
    print("ok: %s box %dx%dx%d: %d cells, %d boundary faces" % (kind, nx, ny, nz, ncells, len(seen)))


main()
