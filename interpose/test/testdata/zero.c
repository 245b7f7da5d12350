/* Lesson of MPICH's struct_zero_count, contig_zero_count, zeroblks,
 * hindexed_zeros, blockindexed_zero_count and struct_empty_el: types with
 * zero counts and zero-length blocks, alone and next to data.
 * want: stats */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    MPI_Datatype c0, s0, hz, ib0;
    MPI_Type_contiguous(0, MPI_INT, &c0);
    int bl2[3] = {0, 2, 0};
    MPI_Aint d2[3] = {0, 8, 64};
    MPI_Datatype ty2[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(3, bl2, d2, ty2, &s0); /* only the 2 ints at 8 */
    int bl3[4] = {0, 0, 3, 0};
    MPI_Aint d3[4] = {400, 0, 16, 8};
    MPI_Type_create_hindexed(4, bl3, d3, MPI_INT, &hz);
    int ds[1] = {5};
    MPI_Type_create_indexed_block(0, 2, ds, MPI_INT, &ib0);
    MPI_Datatype all[4] = {c0, s0, hz, ib0};
    int wsize[4] = {0, 8, 12, 0};
    for (int k = 0; k < 4; k++) {
        MPI_Type_commit(&all[k]);
        int size, ps;
        MPI_Type_size(all[k], &size);
        CHECK(size == wsize[k], "type %d: size %d, want %d", k, size, wsize[k]);
        MPI_Pack_size(3, all[k], MPI_COMM_WORLD, &ps);
        CHECK(ps >= 3 * size, "type %d: pack size %d", k, ps);
        static int src[128], dst[128];
        for (int i = 0; i < 128; i++) { src[i] = me * 1000 + i; dst[i] = -1; }
        char buf[256];
        int pos = 0;
        MPI_Pack(src, 3, all[k], buf, sizeof buf, &pos, MPI_COMM_WORLD);
        CHECK(pos == 3 * size, "type %d: packed %d", k, pos);
        MPI_Status st;
        MPI_Sendrecv(src, 3, all[k], right(), k, dst, 3, all[k], left(), k, MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, all[k], &cnt);
        CHECK(cnt == (size ? 3 : 0) || (size == 0 && cnt == 0), "type %d: count %d", k, cnt);
        MPI_Aint lb, ext;
        MPI_Type_get_extent(all[k], &lb, &ext);
        int l = left();
        for (int i = 0; i < 128; i++) {
            int inside = 0;
            for (int c = 0; c < 3 && size > 0; c++) {
                long off = (long)i * 4 - (long)c * ext;
                if (k == 1 && (off == 8 || off == 12)) inside = 1;
                if (k == 2 && off >= 16 && off < 28) inside = 1;
            }
            CHECK(dst[i] == (inside ? l * 1000 + i : -1), "type %d: int %d = %d", k, i, dst[i]);
        }
        MPI_Type_free(&all[k]);
    }
    ok("zero counts and zero-length blocks");
    return end();
}
