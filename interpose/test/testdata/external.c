/* Lesson of MPICH's pack_external, simple_pack_external(2) and Open MPI's
 * external32: MPI_Pack_external("external32") of a derived datatype is
 * big-endian, with MPI_Pack_external_size and a round trip through
 * MPI_Unpack_external. MPICH 4.0.2 dies of SIGILL in MPI_Pack_external
 * on this struct, so without the library it runs on Open MPI only.
 * skip-plain: mpich
 * want: packs */
#include "ct.h"

static uint64_t be64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    struct { int i[2]; double d; short s; } x[4], y[4];
    int bl[3] = {2, 1, 1};
    MPI_Aint d[3] = {0, 8, 16};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT}, s, t;
    MPI_Type_create_struct(3, bl, d, ty, &s);
    MPI_Type_create_resized(s, 0, sizeof x[0], &t);
    MPI_Type_commit(&t);
    for (int k = 0; k < 4; k++) { x[k].i[0] = 1000 * k + me; x[k].i[1] = -k; x[k].d = k + 0.75; x[k].s = (short)(7 * k); }
    MPI_Aint sz;
    MPI_Pack_external_size("external32", 4, t, &sz);
    CHECK(sz == 4 * (4 + 4 + 8 + 2), "external32 size %ld", (long)sz);
    unsigned char buf[128];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", x, 4, t, buf, sizeof buf, &pos);
    CHECK(pos == sz, "packed %ld", (long)pos);
    for (int k = 0; k < 4; k++) {
        unsigned char *p = buf + 18 * k;
        double dv;
        uint64_t bits = be64(p + 8);
        memcpy(&dv, &bits, 8);
        CHECK((int32_t)be32(p) == x[k].i[0] && (int32_t)be32(p + 4) == x[k].i[1] && dv == x[k].d &&
                  (short)(p[16] << 8 | p[17]) == x[k].s, "record %d not big-endian", k);
    }
    ok("external32 is big-endian");
    memset(y, 0, sizeof y);
    pos = 0;
    MPI_Unpack_external("external32", buf, sz, &pos, y, 4, t);
    for (int k = 0; k < 4; k++)
        CHECK(y[k].i[0] == x[k].i[0] && y[k].d == x[k].d && y[k].s == x[k].s, "round trip %d", k);
    ok("external32 round trip");
    MPI_Type_free(&s);
    MPI_Type_free(&t);
    return end();
}
