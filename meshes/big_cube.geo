// A unit cube with a spherical hole of radius 0.25: the 3D benchmarks' tetrahedral meshes.
// h = 0.0092 gives ~1M nodes: gmsh -3 big_cube.geo -setnumber h 0.0092 -format msh41 -bin -o big_cube.msh
SetFactory("OpenCASCADE");
If(!Exists(h)) h = 0.1; EndIf
Box(1) = {0, 0, 0, 1, 1, 1};
Sphere(2) = {0.5, 0.5, 0.5, 0.25};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h;
Physical Volume("domain") = {3};
s() = Boundary{Volume{3};};
Physical Surface("outer") = {s(0), s(1), s(2), s(3), s(4), s(5)};
Physical Surface("hole") = {s(6)};
