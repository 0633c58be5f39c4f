#!/usr/bin/env python3
"""make_bad3d.py: write the 3D meshes of this folder that pmesh must refuse when it builds the
global mesh (run from this folder).  EXPECT lists each with a fragment of partition's message;
the *_gmsh*.msh files were written by Gmsh (see EXPECT).  good_*.msh are the exception: valid
cells near the refusals' edge, which partition must take (tests/mesh/CMakeLists.txt)."""

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
    # Hexahedron and prism positive at every corner but folded inside (found by a random search;
    # a 21^3 grid of points gives the hexahedron's determinant a minimum of -0.0159 against 0.0214
    # at its corners, 11x11x41 points the prism's -0.152 against 0.061).
    "hex_folded_inside.msh": mesh([(0.27, 0.79, -0.26), (1.0, 0.17, 0.63), (1.44, 0.58, -0.5), (-0.17, 1.07, -0.31),
                                   (0.3, -0.45, 0.62), (1.15, 0.1, 0.99), (0.57, 1.04, 1.2), (0.06, 1.42, 0.88)],
                                  [(5, 1, [1, 2, 3, 4, 5, 6, 7, 8])]),
    "prism_folded_inside.msh": mesh([(0.4, 0.3, -0.6), (0.5, 0.5, 0.2), (-0.8, 0.5, 0.0), (-0.4, 0.2, 1.0),
                                     (1.2, -0.5, 1.3), (0.8, 0.7, 1.5)], [(6, 1, [1, 2, 3, 4, 5, 6])]),
    # A hexahedron positive everywhere (minimum 0.101 on a 17^3 grid of points) whose
    # determinant's Bernstein coefficients over the whole cell are not all positive (one is
    # -0.0172): taken only once the cell is split into sub-boxes and bounded there.
    "good_hex_bernstein.msh": mesh([(0.42, -0.3, -0.19), (1.42, 0.13, 0.33), (0.34, 1.06, -0.37),
                                    (-0.41, 1.14, 0.37), (-0.44, -0.32, 0.84), (0.97, -0.39, 1.69),
                                    (1.19, 0.9, 0.86), (0.71, 1.68, 0.86)], [(5, 1, [1, 2, 3, 4, 5, 6, 7, 8])]),
    # A prism listed top triangle first.
    "prism_inverted.msh": mesh(PRISM, [(6, 1, [4, 5, 6, 1, 2, 3])]),
    # A pyramid listed with its base clockwise seen from its apex: negative at every base corner.
    # (A pyramid cannot fold inside with its base corners positive: its determinant is bilinear.)
    "pyramid_inverted.msh": mesh(CUBE[:4] + [(0.5, 0.5, 1)], [(7, 1, [1, 4, 3, 2, 5])]),
    # Two positive tetrahedra on the same side of the triangle they share (1 2 3): they overlap.
    "tangled_two_tets.msh": mesh(TET + [(0.2, 0.2, 0.5)], [(4, 1, [1, 2, 3, 4]), (4, 1, [1, 2, 3, 5])]),
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
