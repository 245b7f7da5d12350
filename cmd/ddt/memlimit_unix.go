//go:build unix

package main

import "syscall"

// addressSpaceLimit returns the soft RLIMIT_AS (ulimit -v) in bytes, or -1.
func addressSpaceLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur == ^uint64(0) || rl.Cur > 1<<62 {
		return -1
	}
	return int64(rl.Cur)
}
