! predefined: size 12, lb 0, extent 16, true lb 0, true extent 12 (built by ddt)
subroutine ddt_build_predefined(predefined)
    use mpi_f08
    implicit none
    type(MPI_Datatype), intent(out) :: predefined
    call MPI_Type_dup(MPI_DOUBLE_INT, predefined)
    call MPI_Type_commit(predefined)
end subroutine ddt_build_predefined
