/* Lesson of MPICH's localpack, gaddress and typename tests (no derived
 * datatype at all): with DDT_MPI_STATS=1 every rank prints its statistics
 * line at MPI_Finalize even when the program made no call the library
 * serves (the contract, ../shared/spec/interpose.md). The runner checks
 * the line; this program only packs predefined types.
 * want: stats
 * known: the library prints no statistics line when no call it intercepts ran before MPI_Finalize */
#include "ct.h"

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    int v[4] = {1, 2, 3, 4}, w[4] = {0}, pos = 0;
    char buf[64];
    MPI_Pack(v, 4, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    CHECK(pos == 16, "packed %d bytes", pos);
    pos = 0;
    MPI_Unpack(buf, sizeof buf, &pos, w, 4, MPI_INT, MPI_COMM_WORLD);
    CHECK(memcmp(v, w, sizeof v) == 0, "unpacked ints differ");
    ok("predefined pack");
    return end();
}
