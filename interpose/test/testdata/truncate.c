/* Lesson of MPICH's unusual_noncontigs and the error semantics of the
 * contract: a message longer than a derived-datatype receive returns
 * MPI_ERR_TRUNCATE through the communicator's error handler (here
 * MPI_ERRORS_RETURN), and the program goes on.
 * want: stats */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Datatype v;
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    int src[16], dst[16];
    for (int i = 0; i < 16; i++) { src[i] = i; dst[i] = -1; }
    MPI_Request rq;
    MPI_Isend(src, 10, MPI_INT, right(), 9, c, &rq);
    MPI_Status st;
    int rc = MPI_Recv(dst, 2, v, left(), 9, c, &st); /* room for 6 ints */
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Recv of 10 ints into 6 returned class %d, want MPI_ERR_TRUNCATE (%d)", cls, MPI_ERR_TRUNCATE);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 10; i < 16; i++) CHECK(dst[i] == -1, "int %d written past the type", i);
    ok("truncation is an error class");
    /* the communicator still works */
    for (int i = 0; i < 16; i++) dst[i] = -1;
    MPI_Sendrecv(src, 6, MPI_INT, right(), 10, dst, 2, v, left(), 10, c, MPI_STATUS_IGNORE);
    CHECK(dst[0] == 0 && dst[2] == 1 && dst[4] == 2 && dst[5] == 3 && dst[9] == 5 && dst[1] == -1 && dst[10] == -1, "after the error: %d %d %d", dst[0], dst[5], dst[9]);
    ok("communicator usable after the error");
    MPI_Type_free(&v);
    MPI_Comm_free(&c);
    return end();
}
