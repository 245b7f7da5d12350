/* Lesson of Open MPI's to_self and MPICH's sendrecvt2/sendrecvt4: the
 * send and the receive use different datatypes of the same type signature
 * (strided to dense and back, struct to contiguous), through blocking,
 * nonblocking and persistent operations and MPI_Sendrecv_replace.
 * want: sends */
#include "ct.h"

#define N 4096

int main(int argc, char **argv)
{
    begin(&argc, &argv);
    static double a[2 * N], b[2 * N];
    MPI_Datatype strided, dense;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_contiguous(N, MPI_DOUBLE, &dense);
    MPI_Type_commit(&strided);
    MPI_Type_commit(&dense);
    int l = left();
    for (int i = 0; i < 2 * N; i++) { a[i] = me * 1e5 + i; b[i] = -1; }
    MPI_Request rq[2];
    MPI_Irecv(b, 1, dense, left(), 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(a, 1, strided, right(), 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++) CHECK(b[i] == l * 1e5 + 2 * i, "strided->dense %d: %g", i, b[i]);
    ok("strided to dense");

    for (int i = 0; i < 2 * N; i++) b[i] = -1;
    MPI_Send_init(a, N, MPI_DOUBLE, right(), 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Recv_init(b, 1, strided, left(), 2, MPI_COMM_WORLD, &rq[0]);
    for (int rep = 0; rep < 3; rep++) {
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    for (int i = 0; i < N; i++) {
        CHECK(b[2 * i] == l * 1e5 + i, "dense->strided %d: %g", i, b[2 * i]);
        CHECK(b[2 * i + 1] == -1, "gap %d written", i);
    }
    ok("persistent dense to strided");

    struct rec { int i; double d; char c; } r[8], s[8];
    int bl[3] = {1, 1, 1};
    MPI_Aint dd[3] = {offsetof(struct rec, i), offsetof(struct rec, d), offsetof(struct rec, c)};
    MPI_Datatype tt[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st, rs;
    MPI_Type_create_struct(3, bl, dd, tt, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct rec), &rs);
    MPI_Type_commit(&rs);
    for (int k = 0; k < 8; k++) { s[k].i = me * 10 + k; s[k].d = me + k * 0.125; s[k].c = (char)('A' + k); }
    memcpy(r, s, sizeof r);
    MPI_Sendrecv_replace(r, 8, rs, right(), 3, left(), 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < 8; k++)
        CHECK(r[k].i == l * 10 + k && r[k].d == l + k * 0.125 && r[k].c == 'A' + k, "struct %d", k);
    ok("Sendrecv_replace of a struct");

    /* MPI_Probe, then MPI_Recv of the probed count with a derived type */
    static double src3[6 * N], big[6 * N];
    for (int i = 0; i < 6 * N; i++) { src3[i] = me * 1e5 + i; big[i] = -1; }
    MPI_Isend(src3, 3, strided, right(), 4, MPI_COMM_WORLD, &rq[1]);
    MPI_Status ps;
    MPI_Probe(left(), 4, MPI_COMM_WORLD, &ps);
    int cnt;
    MPI_Get_count(&ps, strided, &cnt);
    CHECK(cnt == 3, "probed count %d", cnt);
    MPI_Recv(big, cnt, strided, left(), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(strided, &lb, &ext);
    for (int c = 0; c < 3; c++)
        for (int i = 0; i < N; i++) {
            long k = (long)c * (ext / 8) + 2 * i;
            CHECK(big[k] == l * 1e5 + k, "probed receive %ld: %g", k, big[k]);
        }
    ok("probe then receive");
    MPI_Type_free(&strided);
    MPI_Type_free(&dense);
    MPI_Type_free(&st);
    MPI_Type_free(&rs);
    return end();
}
