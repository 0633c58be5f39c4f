// big_square.geo - the ~1M-node benchmark mesh: the unit square, unstructured triangles.
// Not committed as .msh (about 1.0M nodes); make it with
//   gmsh -2 meshes/big_square.geo -format msh41 -bin -o /tmp/big.msh
// Same groups as square.geo, so the same tool command lines work on both.
h = 1.0 / 930; // target edge length: about 1.16/h^2 nodes with the default 2D algorithm
Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {1, 1, 0, h};
Point(4) = {0, 1, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("bottom", 1) = {1};
Physical Curve("right", 2) = {2};
Physical Curve("top", 3) = {3};
Physical Curve("left", 4) = {4};
Physical Surface("domain", 5) = {1};
