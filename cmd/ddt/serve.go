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
	"path/filepath"
	"time"

	"github.com/ddtlab/ddt/internal/playground"
)

func init() {
	register(&command{name: "serve", args: "[--addr HOST:PORT] [--export FILE.html] [--src DIR]",
		summary: "serve the playground (type .ddt, see its properties, picture, normalized tree and C live) on localhost",
		run:     runServe})
}

// serveReady, if set, receives the URL once the server listens (tests).
var serveReady func(url string)

// serveCtx is the context that stops the server (tests replace it).
var serveCtx = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

func runServe(e *env, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	export := fs.String("export", "", "write the playground as one self-contained HTML file (opens from disk, no server) and exit")
	src := fs.String("src", ".", "a directory inside the ddt source tree the playground is built from")
	goBin := fs.String("go", "go", "the Go command that builds the WebAssembly program")
	pos, err := parse(e, lookup("serve"), fs, args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 0, 0, ""); err != nil {
		return err
	}
	root, err := playground.FindModule(*src)
	if err != nil {
		return err
	}
	ctx, stop := serveCtx()
	defer stop()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "ddt-playground")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "ddt serve: building the playground (GOOS=js GOARCH=wasm) from %s\n", root)
	t0 := time.Now()
	prog, err := playground.Build(ctx, *goBin, root, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "ddt serve: built %d KiB of WebAssembly in %.1fs\n", len(prog.Wasm)>>10, time.Since(t0).Seconds())
	if *export != "" {
		f, err := os.Create(*export)
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
		fmt.Fprintf(e.stderr, "ddt serve: wrote %s (open it in a browser)\n", *export)
		return nil
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String() + "/"
	srv := &http.Server{Handler: prog.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(e.stderr, "ddt serve: playground at %s (Ctrl-C stops)\n", url)
	if serveReady != nil {
		serveReady(url)
	}
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
