# counts.awk MESH.msh: the global node and element counts of a Gmsh MSH 4.1 ASCII mesh refined 0,
# 1 and 2 times, one line "nodes elements" per level, read from the file itself (not through
# pmesh).  Of the elements of the top dimension: V distinct nodes, L lines, T triangles, Q
# quadrangles, E distinct edges (2D, 3D).  Refining splits a line in 2, a triangle or a
# quadrangle in 4, and adds a node per edge (1D: per line) and one per quadrangle:
#   1D: V' = V + L, L' = 2L;  2D: V' = V + E + Q, E' = 2E + 3T + 4Q, T' = 4T, Q' = 4Q
# (each edge splits in 2; a triangle adds 3 inner edges, a quadrangle 4).
# 3D, with tetrahedra A, hexahedra H, prisms P, pyramids Y, distinct triangular faces FT and
# quadrilateral faces FQ: a cell splits in 8 (a pyramid in 6 pyramids and 4 tetrahedra), a node
# per edge, per quadrilateral face and per hexahedron:
#   V' = V + E + FQ + H, E' = 2E + 3FT + 4FQ + A + 6H + 3P + 4Y, FT' = 4FT + 8A + 4P + 12Y,
#   FQ' = 4FQ + 12H + 6P + Y, (A, H, P, Y)' = (8A + 4Y, 8H, 8P, 6Y)
# (a tetrahedron's inner edge is its diagonal and it has 8 inner triangles; a hexahedron's 6
# inner edges join its centre to its faces' and it has 12 inner quadrangles; a prism's middle
# layer holds 3 inner edges and 4 inner triangles, and 6 inner quadrangles stand on it; a
# pyramid's inner edges join its base's centre to its side edges' midpoints, its tetrahedra have
# 3 inner triangles each, and the pyramid under its apex stands on 1 inner quadrangle).
$1 == "$MeshFormat" { getline; if ($1 != "4.1" || $2 != 0) { print "counts.awk: " FILENAME ": not MSH 4.1 ASCII" > "/dev/stderr"; bad = 1; exit 1 } next }
$1 == "$Elements" {
  getline
  nblocks = $1
  for (b = 0; b < nblocks; b++) {
    getline
    dim = $1; type = $3; n = $4
    for (i = 0; i < n; i++) {
      getline
      if (type < 1 || type > 7) continue
      ne++
      edim[ne] = dim; etype[ne] = type; nv[ne] = NF - 1
      for (j = 2; j <= NF; j++) node[ne, j - 1] = $j
      if (dim > top) top = dim
    }
  }
}
END {
  if (bad) exit 1
  V = L = T = Q = E = A = H = P = Y = FT = FQ = 0
  # 3D cells' edges and faces by Gmsh's vertex order (1-based)
  ed[4] = "1 2 2 3 3 1 1 4 2 4 3 4"; fa[4] = "1 2 3,1 2 4,1 3 4,2 3 4"
  ed[5] = "1 2 2 3 3 4 4 1 5 6 6 7 7 8 8 5 1 5 2 6 3 7 4 8"
  fa[5] = "1 2 3 4,5 6 7 8,1 2 6 5,2 3 7 6,3 4 8 7,4 1 5 8"
  ed[6] = "1 2 2 3 3 1 4 5 5 6 6 4 1 4 2 5 3 6"; fa[6] = "1 2 3,4 5 6,1 2 5 4,2 3 6 5,3 1 4 6"
  ed[7] = "1 2 2 3 3 4 4 1 1 5 2 5 3 5 4 5"; fa[7] = "1 2 5,2 3 5,3 4 5,4 1 5,1 2 3 4"
  for (e = 1; e <= ne; e++) {
    if (edim[e] != top) continue
    L += etype[e] == 1; T += etype[e] == 2; Q += etype[e] == 3
    A += etype[e] == 4; H += etype[e] == 5; P += etype[e] == 6; Y += etype[e] == 7
    for (j = 1; j <= nv[e]; j++) if (!((node[e, j]) in vert)) { vert[node[e, j]] = 1; V++ }
    if (top < 2) continue
    if (top == 3) {
      m = split(ed[etype[e]], x, " ")
      for (j = 1; j < m; j += 2) {
        a = node[e, x[j]] + 0; c = node[e, x[j + 1]] + 0
        key = a < c ? a " " c : c " " a
        if (!(key in edge)) { edge[key] = 1; E++ }
      }
      nf = split(fa[etype[e]], fl, ",")
      for (f = 1; f <= nf; f++) {
        k = split(fl[f], x, " ")
        for (j = 1; j <= k; j++) s[j] = node[e, x[j]] + 0
        for (i = 2; i <= k; i++) for (j = i; j > 1 && s[j - 1] > s[j]; j--) { t = s[j]; s[j] = s[j - 1]; s[j - 1] = t }
        key = s[1]; for (j = 2; j <= k; j++) key = key " " s[j]
        if (!(key in face)) { face[key] = 1; if (k == 3) FT++; else FQ++ }
      }
      continue
    }
    for (j = 1; j <= nv[e]; j++) {
      a = node[e, j] + 0; c = node[e, j % nv[e] + 1] + 0
      key = a < c ? a " " c : c " " a
      if (!(key in edge)) { edge[key] = 1; E++ }
    }
  }
  for (level = 0; level <= 2; level++) {
    print V, L + T + Q + A + H + P + Y
    if (top == 1) { V += L; L *= 2 }
    else if (top == 3) {
      V += E + FQ + H; E = 2 * E + 3 * FT + 4 * FQ + A + 6 * H + 3 * P + 4 * Y
      FT = 4 * FT + 8 * A + 4 * P + 12 * Y; FQ = 4 * FQ + 12 * H + 6 * P + Y; A = 8 * A + 4 * Y; H *= 8; P *= 8; Y *= 6
    }
    else { V += E + Q; E = 2 * E + 3 * T + 4 * Q; T *= 4; Q *= 4 }
  }
}
