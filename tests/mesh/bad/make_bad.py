#!/usr/bin/env python3
"""make_bad.py: write the broken MSH files of this folder (run from it; needs ../msh).
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
    "gmsh_empty41.msh": FMT41 + "$Entities\n0 0 0 0\n$EndEntities\n",  # Gmsh's file when it meshed nothing
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
    "type14.msh": FMT22 + NODES22 + "$Elements\n1\n5 14 2 1 1 1 2 3 1 2 3 1 2 3 1 2 3 1 2 3\n$EndElements\n",
    "type_unknown.msh": FMT22 + NODES22 + "$Elements\n1\n5 77 2 1 1 1 2 3 1\n$EndElements\n",
    "type9_41.msh": FMT41 + NODES41 + "$Elements\n1 1 4 4\n2 1 9 1\n4 1 2 3 1 2 3\n$EndElements\n",
    "dim_mismatch41.msh": FMT41 + NODES41 + "$Elements\n1 1 1 1\n1 1 2 1\n1 1 2 3\n$EndElements\n",
    "partitioned_min.msh": FMT41 + "$PartitionedEntities\n2\n0\n0 0 0 0\n$EndPartitionedEntities\n" + NODES41 + ELEMS41,
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
    # References to what the file does not define (entities, physical groups, parents).
    "elem_entity41.msh": FMT41 + ENT41 + NODES41 + "$Elements\n1 1 1 1\n2 4 2 1\n1 1 2 3\n$EndElements\n",
    "elem_entity_late41.msh": FMT41 + NODES41 + "$Elements\n1 1 1 1\n2 4 2 1\n1 1 2 3\n$EndElements\n" + ENT41,
    "node_entity41.msh": FMT41 + ENT41 + "$Nodes\n2 3 1 3\n2 1 0 2\n1\n2\n0 0 0\n1 0 0\n0 6 0 1\n3\n0 1 0\n$EndNodes\n"
    + ELEMS41,
    "bound41.msh": FMT41 + "$Entities\n0 1 1 0\n1 0 0 0 1 0 0 0 2 1 -2\n1 0 0 0 1 1 0 1 5 1 1\n$EndEntities\n"
    + NODES41 + ELEMS41,
    "bound_surface41.msh": FMT41 + "$Entities\n0 0 1 0\n1 0 0 0 1 1 0 1 5 3 1 2 -3\n$EndEntities\n" + NODES41 + ELEMS41,
    "name_dim41.msh": FMT41 + '$PhysicalNames\n2\n2 6 "wall"\n1 5 "domain"\n$EndPhysicalNames\n' + ENT41 + NODES41 + ELEMS41,
    "name_dim22.msh": FMT22 + '$PhysicalNames\n1\n2 3 "inlet"\n$EndPhysicalNames\n' + NODES22
    + "$Elements\n2\n1 2 2 1 1 1 2 3\n2 1 2 3 1 1 2\n$EndElements\n",
    "partitioned_parent.msh": FMT41 + ENT41 + "$PartitionedEntities\n2\n0\n0 0 1 0\n"
    "2 2 3 1 1 0 0 0 1 1 0 1 5 0\n$EndPartitionedEntities\n" + NODES41 + ELEMS41,
    "partitioned_noent.msh": FMT41 + "$PartitionedEntities\n2\n0\n0 0 1 0\n"
    "2 2 1 1 1 0 0 0 1 1 0 1 5 0\n$EndPartitionedEntities\n" + NODES41 + ELEMS41,
    "partitioned_number.msh": FMT41 + ENT41 + "$PartitionedEntities\n2\n0\n0 0 1 0\n"
    "2 2 1 1 3 0 0 0 1 1 0 1 5 0\n$EndPartitionedEntities\n" + NODES41 + ELEMS41,
    "partitioned_ghost.msh": FMT41 + ENT41 + "$PartitionedEntities\n2\n1\n3 0\n0 0 1 0\n"
    "2 2 1 1 1 0 0 0 1 1 0 1 5 0\n$EndPartitionedEntities\n" + NODES41 + ELEMS41,
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


sq22b = open("../msh/sq22b.msh", "rb").read()
sq41b = open("../msh/sq41b.msh", "rb").read()
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
    "type14_binary.msh": patch(sq22b, b"$Elements\n21\n", 13, "<i", 14),
    "binary_missing_node.msh": patch(sq22b, b"$Elements\n21\n", 13 + 12 + 4 * 3, "<i", 999),
    "binary_block_count41.msh": patch(sq41b, b"$Elements\n", 10 + 32 + 12, "<Q", 22),
    "binary_elements_negative22.msh": patch(sq22b, b"$Elements\n21\n", 13 + 4, "<i", -3),
}

# Binary MSH 4.1 written here, little-endian, 8-byte size_t: sections as Gmsh lays them out.
def q(*v):
    return struct.pack("<%dQ" % len(v), *v)


def i4(*v):
    return struct.pack("<%di" % len(v), *v)


def bin_entity(tag, dim, phys, bounds, head=b""):
    """One entity of $Entities (head: the parent and partitions of $PartitionedEntities)."""
    box = struct.pack("<6d", 0, 0, 0, 1, 1, 0) if dim else struct.pack("<3d", 0, 0, 0)
    rec = i4(tag) + head + box + q(len(phys)) + i4(*phys)
    return rec + (q(len(bounds)) + i4(*bounds) if dim else b"")


def bin41(entities=b"", nodes_entity=(2, 1), elems_entity=(2, 1), partitioned=b""):
    """A triangle on surface 1 (physical 5) in binary MSH 4.1."""
    out = b"$MeshFormat\n4.1 1 8\n" + i4(1) + b"\n$EndMeshFormat\n"
    out += b"$Entities\n" + entities + b"\n$EndEntities\n"
    if partitioned:
        out += b"$PartitionedEntities\n" + partitioned + b"\n$EndPartitionedEntities\n"
    out += b"$Nodes\n" + q(1, 3, 1, 3) + i4(nodes_entity[0], nodes_entity[1], 0) + q(3) + q(1, 2, 3)
    out += struct.pack("<9d", 0, 0, 0, 1, 0, 0, 0, 1, 0) + b"\n$EndNodes\n"
    out += b"$Elements\n" + q(1, 1, 1, 1) + i4(elems_entity[0], elems_entity[1], 2) + q(1) + q(1, 1, 2, 3)
    return out + b"\n$EndElements\n"


ENT41B = q(0, 0, 1, 0) + bin_entity(1, 2, [5], [])
PART41B = q(2, 0, 0, 0, 1, 0)
binary.update({
    "elem_entity41b.msh": bin41(ENT41B, elems_entity=(2, 4)),
    "node_entity41b.msh": bin41(ENT41B, nodes_entity=(2, 4)),
    "bound41b.msh": bin41(q(0, 1, 1, 0) + bin_entity(1, 1, [], [1, -2]) + bin_entity(1, 2, [5], [1])),
    "partitioned41b.msh": bin41(ENT41B, partitioned=PART41B + bin_entity(2, 2, [5], [], i4(2, 1) + q(1) + i4(1))),
    "partitioned_parent41b.msh": bin41(ENT41B, partitioned=PART41B + bin_entity(2, 2, [5], [], i4(2, 3) + q(1) + i4(1))),
    "name_dim22b.msh": sq22b.replace(b'1 7 "top"', b'2 7 "top"'),
    "name_dim41b.msh": sq41b.replace(b'1 7 "top"', b'0 7 "top"'),
    "elem_entity_sq41b.msh": patch(sq41b, b"$Elements\n", 10 + 32 + 4, "<i", 99),
    "node_entity_sq41b.msh": patch(sq41b, b"$Nodes\n", 7 + 32 + 4, "<i", 99),
})
for name, body in binary.items():
    with open(name, "wb") as f:
        f.write(body)
