/* Collectives with derived datatypes: a block of columns of a matrix per
   process, checked element by element (gaps must stay untouched). */
#include "common.h"

enum { N = 24, B = 2 }; /* N rows; every process owns B columns */

static double val(int owner, int i, int j) { return owner * 10000 + i * 100 + j; }

static void clear(double *x, int n) {
	for (int k = 0; k < n; k++) x[k] = -1;
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	int P = size_, M = B * P + 1; /* one spare column, never written */
	double *a = malloc(sizeof(double) * N * M), *b = malloc(sizeof(double) * N * M);
	MPI_Datatype col, cols;
	MPI_Type_vector(N, 1, M, MPI_DOUBLE, &col);
	MPI_Type_create_resized(col, 0, sizeof(double), &cols); /* count B of them = one process's block */
	MPI_Type_commit(&cols);
#define CLEAR(x) clear(x, N * M)
#define OWN(x, p) for (int i = 0; i < N; i++) for (int j = 0; j < B; j++) (x)[i * M + (p) * B + j] = val(p, i, j)
	/* expect: columns of blocks in mask hold their owner's values, others -1 */
#define EXPECT(x, what, cond)                                                             \
	for (int i = 0; i < N; i++)                                                           \
		for (int j = 0; j < M; j++) {                                                     \
			int p = j / B;                                                                \
			double w = j < B * P && (cond) ? val(p, i, j % B) : -1;                       \
			CHECK((x)[i * M + j] == w, "%s: [%d][%d] = %g, want %g", what, i, j, (x)[i * M + j], w); \
		}

	/* Bcast of root 1's block (or 0's with one process) */
	int root = P > 1 ? 1 : 0;
	CLEAR(a);
	if (rank_ == root) OWN(a, root);
	MPI_Bcast(a + root * B, B, cols, root, MPI_COMM_WORLD);
	EXPECT(a, "bcast", p == root);
	ok("bcast");
#if MPI_VERSION >= 4 && defined(MPICH)
	CLEAR(a);
	if (rank_ == root) OWN(a, root);
	MPI_Bcast_c(a + root * B, B, cols, root, MPI_COMM_WORLD);
	EXPECT(a, "bcast_c", p == root);
#endif
	ok("bcast_c");

	/* Gather into the root, from a derived send type and as plain doubles */
	CLEAR(a), CLEAR(b);
	OWN(a, rank_);
	MPI_Gather(a + rank_ * B, B, cols, b, B, cols, 0, MPI_COMM_WORLD);
	if (rank_ == 0) { EXPECT(b, "gather", 1); }
	ok("gather");
	/* in place at the root */
	if (rank_ == 0) MPI_Gather(MPI_IN_PLACE, B, cols, a, B, cols, 0, MPI_COMM_WORLD);
	else MPI_Gather(a + rank_ * B, B, cols, NULL, 0, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (rank_ == 0) { EXPECT(a, "gather in place", 1); }
	ok("gather in place");

	/* Allgather, then in place */
	CLEAR(a), CLEAR(b);
	OWN(a, rank_);
	MPI_Allgather(a + rank_ * B, B, cols, b, B, cols, MPI_COMM_WORLD);
	EXPECT(b, "allgather", 1);
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, B, cols, MPI_COMM_WORLD);
	EXPECT(a, "allgather in place", 1);
	ok("allgather");

	/* Scatter from the root's full matrix */
	CLEAR(a), CLEAR(b);
	if (rank_ == 0)
		for (int p = 0; p < P; p++) OWN(a, p);
	MPI_Scatter(a, B, cols, b + rank_ * B, B, cols, 0, MPI_COMM_WORLD);
	EXPECT(b, "scatter", p == rank_);
	ok("scatter");

	/* Gatherv / Scatterv / Allgatherv with every process sending B-1..B columns */
	int *cnt = malloc(sizeof(int) * P), *dsp = malloc(sizeof(int) * P);
	for (int p = 0; p < P; p++) cnt[p] = p % 2 ? B - 1 : B, dsp[p] = p * B;
	CLEAR(a), CLEAR(b);
	OWN(a, rank_);
	MPI_Gatherv(a + rank_ * B, cnt[rank_], cols, b, cnt, dsp, cols, 0, MPI_COMM_WORLD);
	if (rank_ == 0) { EXPECT(b, "gatherv", j % B < cnt[p]); }
	CLEAR(b);
	MPI_Allgatherv(a + rank_ * B, cnt[rank_], cols, b, cnt, dsp, cols, MPI_COMM_WORLD);
	EXPECT(b, "allgatherv", j % B < cnt[p]);
	CLEAR(a), CLEAR(b);
	if (rank_ == 0)
		for (int p = 0; p < P; p++) OWN(a, p);
	MPI_Scatterv(a, cnt, dsp, cols, b + rank_ * B, cnt[rank_], cols, 0, MPI_COMM_WORLD);
	EXPECT(b, "scatterv", p == rank_ && j % B < cnt[p]);
	ok("gatherv allgatherv scatterv");

	/* Alltoall: process r sends its block's column c... every process sends
	   the same block to everyone: the received matrix has every block */
	double *s = malloc(sizeof(double) * N * M);
	CLEAR(s), CLEAR(b);
	/* block p of s: the values rank_ owns, placed in block p */
	for (int p = 0; p < P; p++)
		for (int i = 0; i < N; i++)
			for (int j = 0; j < B; j++) s[i * M + p * B + j] = val(rank_, i, j);
	MPI_Alltoall(s, B, cols, b, B, cols, MPI_COMM_WORLD);
	EXPECT(b, "alltoall", 1);
	ok("alltoall");
	/* Alltoallv with the counts of the receiver: everyone sends cnt[dest] */
	int *sc = malloc(sizeof(int) * P), *rc = malloc(sizeof(int) * P);
	for (int p = 0; p < P; p++) sc[p] = cnt[p], rc[p] = cnt[rank_];
	CLEAR(b);
	MPI_Alltoallv(s, sc, dsp, cols, b, rc, dsp, cols, MPI_COMM_WORLD);
	EXPECT(b, "alltoallv", j % B < cnt[rank_]);
	ok("alltoallv");

	/* Alltoallw: derived types to odd processes, plain doubles (a packed
	   column block) to even ones */
	int *wc = malloc(sizeof(int) * P), *wd = malloc(sizeof(int) * P), *rwc = malloc(sizeof(int) * P),
	    *rwd = malloc(sizeof(int) * P);
	MPI_Datatype *wt = malloc(sizeof(MPI_Datatype) * P), *rwt = malloc(sizeof(MPI_Datatype) * P);
	for (int p = 0; p < P; p++) {
		wc[p] = B, wd[p] = p * B * sizeof(double), wt[p] = cols;
		rwc[p] = B, rwd[p] = p * B * sizeof(double), rwt[p] = cols;
	}
	CLEAR(b);
	MPI_Alltoallw(s, wc, wd, wt, b, rwc, rwd, rwt, MPI_COMM_WORLD);
	EXPECT(b, "alltoallw", 1);
	ok("alltoallw");

	MPI_Type_free(&col);
	MPI_Type_free(&cols);
	free(a), free(b), free(s), free(cnt), free(dsp), free(sc), free(rc), free(wc), free(wd), free(rwc), free(rwd),
		free(wt), free(rwt);
	MPI_Finalize();
	return 0;
}
