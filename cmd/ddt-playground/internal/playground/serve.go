package playground

import (
	"bytes"
	"context"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

var zeroTime time.Time // no modification time: always send the content

//go:embed static
var static embed.FS

// Static is the page: index.html, app.js and style.css. It needs
// wasm_exec.js (from the Go toolchain that built the program) and ddt.wasm
// beside it.
func Static() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	return sub
}

// Program is the playground's WebAssembly program and the wasm_exec.js of
// the Go release that built it.
type Program struct {
	Wasm, WasmExec []byte
}

// Build compiles the wasm program of the source tree at root with the Go
// toolchain goBin (GOOS=js GOARCH=wasm) into dir, and reads wasm_exec.js
// from that toolchain's GOROOT. Go's build cache makes repeated builds
// quick.
func Build(ctx context.Context, goBin, root, dir string) (*Program, error) {
	if goBin == "" {
		goBin = "go"
	}
	out := filepath.Join(dir, "ddt.wasm")
	cmd := exec.CommandContext(ctx, goBin, "build", "-ldflags=-s -w", "-o", out, "./cmd/ddt-playground/wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building the playground (GOOS=js GOARCH=wasm %s build ./cmd/ddt-playground/wasm in %s): %v: %s",
			goBin, root, err, strings.TrimSpace(stderr.String()))
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	exe, err := WasmExec(ctx, goBin)
	if err != nil {
		return nil, err
	}
	return &Program{Wasm: wasm, WasmExec: exe}, nil
}

// WasmExec reads wasm_exec.js, the JavaScript support of Go's js/wasm port,
// from the GOROOT of goBin (lib/wasm since Go 1.24, misc/wasm before).
func WasmExec(ctx context.Context, goBin string) ([]byte, error) {
	if goBin == "" {
		goBin = "go"
	}
	out, err := exec.CommandContext(ctx, goBin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("%s env GOROOT: %v", goBin, err)
	}
	root := strings.TrimSpace(string(out))
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if b, err := os.ReadFile(filepath.Join(root, p)); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("no wasm_exec.js under %s/lib/wasm or %s/misc/wasm", root, root)
}

// Handler serves the page and the program.
func (p *Program) Handler() http.Handler {
	files := http.FileServerFS(Static())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		switch r.URL.Path {
		case "/ddt.wasm":
			w.Header().Set("Content-Type", "application/wasm")
			http.ServeContent(w, r, "ddt.wasm", zeroTime, bytes.NewReader(p.Wasm))
		case "/wasm_exec.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			http.ServeContent(w, r, "wasm_exec.js", zeroTime, bytes.NewReader(p.WasmExec))
		default:
			files.ServeHTTP(w, r)
		}
	})
}

// WriteStandalone writes the page as one HTML file with the style, the
// scripts and the program (base64) inline, which a browser opens from
// disk (file://) with no server.
func (p *Program) WriteStandalone(w io.Writer) error {
	read := func(name string) string {
		b, err := fs.ReadFile(Static(), name)
		if err != nil {
			panic(err) // embedded
		}
		return string(b)
	}
	page := read("index.html")
	css, app := read("style.css"), read("app.js")
	for _, s := range []string{css, app, string(p.WasmExec)} {
		if strings.Contains(s, "</script") || strings.Contains(s, "</style") {
			return errors.New("playground: a script contains a closing tag and cannot be inlined")
		}
	}
	page = strings.Replace(page, `<link rel="stylesheet" href="style.css">`, "<style>\n"+css+"</style>", 1)
	inline := "<script>\n" + string(p.WasmExec) + "</script>\n<script>window.DDT_WASM_BASE64 = \"" +
		base64.StdEncoding.EncodeToString(p.Wasm) + "\";</script>\n<script>\n" + app + "</script>"
	page = strings.Replace(page, "<script src=\"wasm_exec.js\"></script>\n<script src=\"app.js\"></script>", inline, 1)
	if !strings.Contains(page, "DDT_WASM_BASE64 =") {
		return errors.New("playground: index.html lacks the script tags to inline")
	}
	_, err := io.WriteString(w, page)
	return err
}
