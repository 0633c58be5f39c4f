// An L-shaped plate extruded in z: transfinite recombined quadrangles extruded in layers make
// hexahedra.  Named surfaces bottom, top, inner (the re-entrant faces) and volume plate.
h = 0.2;
Point(1) = {0, 0, 0, h}; Point(2) = {1, 0, 0, h}; Point(3) = {2, 0, 0, h};
Point(4) = {2, 1, 0, h}; Point(5) = {1, 1, 0, h}; Point(6) = {1, 2, 0, h};
Point(7) = {0, 2, 0, h}; Point(8) = {0, 1, 0, h};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 5};
Line(5) = {5, 6}; Line(6) = {6, 7}; Line(7) = {7, 8}; Line(8) = {8, 1};
Line(9) = {2, 5}; Line(10) = {5, 8};
Curve Loop(1) = {1, 9, 10, 8}; Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -9}; Plane Surface(2) = {2};
Curve Loop(3) = {-10, 5, 6, 7}; Plane Surface(3) = {3};
Transfinite Curve{1:10} = 6;
Transfinite Surface{1, 2, 3};
Recombine Surface{1, 2, 3};
ex[] = Extrude{0, 0, 0.5}{Surface{1, 2, 3}; Layers{4}; Recombine;};
Physical Surface("bottom") = {1, 2, 3};
Physical Surface("top") = {ex[0], ex[6], ex[12]};
Physical Volume("plate") = {ex[1], ex[7], ex[13]};
