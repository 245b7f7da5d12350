//go:build !amd64 || noasm

package engine

import "unsafe"

// Without the assembly there are no non-temporal stores: CopyNT copies.

func copyNT(d, s unsafe.Pointer, n int) bool { return false }

func hasNT() bool { return false }
