/* Lesson of MPICH's get_elements_pairtype: a partial receive of pair
 * types (MPI_FLOAT_INT) into a contiguous of them; MPI_Get_elements counts
 * two basic elements per pair. MPICH 4.0.2 divides by zero in
 * MPI_Get_elements on this status, with the library too (it leaves
 * MPI_Get_elements on a status of a receive it did not serve to MPI), so
 * it runs on Open MPI only.
 * skip: mpich
 * want: stats */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    MPI_Status st;
    int cnt, el, l = left();
    /* a contiguous of 3 MPI_FLOAT_INT, 2 of them sent */
    struct { float f; int i; } p[3], q[3];
    MPI_Datatype pt;
    MPI_Type_contiguous(3, MPI_FLOAT_INT, &pt);
    MPI_Type_commit(&pt);
    for (int i = 0; i < 3; i++) { p[i].f = me + i * 0.5f; p[i].i = me * 10 + i; q[i].f = -1; q[i].i = -1; }
    MPI_Sendrecv(p, 2, MPI_FLOAT_INT, right(), 2, q, 1, pt, left(), 2, MPI_COMM_WORLD, &st);
    MPI_Get_elements(&st, pt, &el);
    CHECK(el == 4, "MPI_Get_elements of 2 float_int pairs %d, want 4", el);
    MPI_Get_count(&st, pt, &cnt);
    CHECK(cnt == MPI_UNDEFINED, "MPI_Get_count %d", cnt);
    CHECK(q[1].i == l * 10 + 1 && q[1].f == l + 0.5f && q[2].i == -1, "pairs received wrong");
    ok("pair types");
    MPI_Type_free(&pt);
    return end();
}
