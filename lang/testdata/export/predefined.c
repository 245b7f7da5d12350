/* predefined: size 12, lb 0, extent 16, true lb 0, true extent 12 (built by ddt) */
MPI_Datatype predefined;
{
    MPI_Type_dup(MPI_DOUBLE_INT, &predefined);
}
MPI_Type_commit(&predefined);
