// Physical surfaces but no physical volume: Gmsh saves only the elements of physical groups,
// so the file holds the surface triangles and no tetrahedra.
Point(1) = {0, 0, 0, 1}; Point(2) = {1, 0, 0, 1}; Point(3) = {1, 1, 0, 1}; Point(4) = {0, 1, 0, 1};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
b[] = Extrude{0, 0, 1}{Surface{1};};
Physical Surface("bottom") = {1};
Physical Surface("top") = {b[0]};
