package main

import "syscall"

// serverProcAttr makes the kernel stop the playground server when ddt dies.
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
