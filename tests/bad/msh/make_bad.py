#!/usr/bin/env python3
"""make_bad.py: write the broken MSH files of this folder (run from it; needs ../../msh).
Each file is listed in EXPECT with a fragment of the message msh_read must print."""
import struct

FMT22 = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
FMT41 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
NODES22 = "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n"
ELEMS22 = "$Elements\n1\n1 2 2 1 1 1 2 3\n$EndElements\n"
ENT41 = "$Entities\n0 0 1 0\n1 0 0 0 1 1 0 1 5 0\n$EndEntities\n"
NODES41 = "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n"
ELEMS41 = "$Elements\n1 1 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n"

text = {
    "empty.msh": "",
    "not_a_mesh.msh": "hello world\nthis is not a mesh\n",
    "whitespace.msh": "  \n\n \t\n",
    "version1.msh": "$NOD\n1\n1 0 0 0\n$ENDNOD\n$ELM\n0\n$ENDELM\n",
    "version30.msh": "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n" + NODES22 + ELEMS22,
    "version40.msh": "$MeshFormat\n4 0 8\n$EndMeshFormat\n$Nodes\n1 1\n1 0 0 1\n1 0 0 0\n$EndNodes\n",
    "version_garbage.msh": "$MeshFormat\nabc 0 8\n$EndMeshFormat\n",
    "datasize4_22.msh": "$MeshFormat\n2.2 0 4\n$EndMeshFormat\n" + NODES22 + ELEMS22,
    "filetype2.msh": "$MeshFormat\n2.2 2 8\n$EndMeshFormat\n" + NODES22 + ELEMS22,
    "trunc_format.msh": "$MeshFormat\n2.2 0",
    "no_endformat.msh": "$MeshFormat\n2.2 0 8\n" + NODES22 + ELEMS22,
    "trunc_names.msh": FMT22 + '$PhysicalNames\n2\n1 1 "a"\n',
    "trunc_entities.msh": FMT41 + "$Entities\n0 0 2 0\n1 0 0 0 1 1 0 1 5 0\n",
    "trunc_nodes22.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1 0",
    "trunc_nodes41.msh": FMT41 + "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n",
    "trunc_elements22.msh": FMT22 + NODES22 + "$Elements\n2\n1 2 2 1 1 1 2 3\n",
    "trunc_elements41.msh": FMT41 + NODES41 + "$Elements\n1 2 1 2\n2 1 2 2\n1 1 2 3\n",
    "trunc_endelements.msh": FMT22 + NODES22 + "$Elements\n1\n1 2 2 1 1 1 2 3\n",
    "no_endnodes.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1 0\n" + ELEMS22,
    "no_nodes.msh": FMT22 + ELEMS22,
    "no_elements.msh": FMT22 + NODES22,
    "nodes_negative.msh": FMT22 + "$Nodes\n-5\n$EndNodes\n" + ELEMS22,
    "nodes_huge31.msh": FMT22 + "$Nodes\n2147483648\n1 0 0 0\n$EndNodes\n" + ELEMS22,
    "nodes_huge62.msh": FMT22 + "$Nodes\n4611686018427387904\n1 0 0 0\n$EndNodes\n" + ELEMS22,
    "nodes_huge64.msh": FMT22 + "$Nodes\n99999999999999999999\n$EndNodes\n",
    "nodes41_huge.msh": FMT41 + "$Nodes\n1 4611686018427387904 1 3\n2 1 0 3\n$EndNodes\n",
    "elements41_huge.msh": FMT41 + NODES41 + "$Elements\n1 2147483648 1 1\n2 1 2 1\n1 1 2 3\n$EndElements\n",
    "elements22_negative.msh": FMT22 + NODES22 + "$Elements\n-1\n$EndElements\n",
    "names_huge.msh": FMT22 + '$PhysicalNames\n2147483648\n1 1 "a"\n$EndPhysicalNames\n' + NODES22 + ELEMS22,
    "entities_negative.msh": FMT41 + "$Entities\n0 -2 1 0\n$EndEntities\n" + NODES41 + ELEMS41,
    "entities_huge.msh": FMT41 + "$Entities\n0 0 4611686018427387904 0\n$EndEntities\n",
    "entity_phys_huge.msh": FMT41 + "$Entities\n0 0 1 0\n1 0 0 0 1 1 0 2147483648 5 0\n$EndEntities\n",
    "nodes_fewer.msh": FMT22 + "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "nodes_more.msh": FMT22 + "$Nodes\n2\n1 0 0 0\n2 1 0 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "elements_fewer22.msh": FMT22 + NODES22 + "$Elements\n2\n1 2 2 1 1 1 2 3\n$EndElements\n",
    "elements_more22.msh": FMT22 + NODES22 + "$Elements\n1\n1 2 2 1 1 1 2 3\n2 1 2 1 1 1 2\n$EndElements\n",
    "elements41_count.msh": FMT41 + NODES41 + "$Elements\n1 3 1 3\n2 1 2 1\n1 1 2 3\n$EndElements\n",
    "elements41_blocks_more.msh": FMT41 + NODES41 + "$Elements\n1 1 1 2\n2 1 2 2\n1 1 2 3\n2 1 3 2\n$EndElements\n",
    "nodes41_count.msh": FMT41 + "$Nodes\n1 4 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n" + ELEMS41,
    "nodes41_blocks_more.msh": FMT41 + "$Nodes\n1 2 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n$EndNodes\n" + ELEMS41,
    "nodes41_more_blocks.msh": FMT41 + "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 1 0\n2 1 0 0\n$EndNodes\n" + ELEMS41,
    "missing_node.msh": FMT22 + NODES22 + "$Elements\n1\n7 2 2 1 1 1 2 9\n$EndElements\n",
    "missing_node41.msh": FMT41 + NODES41 + "$Elements\n1 1 1 1\n2 1 2 1\n7 1 9 3\n$EndElements\n",
    "missing_node_late.msh": FMT22 + "$Elements\n1\n7 2 2 1 1 1 2 9\n$EndElements\n" + NODES22,
    "duplicate_node.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1 0 0\n1 0 1 0\n$EndNodes\n" + ELEMS22,
    "duplicate_node_sparse.msh": FMT22 + "$Nodes\n3\n5 0 0 0\n900000000000 1 0 0\n5 0 1 0\n$EndNodes\n",
    "duplicate_node41.msh": FMT41 + "$Nodes\n2 3 1 3\n2 1 0 2\n1\n2\n0 0 0\n1 0 0\n2 1 0 1\n2\n0 1 0\n$EndNodes\n" + ELEMS41,
    "duplicate_entity.msh": FMT41 + "$Entities\n0 0 2 0\n1 0 0 0 1 1 0 1 5 0\n1 0 0 0 1 1 0 1 6 0\n$EndEntities\n" + NODES41 + ELEMS41,
    "nan.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 nan 0 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "inf.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1 -inf 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "overflow_real.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1 0 0\n3 0 1e999 0\n$EndNodes\n" + ELEMS22,
    "nan41.msh": FMT41 + "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0 0 0\n1 0 0\n0 NaN 0\n$EndNodes\n" + ELEMS41,
    "type9.msh": FMT22 + NODES22 + "$Elements\n1\n17 9 2 1 1 1 2 3 1 2 3\n$EndElements\n",
    "type4.msh": FMT22 + NODES22 + "$Elements\n1\n5 4 2 1 1 1 2 3 1\n$EndElements\n",
    "type_unknown.msh": FMT22 + NODES22 + "$Elements\n1\n5 77 2 1 1 1 2 3 1\n$EndElements\n",
    "type9_41.msh": FMT41 + NODES41 + "$Elements\n1 1 4 4\n2 1 9 1\n4 1 2 3 1 2 3\n$EndElements\n",
    "dim_mismatch41.msh": FMT41 + NODES41 + "$Elements\n1 1 1 1\n1 1 2 1\n1 1 2 3\n$EndElements\n",
    "partitioned_min.msh": FMT41 + "$PartitionedEntities\n2\n0\n$EndPartitionedEntities\n" + NODES41 + ELEMS41,
    "unterminated_comment.msh": FMT22 + "$Comments\nno end\n" + NODES22 + ELEMS22,
    "bad_int.msh": FMT22 + "$Nodes\n3\n1 0 0 0\nx2 1 0 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "bad_real.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1.5.3 0 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "node_tag_zero.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n0 1 0 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "second_nodes.msh": FMT22 + NODES22 + NODES22 + ELEMS22,
    "second_format.msh": FMT22 + FMT22 + NODES22 + ELEMS22,
    "stray_end.msh": FMT22 + NODES22 + "$EndNodes\n" + ELEMS22,
    "stray_text.msh": FMT22 + NODES22 + "garbage\n" + ELEMS22,
    "name_unquoted_end.msh": FMT22 + '$PhysicalNames\n1\n1 1 "abc\n$EndPhysicalNames\n' + NODES22 + ELEMS22,
    "name_missing.msh": FMT22 + "$PhysicalNames\n1\n1 1\n$EndPhysicalNames\n" + NODES22 + ELEMS22,
    "name_dim.msh": FMT22 + '$PhysicalNames\n1\n7 1 "a"\n$EndPhysicalNames\n' + NODES22 + ELEMS22,
    "nul_byte.msh": FMT22 + "$Nodes\n3\n1 0 0 0\n2 1\x000 0\n3 0 1 0\n$EndNodes\n" + ELEMS22,
    "version40b.msh": "$MeshFormat\n4.0 0 8\n$EndMeshFormat\n",
    "trunc_names_ends.msh": FMT22 + '$PhysicalNames\n2\n1 1 "a rather long physical name"\n',
    "trunc_nodes22_ends.msh": FMT22 + "$Nodes\n3\n1 0.000000 0.00000 0\n2 1.0000000 0.0000000 0\n3 0.0",
    "trunc_nodes41_ends.msh": FMT41 + "$Nodes\n1 3 1 3\n2 1 0 3\n1\n2\n3\n0.00000000 0.0000000 0\n",
    "parametric_flag.msh": FMT41 + "$Nodes\n1 1 1 1\n2 1 2 1\n1\n0 0 0\n$EndNodes\n",
}

