// mixed.geo - the rectangle [0,2]x[0,1]: the left half unstructured triangles, the right half
// a structured grid of recombined quadrangles.  The halves share curve 7 (x = 1) and its
// nodes, so the mesh is conforming; the interface itself is in no physical group.
// gmsh -2 mixed.geo -format msh41 -o mixed.msh
n = 16; // nodes per side of the quadrangle half
h = 1.0 / (n - 1);
Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {2, 0, 0, h};
Point(4) = {2, 1, 0, h};
Point(5) = {1, 1, 0, h};
Point(6) = {0, 1, 0, h};
Line(1) = {1, 2}; // bottom, triangle half
Line(2) = {2, 3}; // bottom, quadrangle half
Line(3) = {3, 4}; // right
Line(4) = {4, 5}; // top, quadrangle half
Line(5) = {5, 6}; // top, triangle half
Line(6) = {6, 1}; // left
Line(7) = {2, 5}; // interface
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
Transfinite Curve{2, 3, 4, 7} = n;
Transfinite Surface{2};
Recombine Surface{2};
Physical Curve("left", 1) = {6};
Physical Curve("right", 2) = {3};
Physical Curve("bottom", 3) = {1, 2};
Physical Curve("top", 4) = {4, 5};
Physical Surface("domain", 5) = {1, 2};
