/* Lesson of MPICH's struct_pack_mpi_bottom and struct_unpack_mpi_bottom:
 * a struct of absolute addresses (MPI_Get_address) used from MPI_BOTTOM in
 * MPI_Pack, MPI_Unpack, and point-to-point. MPICH 4.0.2 rejects
 * MPI_Pack(MPI_BOTTOM) ("Null pointer in parameter inbuf"), so without the
 * library this program runs on Open MPI only.
 * skip-plain: mpich
 * want: stats */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    int a[3];
    double b[2];
    char c;
    for (int i = 0; i < 3; i++) a[i] = 100 * me + i;
    b[0] = me + 0.5;
    b[1] = -me - 0.25;
    c = (char)('a' + me);
    int bl[3] = {3, 2, 1};
    MPI_Aint d[3];
    MPI_Get_address(a, &d[0]);
    MPI_Get_address(b, &d[1]);
    MPI_Get_address(&c, &d[2]);
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    MPI_Type_create_struct(3, bl, d, ty, &t);
    MPI_Type_commit(&t);
    int size;
    MPI_Type_size(t, &size);
    CHECK(size == 3 * 4 + 2 * 8 + 1, "size %d", size);

    char buf[64];
    int pos = 0;
    MPI_Pack(MPI_BOTTOM, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    CHECK(pos == size, "packed %d bytes, want %d", pos, size);
    int ia[3];
    double db[2];
    memcpy(ia, buf, 12);
    memcpy(db, buf + 12, 16);
    CHECK(ia[0] == a[0] && ia[2] == a[2] && db[1] == b[1] && buf[28] == c, "packed bytes differ");
    ok("pack from MPI_BOTTOM");

    int sa[3] = {a[0], a[1], a[2]};
    memset(a, 0, sizeof a);
    b[0] = b[1] = 0;
    c = 0;
    pos = 0;
    MPI_Unpack(buf, sizeof buf, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD);
    CHECK(a[0] == sa[0] && a[2] == sa[2] && b[0] == me + 0.5 && c == 'a' + me, "unpacked to MPI_BOTTOM differs");
    ok("unpack to MPI_BOTTOM");

    /* ring: send my absolute struct, receive the left rank's into it */
    MPI_Sendrecv_replace(MPI_BOTTOM, 1, t, right(), 3, left(), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int l = left();
    CHECK(a[0] == 100 * l && a[1] == 100 * l + 1 && b[0] == l + 0.5 && b[1] == -l - 0.25 && c == 'a' + l,
          "received from MPI_BOTTOM differs: %d %d %g %g %c", a[0], a[1], b[0], b[1], c);
    ok("Sendrecv_replace with MPI_BOTTOM");
    MPI_Type_free(&t);
    return end();
}
