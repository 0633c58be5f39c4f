// A mixed mesh whose cells conform: hexahedra (left block, recombined quadrangles extruded),
// prisms (right block, triangles extruded) meeting the hexahedra on quadrangles at x = 1, and
// tetrahedra above the prisms meeting them on triangles at z = 0.5.
h = 0.2;
Point(1) = {0, 0, 0, h}; Point(2) = {1, 0, 0, h}; Point(3) = {2, 0, 0, h};
Point(4) = {2, 1, 0, h}; Point(5) = {1, 1, 0, h}; Point(6) = {0, 1, 0, h};
Line(1) = {1, 2}; Line(2) = {2, 5}; Line(3) = {5, 6}; Line(4) = {6, 1};
Line(5) = {2, 3}; Line(6) = {3, 4}; Line(7) = {4, 5};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Curve Loop(2) = {5, 6, 7, -2}; Plane Surface(2) = {2};
Transfinite Curve{1, 2, 3, 4} = 6;
Transfinite Surface{1};
Recombine Surface{1};
ex[] = Extrude{0, 0, 0.5}{Surface{1, 2}; Layers{3}; Recombine;};
// ex[0] top of the hexahedra, ex[1] their volume, ex[6] top of the prisms, ex[7] their volume.
et[] = Extrude{0, 0, 0.5}{Surface{ex[6]};};  // no layers: an unstructured (tetrahedral) volume
Physical Surface("bottom") = {1, 2};
Physical Surface("top") = {ex[0], et[0]};
Physical Volume("hexes") = {ex[1]};
Physical Volume("prisms") = {ex[7]};
Physical Volume("tets") = {et[1]};
