// An L-shaped mounting bracket (mm): a base plate 120 x 60 x 12 with two bolt holes (radius 6),
// an upright web 12 x 60 rising 80 above it with a load hole (radius 10), a 12 mm fillet between.  The
// tetrahedral meshes of issue 31's 3D benchmarks (bench/bench_refine3d.sh):
//   gmsh -3 meshes/bracket.geo -setnumber h 2.3 -format msh41 -bin -o bracket13k.msh   (13,186 nodes)
//   gmsh -3 meshes/bracket.geo -setnumber h 0.99 -format msh41 -bin -o bracket125k.msh (126,098 nodes)
// (node counts from Gmsh 4.8.4; the default h = 6 gives 1,360 nodes).
// Physical surfaces: "bolts" (the two bolt holes' walls), "load" (the web hole's wall), "outer"
// (everything else); physical volume "bracket".  A Poisson problem with u = 0 on bolts and
// u = 1 on load is a heat path through the part.
SetFactory("OpenCASCADE");
If(!Exists(h)) h = 6; EndIf
Box(1) = {0, 0, 0, 120, 60, 12};      // base plate
Box(2) = {0, 0, 0, 12, 60, 92};       // upright web
BooleanUnion(3) = {Volume{1}; Delete;}{Volume{2}; Delete;};
Cylinder(4) = {70, 18, -1, 0, 0, 14, 6};   // bolt holes through the plate
Cylinder(5) = {100, 42, -1, 0, 0, 14, 6};
Cylinder(6) = {-1, 30, 62, 14, 0, 0, 10};  // load hole through the web
BooleanDifference(7) = {Volume{3}; Delete;}{Volume{4, 5, 6}; Delete;};
// The inner corner (x = 12, z = 12, along y) rounded: the fillet keeps the tets there regular.
e() = Curve In BoundingBox{11.9, -0.1, 11.9, 12.1, 60.1, 12.1};
Fillet{7}{e(0)}{12}
v() = Volume{:};
Mesh.CharacteristicLengthMax = h;
Mesh.CharacteristicLengthMin = h / 2;
Physical Volume("bracket") = {v(0)};
b1() = Surface In BoundingBox{63.9, 11.9, -0.1, 76.1, 24.1, 12.1};
b2() = Surface In BoundingBox{93.9, 35.9, -0.1, 106.1, 48.1, 12.1};
ld() = Surface In BoundingBox{-0.1, 19.9, 51.9, 12.1, 40.1, 72.1};
all() = Boundary{Volume{v(0)};};
Physical Surface("bolts") = {b1(), b2()};
Physical Surface("load") = {ld()};
Physical Surface("outer") = {all()};
Physical Surface("outer") -= {b1(), b2(), ld()};
