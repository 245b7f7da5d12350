/* Lesson of MPICH's tresized, tresized2 and Open MPI's resized_extent:
 * resized types (lb moved, extent larger than the data) sent with count >
 * 1, received into a differently shaped type of the same signature, and
 * unpacked with count 0.
 * want: sends packs */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    /* one int at byte 8 of a 24-byte cell whose lb is 4 */
    int bl = 1;
    MPI_Aint d = 8;
    MPI_Datatype h, t, u;
    MPI_Type_create_hindexed(1, &bl, &d, MPI_INT, &h);
    MPI_Type_create_resized(h, 4, 24, &t);
    MPI_Type_commit(&t);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    CHECK(lb == 4 && ext == 24, "lb %ld extent %ld", (long)lb, (long)ext);
    MPI_Type_create_resized(MPI_INT, 0, 8, &u); /* one int per 8 bytes */
    MPI_Type_commit(&u);
    enum { C = 50 };
    static int src[6 * C + 8], dst[2 * C + 2];
    for (int i = 0; i < 6 * C + 8; i++) src[i] = me * 10000 + i;
    for (int i = 0; i < 2 * C + 2; i++) dst[i] = -1;
    MPI_Sendrecv(src, C, t, right(), 0, dst, C, u, left(), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int l = left();
    for (int k = 0; k < C; k++) {
        CHECK(dst[2 * k] == l * 10000 + 2 + 6 * k, "element %d: %d", k, dst[2 * k]);
        CHECK(dst[2 * k + 1] == -1, "gap %d written", k);
    }
    ok("resized count > 1 into another shape");

    char buf[4 * C];
    int pos = 0;
    MPI_Pack(src, C, t, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    CHECK(pos == 4 * C, "packed %d", pos);
    int x;
    memcpy(&x, buf + 4 * 7, 4);
    CHECK(x == me * 10000 + 2 + 6 * 7, "packed element 7: %d", x);
    pos = 0;
    MPI_Unpack(buf, sizeof buf, &pos, dst, 0, u, MPI_COMM_WORLD);
    CHECK(pos == 0, "count 0 moved the position to %d", pos);
    ok("pack of resized, unpack of count 0");
    MPI_Type_free(&h);
    MPI_Type_free(&t);
    MPI_Type_free(&u);
    return end();
}
