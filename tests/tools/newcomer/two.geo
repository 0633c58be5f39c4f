// two.geo - two materials side by side: "copper" on [0,1]x[0,1], "steel" on [1,2]x[0,1].
// gmsh -2 -format msh22 two.geo -o two.msh
h = 0.25;
Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {2, 0, 0, h};
Point(4) = {2, 1, 0, h};
Point(5) = {1, 1, 0, h};
Point(6) = {0, 1, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Line(7) = {2, 5};
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
Physical Curve("left", 1) = {6};
Physical Curve("right", 2) = {3};
Physical Surface("copper", 3) = {1};
Physical Surface("steel", 4) = {2};
