/* darray: size 4320, lb 0, extent 268800, true lb 44832, true extent 222964 (built by ddt) */
MPI_Datatype darray;
{
    MPI_Datatype darray_t1;
    int darray_sizes1[2] = {6, 5};
    int darray_subsizes1[2] = {2, 3};
    int darray_starts1[2] = {4, 1};
    MPI_Type_create_subarray(2, darray_sizes1, darray_subsizes1, darray_starts1, MPI_ORDER_C, MPI_LONG_DOUBLE_INT, &darray_t1);
    int darray_gsizes2[3] = {10, 7, 4};
    int darray_distribs2[3] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE};
    int darray_dargs2[3] = {3, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    int darray_psizes2[3] = {4, 2, 1};
    MPI_Type_create_darray(8, 5, 3, darray_gsizes2, darray_distribs2, darray_dargs2, darray_psizes2, MPI_ORDER_FORTRAN, darray_t1, &darray);
    MPI_Type_free(&darray_t1);
}
MPI_Type_commit(&darray);
