/* Pack and unpack round trips of derived types, checked against the bytes
   a hand-written loop selects. */
#include "common.h"

/* expect packs by hand: nblk blocks of len bytes at offsets off[] from base. */
static void check_pack(const char *name, MPI_Datatype t, int count, const char *src, const char *expect, int n) {
	int size;
	MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
	CHECK(size >= n, "%s: pack size %d < %d", name, size, n);
	char *out = malloc(size + 16);
	int pos = 3;
	memset(out, 0x5a, size + 16);
	CHECK(MPI_Pack(src, count, t, out, size + 16, &pos, MPI_COMM_WORLD) == MPI_SUCCESS, "%s: pack", name);
	CHECK(pos == 3 + n, "%s: position %d, want %d", name, pos, 3 + n);
	CHECK(memcmp(out + 3, expect, n) == 0, "%s: packed bytes differ", name);
	CHECK(out[0] == 0x5a && out[3 + n] == 0x5a, "%s: pack wrote outside its range", name);
	free(out);
	ok(name);
}

static void check_unpack(const char *name, MPI_Datatype t, int count, const char *packed, int n, const char *want,
	size_t span, long origin) {
	char *dst = malloc(span);
	memset(dst, 0x77, span);
	int pos = 0;
	CHECK(MPI_Unpack(packed, n, &pos, dst + origin, count, t, MPI_COMM_WORLD) == MPI_SUCCESS, "%s: unpack", name);
	CHECK(pos == n, "%s: unpack position %d, want %d", name, pos, n);
	CHECK(memcmp(dst, want, span) == 0, "%s: unpacked image differs", name);
	free(dst);
	ok(name);
}

