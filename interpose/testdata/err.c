/* Errors: with MPI_ERRORS_RETURN every erroneous call returns an error
   class, the same with and without the library; "fatal" as the first
   argument keeps MPI_ERRORS_ARE_FATAL, and the job must abort. */
#include "common.h"
#include <limits.h>

static void report(const char *what, int rc) {
	int cls = MPI_SUCCESS;
	if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
	if (rank_ == 0 || strncmp(what, "recv", 4) == 0) printf("%s: class %d\n", what, cls);
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
	if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Datatype v;
	MPI_Type_vector(8, 1, 3, MPI_INT, &v);
	MPI_Type_commit(&v);
	int a[64] = {0}, pos = 0;
	char out[64];
	if (fatal) {
		MPI_Send(a, 1, v, size_ + 5, 0, MPI_COMM_WORLD);
		printf("not reached\n");
		return 1;
	}
	report("pack too small", MPI_Pack(a, 1, v, out, 16, &pos, MPI_COMM_WORLD));
	pos = 0;
	report("unpack too short", MPI_Unpack(out, 16, &pos, a, 1, v, MPI_COMM_WORLD));
	report("pack negative count", MPI_Pack(a, -1, v, out, 64, &pos, MPI_COMM_WORLD));
	/* the same through a contiguous type (the library's memcpy path):
	   a buffer too small by one instance, a packed buffer too short, a
	   position past the end; count 0 succeeds */
	MPI_Datatype c8;
	MPI_Type_contiguous(8, MPI_INT, &c8);
	MPI_Type_commit(&c8);
	static char big[256]; /* MPICH 4.0.2 does not check sizes: it may write past outsize */
	int ci[32] = {0};
	pos = 0;
	report("contiguous pack too small", MPI_Pack(ci, 2, c8, big, 40, &pos, MPI_COMM_WORLD));
	pos = 8;
	report("contiguous unpack too short", MPI_Unpack(big, 64, &pos, ci, 2, c8, MPI_COMM_WORLD));
	pos = 17;
	report("contiguous pack past the end", MPI_Pack(ci, 1, c8, big, 16, &pos, MPI_COMM_WORLD));
	pos = 64;
	report("contiguous pack count 0 at the end", MPI_Pack(ci, 0, c8, big, 64, &pos, MPI_COMM_WORLD));
	if (rank_ == 0) printf("position %d\n", pos);
	/* MPI_Pack_size past INT_MAX bytes: the MPI library's answer */
	int psz = -1;
	report("contiguous pack_size 1", MPI_Pack_size(1, c8, MPI_COMM_WORLD, &psz));
	if (rank_ == 0) printf("pack_size %d\n", psz);
	report("contiguous pack_size overflow", MPI_Pack_size(INT_MAX / 16, c8, MPI_COMM_WORLD, &psz));
	MPI_Type_free(&c8);
	/* and through a type of a few long runs (a struct of 2 blocks of 64
	   ints, 1024 bytes apart: 512 packed bytes per instance) */
	{
		static char rimg[4096], rbuf[1024];
		int bl[2] = {64, 64};
		MPI_Aint dp[2] = {1024, 0};
		MPI_Datatype ty[2] = {MPI_INT, MPI_INT}, r2;
		MPI_Type_create_struct(2, bl, dp, ty, &r2);
		MPI_Type_commit(&r2);
		pos = 0;
		report("runs pack too small", MPI_Pack(rimg, 2, r2, rbuf, 1000, &pos, MPI_COMM_WORLD));
		pos = 0;
		report("runs unpack too short", MPI_Unpack(rbuf, 1000, &pos, rimg, 2, r2, MPI_COMM_WORLD));
		pos = 0;
		report("runs pack fits", MPI_Pack(rimg, 2, r2, rbuf, 1024, &pos, MPI_COMM_WORLD));
		if (rank_ == 0) printf("position %d\n", pos);
		MPI_Type_free(&r2);
	}

	report("send bad rank", MPI_Send(a, 1, v, size_ + 5, 0, MPI_COMM_WORLD));
	report("send bad tag", MPI_Send(a, 1, v, 0, -7, MPI_COMM_WORLD));
	if (size_ >= 2 && rank_ < 2) {
		/* truncation: 2 instances sent, room for 1 */
		if (rank_ == 0) MPI_Send(a, 2, v, 1, 3, MPI_COMM_WORLD);
		else {
			MPI_Status st;
			report("recv truncated", MPI_Recv(a, 1, v, 0, 3, MPI_COMM_WORLD, &st));
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Type_free(&v);
	MPI_Finalize();
	return 0;
}
