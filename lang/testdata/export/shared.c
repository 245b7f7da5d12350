/* shared: size 48, lb -4294967304, extent 8589934592, true lb -8, true extent 136 (built by ddt) */
MPI_Datatype shared;
{
    MPI_Datatype shared_t1, shared_t2, shared_t3;
    MPI_Type_vector(2, 1, 3, MPI_INT, &shared_t1);
    MPI_Type_contiguous(2, shared_t1, &shared_t2);
    MPI_Type_create_resized(shared_t1, -4294967296L, 8589934592L, &shared_t3);
    int shared_bl4[3] = {1, 2, 1};
    MPI_Aint shared_disp4[3] = {0, 64, -8};
    MPI_Datatype shared_types4[3] = {shared_t1, shared_t2, shared_t3};
    MPI_Type_create_struct(3, shared_bl4, shared_disp4, shared_types4, &shared);
    MPI_Type_free(&shared_t1);
    MPI_Type_free(&shared_t2);
    MPI_Type_free(&shared_t3);
}
MPI_Type_commit(&shared);
