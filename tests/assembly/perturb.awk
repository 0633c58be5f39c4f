# Moves every interior node of a unit-box MSH 4.1 ASCII mesh by up to a*h per coordinate
# (pseudo-random, reproducible), leaving the boundary nodes (and so the flat faces) in place.
function r(k) { v = sin(k * 12.9898 + 78.233) * 43758.5453; return 2 * (v - int(v)) - 1 }
/^\$Nodes/ { in_nodes = 1 }
/^\$EndNodes/ { in_nodes = 0 }
in_nodes && NF == 3 && $1 > 1e-9 && $1 < 1 - 1e-9 && $2 > 1e-9 && $2 < 1 - 1e-9 && $3 > 1e-9 && $3 < 1 - 1e-9 {
  printf "%.17g %.17g %.17g\n", $1 + a * h * r(3 * NR), $2 + a * h * r(3 * NR + 1), $3 + a * h * r(3 * NR + 2); next
}
{ print }
