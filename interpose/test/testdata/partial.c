/* Lesson of MPICH's getpartelm: a message of
 * fewer basic elements than the receive's derived datatype holds fills the
 * first elements of its type map; MPI_Get_count says MPI_UNDEFINED,
 * MPI_Get_elements the elements received.
 * want: sends */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    /* receive type: vector of 4 blocks of 2 ints, stride 3 */
    MPI_Datatype rt;
    MPI_Type_vector(4, 2, 3, MPI_INT, &rt);
    MPI_Type_commit(&rt);
    int snd[7], rcv[2 * 12];
    for (int i = 0; i < 7; i++) snd[i] = me * 100 + i;
    for (int i = 0; i < 24; i++) rcv[i] = -1;
    MPI_Status st;
    MPI_Sendrecv(snd, 7, MPI_INT, right(), 1, rcv, 2, rt, left(), 1, MPI_COMM_WORLD, &st);
    int cnt, el;
    MPI_Get_count(&st, rt, &cnt);
    MPI_Get_elements(&st, rt, &el);
    CHECK(cnt == MPI_UNDEFINED, "MPI_Get_count %d, want MPI_UNDEFINED", cnt);
    CHECK(el == 7, "MPI_Get_elements %d, want 7", el);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 7, "MPI_Get_count(MPI_INT) %d", cnt);
    int l = left(), want[24];
    for (int i = 0; i < 24; i++) want[i] = -1;
    int map[7] = {0, 1, 3, 4, 6, 7, 9}; /* the first 7 elements of the type map */
    for (int i = 0; i < 7; i++) want[map[i]] = l * 100 + i;
    for (int i = 0; i < 24; i++) CHECK(rcv[i] == want[i], "rcv[%d] = %d, want %d", i, rcv[i], want[i]);
    ok("partial receive");

    MPI_Type_free(&rt);
    return end();
}
