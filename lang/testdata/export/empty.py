# empty: size 0, lb 0, extent 0, true lb 0, true extent 0 (built by ddt)
from mpi4py import MPI


def ddt_build_empty():
    t1 = MPI.INT.Create_indexed([], [])
    t2 = MPI.CHAR.Create_hindexed_block(0, [])
    t3 = MPI.DOUBLE.Create_contiguous(0)
    empty = MPI.Datatype.Create_struct([1, 1, 1], [0, 8, 16], [t1, t2, t3])
    t1.Free()
    t2.Free()
    t3.Free()
    empty.Commit()
    return empty
