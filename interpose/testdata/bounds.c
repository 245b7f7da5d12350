/* Types whose bounds the two MPI libraries decide differently for the
   same type map: Open MPI pads the extent of any type to its elements'
   alignment and gives every empty type bounds 0, where MPICH pads structs
   only and keeps the bounds of an empty type's blocks; and Open MPI bounds
   a struct by its resized blocks' explicit markers alone (MPI-4.1,
   "Lower-Bound and Upper-Bound Markers"), where MPICH takes every block's
   bounds. Whatever MPI says, the data must move where MPI puts it: each
   check takes the extent MPI reports, computes the packed bytes by hand,
   and packs, unpacks and sends count instances. With the library, every
   type here is served by ddt (bounds.c's part of TestPrograms: no
   fallback). */
#include "common.h"

enum { MAXB = 16 };

/* layout: nb blocks per instance, at off[] with len[] bytes */
typedef struct {
	int nb;
	long off[MAXB], len[MAXB];
} layout;

static MPI_Aint extent_of(MPI_Datatype t) {
	MPI_Aint lb, ext;
	MPI_Type_get_extent(t, &lb, &ext);
	return ext;
}

/* expect writes the packed bytes of count instances of l at stride ext
   from src into out and returns their number. */
static int expect(const layout *l, int count, MPI_Aint ext, const char *src, char *out) {
	int n = 0;
	for (int i = 0; i < count; i++)
		for (int j = 0; j < l->nb; j++) {
			memcpy(out + n, src + i * ext + l->off[j], l->len[j]);
			n += l->len[j];
		}
	return n;
}

