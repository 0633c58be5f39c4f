// lshape.geo - the L-shaped domain [0,2]x[0,2] minus [1,2]x[1,2], unstructured triangles,
// refined towards the re-entrant corner (1,1).
// Groups overlap on purpose: "boundary" is the whole boundary and "reentrant" the two edges
// meeting at the re-entrant corner, so those lines belong to two physical groups.
// gmsh -2 lshape.geo -format msh41 -o lshape.msh
h = 0.1;
hc = 0.03;
Point(1) = {0, 0, 0, h};
Point(2) = {2, 0, 0, h};
Point(3) = {2, 1, 0, h};
Point(4) = {1, 1, 0, hc}; // re-entrant corner
Point(5) = {1, 2, 0, h};
Point(6) = {0, 2, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Curve Loop(1) = {1, 2, 3, 4, 5, 6};
Plane Surface(1) = {1};
Physical Curve("boundary", 1) = {1, 2, 3, 4, 5, 6};
Physical Curve("reentrant", 2) = {3, 4};
Physical Surface("domain", 3) = {1};
