// bar.geo - the lecture's 1D bar (input.dat with NEg = 15, dX = 1): [0,15] in 15 lines.
// Gmsh numbers the end nodes 1 and 2 and the interior nodes 3..16, unlike
// `meshgen line 15 1` (nodes 1..16 left to right): the same bar in two numberings.
// gmsh -1 bar.geo -format msh41 -o bar.msh
Point(1) = {0, 0, 0, 1.0};
Point(2) = {15, 0, 0, 1.0};
Line(1) = {1, 2};
Transfinite Curve{1} = 16; // 16 nodes, 15 elements
Physical Point("xmin", 1) = {1};
Physical Point("xmax", 2) = {2};
Physical Curve("bar", 3) = {1};
