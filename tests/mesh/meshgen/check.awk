# check.awk - independent check of a meshgen MSH 4.1 file with integer coordinates.
# awk -v kind=grid -v nx=NX -v ny=NY -v tri=0|1 -f check.awk FILE
# awk -v kind=line -v ne=NE -f check.awk FILE            (DX = 1)
# Recomputes from the file alone what meshgen promises: node tags and coordinates, node
# classification, element tags, orientation (positive areas, curves counter-clockwise),
# exact coverage of the domain and its boundary.  Prints "FAIL: ..." lines; exit 1 on any.
function fail(msg) { print "FAIL: " msg; bad++ }
function abs(v) { return v < 0 ? -v : v }
BEGIN { bad = 0; sec = "" }
/^\$PhysicalNames$/ { sec = "P"; getline; next }
/^\$EndPhysicalNames$/ { sec = ""; next }
/^\$Nodes$/ { sec = "N"; getline; nblk = $1; nn = $2; rt = 0; rx = 0; next }
/^\$EndNodes$/ { sec = ""; next }
/^\$Elements$/ { sec = "E"; getline; nel = $2; minel = $3; maxel = $4; re = 0; next }
/^\$EndElements$/ { sec = ""; next }
sec == "P" { phys[$1 " " $2] = $3; next }
sec == "N" {
  if (rt == 0 && rx == 0) { bdim = $1; bent = $2; rt = rx = $4; k = 0; next }
  if (rt > 0) { tag[++k] = $1; rt--; next }
  t = tag[k - rx + 1]; rx--
  if (t in X) fail("node " t " twice")
  X[t] = $1; Y[t] = $2; Z[t] = $3; D[t] = bdim; E[t] = bent; nseen++
  next
}
sec == "E" {
  if (re == 0) { edim = $1; eent = $2; etype = $3; re = $4; next }
  re--
  if ($1 in seenel) fail("element " $1 " twice")
  seenel[$1] = 1; elseen++
  if (etype == 15) { pt[eent] = $2; npts++; next }
  if (etype == 1) {
    a = $2; b = $3; nlines++
    if (kind == "line") {
      if (a != $1 || b != $1 + 1) fail("line " $1 " joins " a "," b)
      next
    }
    dxs = X[b] - X[a]; dys = Y[b] - Y[a]
    # curve 1 bottom (y=0, +x), 2 right (x=nx-1, +y), 3 top (y=ny-1, -x), 4 left (x=0, -y)
    if (eent == 1 && !(Y[a] == 0 && Y[b] == 0 && dxs == 1 && dys == 0)) fail("bottom line " $1)
    if (eent == 2 && !(X[a] == nx-1 && X[b] == nx-1 && dxs == 0 && dys == 1)) fail("right line " $1)
    if (eent == 3 && !(Y[a] == ny-1 && Y[b] == ny-1 && dxs == -1 && dys == 0)) fail("top line " $1)
    if (eent == 4 && !(X[a] == 0 && X[b] == 0 && dxs == 0 && dys == -1)) fail("left line " $1)
    key = (a < b) ? a " " b : b " " a
    if (key in seg) fail("boundary segment " key " twice")
    seg[key] = 1
    next
  }
  # triangle or quadrangle: shoelace area, must be positive (counter-clockwise)
  nv = NF - 1; area2 = 0
  for (v = 2; v <= NF; v++) {
    w = (v == NF) ? 2 : v + 1
    area2 += X[$v] * Y[$w] - X[$w] * Y[$v]
  }
  if (etype == 3 && (nv != 4 || area2 != 2)) fail("quad " $1 " area*2 = " area2)
  if (etype == 2 && (nv != 3 || area2 != 1)) fail("triangle " $1 " area*2 = " area2)
  if (etype == 2 && tri != 1 || etype == 3 && tri == 1) fail("element " $1 " has type " etype)
  if ($1 > ncellexp) fail("cell element " $1 " after the boundary lines")
  # the cell's lower-left node is its smallest tag
  mn = $2; for (v = 3; v <= NF; v++) if ($v < mn) mn = $v
  cell[mn]++
  total2 += area2; ncells++
  next
}
BEGIN {
  if (kind == "grid") { ncellexp = (nx - 1) * (ny - 1) * (tri ? 2 : 1) }
}
END {
  if (kind == "grid") {
    if (nn != nx * ny || nseen != nn) fail("nodes: header " nn ", read " nseen ", expected " nx * ny)
    if (nblk != 9) fail("node blocks: " nblk)
    for (t = 1; t <= nx * ny; t++) {
      i = (t - 1) % nx; j = int((t - 1) / nx)
      if (!(t in X)) { fail("node " t " missing"); continue }
      if (X[t] != i || Y[t] != j || Z[t] != 0) fail("node " t " at " X[t] "," Y[t] "," Z[t])
      onx = (i == 0 || i == nx - 1); ony = (j == 0 || j == ny - 1)
      want = onx && ony ? 0 : (onx || ony ? 1 : 2)
      if (D[t] != want) fail("node " t " classified on dimension " D[t] ", not " want)
    }
    if (ncells != ncellexp) fail("cells: " ncells ", expected " ncellexp)
    if (total2 != 2 * (nx - 1) * (ny - 1)) fail("total area*2 " total2)
    for (j = 0; j < ny - 1; j++) for (i = 0; i < nx - 1; i++)
      if (cell[j * nx + i + 1] != (tri ? 2 : 1)) fail("cell " i "," j " covered " cell[j * nx + i + 1] "x")
    if (nlines != 2 * (nx - 1) + 2 * (ny - 1)) fail("boundary lines: " nlines)
    if (nel != ncellexp + nlines || elseen != nel || minel != 1 || maxel != nel) fail("element header")
    if (phys["1 1"] != "\"bottom\"" || phys["1 2"] != "\"right\"" || phys["1 3"] != "\"top\"" ||
        phys["1 4"] != "\"left\"" || phys["2 5"] != "\"domain\"") fail("physical names")
  } else {
    if (nn != ne + 1 || nseen != nn) fail("nodes: " nn)
    for (t = 1; t <= ne + 1; t++) {
      if (X[t] != t - 1 || Y[t] != 0 || Z[t] != 0) fail("node " t " at " X[t])
      want = (t == 1 || t == ne + 1) ? 0 : 1
      if (D[t] != want) fail("node " t " classified on dimension " D[t])
    }
    if (nlines != ne) fail("lines: " nlines)
    if (npts != 2 || pt[1] != 1 || pt[2] != ne + 1) fail("point elements: xmin " pt[1] ", xmax " pt[2])
    if (nel != ne + 2 || elseen != nel) fail("element header")
    if (phys["0 1"] != "\"xmin\"" || phys["0 2"] != "\"xmax\"" || phys["1 3"] != "\"bar\"") fail("physical names")
  }
  if (bad) exit 1
  print "ok: " FILENAME
}
