// Command ddt-playground builds and serves the playground; `ddt serve` runs it
// (with go run, from the source tree) so that the ddt command itself links
// no networking code: net brings cgo and its threads into a binary, and
// with them start-up failures under an address-space limit (ulimit -v 1 GB).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ddtlab/ddt/cmd/ddt-playground/internal/playground"
	"github.com/ddtlab/ddt/internal/modroot"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	export := flag.String("export", "", "write the playground as one self-contained HTML file and exit")
	root := flag.String("src", ".", "the root of the ddt source tree")
	goBin := flag.String("go", "go", "the Go command that builds the WebAssembly program")
	flag.Parse()
	if err := run(*addr, *export, *root, *goBin); err != nil {
		fmt.Fprintf(os.Stderr, "ddt serve: %v\n", err)
		os.Exit(1)
	}
}

func run(addr, export, root, goBin string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := modroot.CacheDir()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "ddt serve: building the playground (GOOS=js GOARCH=wasm) from %s\n", root)
	t0 := time.Now()
	prog, err := playground.Build(ctx, goBin, root, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "ddt serve: built %d KiB of WebAssembly in %.1fs\n", len(prog.Wasm)>>10, time.Since(t0).Seconds())
	if export != "" {
		f, err := os.Create(export)
		if err != nil {
			return err
		}
		if err := prog.WriteStandalone(f); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "ddt serve: wrote %s (open it in a browser)\n", export)
		return nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	srv := &http.Server{Handler: prog.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "ddt serve: playground at %s (Ctrl-C stops)\n", url)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
