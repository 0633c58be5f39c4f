#!/usr/bin/env python3
"""make_bad.py: write the broken local-mesh and partition.meta files of this folder (run from it).

The bases are real files: good.txt is local.1 of `meshgen grid 4 3 -o g.msh; partition g.msh 2
-o d` (rank 1 of 2: NP 9, N 6, one neighbour 0), meta_good.txt its partition.meta (format version
1), meta_good_v2.txt the same partition's version 2 (with mesh_fingerprint), meta_good_v3.txt a
version 3 (a refined partition's, with its coarse partition), lecture.txt the
lecture's sqm.1 (rank 1 of 4, neighbours 0 and 3, tables only).  Each broken file is listed in
EXPECT with a fragment of the message `local_read FILE RANK` must print."""

good = open("good.txt").read().split("\n")
lect = open("lecture.txt").read().split("\n")
meta = open("meta_good.txt").read().split("\n")
meta2 = open("meta_good_v2.txt").read().split("\n")
meta3 = open("meta_good_v3.txt").read().split("\n")


def at(lines, header):
    """Index of a section header line."""
    return lines.index(header)


def sub(lines, header, k, new):
    """Replace line k (1-based) after a header."""
    out = list(lines)
    out[at(out, header) + k] = new
    return out


def cut(lines, header):
    """Everything up to and including the header line."""
    return lines[: at(lines, header) + 1] + [""]


def key(lines, name, new):
    """Replace (new: str) or drop (new: None) the metadata line starting with 'name '."""
    out = []
    for line in lines:
        if line.split(" ")[0] == name:
            if new is not None:
                out.append(new)
        else:
            out.append(line)
    return out


