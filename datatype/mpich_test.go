package datatype

import "testing"

func mustT(t *testing.T) func(*Type, error) *Type {
	return func(x *Type, err error) *Type {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
}

// TestMPICHEdgeCases checks layouts against values MPICH 4.0.2 printed on
// x86-64 Linux for the same calls (MPI_Type_size, get_extent, get_true_extent).
func TestMPICHEdgeCases(t *testing.T) {
	m := mustT(t)
	i, d, ch := Of(Int), Of(Double), Of(Char)
	rs := m(Resized(i, -4, 16))
	rs5 := m(Resized(i, 0, 5))
	st := m(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{i, d}))
	rs12 := m(Resized(st, 0, 12))
	zero := m(Contiguous(0, i))
	hvec := m(HVector(2, 1, 6, i))
	f := Of(Float)
	yk := func(x *Type) *Type { return m(Struct([]int64{1, 1}, []int64{0, 5}, []*Type{f, x})) }
	cases := []struct {
		name                    string
		ty                      *Type
		size, lb, ext, tlb, tex int64
	}{
		{"struct(cfc@0,char@8)", m(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{Of(CFloatComplex), ch})), 9, 0, 12, 0, 9},
		{"struct(cdc@0,char@16)", m(Struct([]int64{1, 1}, []int64{0, 16}, []*Type{Of(CDoubleComplex), ch})), 17, 0, 24, 0, 17},
		{"struct(cldc@0,char@32)", m(Struct([]int64{1, 1}, []int64{0, 32}, []*Type{Of(CLongDoubleComplex), ch})), 33, 0, 48, 0, 33},
		{"struct(ld@0,char@16)", m(Struct([]int64{1, 1}, []int64{0, 16}, []*Type{Of(LongDouble), ch})), 17, 0, 32, 0, 17},
		{"double_int", DoubleInt, 12, 0, 16, 0, 12},
		{"long_double_int", LongDoubleInt, 20, 0, 32, 0, 20},
		{"short_int", ShortInt, 6, 0, 8, 0, 8},
		{"long_int", LongInt, 12, 0, 16, 0, 12},
		{"float_int", FloatInt, 8, 0, 8, 0, 8},
		{"2int", TwoInt, 8, 0, 8, 0, 8},
		{"vector(3,0,2,int)", m(Vector(3, 0, 2, i)), 0, 0, 16, 0, 16},
		{"resized(int,-4,16)", rs, 4, -4, 16, 0, 4},
		{"struct(rs@0,double@-20)", m(Struct([]int64{1, 1}, []int64{0, -20}, []*Type{rs, d})), 12, -20, 32, -20, 24},
		{"struct(rs@0,double@40)", m(Struct([]int64{1, 1}, []int64{0, 40}, []*Type{rs, d})), 12, -4, 56, 0, 48},
		{"struct(rs@0,char@1)", m(Struct([]int64{1, 1}, []int64{0, 1}, []*Type{rs, ch})), 5, -4, 16, 0, 4},
		{"struct(rs5@0,double@8)", m(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{rs5, d})), 12, 0, 16, 0, 16},
		{"struct(contig(2,rs5)@0,double@16)", m(Struct([]int64{1, 1}, []int64{0, 16}, []*Type{m(Contiguous(2, rs5)), d})), 16, 0, 24, 0, 24},
		{"rs(struct,0,12)", rs12, 12, 0, 12, 0, 16},
		{"struct(rs12@0,char@12)", m(Struct([]int64{1, 1}, []int64{0, 12}, []*Type{rs12, ch})), 13, 0, 16, 0, 16},
		{"vector(2,1,-3,double)", m(Vector(2, 1, -3, d)), 16, -24, 32, -24, 32},
		{"contig(0,rs12)", m(Contiguous(0, rs12)), 0, 0, 0, 0, 0},
		{"indexed(0,2,0@-10,1,50)", m(Indexed([]int64{0, 2, 0}, []int64{-10, 1, 50}, i)), 8, 4, 8, 4, 8},
		{"contig(3,rs(int,0,0))", m(Contiguous(3, m(Resized(i, 0, 0)))), 12, 0, 0, 0, 4},
		{"contig(3,rs(int,0,-8))", m(Contiguous(3, m(Resized(i, 0, -8)))), 12, -16, 8, -16, 20},
		{"struct(int@0,0xdouble@100)", m(Struct([]int64{1, 0}, []int64{0, 100}, []*Type{i, d})), 4, 0, 4, 0, 4},
		{"subarray", m(Subarray([]int64{4, 5}, []int64{2, 3}, []int64{1, 1}, OrderC, d)), 48, 0, 160, 48, 64},
		{"struct(zero@-8,char@0)", m(Struct([]int64{1, 1}, []int64{-8, 0}, []*Type{zero, ch})), 1, -8, 9, -8, 9},
		// a struct whose members are all the same type is not padded
		{"struct(int@0,int@6)", m(Struct([]int64{1, 1}, []int64{0, 6}, []*Type{i, i})), 8, 0, 10, 0, 10},
		{"struct(int@0,unsigned@6)", m(Struct([]int64{1, 1}, []int64{0, 6}, []*Type{i, Of(Unsigned)})), 8, 0, 10, 0, 10},
		{"struct(int@0,float@6)", m(Struct([]int64{1, 1}, []int64{0, 6}, []*Type{i, Of(Float)})), 8, 0, 12, 0, 10},
		{"struct(hvec)", m(Struct([]int64{1}, []int64{0}, []*Type{hvec})), 8, 0, 10, 0, 10},
		{"struct(hvec,dup(hvec))", m(Struct([]int64{1, 1}, []int64{0, 20}, []*Type{hvec, m(Dup(hvec))})), 16, 0, 30, 0, 30},
		{"struct(hvec,resized(hvec,0,12))", m(Struct([]int64{1, 1}, []int64{0, 20}, []*Type{hvec, m(Resized(hvec, 0, 12))})), 16, 0, 32, 0, 30},
		{"struct(hvec,0 x char)", m(Struct([]int64{1, 0}, []int64{0, 6}, []*Type{hvec, ch})), 8, 0, 12, 0, 10},
		// members that yaksa reduces to the same type object: not padded
		// (MPICH 4.0.2: struct([1, 1], [0, 5], [float, X]) has extent 9)
		{"struct(float,vector(1,1,-3,float))", yk(m(Vector(1, 1, -3, f))), 8, 0, 9, 0, 9},
		{"struct(float,hvector(1,1,100,float))", yk(m(HVector(1, 1, 100, f))), 8, 0, 9, 0, 9},
		{"struct(float,hindexed_block(1,[0],float))", yk(m(HIndexedBlock(1, []int64{0}, f))), 8, 0, 9, 0, 9},
		{"struct(float,indexed_block(1,[0],float))", yk(m(IndexedBlock(1, []int64{0}, f))), 8, 0, 9, 0, 9},
		{"struct(float,indexed([1],[0],float))", yk(m(Indexed([]int64{1}, []int64{0}, f))), 8, 0, 9, 0, 9},
		{"struct(float,struct([1],[0],[float]))", yk(m(Struct([]int64{1}, []int64{0}, []*Type{f}))), 8, 0, 9, 0, 9},
		{"struct(float,contig(1,vector(1,1,-3,float)))", yk(m(Contiguous(1, m(Vector(1, 1, -3, f))))), 8, 0, 9, 0, 9},
		{"struct(float,subarray([1],[1],[0],float))", yk(m(Subarray([]int64{1}, []int64{1}, []int64{0}, OrderC, f))), 8, 0, 9, 0, 9},
		{"struct(float,hvector(1,1,7,struct([1],[0],[float])))", yk(m(HVector(1, 1, 7, m(Struct([]int64{1}, []int64{0}, []*Type{f}))))), 8, 0, 9, 0, 9},
		// ... and members yaksa makes new objects for: padded
		{"struct(float,hindexed_block(1,[4],float))", yk(m(HIndexedBlock(1, []int64{4}, f))), 8, 0, 16, 0, 13},
		{"struct(float,hindexed_block(2,[0],float))", yk(m(HIndexedBlock(2, []int64{0}, f))), 12, 0, 16, 0, 13},
		{"struct(float,vector(2,1,1,float))", yk(m(Vector(2, 1, 1, f))), 12, 0, 16, 0, 13},
		{"struct(float,indexed([1,1],[0,1],float))", yk(m(Indexed([]int64{1, 1}, []int64{0, 1}, f))), 12, 0, 16, 0, 13},
		{"struct(3 float,3 vector(1,1,-3,float),3 float)", m(Struct([]int64{3, 3, 3}, []int64{60, 63, -6}, []*Type{f, m(Vector(1, 1, -3, f)), f})), 36, -6, 81, -6, 81},
		// a struct without data is the zero-length type
		{"struct(empty members)", m(Struct([]int64{1, 1}, []int64{0, 8}, []*Type{zero, m(Resized(zero, 0, 8))})), 0, 0, 0, 0, 0},
		// zero-length blocks of indexed_block keep an empty span
		{"indexed_block(0,[5,-3],double)", m(IndexedBlock(0, []int64{5, -3}, d)), 0, -24, 64, -24, 64},
		{"indexed_block(0,[5,-3],resized(double,0,-16))", m(IndexedBlock(0, []int64{5, -3}, m(Resized(d, 0, -16)))), 0, -64, 96, -64, 120},
		// darray as MPICH builds it
		{"darray block/cyclic", m(Darray(6, 4, []int64{9, 7}, []Distrib{DistributeBlock, DistributeCyclic}, []int64{DefaultDarg, 2}, []int64{3, 2}, OrderC, i)), 48, 0, 252, 168, 80},
	}
	for _, c := range cases {
		got := [5]int64{c.ty.Size(), c.ty.LB(), c.ty.Extent(), c.ty.TrueLB(), c.ty.TrueExtent()}
		want := [5]int64{c.size, c.lb, c.ext, c.tlb, c.tex}
		if got != want {
			t.Errorf("%s: size,lb,extent,true_lb,true_extent = %v, MPICH says %v", c.name, got, want)
		}
	}
}
