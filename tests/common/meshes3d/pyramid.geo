// Hexahedra, pyramids and tetrahedra that conform: a layer of hexahedra (recombined quadrangles
// extruded) under an unstructured volume whose bottom is those quadrangles, so Gmsh puts a
// pyramid on each of them and fills the rest with tetrahedra.
h = 0.25;
Point(1) = {0, 0, 0, h}; Point(2) = {1, 0, 0, h}; Point(3) = {1, 1, 0, h}; Point(4) = {0, 1, 0, h};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
Transfinite Curve{1, 2, 3, 4} = 5;
Transfinite Surface{1};
Recombine Surface{1};
ex[] = Extrude{0, 0, 0.25}{Surface{1}; Layers{2}; Recombine;};
// ex[0] the hexahedra's top (recombined quadrangles), ex[1] their volume.
et[] = Extrude{0, 0, 0.75}{Surface{ex[0]};};  // no layers: unstructured, on quadrangles
Physical Surface("bottom") = {1};
Physical Surface("top") = {et[0]};
Physical Volume("hexes") = {ex[1]};
Physical Volume("upper") = {et[1]};
