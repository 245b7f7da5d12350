/* empty: size 0, lb 0, extent 0, true lb 0, true extent 0 (built by ddt) */
MPI_Datatype empty;
{
    MPI_Datatype empty_t1, empty_t2, empty_t3;
    int empty_bl1[1] = {0};
    int empty_disp1[1] = {0};
    MPI_Type_indexed(0, empty_bl1, empty_disp1, MPI_INT, &empty_t1);
    MPI_Aint empty_disp2[1] = {0};
    MPI_Type_create_hindexed_block(0, 0, empty_disp2, MPI_CHAR, &empty_t2);
    MPI_Type_contiguous(0, MPI_DOUBLE, &empty_t3);
    int empty_bl4[3] = {1, 1, 1};
    MPI_Aint empty_disp4[3] = {0, 8, 16};
    MPI_Datatype empty_types4[3] = {empty_t1, empty_t2, empty_t3};
    MPI_Type_create_struct(3, empty_bl4, empty_disp4, empty_types4, &empty);
    MPI_Type_free(&empty_t1);
    MPI_Type_free(&empty_t2);
    MPI_Type_free(&empty_t3);
}
MPI_Type_commit(&empty);