files = {
    "empty.txt": [""],
    "whitespace.txt": [" ", "\t", ""],
    "not_local.txt": ["hello world", "this is not a local mesh", ""],
    "msh_file.txt": ["$MeshFormat", "4.1 0 8", "$EndMeshFormat", ""],
    "no_neibpetot.txt": good[2:],
    "neibpetot_neg.txt": sub(good, "#NEIBPEtot", 1, "-1"),
    "neibpetot_2g.txt": sub(good, "#NEIBPEtot", 1, "2147483648"),
    "neibpetot_4e18.txt": sub(good, "#NEIBPEtot", 1, "4611686018427387904"),
    "neibpetot_1m.txt": sub(good, "#NEIBPEtot", 1, "1000000"),
    "neibpetot_more.txt": sub(good, "#NEIBPEtot", 1, "3"),
    "neibpetot_float.txt": sub(good, "#NEIBPEtot", 1, "1.0"),
    "neib_dup.txt": sub(lect, "#NEIBPE", 1, "0  0"),
    "neib_self.txt": sub(good, "#NEIBPE", 1, "1"),
    "neib_range.txt": sub(good, "#NEIBPE", 1, "5"),
    "node_np_lt_n.txt": sub(good, "#NODE", 1, "5 6"),
    "node_np_huge.txt": sub(good, "#NODE", 1, "2147483648 6"),
    "node_n_neg.txt": sub(good, "#NODE", 1, "9 -1"),
    "node_nonnumeric.txt": sub(good, "#NODE", 1, "9 six"),
    "node_hex.txt": sub(good, "#NODE", 1, "0x9 6"),
    "importindex_decr.txt": sub(lect, "#IMPORTindex", 1, "8  4"),
    "importindex_total.txt": sub(good, "#IMPORTindex", 1, "2"),
    "importindex_huge.txt": sub(sub(good, "#NODE", 1, "2000000006 6"), "#IMPORTindex", 1, "2000000000"),
    "import_item_0.txt": sub(good, "#IMPORTitems", 1, "0"),
    "import_item_n.txt": sub(good, "#IMPORTitems", 1, "6"),
    "import_item_np1.txt": sub(good, "#IMPORTitems", 3, "10"),
    "import_twice.txt": sub(good, "#IMPORTitems", 3, "7"),
    "exportindex_decr.txt": sub(lect, "#EXPORTindex", 1, "4  3"),
    "export_item_0.txt": sub(good, "#EXPORTitems", 1, "0"),
    "export_item_n1.txt": sub(good, "#EXPORTitems", 2, "7"),
    "auxnode_huge.txt": sub(good, "#AUXNODE", 1, "4611686018427387904"),
    "globalid_count.txt": sub(good, "#GLOBALID", 1, "8"),
    "globalid_zero.txt": sub(good, "#GLOBALID", 2, "0 0"),
    "coord_count.txt": sub(good, "#COORD", 1, "10"),
    "coord_nan.txt": sub(good, "#COORD", 3, "0 nan 0"),
    "coord_inf.txt": sub(good, "#COORD", 2, "inf 0 0"),
    "coord_word.txt": sub(good, "#COORD", 2, "1 zero 0"),
    "element_count_huge.txt": sub(good, "#ELEMENT", 1, "2147483648"),
    "element_type.txt": sub(good, "#ELEMENT", 2, "9 1 0 1 1 2 4 3"),  # a second-order triangle: not read
    "element_type_99.txt": sub(good, "#ELEMENT", 2, "99 1 0 1 1 2 4 3"),
    "element_node_range.txt": sub(good, "#ELEMENT", 3, "3 2 1 1 2 7 10 4"),
    "element_node_zero.txt": sub(good, "#ELEMENT", 3, "3 2 1 1 0 7 8 4"),
    "element_owner.txt": sub(good, "#ELEMENT", 4, "3 4 3 2 3 4 6 5"),
    "element_short.txt": sub(good, "#ELEMENT", 4, "3 4 3 1 3 4 6"),
    "group_huge.txt": sub(good, "#GROUP", 1, "4611686018427387904"),
    "group_more.txt": sub(good, "#GROUP", 1, "9999"),
    "group_node_range.txt": sub(good, "#GROUP", 3, "10"),
    "group_nodes_huge.txt": sub(good, "#GROUP", 1 + 1, "bottom 1 2147483648 2 0"),
    "group_face_node.txt": sub(good, "#GROUP", 6, "1 7 1 12"),
    "group_elem_range.txt": sub(good, "#GROUP", 34, "5"),
    "partition_rank.txt": sub(good, "#PARTITION", 1, "33c9b62c7d214755 2 0"),
    "partition_rank_range.txt": sub(good, "#PARTITION", 1, "33c9b62c7d214755 2 2"),
    "partition_nparts.txt": sub(good, "#PARTITION", 1, "33c9b62c7d214755 0 1"),
    "fingerprint_hex.txt": sub(good, "#PARTITION", 1, "33c9b62c7d21475g 2 1"),
    "fingerprint_long.txt": sub(good, "#PARTITION", 1, "33c9b62c7d2147550 2 1"),
    "trailing_junk.txt": good[:-1] + ["junk", ""],
    "ok_spelling.txt": [
        {"#IMPORTindex": "#IMPORT_index", "#EXPORTitems": "#export_ITEMS", "#NEIBPEtot": "#NeibPE_tot"}.get(l, l)
        for l in good
    ],
    # partition.meta
    "meta_empty.txt": [""],
    "meta_not.txt": ["#NEIBPEtot", "1", ""],
    "meta_version.txt": key(meta, "version", "version 4"),
    "meta_v2_no_mesh_fp.txt": key(meta2, "mesh_fingerprint", None),
    "meta_v2_mesh_fp_hex.txt": key(meta2, "mesh_fingerprint", "mesh_fingerprint 6198dfe8210b0c3z"),
    "meta_v3_no_refine.txt": key(meta3, "refine_levels", None),
    "meta_v1_mesh_fp.txt": key(meta2, "version", "version 1"),
    "meta_no_dim.txt": key(meta, "dim", None),
    "meta_no_source.txt": key(meta, "source", None),
    "meta_groups_huge.txt": key(meta, "groups", "groups 4611686018427387904"),
    "meta_groups_more.txt": key(meta, "groups", "groups 9999"),
    "meta_groups_fewer.txt": key(meta, "groups", "groups 7"),
    "meta_hex.txt": key(meta, "fingerprint", "fingerprint 33c9b62c7d21475x"),
    "meta_checksum_long.txt": key(meta, "source_checksum", "source_checksum 76049d2eb3044b8f0"),
    "meta_nparts_zero.txt": key(meta, "nparts", "nparts 0"),
    "meta_trunc.txt": meta[:4] + ["global_nodes"],
}
# A pmesh file cut after each section header.  (Cut just before #AUXNODE it is a valid lecture
# file: the tables alone are a complete file.)
for h in ["#NEIBPEtot", "#NEIBPE", "#NODE", "#IMPORTindex", "#IMPORTitems", "#EXPORTindex", "#EXPORTitems",
          "#AUXNODE", "#GLOBALID", "#COORD", "#ELEMENT", "#GROUP", "#PARTITION"]:
    files["trunc_%s.txt" % h[1:].lower()] = cut(good, h)
files["trunc_no_end.txt"] = good[: at(good, "#END")] + [""]
files["trunc_mid_line.txt"] = ["\n".join(good)[: "\n".join(good).index("#COORD") + 20]]

for name, lines in files.items():
    with open(name, "w") as f:
        f.write("\n".join(lines))
