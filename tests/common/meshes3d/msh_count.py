#!/usr/bin/env python3
"""Independent counts of an ASCII Gmsh MSH 2.2 or 4.1 volume mesh (written to make COUNTS; not
pmesh's reader): nodes used by volume cells, cells per Gmsh type, faces (triangles/quadrangles
in physical surfaces), physical groups of dimension 2 and 3 (lower ones are ignored in 3D),
ignored lines and points, and the boundary: the cell faces that belong to exactly one cell.

usage: msh_count.py FILE.msh ...   (prints one COUNTS line per file)"""
import sys
from collections import Counter

NV = {1: 2, 2: 3, 3: 4, 4: 4, 5: 8, 6: 6, 7: 5, 15: 1}
DIM = {15: 0, 1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 3, 7: 3}
# Faces of each volume type as local vertex lists (Gmsh's numbering).
FACES = {4: [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)],
         5: [(0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)],
         6: [(0, 1, 2), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)],
         7: [(0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4), (0, 1, 2, 3)]}


def read(path):
    """Yields (tag, type, nodes, physical tags, entity dim) and returns physical names."""
    lines = open(path).read().split("\n")
    sec = {}
    i = 0
    while i < len(lines):
        if lines[i].startswith("$") and not lines[i].startswith("$End"):
            name = lines[i][1:].strip()
            j = lines.index("$End" + name, i)
            sec[name] = [l.split() for l in lines[i + 1:j]]
            i = j
        i += 1
    version = sec["MeshFormat"][0][0]
    elems = []
    if version.startswith("2"):
        for r in sec["Elements"][1:]:
            tag, typ, nt = int(r[0]), int(r[1]), int(r[2])
            tags = [int(x) for x in r[3:3 + nt]]
            nodes = tuple(int(x) for x in r[3 + nt:])
            elems.append((tag, typ, nodes, [tags[0]] if tags and tags[0] else []))
    else:
        ent = sec["Entities"]
        n = [int(x) for x in ent[0]]
        phys = {}
        k = 1
        for d in range(4):
            for _ in range(n[d]):
                r = ent[k]
                k += 1
                np_ = int(r[4 if d == 0 else 7])
                off = 5 if d == 0 else 8
                phys[(d, int(r[0]))] = [int(x) for x in r[off:off + np_]]
        rows = sec["Elements"]
        k = 1
        while k < len(rows):
            d, etag, typ, cnt = (int(x) for x in rows[k])
            for r in rows[k + 1:k + 1 + cnt]:
                elems.append((int(r[0]), typ, tuple(int(x) for x in r[1:]), phys[(d, etag)]))
            k += 1 + cnt
    names = {(int(r[0]), int(r[1])): r[2] for r in sec.get("PhysicalNames", [])[1:]}
    return elems, names


def count(path):
    elems, names = read(path)
    seen = {}
    for tag, typ, nodes, ph in elems:  # MSH 2.2 repeats an element once per group
        if tag in seen:
            seen[tag][3].extend(ph)
        else:
            seen[tag] = (tag, typ, nodes, list(ph))
    cells = [e for e in seen.values() if DIM[e[1]] == 3]
    nodes = set(v for e in cells for v in e[2])
    faces = [e for e in seen.values() if DIM[e[1]] == 2 and e[3]]
    groups = set()
    for e in seen.values():
        if DIM[e[1]] >= 2:
            groups.update((DIM[e[1]], p) for p in e[3])
    ignored = Counter(DIM[e[1]] for e in seen.values() if DIM[e[1]] < 2)
    fc = Counter()
    for e in cells:
        for f in FACES[e[1]]:
            fc[tuple(sorted(e[2][a] for a in f))] += 1
    assert max(fc.values()) <= 2
    boundary = sum(1 for v in fc.values() if v == 1)
    types = Counter(e[1] for e in cells)
    return (len(nodes), len(cells), types.get(4, 0), types.get(5, 0), types.get(6, 0), len(faces),
            len(groups), boundary, ignored.get(1, 0), ignored.get(0, 0), types.get(7, 0))


if __name__ == "__main__":
    print("# file nodes cells tets hexes prisms faces groups boundary lines points pyramids")
    for p in sys.argv[1:]:
        print(p.split("/")[-1], *count(p))
