package playground

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	res := Render(Request{Source: "row = contiguous(4, int)\ncol = vector(3, 1, 4, int)\nstruct([1, 1], [0, 16], [row, col])\n", Count: 2})
	if res.Error != nil {
		t.Fatalf("error: %+v", res.Error)
	}
	got := map[string]string{}
	for _, kv := range res.Show {
		got[kv[0]] = kv[1]
	}
	if got["size"] != "28" || got["extent"] != "52" || got["elements"] != "7" {
		t.Errorf("show = %v", res.Show)
	}
	if !strings.HasPrefix(res.Typemap, "int 0\nint 4\n") || strings.Count(res.Typemap, "\n") != 14 {
		t.Errorf("typemap = %q", res.Typemap)
	}
	if !strings.Contains(res.C, "MPI_Type_commit") || !strings.Contains(res.Normalized, "cost_before:") || !strings.Contains(res.Normalized, "# what commit runs") {
		t.Errorf("C %q, normalized %q", res.C, res.Normalized)
	}
	if !strings.Contains(res.Text, "iiii") {
		t.Errorf("text picture %q", res.Text)
	}
	d := xml.NewDecoder(strings.NewReader(res.SVG))
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG: %v", err)
		}
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatal(err)
	}
}

func TestRenderErrors(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"a = contiguous(2, int)\nb = vector(2, 1, 3, nosuch)\n", 2, 21, "nosuch"},
		{"vector(2, 1, 3, int", 1, 20, ""},
		{"", 1, 1, "empty"},
		{"contiguous(-1, int)", 1, 1, "count"},
	}
	for _, c := range cases {
		res := Render(Request{Source: c.src})
		e := res.Error
		if e == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		if e.Line != c.line || (c.col != 0 && e.Col == 0) || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%q: error %+v, want line %d col ~%d containing %q", c.src, e, c.line, c.col, c.msg)
		}
	}
	if res := Render(Request{Source: "int", Count: MaxCount + 1}); res.Error == nil {
		t.Error("huge count accepted")
	}
}

func TestStandalone(t *testing.T) {
	p := &Program{Wasm: []byte("\x00asm\x01\x00\x00\x00"), WasmExec: []byte("// go js support\n")}
	var b bytes.Buffer
	if err := p.WriteStandalone(&b); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"DDT_WASM_BASE64 = \"AGFzbQEAAAA=\"", "// go js support", "<style>", "function update()"} {
		if !strings.Contains(s, want) {
			t.Errorf("standalone page lacks %q", want)
		}
	}
	if strings.Contains(s, `src="app.js"`) || strings.Contains(s, `href="style.css"`) {
		t.Error("standalone page still refers to separate files")
	}
}

func FuzzRender(f *testing.F) {
	f.Add("vector(3, 2, -5, resized(int, -2, 3))", int64(2), int64(0))
	f.Add("subarray([6, 6, 6], [4, 4, 1], [1, 1, 4], C, double)", int64(1), int64(48))
	f.Fuzz(func(t *testing.T, src string, count, width int64) {
		res := Render(Request{Source: src, Count: count % 4, Width: width % 10000})
		if res.Error != nil && strings.HasPrefix(res.Error.Msg, "internal error") {
			t.Fatalf("%q: %s", src, res.Error.Msg)
		}
	})
}
