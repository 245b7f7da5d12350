! empty: size 0, lb 0, extent 0, true lb 0, true extent 0 (built by ddt)
subroutine ddt_build_empty(empty)
    use mpi_f08
    implicit none
    type(MPI_Datatype), intent(out) :: empty
    type(MPI_Datatype) :: empty_t1, empty_t2, empty_t3
    integer :: empty_bl1(0)
    integer :: empty_disp1(0)
    integer(kind=MPI_ADDRESS_KIND) :: empty_disp2(0)
    integer :: empty_bl4(3)
    integer(kind=MPI_ADDRESS_KIND) :: empty_disp4(3)
    type(MPI_Datatype) :: empty_types4(3)
    call MPI_Type_indexed(0, empty_bl1, empty_disp1, MPI_INT, empty_t1)
    call MPI_Type_create_hindexed_block(0, 0, empty_disp2, MPI_CHAR, empty_t2)
    call MPI_Type_contiguous(0, MPI_DOUBLE, empty_t3)
    empty_bl4(1:3) = [1, 1, 1]
    empty_disp4(1:3) = [0_MPI_ADDRESS_KIND, 8_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND]
    empty_types4(1:3) = [empty_t1, empty_t2, empty_t3]
    call MPI_Type_create_struct(3, empty_bl4, empty_disp4, empty_types4, empty)
    call MPI_Type_free(empty_t1)
    call MPI_Type_free(empty_t2)
    call MPI_Type_free(empty_t3)
    call MPI_Type_commit(empty)
end subroutine ddt_build_empty
