! matrix: size 7996, lb 0, extent 3996004, true lb 0, true extent 3996004 (built by ddt)
subroutine ddt_build_matrix(matrix)
    use mpi_f08
    implicit none
    type(MPI_Datatype), intent(out) :: matrix
    type(MPI_Datatype) :: matrix_t1, matrix_t2
    integer :: matrix_bl3(2)
    integer(kind=MPI_ADDRESS_KIND) :: matrix_disp3(2)
    type(MPI_Datatype) :: matrix_types3(2)
    call MPI_Type_contiguous(1000, MPI_INT, matrix_t1)
    call MPI_Type_vector(999, 1, 1000, MPI_INT, matrix_t2)
    matrix_bl3(1:2) = [1, 1]
    matrix_disp3(1:2) = [0_MPI_ADDRESS_KIND, 4000_MPI_ADDRESS_KIND]
    matrix_types3(1:2) = [matrix_t1, matrix_t2]
    call MPI_Type_create_struct(2, matrix_bl3, matrix_disp3, matrix_types3, matrix)
    call MPI_Type_free(matrix_t1)
    call MPI_Type_free(matrix_t2)
    call MPI_Type_commit(matrix)
end subroutine ddt_build_matrix
