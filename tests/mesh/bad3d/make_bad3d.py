#!/usr/bin/env python3
"""make_bad3d.py: write the 3D meshes of this folder that pmesh must refuse when it builds the
global mesh (run from this folder).  EXPECT lists each with a fragment of partition's message;
the *_gmsh*.msh files were written by Gmsh (see EXPECT)."""

FMT = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"


def mesh(nodes, elems, names=""):
    out = FMT
    if names:
        out += "$PhysicalNames\n%d\n%s$EndPhysicalNames\n" % (names.count("\n"), names)
    out += "$Nodes\n%d\n" % len(nodes)
    out += "".join("%d %g %g %g\n" % ((i + 1,) + tuple(p)) for i, p in enumerate(nodes))
    out += "$EndNodes\n$Elements\n%d\n" % len(elems)
    out += "".join("%d %d 2 %d 1 %s\n" % (i + 1, t, ph, " ".join(map(str, v))) for i, (t, ph, v) in enumerate(elems))
    return out + "$EndElements\n"


CUBE = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)]
TET = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
PRISM = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1)]
files = {
    # Two tetrahedra, the second with two nodes swapped: negative volume.
    "tet_inverted.msh": mesh(TET + [(1, 1, 1)], [(4, 1, [1, 2, 3, 4]), (4, 1, [2, 4, 3, 5])]),
    # Four coplanar nodes: zero volume.
    "tet_flat.msh": mesh([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)], [(4, 1, [1, 2, 3, 4])]),
    # A hexahedron with its bottom and top swapped: negative at every corner.
    "hex_inverted.msh": mesh(CUBE, [(5, 1, [5, 6, 7, 8, 1, 2, 3, 4])]),
    # A hexahedron whose node 7 is pulled across the cell to (-0.5, -0.5, 0.5): the Jacobian
    # stays positive at node 1 and turns negative at node 6 (the first corner checked that folds).
    "hex_folded.msh": mesh(CUBE[:6] + [(-0.5, -0.5, 0.5)] + CUBE[7:], [(5, 1, [1, 2, 3, 4, 5, 6, 7, 8])]),
    # A prism listed top triangle first.
    "prism_inverted.msh": mesh(PRISM, [(6, 1, [4, 5, 6, 1, 2, 3])]),
    # Three positive tetrahedra on one triangle (1 2 3): two above it, one below.
    "face_three_cells.msh": mesh(TET + [(0.2, 0.2, -1), (0.3, 0.3, 0.5)],
                                 [(4, 1, [1, 2, 3, 4]), (4, 1, [1, 3, 2, 5]), (4, 1, [1, 2, 3, 6])]),
    # The same with a physical surface named "boundary" (so none is derived): still refused.
    "face_three_cells_named.msh": mesh(TET + [(0.2, 0.2, -1), (0.3, 0.3, 0.5)],
                                       [(4, 1, [1, 2, 3, 4]), (4, 1, [1, 3, 2, 5]), (4, 1, [1, 2, 3, 6]),
                                        (2, 2, [1, 2, 4])], '3 1 "solid"\n2 2 "boundary"\n'),
    # A hexahedron whose face x = 1 two tetrahedra split along its diagonal 2-7 (no pyramid
    # between them): a non-conforming interface.
    "hex_tets_nonconforming.msh": mesh(CUBE + [(2, 0.5, 0.5)],
                                       [(5, 1, [1, 2, 3, 4, 5, 6, 7, 8]), (4, 1, [2, 3, 7, 9]), (4, 1, [2, 7, 6, 9])]),
    # The closed surface of a tetrahedron: triangles in 3D space, no volume.
    "surface_only.msh": mesh(TET, [(2, 1, [1, 3, 2]), (2, 1, [1, 2, 4]), (2, 1, [1, 4, 3]), (2, 1, [2, 3, 4])]),
}
for name, body in files.items():
    with open(name, "w") as f:
        f.write(body)
