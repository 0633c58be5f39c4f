// disk_hole.geo - the disk of radius 1 around the origin with a hole of radius 0.3 at the
// centre (an annulus), unstructured triangles; boundaries "outer" and "inner".
// gmsh -2 disk_hole.geo -format msh41 -o disk_hole.msh
R = 1.0;
r = 0.3;
h = 0.08;
hi = 0.04; // finer on the hole, where a solution's gradient is largest
Point(1) = {0, 0, 0, h}; // centre of both circles
Point(2) = {R, 0, 0, h};
Point(3) = {0, R, 0, h};
Point(4) = {-R, 0, 0, h};
Point(5) = {0, -R, 0, h};
Point(6) = {r, 0, 0, hi};
Point(7) = {0, r, 0, hi};
Point(8) = {-r, 0, 0, hi};
Point(9) = {0, -r, 0, hi};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Circle(5) = {6, 1, 7};
Circle(6) = {7, 1, 8};
Circle(7) = {8, 1, 9};
Circle(8) = {9, 1, 6};
Curve Loop(1) = {1, 2, 3, 4};
Curve Loop(2) = {5, 6, 7, 8};
Plane Surface(1) = {1, 2};
Physical Curve("outer", 1) = {1, 2, 3, 4};
Physical Curve("inner", 2) = {5, 6, 7, 8};
Physical Surface("domain", 3) = {1};
