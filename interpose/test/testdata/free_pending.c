/* Lesson of MPICH's tfree (1026 types, freed while operations are
 * pending): a derived datatype freed after MPI_Isend/MPI_Irecv and before
 * the wait; the operations complete with the right data (MPI-4.1 §5.1.9).
 * want: sends */
#include "ct.h"

#define N 1000

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    static double src[3 * N], dst[3 * N];
    for (int i = 0; i < 3 * N; i++) {
        src[i] = me * 1e6 + i;
        dst[i] = -1;
    }
    for (int round = 0; round < 20; round++) {
        MPI_Datatype st, rt;
        MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &st); /* every third double */
        MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &rt); /* every second, same signature */
        MPI_Type_commit(&st);
        MPI_Type_commit(&rt);
        MPI_Request rq[2];
        MPI_Irecv(dst, 1, rt, left(), round, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(src, 1, st, right(), round, MPI_COMM_WORLD, &rq[1]);
        MPI_Type_free(&st);
        MPI_Type_free(&rt);
        CHECK(st == MPI_DATATYPE_NULL && rt == MPI_DATATYPE_NULL, "freed handles not null");
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        int l = left();
        for (int i = 0; i < N; i++)
            CHECK(dst[2 * i] == l * 1e6 + 3 * i, "round %d element %d: %g", round, i, dst[2 * i]);
        for (int i = 0; i < N; i++)
            CHECK(dst[2 * i + 1] == -1, "round %d gap %d written", round, i);
    }
    ok("types freed before their operations complete");
    /* many live types at once, then all freed (lots_of_types) */
    enum { K = 1024 };
    static MPI_Datatype ts[K];
    for (int k = 0; k < K; k++) {
        MPI_Type_vector(2, 1, 1 + k % 7, MPI_INT, &ts[k]);
        MPI_Type_commit(&ts[k]);
    }
    static int in[64], out[64];
    for (int k = 0; k < K; k += 97) {
        for (int i = 0; i < 64; i++) {
            in[i] = me * 1000 + k + i;
            out[i] = -1;
        }
        MPI_Sendrecv(in, 1, ts[k], right(), k, out, 1, ts[k], left(), k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int s = 1 + k % 7;
        CHECK(out[0] == left() * 1000 + k && out[s] == left() * 1000 + k + s, "type %d: %d %d", k, out[0], out[s]);
    }
    for (int k = 0; k < K; k++)
        MPI_Type_free(&ts[k]);
    ok("1024 live types");
    return end();
}
