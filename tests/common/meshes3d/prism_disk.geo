// A disk of radius 1 triangulated and extruded in z in layers: prisms.  Named surfaces bottom,
// top, side and volume cylinder.
SetFactory("OpenCASCADE");
Disk(1) = {0, 0, 0, 1};
Mesh.CharacteristicLengthMax = 0.2;
ex[] = Extrude{0, 0, 0.6}{Surface{1}; Layers{5}; Recombine;};
Physical Surface("bottom") = {1};
Physical Surface("top") = {ex[0]};
Physical Surface("side") = {ex[2]};
Physical Volume("cylinder") = {ex[1]};
