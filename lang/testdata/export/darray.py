# darray: size 4320, lb 0, extent 268800, true lb 44832, true extent 222964 (built by ddt)
from mpi4py import MPI


def ddt_build_darray():
    t1 = MPI.LONG_DOUBLE_INT.Create_subarray([6, 5], [2, 3], [4, 1], order=MPI.ORDER_C)
    darray = t1.Create_darray(8, 5, [10, 7, 4], [MPI.DISTRIBUTE_CYCLIC, MPI.DISTRIBUTE_BLOCK, MPI.DISTRIBUTE_NONE], [3, MPI.DISTRIBUTE_DFLT_DARG, MPI.DISTRIBUTE_DFLT_DARG], [4, 2, 1], order=MPI.ORDER_FORTRAN)
    t1.Free()
    darray.Commit()
    return darray
