# matrix: size 7996, lb 0, extent 3996004, true lb 0, true extent 3996004 (built by ddt)
from mpi4py import MPI


def ddt_build_matrix():
    t1 = MPI.INT.Create_contiguous(1000)
    t2 = MPI.INT.Create_vector(999, 1, 1000)
    matrix = MPI.Datatype.Create_struct([1, 1], [0, 4000], [t1, t2])
    t1.Free()
    t2.Free()
    matrix.Commit()
    return matrix