int main(int argc, char **argv) {
	start(&argc, &argv);
	enum { N = 64 };
	double *m = malloc(sizeof(double) * N * N);
	fill(m, sizeof(double) * N * N, 1);

	/* a column of an N x N matrix of doubles, 3 of them side by side */
	MPI_Datatype col, col1;
	MPI_Type_vector(N, 1, N, MPI_DOUBLE, &col);
	MPI_Type_create_resized(col, 0, sizeof(double), &col1);
	MPI_Type_commit(&col1);
	double *exp = malloc(sizeof(double) * N * 3);
	for (int c = 0; c < 3; c++)
		for (int r = 0; r < N; r++) exp[c * N + r] = m[r * N + c];
	check_pack("pack vector", col1, 3, (char *)m, (char *)exp, sizeof(double) * N * 3);
	double *want = malloc(sizeof(double) * N * N);
	memset(want, 0x77, sizeof(double) * N * N);
	for (int c = 0; c < 3; c++)
		for (int r = 0; r < N; r++) want[r * N + c] = exp[c * N + r];
	check_unpack("unpack vector", col1, 3, (char *)exp, sizeof(double) * N * 3, (char *)want, sizeof(double) * N * N, 0);

	/* a struct { int a; double b[2]; char c; } with its padding, 5 of them */
	struct s { int a; double b[2]; char c; } sv[5];
	fill(sv, sizeof sv, 2);
	int bl[3] = {1, 2, 1};
	MPI_Aint dis[3] = {offsetof(struct s, a), offsetof(struct s, b), offsetof(struct s, c)};
	MPI_Datatype tys[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st;
	MPI_Type_create_struct(3, bl, dis, tys, &st);
	MPI_Type_commit(&st);
	MPI_Aint lb, ext;
	MPI_Type_get_extent(st, &lb, &ext);
	CHECK(lb == 0 && ext == sizeof(struct s), "struct extent %ld", (long)ext);
	char sexp[5 * 21], *q = sexp;
	for (int i = 0; i < 5; i++) {
		memcpy(q, &sv[i].a, 4), q += 4;
		memcpy(q, sv[i].b, 16), q += 16;
		memcpy(q, &sv[i].c, 1), q += 1;
	}
	check_pack("pack struct", st, 5, (char *)sv, sexp, sizeof sexp);
	struct s sw[5];
	memset(sw, 0x77, sizeof sw);
	for (int i = 0; i < 5; i++) {
		memcpy(&sw[i].a, &sv[i].a, 4);
		memcpy(sw[i].b, sv[i].b, 16);
		memcpy(&sw[i].c, &sv[i].c, 1);
	}
	check_unpack("unpack struct", st, 5, sexp, sizeof sexp, (char *)sw, sizeof sw, 0);

	/* a 3-D subarray of ints: [2..5) x [1..4) x [3..7) of 6 x 5 x 8, C order */
	int sizes[3] = {6, 5, 8}, subs[3] = {3, 3, 4}, starts[3] = {2, 1, 3};
	int *a = malloc(sizeof(int) * 6 * 5 * 8);
	fill(a, sizeof(int) * 240, 3);
	MPI_Datatype sub;
	MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
	MPI_Type_commit(&sub);
	int aexp[36], k = 0;
	for (int i = 2; i < 5; i++)
		for (int j = 1; j < 4; j++)
			for (int l = 3; l < 7; l++) aexp[k++] = a[(i * 5 + j) * 8 + l];
	check_pack("pack subarray", sub, 1, (char *)a, (char *)aexp, sizeof aexp);
	int *aw = malloc(sizeof(int) * 240);
	memset(aw, 0x77, sizeof(int) * 240);
	k = 0;
	for (int i = 2; i < 5; i++)
		for (int j = 1; j < 4; j++)
			for (int l = 3; l < 7; l++) aw[(i * 5 + j) * 8 + l] = aexp[k++];
	check_unpack("unpack subarray", sub, 1, (char *)aexp, sizeof aexp, (char *)aw, sizeof(int) * 240, 0);

	/* indexed with a negative displacement, an hindexed_block, a darray, a dup */
	int ibl[3] = {2, 1, 3}, idis[3] = {4, -2, 9};
	MPI_Datatype ix;
	MPI_Type_indexed(3, ibl, idis, MPI_SHORT, &ix);
	MPI_Type_commit(&ix);
	short sh[16];
	fill(sh, sizeof sh, 4);
	short *base = sh + 4; /* displacement -2 reaches sh[2] */
	short ixexp[6] = {base[4], base[5], base[-2], base[9], base[10], base[11]};
	check_pack("pack indexed", ix, 1, (char *)base, (char *)ixexp, sizeof ixexp);
	short shw[16];
	memset(shw, 0x77, sizeof shw);
	shw[8] = ixexp[0], shw[9] = ixexp[1], shw[2] = ixexp[2], shw[13] = ixexp[3], shw[14] = ixexp[4], shw[15] = ixexp[5];
	check_unpack("unpack indexed", ix, 1, (char *)ixexp, sizeof ixexp, (char *)shw, sizeof shw, 8);

	MPI_Aint hd[3] = {16, 0, 40};
	MPI_Datatype hb, hbd;
	MPI_Type_create_hindexed_block(3, 2, hd, MPI_FLOAT, &hb);
	MPI_Type_dup(hb, &hbd);
	MPI_Type_commit(&hbd);
	float fl[12];
	fill(fl, sizeof fl, 5);
	float hbexp[6] = {fl[4], fl[5], fl[0], fl[1], fl[10], fl[11]};
	check_pack("pack hindexed_block dup", hbd, 1, (char *)fl, (char *)hbexp, sizeof hbexp);

	/* darray: a 8 x 6 array block-distributed over 2 x 2 processes, this rank's part as process 3 */
	int gs[2] = {8, 6}, ds[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, da[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2},
	    ps[2] = {2, 2};
	MPI_Datatype dar;
	MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &dar);
	MPI_Type_commit(&dar);
	int g[48], gexp[12];
	fill(g, sizeof g, 6);
	k = 0;
	for (int i = 4; i < 8; i++) /* rows 4..8: block of process row 1 */
		for (int j = 0; j < 6; j++)
			if ((j / 2) % 2 == 1) gexp[k++] = g[i * 6 + j]; /* cyclic(2), process column 1 */
	CHECK(k == 8, "darray elements %d", k);
	check_pack("pack darray", dar, 1, (char *)g, (char *)gexp, k * sizeof(int));

	/* external32: big-endian ints of a vector */
	MPI_Datatype v2;
	MPI_Type_vector(3, 1, 2, MPI_INT, &v2);
	MPI_Type_commit(&v2);
	int iv[6] = {0x01020304, 5, 0x0a0b0c0d, 6, -2, 7};
	unsigned char ext32[12], ewant[12] = {1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d, 0xff, 0xff, 0xff, 0xfe};
	MPI_Aint esz, epos = 0;
	MPI_Pack_external_size("external32", 1, v2, &esz);
	CHECK(esz == 12, "external32 size %ld", (long)esz);
	CHECK(MPI_Pack_external("external32", iv, 1, v2, ext32, 12, &epos) == MPI_SUCCESS && epos == 12, "pack_external");
	CHECK(memcmp(ext32, ewant, 12) == 0, "external32 bytes differ");
	int iw[6] = {0};
	epos = 0;
	CHECK(MPI_Unpack_external("external32", ext32, 12, &epos, iw, 1, v2) == MPI_SUCCESS && epos == 12, "unpack_external");
	CHECK(iw[0] == iv[0] && iw[2] == iv[2] && iw[4] == iv[4] && iw[1] == 0 && iw[3] == 0, "external32 unpack differs");
	ok("external32");

#if MPI_VERSION >= 4 && defined(MPICH)
	/* large-count forms */
	MPI_Datatype vc;
	MPI_Type_vector_c(N, 1, N, MPI_DOUBLE, &vc);
	MPI_Type_commit(&vc);
	MPI_Count cpos = 0, csz;
	MPI_Pack_size_c(1, vc, MPI_COMM_WORLD, &csz);
	CHECK(csz == N * 8, "pack_size_c %lld", (long long)csz);
	double *cb = malloc(csz);
	CHECK(MPI_Pack_c(m, 1, vc, cb, csz, &cpos, MPI_COMM_WORLD) == MPI_SUCCESS && cpos == csz, "pack_c");
	CHECK(memcmp(cb, exp, csz) == 0, "pack_c bytes differ");
	MPI_Type_free(&vc);
	free(cb);
	ok("pack_c");
#else
	ok("pack_c");
#endif

	/* absolute addresses: a struct of two separate variables, sent from and
	   received into MPI_BOTTOM (MPICH 4.0.2's MPI_Pack refuses a null
	   inbuf, so the test goes through a self send) */
	static struct {
		int a;
		int gap[5];
		double b[2];
	} gv = {0x11223344, {0}, {1.5, -2.25}};
#define xa gv.a
#define xb gv.b
	MPI_Aint ad[2];
	MPI_Get_address(&xa, &ad[0]);
	MPI_Get_address(xb, &ad[1]);
	int abl[2] = {1, 2};
	MPI_Datatype aty[2] = {MPI_INT, MPI_DOUBLE}, abs_t;
	MPI_Type_create_struct(2, abl, ad, aty, &abs_t);
	MPI_Type_commit(&abs_t);
	char apk[20];
	CHECK(MPI_Sendrecv(MPI_BOTTOM, 1, abs_t, 0, 5, apk, 20, MPI_BYTE, 0, 5, MPI_COMM_SELF, MPI_STATUS_IGNORE) ==
		MPI_SUCCESS, "bottom send");
	CHECK(memcmp(apk, &xa, 4) == 0 && memcmp(apk + 4, xb, 16) == 0, "bottom send bytes");
	xa = 0;
	xb[0] = xb[1] = 0;
	CHECK(MPI_Sendrecv(apk, 20, MPI_BYTE, 0, 6, MPI_BOTTOM, 1, abs_t, 0, 6, MPI_COMM_SELF, MPI_STATUS_IGNORE) ==
		MPI_SUCCESS, "bottom recv");
	CHECK(xa == 0x11223344 && xb[0] == 1.5 && xb[1] == -2.25, "bottom recv values");
	MPI_Type_free(&abs_t);
#undef xa
#undef xb
	ok("MPI_BOTTOM");

	/* a type built on one the library did not see created (an f90 type):
	   left to MPI, which still packs it right */
	MPI_Datatype r8, vr;
	MPI_Type_create_f90_real(15, MPI_UNDEFINED, &r8);
	MPI_Type_vector(3, 1, 2, r8, &vr);
	MPI_Type_commit(&vr);
	double fa[6] = {1, 2, 3, 4, 5, 6}, fb[3];
	int fpos = 0;
	CHECK(MPI_Pack(fa, 1, vr, fb, sizeof fb, &fpos, MPI_COMM_WORLD) == MPI_SUCCESS && fpos == 24, "f90 pack");
	CHECK(fb[0] == 1 && fb[1] == 3 && fb[2] == 5, "f90 pack bytes");
	MPI_Type_free(&vr);
	ok("fallback");

	/* many packs and unpacks of varying counts, each checked: the library
	   moves from ddt's engines to their generated code on the way */
	double *img = malloc(sizeof(double) * N * N);
	for (int it = 0; it < 3000; it++) {
		int c = 1 + it % 3, pos = 0, n = c * N * 8;
		char *pk = malloc(n);
		CHECK(MPI_Pack(m, c, col1, pk, n, &pos, MPI_COMM_WORLD) == MPI_SUCCESS && pos == n, "repeat pack");
		CHECK(memcmp(pk, exp, n) == 0, "repeat pack %d: bytes differ", it);
		memset(img, 0x77, sizeof(double) * N * N);
		pos = 0;
		CHECK(MPI_Unpack(pk, n, &pos, img, c, col1, MPI_COMM_WORLD) == MPI_SUCCESS && pos == n, "repeat unpack");
		for (int r = 0; r < N; r++)
			for (int k = 0; k < N; k++) {
				double w;
				memset(&w, 0x77, sizeof w);
				if (k < c) w = m[r * N + k];
				CHECK(memcmp(&img[r * N + k], &w, 8) == 0, "repeat unpack %d: [%d][%d] differs", it, r, k);
			}
		pos = 0;
		CHECK(MPI_Pack(sv, 5, st, pk, n, &pos, MPI_COMM_WORLD) == MPI_SUCCESS && pos == sizeof sexp, "repeat struct");
		CHECK(memcmp(pk, sexp, sizeof sexp) == 0, "repeat struct %d: bytes differ", it);
		free(pk);
	}
	free(img);
	ok("repeated pack unpack");

	/* contiguous types, which the library packs with one memcpy: 3 of 5
	   doubles in a row; one block of 4 ints 8 bytes after the origin (a
	   data run not at 0); and 2 instances of the first, back to back */
	MPI_Datatype c5, cblk;
	MPI_Type_contiguous(5, MPI_DOUBLE, &c5);
	MPI_Type_commit(&c5);
	check_pack("contiguous 3x5", c5, 3, (char *)m, (char *)m, 15 * sizeof(double));
	int one = 4;
	MPI_Aint at8 = 8;
	MPI_Type_create_hindexed(1, &one, &at8, MPI_INT, &cblk);
	MPI_Type_commit(&cblk);
	check_pack("contiguous at 8", cblk, 1, (char *)m, (char *)m + 8, 16);
	memset(want, 0x77, 64);
	memcpy((char *)want + 8, exp, 16);
	check_unpack("unpack contiguous at 8", cblk, 1, (char *)exp, 16, (char *)want, 64, 0);
	memset(want, 0x77, 15 * sizeof(double));
	memcpy(want, exp, 15 * sizeof(double));
	check_unpack("unpack contiguous 3x5", c5, 3, (char *)exp, 15 * sizeof(double), (char *)want, 15 * sizeof(double), 0);

	/* the contiguous path's edges: count 0 leaves the position where it
	   is; many instances unpacked at a position inside a larger buffer; a
	   contiguous type resized to a larger extent (instances not back to
	   back: no single memcpy), 3 of them; pack and unpack alternate with a
	   non-contiguous type so that the per-thread cache of the last type
	   changes between calls */
	{
		int zpos = 7;
		char zb[16];
		memset(zb, 0x5a, sizeof zb);
		CHECK(MPI_Pack(m, 0, c5, zb, sizeof zb, &zpos, MPI_COMM_WORLD) == MPI_SUCCESS && zpos == 7, "pack count 0");
		CHECK(MPI_Unpack(zb, sizeof zb, &zpos, m, 0, c5, MPI_COMM_WORLD) == MPI_SUCCESS && zpos == 7, "unpack count 0");
		CHECK(zb[0] == 0x5a && zb[15] == 0x5a, "count 0 wrote");
		ok("contiguous count 0");
		enum { K = 40 };
		MPI_Datatype colc;
		MPI_Type_vector(N, 1, N, MPI_DOUBLE, &colc);
		MPI_Type_commit(&colc);
		size_t nb = K * 5 * sizeof(double);
		char *pk = malloc(nb + 11), *dst = malloc(nb + 64);
		int ppos = 11;
		memset(pk, 0x33, 11);
		memcpy(pk + 11, m, nb);
		for (int it = 0; it < 50; it++) {
			memset(dst, 0x77, nb + 64);
			int upos = 11;
			CHECK(MPI_Unpack(pk, (int)nb + 11, &upos, dst + 8, K, c5, MPI_COMM_WORLD) == MPI_SUCCESS &&
					upos == (int)nb + 11,
				"unpack many at 11");
			CHECK(memcmp(dst + 8, m, nb) == 0 && dst[7] == 0x77 && dst[8 + nb] == 0x77, "unpack many at 11: image");
			int vpos = 0;
			double colv[N];
			CHECK(MPI_Pack(m, 1, colc, colv, sizeof colv, &vpos, MPI_COMM_WORLD) == MPI_SUCCESS && vpos == N * 8,
				"interleaved column pack");
			for (int r = 0; r < N; r++) CHECK(colv[r] == m[r * N], "interleaved column [%d]", r);
			ppos = 11;
			CHECK(MPI_Pack(dst + 8, K, c5, pk, (int)nb + 11, &ppos, MPI_COMM_WORLD) == MPI_SUCCESS &&
					ppos == (int)nb + 11,
				"pack many at 11");
			CHECK(memcmp(pk + 11, m, nb) == 0 && pk[10] == 0x33, "pack many at 11: bytes");
		}
		free(pk);
		free(dst);
		MPI_Type_free(&colc);
		ok("contiguous many at a position");
		MPI_Datatype c5r;
		MPI_Type_create_resized(c5, 0, 7 * sizeof(double), &c5r);
		MPI_Type_commit(&c5r);
		double rexp[15];
		for (int i = 0; i < 3; i++) memcpy(rexp + 5 * i, m + 7 * i, 5 * sizeof(double));
		for (int it = 0; it < 20; it++) check_pack("contiguous resized 3", c5r, 3, (char *)m, (char *)rexp, sizeof rexp);
		double rwant[21];
		memset(rwant, 0x77, sizeof rwant);
		for (int i = 0; i < 3; i++) memcpy(rwant + 7 * i, rexp + 5 * i, 5 * sizeof(double));
		check_unpack("unpack contiguous resized 3", c5r, 3, (char *)rexp, sizeof rexp, (char *)rwant, 19 * sizeof(double), 0);
		MPI_Type_free(&c5r);
	}

	/* a few long runs (the library moves each with one memcpy): a struct
	   of 40 doubles at -64 bytes, 64 ints at 800 bytes and 50 doubles at
	   400 bytes (type-map order is not address order), extent 1200, 1 and
	   5 instances at a position; and the same struct with a 4-byte run
	   (not the memcpy path), which must agree */
	{
		int bl[3] = {40, 64, 50}, blx[4] = {40, 64, 50, 1};
		MPI_Aint dp[3] = {-64, 800, 400}, dpx[4] = {-64, 800, 400, 1100};
		MPI_Datatype ty[4] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT}, rs0, rs, rx0, rx;
		MPI_Type_create_struct(3, bl, dp, ty, &rs0);
		MPI_Type_create_resized(rs0, -64, 1200, &rs);
		MPI_Type_commit(&rs);
		MPI_Type_create_struct(4, blx, dpx, ty, &rx0);
		MPI_Type_create_resized(rx0, -64, 1200, &rx);
		MPI_Type_commit(&rx);
		enum { RS = 320 + 256 + 400, RX = RS + 4, C = 5 };
		char *img0 = malloc(C * 1200 + 64), *base = img0 + 64;
		fill(img0, C * 1200 + 64, 9);
		char rexp[C * RX], xexp[C * RX];
		for (int which = 0; which < 2; which++) {
			char *e = which ? xexp : rexp;
			for (int i = 0; i < C; i++) {
				char *o = base + i * 1200;
				memcpy(e, o - 64, 320), e += 320;
				memcpy(e, o + 800, 256), e += 256;
				memcpy(e, o + 400, 400), e += 400;
				if (which) memcpy(e, o + 1100, 4), e += 4;
			}
		}
		for (int it = 0; it < 30; it++) {
			check_pack("runs 1", rs, 1, base, rexp, RS);
			check_pack("runs 5", rs, C, base, rexp, C * RS);
			check_pack("runs+int 5", rx, C, base, xexp, C * RX);
		}
		char *want = malloc(C * 1200 + 64);
		memset(want, 0x77, C * 1200 + 64);
		for (int i = 0; i < C; i++) {
			char *o = want + 64 + i * 1200, *s = base + i * 1200;
			memcpy(o - 64, s - 64, 320);
			memcpy(o + 800, s + 800, 256);
			memcpy(o + 400, s + 400, 400);
		}
		for (int it = 0; it < 30; it++) check_unpack("unpack runs 5", rs, C, rexp, C * RS, want, C * 1200 + 64, 64);
		for (int i = 0; i < C; i++) memcpy(want + 64 + i * 1200 + 1100, base + i * 1200 + 1100, 4);
		check_unpack("unpack runs+int 5", rx, C, xexp, C * RX, want, C * 1200 + 64, 64);
		free(img0);
		free(want);
		MPI_Type_free(&rs0);
		MPI_Type_free(&rs);
		MPI_Type_free(&rx0);
		MPI_Type_free(&rx);
	}

	/* instances larger than a unit of the generated code (256 KiB),
	   which the C layer moves by the steps of one instance
	   (ddt.Committed.NativeSteps) once the code exists: a struct of a
	   vector of long rows and a list of 100 irregular blocks, 2 of them */
	{
		enum { R = 40, RL = 1024, RS = 1100, B = 100 };
		MPI_Datatype rows, lst, big;
		MPI_Type_vector(R, RL, RS, MPI_DOUBLE, &rows);
		int lbl[B], lds[B], lsum = 0;
		for (int i = 0; i < B; i++) lbl[i] = 512 + i % 5, lds[i] = i * 700 + (i % 7) * 13, lsum += lbl[i];
		MPI_Type_indexed(B, lbl, lds, MPI_DOUBLE, &lst);
		MPI_Aint roff = 0, loff = ((MPI_Aint)(R - 1) * RS + RL) * 8 + 64, blb, bext;
		int bbl[2] = {1, 1};
		MPI_Aint bds[2] = {roff, loff};
		MPI_Datatype bts[2] = {rows, lst};
		MPI_Type_create_struct(2, bbl, bds, bts, &big);
		MPI_Type_commit(&big);
		MPI_Type_get_extent(big, &blb, &bext);
		size_t one = (size_t)(R * RL + lsum) * 8, span = (size_t)bext * 2;
		char *img = malloc(span), *bexp = malloc(one * 2), *want = malloc(span);
		fill(img, span, 11);
		char *e = bexp;
		for (int k = 0; k < 2; k++) {
			char *o = img + k * bext;
			for (int r = 0; r < R; r++) memcpy(e, o + roff + (size_t)r * RS * 8, RL * 8), e += RL * 8;
			for (int i = 0; i < B; i++) memcpy(e, o + loff + (size_t)lds[i] * 8, (size_t)lbl[i] * 8), e += lbl[i] * 8;
		}
		memset(want, 0x77, span);
		for (int k = 0; k < 2; k++) {
			char *o = want + k * bext, *s = img + k * bext;
			for (int r = 0; r < R; r++) memcpy(o + roff + (size_t)r * RS * 8, s + roff + (size_t)r * RS * 8, RL * 8);
			for (int i = 0; i < B; i++)
				memcpy(o + loff + (size_t)lds[i] * 8, s + loff + (size_t)lds[i] * 8, (size_t)lbl[i] * 8);
		}
		for (int it = 0; it < 20; it++) {
			check_pack("large instances 2", big, 2, img, bexp, (int)(one * 2));
			check_unpack("unpack large instances 2", big, 2, bexp, (int)(one * 2), want, span, 0);
		}
		free(img);
		free(bexp);
		free(want);
		MPI_Type_free(&rows);
		MPI_Type_free(&lst);
		MPI_Type_free(&big);
	}

	/* a type freed and another created, which MPI may give the same
	   handle: the library must not serve the new one from what it
	   remembers of the old (contiguous, then every other double) */
	for (int it = 0; it < 4; it++) {
		MPI_Datatype a, b;
		MPI_Type_contiguous(4, MPI_DOUBLE, &a);
		MPI_Type_commit(&a);
		check_pack("reused handle: first", a, 1, (char *)m, (char *)m, 32);
		MPI_Type_free(&a);
		MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &b);
		MPI_Type_commit(&b);
		double ev[4] = {m[0], m[2], m[4], m[6]};
		check_pack("reused handle: second", b, 1, (char *)m, (char *)ev, 32);
		MPI_Type_free(&b);
	}
	MPI_Type_free(&c5);
	MPI_Type_free(&cblk);

	MPI_Type_free(&col);
	MPI_Type_free(&col1);
	MPI_Type_free(&st);
	MPI_Type_free(&sub);
	MPI_Type_free(&ix);
	MPI_Type_free(&hb);
	MPI_Type_free(&hbd);
	MPI_Type_free(&dar);
	MPI_Type_free(&v2);
	MPI_Finalize();
	return 0;
}
