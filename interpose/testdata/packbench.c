/* packbench times MPI_Pack and MPI_Unpack of a vector type (count blocks of
   one double, stride 2: count*8 packed bytes) and, for scale, a memcpy of
   the same bytes. Run it with and without the library in one job:
	packbench [count] [iterations]
   prints the nanoseconds per call of each, and of MPI_Pack of 0 instances. */
#include "common.h"

static double now(void) { return MPI_Wtime(); }

int main(int argc, char **argv) {
	start(&argc, &argv);
	int count = argc > 1 ? atoi(argv[1]) : 256, iters = argc > 2 ? atoi(argv[2]) : 200000;
	MPI_Datatype v;
	MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &v);
	MPI_Type_commit(&v);
	double *src = malloc(sizeof(double) * 2 * count), *dst = malloc(sizeof(double) * 2 * count);
	fill(src, sizeof(double) * 2 * count, 1);
	char *buf = malloc(8 * count);
	int pos;
	for (int i = 0; i < 1000; i++) pos = 0, MPI_Pack(src, 1, v, buf, 8 * count, &pos, MPI_COMM_SELF);
	double best[3] = {1e9, 1e9, 1e9};
	for (int rep = 0; rep < 5; rep++) {
		double t = now();
		for (int i = 0; i < iters; i++) pos = 0, MPI_Pack(src, 1, v, buf, 8 * count, &pos, MPI_COMM_SELF);
		t = (now() - t) / iters;
		if (t < best[0]) best[0] = t;
		t = now();
		for (int i = 0; i < iters; i++) pos = 0, MPI_Unpack(buf, 8 * count, &pos, dst, 1, v, MPI_COMM_SELF);
		t = (now() - t) / iters;
		if (t < best[1]) best[1] = t;
		t = now();
		for (int i = 0; i < iters; i++) {
			memcpy(dst, buf, 8 * count);
			__asm__ volatile("" ::: "memory");
		}
		t = (now() - t) / iters;
		if (t < best[2]) best[2] = t;
	}
	/* the fixed cost of a call: MPI_Pack of 0 instances (with the library,
	   the C to Go transition, the table look-up and the checks) */
	double zero = 1e9;
	for (int rep = 0; rep < 5; rep++) {
		double t = now();
		for (int i = 0; i < iters; i++) pos = 0, MPI_Pack(src, 0, v, buf, 8 * count, &pos, MPI_COMM_SELF);
		t = (now() - t) / iters;
		if (t < zero) zero = t;
	}
	if (rank_ == 0)
		printf("pack %.1f unpack %.1f memcpy %.1f pack0 %.1f ns\n", best[0] * 1e9, best[1] * 1e9, best[2] * 1e9, zero * 1e9);
	MPI_Type_free(&v);
	MPI_Finalize();
	return 0;
}
