#!/usr/bin/env python3
"""rewrite_bin.py [--be] [--sizet4] IN.msh OUT.msh: rewrite a little-endian binary MSH 2.2 or
4.1 file (as Gmsh writes it) in big-endian byte order (--be) and/or with 4-byte size_t values
(--sizet4, MSH 4.1 only).  An implementation independent of pmesh's reader, used to make the
test fixtures sq22be.msh, sq41be.msh (--be) and sq41b4.msh (--sizet4)."""
import struct
import sys

NODES = {15: 1, 1: 2, 2: 3, 3: 4}


class Swapper:
    def __init__(self, data, be, sizet4):
        self.d, self.p, self.out = data, 0, bytearray()
        self.order, self.sizet4 = ">" if be else "<", sizet4

    def line(self):
        e = self.d.index(b"\n", self.p) + 1
        s = self.d[self.p:e]
        self.out += s
        self.p = e
        return s.decode().strip()

    def fmt(self, f, n=1):
        vals = struct.unpack_from("<" + f * n, self.d, self.p)
        self.p += struct.calcsize("<" + f * n)
        g = "I" if f == "Q" and self.sizet4 else f
        self.out += struct.pack(self.order + g * n, *vals)
        return vals


def main(src, dst, be, sizet4):
    s = Swapper(open(src, "rb").read(), be, sizet4)
    v41 = False
    while s.p < len(s.d):
        name = s.line()
        if name == "$MeshFormat":
            v41 = s.line().split()[0] == "4.1"
            if sizet4:
                assert v41
                s.out[-2:-1] = b"4"
            assert s.fmt("i")[0] == 1
            s.out += b"\n"
            s.p += 1
        elif name == "$Entities" and v41:
            counts = s.fmt("Q", 4)
            for dim, cnt in enumerate(counts):
                for _ in range(cnt):
                    s.fmt("i")
                    s.fmt("d", 3 if dim == 0 else 6)
                    s.fmt("i", s.fmt("Q")[0])
                    if dim:
                        s.fmt("i", s.fmt("Q")[0])
            s.out += b"\n"
            s.p += 1
        elif name == "$Nodes" and v41:
            nblk = s.fmt("Q", 4)[0]
            for _ in range(nblk):
                dim, _tag, param = s.fmt("i", 3)
                n = s.fmt("Q")[0]
                s.fmt("Q", n)
                s.fmt("d", n * (3 + (dim if param else 0)))
            s.out += b"\n"
            s.p += 1
        elif name == "$Elements" and v41:
            nblk = s.fmt("Q", 4)[0]
            for _ in range(nblk):
                _dim, _tag, typ = s.fmt("i", 3)
                n = s.fmt("Q")[0]
                s.fmt("Q", n * (1 + NODES[typ]))
            s.out += b"\n"
            s.p += 1
        elif name == "$Nodes":
            for _ in range(int(s.line())):
                s.fmt("i")
                s.fmt("d", 3)
            s.out += b"\n"
            s.p += 1
        elif name == "$Elements":
            left = int(s.line())
            while left > 0:
                typ, n, ntags = s.fmt("i", 3)
                s.fmt("i", n * (1 + ntags + NODES[typ]))
                left -= n
            s.out += b"\n"
            s.p += 1
    open(dst, "wb").write(bytes(s.out))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(args[0], args[1], "--be" in sys.argv, "--sizet4" in sys.argv)
