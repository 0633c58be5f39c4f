// A box 2 x 1 x 1 with a cylindrical hole along z: tetrahedra, named surfaces and volume.
SetFactory("OpenCASCADE");
Box(1) = {0, 0, 0, 2, 1, 1};
Cylinder(2) = {1, 0.5, 0, 0, 0, 1, 0.25};
BooleanDifference(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
Mesh.CharacteristicLengthMax = 0.16;
Physical Volume("solid") = {3};
Physical Surface("hole") = Surface In BoundingBox{0.7, 0.2, -0.1, 1.3, 0.8, 1.1};
Physical Surface("xmin") = Surface In BoundingBox{-0.1, -0.1, -0.1, 0.1, 1.1, 1.1};
Physical Surface("xmax") = Surface In BoundingBox{1.9, -0.1, -0.1, 2.1, 1.1, 1.1};
Physical Curve("edges") = Curve In BoundingBox{-0.1, -0.1, -0.1, 0.1, 1.1, 1.1};
Physical Point("corner") = Point In BoundingBox{-0.1, -0.1, -0.1, 0.1, 0.1, 0.1};
