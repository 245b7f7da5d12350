//go:build !unix

package main

func addressSpaceLimit() int64 { return -1 }
