//go:build !linux

package main

import "syscall"

// serverProcAttr is nil where there is no parent-death signal.
func serverProcAttr() *syscall.SysProcAttr { return nil }
