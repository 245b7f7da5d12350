//go:build ddtinterpose

package main

/*
#include "ddtgo.h"
*/
import "C"

import "unsafe"

// ddtgoRuns writes the I/O vector of one instance of the served type of
// pin (ddt.Committed.Segments: the contiguous memory runs that hold its
// packed bytes, in packed order, adjacent runs merged; offsets from the
// instance's origin) into lens and offs, which hold room entries each, and
// returns the number of runs, or -1 when there are more than room (the C
// layer sizes room so that the runs average at least DDT_MPI_DIRECT bytes:
// a type with shorter runs is not moved directly, direct.c). *elem is the
// size of every basic element when the type has one basic type (its
// signature is uniform), else 1: a message shorter than the receive ends
// at an element boundary, so MPI may move units of that size.
//
//export ddtgoRuns
func ddtgoRuns(pin C.int32_t, room C.int64_t, lens, offs *C.int64_t, elem *C.int64_t) (n C.int64_t) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	e := slots.get(int32(pin))
	if e == nil || room <= 0 {
		return -1
	}
	ls := unsafe.Slice((*int64)(unsafe.Pointer(lens)), int64(room))
	os := unsafe.Slice((*int64)(unsafe.Pointer(offs)), int64(room))
	*elem = 1
	if sg := e.c.Signature(); sg.Uniform && sg.Basic.Size() > 0 {
		*elem = C.int64_t(sg.Basic.Size())
	}
	var k int64
	for off, l := range e.c.Segments(1, 0) {
		if k == int64(room) {
			return -1
		}
		ls[k], os[k] = l, off
		k++
	}
	return C.int64_t(k)
}

// ddtgoRegular reports whether the runs of one instance of the served type
// of pin (as for ddtgoRuns) follow at most limit patterns: pairs of a run's
// length and its distance from the previous run. Vectors, subarrays and
// nested vectors have a few such pairs, indexed types with blocks at
// irregular offsets as many as runs. It sets *runs to the number of runs
// (its work is bounded by them). It returns 0 when there are more
// patterns (or on any failure), else 1. *elem is the size of every basic
// element when the type has one basic type, else 0.
//
//export ddtgoRegular
func ddtgoRegular(pin C.int32_t, limit C.int64_t, runs, elem *C.int64_t) (ok C.int) {
	defer func() {
		if recover() != nil {
			ok = 0
		}
	}()
	*runs, *elem = 0, 0
	e := slots.get(int32(pin))
	if e == nil || limit <= 0 {
		return 0
	}
	if sg := e.c.Signature(); sg.Uniform && sg.Basic.Size() > 0 {
		*elem = C.int64_t(sg.Basic.Size())
	}
	type pat struct{ l, d int64 }
	seen := make(map[pat]bool)
	prev, k := int64(0), int64(0)
	for off, l := range e.c.Segments(1, 0) {
		p := pat{l, 0}
		if k > 0 {
			p.d = off - prev
		}
		prev = off
		k++
		if len(seen) <= int(limit) && !seen[p] {
			seen[p] = true
		}
	}
	*runs = C.int64_t(k)
	if len(seen) > int(limit) {
		return 0
	}
	return 1
}
