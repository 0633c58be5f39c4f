# counts.awk MESH.msh: the global node and element counts of a Gmsh MSH 4.1 ASCII mesh refined 0,
# 1 and 2 times, one line "nodes elements" per level, read from the file itself (not through
# pmesh).  Of the elements of the top dimension: V distinct nodes, L lines, T triangles, Q
# quadrangles, E distinct edges (2D).  Refining splits a line in 2, a triangle or a quadrangle in
# 4, and adds a node per edge (1D: per line) and one per quadrangle:
#   1D: V' = V + L, L' = 2L;  2D: V' = V + E + Q, E' = 2E + 3T + 4Q, T' = 4T, Q' = 4Q
# (each edge splits in 2; a triangle adds 3 inner edges, a quadrangle 4).
$1 == "$MeshFormat" { getline; if ($1 != "4.1" || $2 != 0) { print "counts.awk: " FILENAME ": not MSH 4.1 ASCII" > "/dev/stderr"; bad = 1; exit 1 } next }
$1 == "$Elements" {
  getline
  nblocks = $1
  for (b = 0; b < nblocks; b++) {
    getline
    dim = $1; type = $3; n = $4
    for (i = 0; i < n; i++) {
      getline
      if (type != 1 && type != 2 && type != 3) continue
      ne++
      edim[ne] = dim; etype[ne] = type; nv[ne] = NF - 1
      for (j = 2; j <= NF; j++) node[ne, j - 1] = $j
      if (dim > top) top = dim
    }
  }
}
END {
  if (bad) exit 1
  V = L = T = Q = E = 0
  for (e = 1; e <= ne; e++) {
    if (edim[e] != top) continue
    L += etype[e] == 1; T += etype[e] == 2; Q += etype[e] == 3
    for (j = 1; j <= nv[e]; j++) if (!((node[e, j]) in vert)) { vert[node[e, j]] = 1; V++ }
    if (top < 2) continue
    for (j = 1; j <= nv[e]; j++) {
      a = node[e, j] + 0; c = node[e, j % nv[e] + 1] + 0
      key = a < c ? a " " c : c " " a
      if (!(key in edge)) { edge[key] = 1; E++ }
    }
  }
  for (level = 0; level <= 2; level++) {
    print V, L + T + Q
    if (top == 1) { V += L; L *= 2 }
    else { V += E + Q; E = 2 * E + 3 * T + 4 * Q; T *= 4; Q *= 4 }
  }
}