static void check(const char *name, MPI_Datatype t, const layout *l, int count) {
	MPI_Aint ext = extent_of(t);
	int size;
	MPI_Type_size(t, &size);
	size_t span = (size_t)(count * (ext > 0 ? ext : 1) + 256);
	char *src = malloc(span), *want = malloc(span + 1), *out = malloc(span + 8);
	fill(src, span, 5);
	int n = expect(l, count, ext, src, want);
	CHECK(n == count * size, "%s: %d bytes by hand, size %d", name, n, size);

	int pos = 0;
	memset(out, 0x5a, span + 8);
	CHECK(MPI_Pack(src, count, t, out, (int)span, &pos, MPI_COMM_WORLD) == MPI_SUCCESS, "%s: pack", name);
	CHECK(pos == n && memcmp(out, want, n) == 0 && out[n] == 0x5a, "%s: packed %d bytes, want %d", name, pos, n);

	char *img = malloc(span), *wimg = malloc(span);
	memset(img, 0x77, span);
	memset(wimg, 0x77, span);
	for (int i = 0, k = 0; i < count; i++)
		for (int j = 0; j < l->nb; j++) {
			memcpy(wimg + i * ext + l->off[j], want + k, l->len[j]);
			k += l->len[j];
		}
	pos = 0;
	CHECK(MPI_Unpack(want, n, &pos, img, count, t, MPI_COMM_WORLD) == MPI_SUCCESS, "%s: unpack", name);
	CHECK(pos == n && memcmp(img, wimg, span) == 0, "%s: unpacked image differs", name);

	/* a message: even ranks send to the next odd one */
	if (size_ % 2 == 0) {
		memset(img, 0x77, span);
		if (rank_ % 2 == 0) {
			CHECK(MPI_Send(src, count, t, rank_ + 1, 3, MPI_COMM_WORLD) == MPI_SUCCESS, "%s: send", name);
		} else {
			MPI_Status st;
			int got;
			CHECK(MPI_Recv(img, count, t, rank_ - 1, 3, MPI_COMM_WORLD, &st) == MPI_SUCCESS, "%s: recv", name);
			MPI_Get_count(&st, t, &got);
			CHECK(got == (size > 0 ? count : 0) && memcmp(img, wimg, span) == 0, "%s: received %d, image differs %d", name, got,
				memcmp(img, wimg, span) != 0);
		}
	}
	free(src), free(want), free(out), free(img), free(wimg);
	ok(name);
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	MPI_Datatype hv, hib, ct, empty, st, ctempty; /* st: hvector of hv */

	/* three complex floats 9 bytes apart: true extent 26 (Open MPI: extent 28) */
	MPI_Type_create_hvector(3, 1, 9, MPI_C_FLOAT_COMPLEX, &hv);
	/* pairs of complex floats 17 bytes apart: true extent 50 (Open MPI: 52) */
	MPI_Aint d[3] = {0, 17, 34};
	MPI_Type_create_hindexed_block(3, 2, d, MPI_C_FLOAT_COMPLEX, &hib);
	/* two of hv, built before hv is committed */
	MPI_Type_contiguous(2, hv, &ct);
	/* zero-length blocks: size 0 (MPICH: extent 96, Open MPI: 0) */
	MPI_Type_vector(4, 0, 4, MPI_C_FLOAT_COMPLEX, &empty);
	/* two of hv 30 bytes apart: true extent 56 (Open MPI: extent 60) */
	MPI_Type_create_hvector(2, 1, 30, hv, &st);
	MPI_Type_contiguous(3, empty, &ctempty);
	/* an int at 0 and an int resized to lb 0, extent 16 at 8: MPI-4.1's
	   explicit bound markers give lb 8 and extent 16 (Open MPI); MPICH
	   takes every block's bounds (lb 0, extent 24) */
	MPI_Datatype rs, sticky, ctsticky;
	MPI_Type_create_resized(MPI_INT, 0, 16, &rs);
	int sbl[2] = {1, 1};
	MPI_Aint sd[2] = {0, 8};
	MPI_Datatype stt[2] = {MPI_INT, rs};
	MPI_Type_create_struct(2, sbl, sd, stt, &sticky);
	MPI_Type_contiguous(2, sticky, &ctsticky);
	MPI_Type_commit(&sticky);
	MPI_Type_commit(&ctsticky);
	MPI_Type_commit(&hv);
	MPI_Type_commit(&hib);
	MPI_Type_commit(&ct);
	MPI_Type_commit(&empty);
	MPI_Type_commit(&st);
	MPI_Type_commit(&ctempty);

	layout lhv = {3, {0, 9, 18}, {8, 8, 8}};
	check("padded hvector", hv, &lhv, 5);
	layout lhib = {3, {0, 17, 34}, {16, 16, 16}};
	check("padded hindexed_block", hib, &lhib, 4);
	MPI_Aint e = extent_of(hv);
	layout lct = {6, {0, 9, 18, e, e + 9, e + 18}, {8, 8, 8, 8, 8, 8}};
	check("contiguous of a padded hvector", ct, &lct, 3);
	layout lempty = {0, {0}, {0}};
	check("empty vector", empty, &lempty, 3);
	check("contiguous of an empty vector", ctempty, &lempty, 2);
	layout lst = {6, {0, 9, 18, 30, 39, 48}, {8, 8, 8, 8, 8, 8}};
	check("hvector of a padded hvector", st, &lst, 3);
	layout lsticky = {2, {0, 8}, {4, 4}};
	check("struct with a resized int", sticky, &lsticky, 3);
	MPI_Aint es = extent_of(sticky);
	layout lcts = {4, {0, 8, es, es + 8}, {4, 4, 4, 4}};
	check("contiguous of that struct", ctsticky, &lcts, 2);

	MPI_Type_free(&rs);
	MPI_Type_free(&sticky);
	MPI_Type_free(&ctsticky);
	MPI_Type_free(&hv);
	MPI_Type_free(&hib);
	MPI_Type_free(&ct);
	MPI_Type_free(&empty);
	MPI_Type_free(&st);
	MPI_Type_free(&ctempty);
	MPI_Finalize();
	return 0;
}
