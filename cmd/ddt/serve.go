package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/ddtlab/ddt/internal/modroot"
)

func init() {
	register(&command{name: "serve", args: "[--addr HOST:PORT] [--export FILE.html] [--src DIR]",
		summary: "serve the playground (type .ddt, see its properties, picture, normalized tree and C live) on localhost",
		run:     runServe})
}

// runServe builds and runs the playground server of the source tree
// (cmd/ddt-playground, built with the Go command into the user's
// cache directory). The server is a program of its
// own so that ddt links no networking code: net brings cgo and its threads,
// and with them start-up failures of every ddt command under an
// address-space limit.
func runServe(e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	export := fs.String("export", "", "write the playground as one self-contained HTML file (opens from disk, no server) and exit")
	src := fs.String("src", ".", "a directory inside the ddt source tree the playground is built from")
	goBin := fs.String("go", "go", "the Go command that builds the playground")
	pos, err := parse(e, lookup("serve"), fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 0, 0, ""); err != nil {
		return err
	}
	root, err := modroot.Find(*src)
	if err != nil {
		return err
	}
	dir, err := modroot.CacheDir()
	if err != nil {
		return err
	}
	server := filepath.Join(dir, "server")
	if runtime.GOOS == "windows" {
		server += ".exe"
	}
	build := exec.Command(*goBin, "build", "-o", server, "./cmd/ddt-playground")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the playground server: %v: %s", err, clipMsg(string(out)))
	}
	sargs := []string{"--addr", *addr, "--src", root, "--go", *goBin}
	if *export != "" {
		out, err := filepath.Abs(*export)
		if err != nil {
			return err
		}
		sargs = append(sargs, "--export", out)
	}
	cmd := exec.Command(server, sargs...)
	cmd.Dir = root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, e.stdout, e.stderr
	// An interrupt or termination of ddt is passed on to the server, which
	// shuts down and exits 0; the server also ends if ddt is killed.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	runtime.LockOSThread() // the parent-death signal follows the thread that started the server
	defer runtime.UnlockOSThread()
	cmd.SysProcAttr = serverProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the playground server: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for waiting := true; waiting; {
		select {
		case s := <-sig:
			cmd.Process.Signal(s)
		case err = <-done:
			waiting = false
		}
	}
	if err != nil {
		var x *exec.ExitError
		if errors.As(err, &x) {
			return fmt.Errorf("the playground server stopped: %v", err)
		}
		return fmt.Errorf("running the playground server: %v", err)
	}
	return nil
}
