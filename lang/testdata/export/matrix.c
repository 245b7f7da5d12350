/* matrix: size 7996, lb 0, extent 3996004, true lb 0, true extent 3996004 (built by ddt) */
MPI_Datatype matrix;
{
    MPI_Datatype matrix_t1, matrix_t2;
    MPI_Type_contiguous(1000, MPI_INT, &matrix_t1);
    MPI_Type_vector(999, 1, 1000, MPI_INT, &matrix_t2);
    int matrix_bl3[2] = {1, 1};
    MPI_Aint matrix_disp3[2] = {0, 4000};
    MPI_Datatype matrix_types3[2] = {matrix_t1, matrix_t2};
    MPI_Type_create_struct(2, matrix_bl3, matrix_disp3, matrix_types3, &matrix);
    MPI_Type_free(&matrix_t1);
    MPI_Type_free(&matrix_t2);
}
MPI_Type_commit(&matrix);
