! all: size 521, lb -56, extent 4192, true lb -56, true extent 4172 (built by ddt)
subroutine ddt_build_all(all)
    use mpi_f08
    implicit none
    type(MPI_Datatype), intent(out) :: all
    type(MPI_Datatype) :: all_t1, all_t2, all_t3, all_t4, all_t5, all_t6
    type(MPI_Datatype) :: all_t7, all_t8, all_t9, all_t10, all_t11, all_t12
    type(MPI_Datatype) :: all_t13
    integer :: all_bl2(3)
    integer :: all_disp2(3)
    integer :: all_bl3(2)
    integer(kind=MPI_ADDRESS_KIND) :: all_disp3(2)
    integer(kind=MPI_ADDRESS_KIND) :: all_disp4(2)
    integer :: all_disp5(2)
    integer :: all_sizes6(2)
    integer :: all_subsizes6(2)
    integer :: all_starts6(2)
    integer :: all_gsizes7(3)
    integer :: all_distribs7(3)
    integer :: all_dargs7(3)
    integer :: all_psizes7(3)
    integer :: all_bl14(9)
    integer(kind=MPI_ADDRESS_KIND) :: all_disp14(9)
    type(MPI_Datatype) :: all_types14(9)
    call MPI_Type_contiguous(3, MPI_2INT, all_t1)
    all_bl2(1:3) = [1, 0, 2]
    all_disp2(1:3) = [-1, 5, 3]
    call MPI_Type_indexed(3, all_bl2, all_disp2, all_t1, all_t2)
    all_bl3(1:2) = [2, 1]
    all_disp3(1:2) = [-16_MPI_ADDRESS_KIND, 40_MPI_ADDRESS_KIND]
    call MPI_Type_create_hindexed(2, all_bl3, all_disp3, MPI_DOUBLE_INT, all_t3)
    all_disp4(1:2) = [8_MPI_ADDRESS_KIND, 0_MPI_ADDRESS_KIND]
    call MPI_Type_create_hindexed_block(2, 1, all_disp4, MPI_LONG_DOUBLE, all_t4)
    all_disp5(1:2) = [0, -4]
    call MPI_Type_create_indexed_block(2, 2, all_disp5, MPI_SHORT, all_t5)
    all_sizes6(1:2) = [4, 5]
    all_subsizes6(1:2) = [2, 3]
    all_starts6(1:2) = [1, 1]
    call MPI_Type_create_subarray(2, all_sizes6, all_subsizes6, all_starts6, MPI_ORDER_FORTRAN, &
        all_t5, all_t6)
    all_gsizes7(1:3) = [7, 8, 3]
    all_distribs7(1:3) = [MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE]
    all_dargs7(1:3) = [MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG]
    all_psizes7(1:3) = [2, 3, 1]
    call MPI_Type_create_darray(6, 5, 3, all_gsizes7, all_distribs7, all_dargs7, all_psizes7, &
        MPI_ORDER_C, MPI_FLOAT, all_t7)
    call MPI_Type_vector(2, 1, -3, MPI_C_FLOAT_COMPLEX, all_t8)
    call MPI_Type_create_hvector(2, 2, -24_MPI_ADDRESS_KIND, all_t8, all_t9)
    call MPI_Type_create_resized(all_t9, -8_MPI_ADDRESS_KIND, 0_MPI_ADDRESS_KIND, all_t10)
    call MPI_Type_dup(MPI_CHAR, all_t11)
    call MPI_Type_dup(MPI_LONG_DOUBLE_INT, all_t12)
    call MPI_Type_dup(all_t12, all_t13)
    all_bl14(1:8) = [1, 2, 1, 1, 0, 1, 3, 1]
    all_bl14(9) = 1
    all_disp14(1:8) = [0_MPI_ADDRESS_KIND, 64_MPI_ADDRESS_KIND, -40_MPI_ADDRESS_KIND, &
        128_MPI_ADDRESS_KIND, 0_MPI_ADDRESS_KIND, 256_MPI_ADDRESS_KIND, 512_MPI_ADDRESS_KIND, &
        1024_MPI_ADDRESS_KIND]
    all_disp14(9) = 4096_MPI_ADDRESS_KIND
    all_types14(1:8) = [all_t1, all_t2, all_t3, all_t4, all_t6, all_t7, all_t10, all_t11]
    all_types14(9) = all_t13
    call MPI_Type_create_struct(9, all_bl14, all_disp14, all_types14, all)
    call MPI_Type_free(all_t1)
    call MPI_Type_free(all_t2)
    call MPI_Type_free(all_t3)
    call MPI_Type_free(all_t4)
    call MPI_Type_free(all_t5)
    call MPI_Type_free(all_t6)
    call MPI_Type_free(all_t7)
    call MPI_Type_free(all_t8)
    call MPI_Type_free(all_t9)
    call MPI_Type_free(all_t10)
    call MPI_Type_free(all_t11)
    call MPI_Type_free(all_t12)
    call MPI_Type_free(all_t13)
    call MPI_Type_commit(all)
end subroutine ddt_build_all
