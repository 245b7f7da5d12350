! shared: size 48, lb -4294967304, extent 8589934592, true lb -8, true extent 136 (built by ddt)
subroutine ddt_build_shared(shared)
    use mpi_f08
    implicit none
    type(MPI_Datatype), intent(out) :: shared
    type(MPI_Datatype) :: shared_t1, shared_t2, shared_t3
    integer :: shared_bl4(3)
    integer(kind=MPI_ADDRESS_KIND) :: shared_disp4(3)
    type(MPI_Datatype) :: shared_types4(3)
    call MPI_Type_vector(2, 1, 3, MPI_INT, shared_t1)
    call MPI_Type_contiguous(2, shared_t1, shared_t2)
    call MPI_Type_create_resized(shared_t1, -4294967296_MPI_ADDRESS_KIND, &
        8589934592_MPI_ADDRESS_KIND, shared_t3)
    shared_bl4(1:3) = [1, 2, 1]
    shared_disp4(1:3) = [0_MPI_ADDRESS_KIND, 64_MPI_ADDRESS_KIND, -8_MPI_ADDRESS_KIND]
    shared_types4(1:3) = [shared_t1, shared_t2, shared_t3]
    call MPI_Type_create_struct(3, shared_bl4, shared_disp4, shared_types4, shared)
    call MPI_Type_free(shared_t1)
    call MPI_Type_free(shared_t2)
    call MPI_Type_free(shared_t3)
    call MPI_Type_commit(shared)
end subroutine ddt_build_shared
