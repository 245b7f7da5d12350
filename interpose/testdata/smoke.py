# mpi4py smoke test of the interposition library: a column of a matrix (an
# array of doubles, row-major) as a derived type, packed and sent between
# rank pairs.
import struct
import sys
from array import array

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
n = 16


def matrix(owner):
    return array("d", [owner * 1000 + i for i in range(n * n)])


def fail(*what):
    print("FAIL", *what, file=sys.stderr)
    comm.Abort(1)


a = matrix(rank)
col = MPI.DOUBLE.Create_vector(n, 1, n).Commit()

out = bytearray(col.Pack_size(1, comm))
position = col.Pack(memoryview(a)[3:], out, 0, comm)  # count: the buffer holds one extent
got = struct.unpack("%dd" % n, bytes(out))
if position != 8 * n or list(got) != [a[i * n + 3] for i in range(n)]:
    fail("pack", position, got)

peer = rank ^ 1
if peer < size:
    b = array("d", [-1.0] * (n * n))
    comm.Sendrecv([memoryview(a)[2:], 1, col], peer, 5, [memoryview(b)[6:], 1, col], peer, 5)
    p = matrix(peer)
    for i in range(n):
        for j in range(n):
            want = p[i * n + 2] if j == 6 else -1.0
            if b[i * n + j] != want:
                fail("sendrecv", i, j, b[i * n + j], want)
col.Free()
if rank == 0:
    print("ok python")
