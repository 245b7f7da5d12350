// Package optimal finds least-cost type trees for MPI type maps: the type
// tree reconstruction problem of Ganian, Kalany, Szeider and Träff,
// "Polynomial-time Construction of Optimal MPI Derived Datatype Trees" (seed
// 000 in this project) and its companion paper on tree-structured data layout
// descriptions (seed 001).
//
// # Type trees
//
// A tree (Node) is built from the constructors of seed 000, Definition 1,
// printed and parsed (String, Parse) in this notation:
//
//	leaf(b)                          basic type b at displacement 0
//	vec(c, s, L)                     c copies of L at 0, s, 2s, ...
//	idx(c, [i0, ..., ic-1], L)       copies of L at i0, ..., ic-1
//	idxbuc(c, s, [i0, ...], [a0, ...], L)
//	                                 bucket k: a_k copies of L at i_k + j*s
//	struc(c, [i0, ...], [L0, ...])   L_k at i_k
//
// and two opt-in constructors of seed 001, Definition 2:
//
//	leaf(c, b)                       contiguous leaf: c elements of b at 0, size(b), ...
//	sbuc(c, s, e, [a0, ...], L)      strided bucket: bucket k holds a_k copies
//	                                 of L at k*s + j*e
//
// Flatten turns a tree into its type map (seed 000, Listing 1). A type map
// (TypeMap) is a sequence of (basic type name, byte displacement) pairs in
// order; displacements may repeat and be negative. ParseTypeMap reads the
// TYPEMAP text format of the ddt command: one "BASICTYPE DISPLACEMENT" per
// line, '#' comments.
//
// # Cost model
//
// The cost of a tree is the sum of its nodes' costs (seed 000, section III),
// with every constant configurable (CostModel, ParseCost):
//
//	leaf = Leaf, vec = Vec, idx = Idx + c*Ix,
//	idxbuc = IdxBuc + c*(Ix+Bucket), struc = Struc + c*(Ix+Type),
//	contiguous leaf = Contig, sbuc = SBuc + c*Bucket
//
// with defaults leaf=2, vec=4, idx=3, idxbuc=4, struc=2, ix=1, bucket=1,
// type=1, contig=2, sbuc=4. The constructor set is a parameter
// (Constructors, ParseConstructors): for example "leaf,vec,idx" is the
// setting of Kalany and Träff.
//
// # Reconstruction
//
// Reconstruct returns a least-cost tree whose flattening is exactly the given
// map. It follows the dynamic program of seed 000, section IV, over the
// aligned segments M[i..j] (shifted so that element i is at displacement 0),
// but runs in O(n^3) time instead of O(n^4), in O(n^2) memory:
//
//   - The struc root of Lemma 3 needs no shortest-path search per segment.
//     With P(a, j) the least weight of a partition of M[a..j] into parts
//     (each weighing Ix+Type plus its optimal cost), the best struc root of
//     M[i..j] is Struc + Ix + Type + min_k opt(i, k) + P(k+1, j), and
//     P(i, j) = Ix + Type + min(opt(i, j), that minimum). This is O(n) per
//     segment over two contiguous int32 arrays.
//   - Repeated prefixes (Listing 3) are not rechecked per segment. For each
//     block length q, one exact scan along the diagonal of offset q marks
//     every p where the aligned blocks [p, p+q) and [p+q, p+2q) are equal
//     (types and displacement differences), and gives their gap an id. When
//     the optimum of segment [i, i+q) is known it is pushed forward to every
//     [i, i+c*q) of c equal blocks, updating vec (all gaps equal), idx, and
//     idxbuc (the number of buckets is c minus the count of the most
//     frequent gap, maintained incrementally with a counter per gap id) in
//     O(1) per block. This totals O(n^2 log n) in the worst case.
//   - Unaligned maps (Lemma 5). A tree for a map starting at x != 0 must
//     have an irregular node (idx, idxbuc, struc) on its chain from the root
//     (paths only diverge at struc nodes), which can absorb the shift at no
//     cost. So besides the optimum, the algorithm keeps for every prefix the
//     least cost of a tree with an irregular node on every root-to-leaf path:
//     an irregular root, a vec or sbuc over such a prefix, or the optimum
//     under a count-1 irregular node. The paper's Lemma 5 considers only the
//     optimal aligned tree and irregular roots and can miss the optimum, for
//     example vec(10, 100, idx(3, [7, 11, 15], leaf(int))) (see TestLemma5).
//
// Tables are upper-triangular int32/uint16 arrays (about 13 bytes per
// segment, 110 MB for n = 4096), trees are rebuilt from the recorded choices
// at the end, with struc partitions recovered from the P table.
//
// The strided bucket is considered only in a canonical form: the bucket
// partition of the block positions is one of the two linear scans described
// in seed 001, section 4.1 (first bucket ends at the first gap that differs
// from the first gap; or the first bucket holds one block and the second
// position is the bucket stride). Optimality holds over trees whose sbuc
// nodes have no fewer buckets than that scan gives; for the other
// constructors it is unconditional.
//
// Correctness is tested against an exhaustive search over all trees for
// n <= 8 and against a literal implementation of the paper's O(n^4)
// algorithm for n <= 60 (oracle_test.go).
//
// # MPI types and normalization
//
// ToType maps a tree to MPI constructors of package datatype with exactly
// the tree's type map (vec to hvector, idx to hindexed_block, idxbuc to
// hindexed of a resized subtree, struc to struct, contiguous leaf to
// contiguous); TreeOf maps an MPI type to the tree that stores the same
// arguments, and Cost is that tree's cost. Normalize (seed 000, section VI)
// returns an equivalent MPI type that costs no more: exactly optimal for
// small type maps, and for large ones a normalization whose work is bounded
// by the size of the type's tree (NormalizeTree): the rewrite rules of
// package dame/opt, the ones commit applies, run on a program whose leaves
// are the type's basic types. Over vec, idx, idxbuc and the contiguous leaf only
// (ChainConstructors) Reconstruct is exact in O(n log log n) at any length
// up to MaxMapLen. ReconstructLarge answers type maps longer than MaxLen
// over other sets with the cheapest of the rules' tree, the least-cost
// chain, the segments, the period and the list, with a certified lower
// bound (LowerBound: node, one-node, two-node, phrase, shape, window,
// letter and junction bounds; an answer that meets it is exact) and the
// a-priori factor ListCost/LowerBound (docs/normalization.md); a periodic
// map whose answer the bound does not prove gets the exact program for
// periodic maps (internal/recon.SolvePeriodic, O(p·n²) for period p)
// within MaxPeriodicWork. Commit
// does not use this package: ddt.Options.Normalize simplifies the compiled
// program (opt.Simplify) with the same rules and the same dynamic program
// (internal/recon) over the program's block lists.
//
// # DAGs
//
// Fold shares identical subtrees of a tree, giving a DAG whose additive cost
// counts each shared node once (seed 000, section V). This is a compaction,
// not an optimization: the folded optimal tree is in general not an optimal
// DAG, since a DAG may profit from reusing subtrees that are not locally
// optimal, and no polynomial algorithm for optimal DAGs is known.
package optimal
