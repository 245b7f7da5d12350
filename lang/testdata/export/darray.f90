! darray: size 4320, lb 0, extent 268800, true lb 44832, true extent 222964 (built by ddt)
subroutine ddt_build_darray(darray)
    use mpi_f08
    implicit none
    type(MPI_Datatype), intent(out) :: darray
    type(MPI_Datatype) :: darray_t1
    integer :: darray_sizes1(2)
    integer :: darray_subsizes1(2)
    integer :: darray_starts1(2)
    integer :: darray_gsizes2(3)
    integer :: darray_distribs2(3)
    integer :: darray_dargs2(3)
    integer :: darray_psizes2(3)
    darray_sizes1(1:2) = [6, 5]
    darray_subsizes1(1:2) = [2, 3]
    darray_starts1(1:2) = [4, 1]
    call MPI_Type_create_subarray(2, darray_sizes1, darray_subsizes1, darray_starts1, MPI_ORDER_C, &
        MPI_LONG_DOUBLE_INT, darray_t1)
    darray_gsizes2(1:3) = [10, 7, 4]
    darray_distribs2(1:3) = [MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE]
    darray_dargs2(1:3) = [3, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG]
    darray_psizes2(1:3) = [4, 2, 1]
    call MPI_Type_create_darray(8, 5, 3, darray_gsizes2, darray_distribs2, darray_dargs2, &
        darray_psizes2, MPI_ORDER_FORTRAN, darray_t1, darray)
    call MPI_Type_free(darray_t1)
    call MPI_Type_commit(darray)
end subroutine ddt_build_darray
