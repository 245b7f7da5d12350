# shared: size 48, lb -4294967304, extent 8589934592, true lb -8, true extent 136 (built by ddt)
from mpi4py import MPI


def ddt_build_shared():
    t1 = MPI.INT.Create_vector(2, 1, 3)
    t2 = t1.Create_contiguous(2)
    t3 = t1.Create_resized(-4294967296, 8589934592)
    shared = MPI.Datatype.Create_struct([1, 2, 1], [0, 64, -8], [t1, t2, t3])
    t1.Free()
    t2.Free()
    t3.Free()
    shared.Commit()
    return shared
