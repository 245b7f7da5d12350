package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/internal/modroot"
)

// block is one ```go code block of a Markdown file.
type block struct {
	file string
	line int // of the opening fence
	src  string
}

// goBlocks returns the ```go code blocks of Markdown text md.
func goBlocks(file string, md []byte) ([]block, error) {
	var (
		out  []block
		cur  *block
		body strings.Builder
		n    int
	)
	sc := bufio.NewScanner(bytes.NewReader(md))
	sc.Buffer(nil, 1<<20)
	fence := ""
	for sc.Scan() {
		n++
		l := sc.Text()
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && fence == "" && strings.HasPrefix(t, "```"):
			fence = "```"
			if strings.TrimSpace(strings.TrimPrefix(t, "```")) == "go" {
				cur = &block{file: file, line: n}
				body.Reset()
			}
		case fence != "" && t == fence:
			if cur != nil {
				cur.src = body.String()
				out = append(out, *cur)
				cur = nil
			}
			fence = ""
		case cur != nil:
			body.WriteString(l)
			body.WriteByte('\n')
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if fence != "" {
		return nil, fmt.Errorf("%s: a code block is not closed", file)
	}
	return out, nil
}

func TestGoBlocks(t *testing.T) {
	md := "# t\n\n```go\npackage a\n```\n\n```sh\ngo test\n```\n\n```\nplain\n```\n\n```go\npackage b\n\nfunc F() {}\n```\n"
	bs, err := goBlocks("t.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs[0].src != "package a\n" || bs[0].line != 3 || bs[1].src != "package b\n\nfunc F() {}\n" || bs[1].line != 15 {
		t.Fatalf("goBlocks = %+v", bs)
	}
	if _, err := goBlocks("u.md", []byte("```go\npackage a\n")); err == nil {
		t.Fatal("an unclosed block gave no error")
	}
}

// docFiles are the Markdown files whose Go code must compile.
func docFiles(t *testing.T, root string) []string {
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "RATIONALE.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

// vet builds and vets the blocks as packages of a scratch module that
// requires this one from root, and returns the go command's output.
func vet(t *testing.T, root string, bs []block) ([]byte, error) {
	dir := t.TempDir()
	gomod := fmt.Sprintf("module docstest\n\ngo 1.25\n\nrequire github.com/ddtlab/ddt v0.0.0\n\nreplace github.com/ddtlab/ddt => %s\n", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o666); err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		pkg := filepath.Join(dir, fmt.Sprintf("b%d", i))
		if err := os.Mkdir(pkg, 0o777); err != nil {
			t.Fatal(err)
		}
		// A line directive makes errors name the Markdown file and line.
		src := fmt.Sprintf("//line %s:%d\n%s", b.file, b.line+1, b.src)
		if err := os.WriteFile(filepath.Join(pkg, "block.go"), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	return cmd.CombinedOutput()
}

// TestDocsCompile checks that every ```go block of the docs is a whole Go
// file (it starts with its package clause) and that all of them compile
// and pass go vet against this module.
func TestDocsCompile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := modroot.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	var all []block
	for _, f := range docFiles(t, root) {
		md, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		bs, err := goBlocks(rel, md)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			if !strings.HasPrefix(strings.TrimLeft(b.src, " \t\n"), "package ") &&
				!strings.HasPrefix(strings.TrimLeft(b.src, " \t\n"), "//") {
				t.Errorf("%s:%d: a ```go block must be a whole Go file starting with its package clause", b.file, b.line)
			}
		}
		all = append(all, bs...)
	}
	if t.Failed() {
		return
	}
	if len(all) == 0 {
		t.Fatal("no ```go block found: the README's tour has one")
	}
	if out, err := vet(t, root, all); err != nil {
		t.Fatalf("the docs' Go code does not compile: %v\n%s", err, out)
	}
}

// TestDocsCompileFails checks that the harness rejects a block that does
// not compile, so that TestDocsCompile can fail.
func TestDocsCompileFails(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := modroot.Find(".")
	if err != nil {
		t.Fatal(err)
	}
	bad := block{file: "bad.md", line: 7, src: "package main\n\nimport \"github.com/ddtlab/ddt\"\n\nfunc main() { ddt.NoSuchFunction() }\n"}
	out, err := vet(t, root, []block{bad})
	if err == nil {
		t.Fatalf("a block calling ddt.NoSuchFunction compiled:\n%s", out)
	}
	if !strings.Contains(string(out), "bad.md:") {
		t.Fatalf("the error does not name the Markdown file:\n%s", out)
	}
}
