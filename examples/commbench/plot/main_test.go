package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
)

func TestTableAndSVG(t *testing.T) {
	d, err := read([]string{"testdata/sample.tsv"})
	if err != nil {
		t.Fatal(err)
	}
	var tab bytes.Buffer
	d.table(&tab)
	want := "| WRF_x_vec | small | 1152 | 40.0 | 10.0 | – | – | 8.0 | – | – | – | 2.5 | 4.0 |"
	if !strings.Contains(tab.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, tab.String())
	}
	var svg bytes.Buffer
	d.svg(&svg)
	dec := xml.NewDecoder(&svg)
	rects := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	if rects != 2 { // one bar, one legend entry
		t.Errorf("%d rects, want 2", rects)
	}
	if _, err := read([]string{"testdata/missing.tsv"}); err == nil {
		t.Error("missing file accepted")
	}
}