for name, body in text.items():
    with open(name, "w", newline="\n") as f:
        f.write(body)


def patch(data, marker, offset, fmt, *vals):
    """Overwrite bytes at data.index(marker) + offset."""
    b = bytearray(data)
    p = b.index(marker) + offset
    struct.pack_into(fmt, b, p, *vals)
    return bytes(b)


sq22b = open("../../msh/sq22b.msh", "rb").read()
sq41b = open("../../msh/sq41b.msh", "rb").read()
nodes22 = sq22b.index(b"$Nodes\n13\n") + len(b"$Nodes\n13\n")
elems22 = sq22b.index(b"$Elements\n21\n") + len(b"$Elements\n21\n")
elems41 = sq41b.index(b"$Elements\n") + len(b"$Elements\n")
nodes41 = sq41b.index(b"$Nodes\n") + len(b"$Nodes\n")
binary = {
    "bad_endian.msh": patch(sq22b, b"2.2 1 8\n", 8, "<i", 2),
    "bad_endian41.msh": patch(sq41b, b"4.1 1 8\n", 8, "<i", 0x00010000),
    "trunc_binary22.msh": sq22b[: nodes22 + 5 * 28 + 13],
    "trunc_binary22_elements.msh": sq22b[: elems22 + 30],
    "trunc_binary41.msh": sq41b[: elems41 + 100],
    "trunc_binary41_ends.msh": sq41b[: len(sq41b) - 13 - 40],
    "trunc_binary22_ends.msh": sq22b[: elems22 + 190],
    "trunc_binary41_nodes.msh": sq41b[: nodes41 + 40],
    "trunc_binary_marker.msh": sq22b[: sq22b.index(b"2.2 1 8\n") + 10],
    "nan_binary.msh": patch(sq22b, b"$Nodes\n13\n", 10 + 3 * 28 + 4 + 8, "<d", float("nan")),
    "inf_binary41.msh": patch(sq41b, b"$Nodes\n", 7 + 32 + 20 + 8 + 8, "<d", float("inf")),
    "binary_tag_negative.msh": patch(sq22b, b"$Nodes\n13\n", 10 + 2 * 28, "<i", -1),
    "binary_count_huge41.msh": patch(sq41b, b"$Nodes\n", 7 + 8, "<Q", 1 << 62),
    "binary_count_sign41.msh": patch(sq41b, b"$Elements\n", 10 + 8, "<Q", (1 << 64) - 1),
    "type4_binary.msh": patch(sq22b, b"$Elements\n21\n", 13, "<i", 4),
    "binary_missing_node.msh": patch(sq22b, b"$Elements\n21\n", 13 + 12 + 4 * 3, "<i", 999),
    "binary_block_count41.msh": patch(sq41b, b"$Elements\n", 10 + 32 + 12, "<Q", 22),
    "binary_elements_negative22.msh": patch(sq22b, b"$Elements\n21\n", 13 + 4, "<i", -3),
}
for name, body in binary.items():
    with open(name, "wb") as f:
        f.write(body)
