// Package browser tests the ddt playground in a real headless Chromium:
// it builds the ddt command, starts ddt serve on a free localhost port,
// loads the page, types a type into the editor and checks that its size
// and picture appear, and that an error shows its line and column.
//
// It is a module of its own so that the main module keeps no dependency
// and plain go test ./... needs no browser. .ci/run installs Debian's
// chromium and runs it; locally:
//
//	apt-get install chromium chromium-driver
//	cd cmd/ddt-playground/browser && go test -count=1 .
//
// Without a browser it skips, unless CI is set, where it fails.
package browser

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// findChromium returns the browser to drive: $CHROMIUM, or chromium on PATH.
func findChromium(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH (CI installs Debian's chromium)")
	}
	t.Skip("no chromium on PATH; apt-get install chromium to run the browser test")
	return ""
}

// serve builds ddt and starts ddt serve on a free port; it returns the URL
// and the ddt binary.
func serve(t *testing.T) (url, ddt string) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "ddt")
	build := exec.Command("go", "build", "-o", bin, "./cmd/ddt")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ddt: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--src", root)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// ddt passes the interrupt on to its server, which shuts down
		cmd.Process.Signal(os.Interrupt)
		timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
		cmd.Wait()
		timer.Stop()
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var log []string
		for sc.Scan() {
			line := sc.Text()
			log = append(log, line)
			if i := strings.Index(line, "playground at "); i >= 0 {
				urls <- strings.Fields(line[i+len("playground at "):])[0]
			}
		}
		close(urls)
		if t.Failed() {
			t.Logf("ddt serve said:\n%s", strings.Join(log, "\n"))
		}
	}()
	select {
	case u, ok := <-urls:
		if !ok {
			t.Fatal("ddt serve exited before listening")
		}
		return u, bin
	case <-time.After(10 * time.Minute): // the first wasm build on a loaded machine is slow
		t.Fatal("ddt serve did not start listening in 10 minutes")
	}
	return "", ""
}

func TestPlayground(t *testing.T) {
	browser := findChromium(t)
	url, ddt := serve(t)

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	// Load the page and wait for the WebAssembly program to render the
	// default example.
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("loading %s: %v", url, err)
	}
	waitFor := func(what, expr string, d time.Duration) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(d))); err != nil {
			status, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#status")))
			errText, _ := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS("#error")))
			t.Fatalf("waiting for %s: %v (status %q, error %q)", what, err, status, errText)
		}
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		return s
	}
	waitFor("the first picture", `document.getElementById("status").textContent.startsWith("rendered")`, 2*time.Minute)

	// Type a type: a 4 x 2 block of a matrix of doubles.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`document.getElementById("src").value = ""`)); err != nil {
		t.Fatalf("clearing the editor: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#src")),
		chromedp.SendKeys(chromedp.CSS("#src"), "vector(4, 2, 8, double)"),
	); err != nil {
		t.Fatalf("typing a type: %v", err)
	}
	waitFor("size 64", `(document.getElementById("show-size") || {}).textContent === "64"`, 30*time.Second)
	size, extent := text("#show-size"), text("#show-extent")
	svg, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("#picture svg")))
	if err != nil {
		t.Fatalf("no picture: %v", err)
	}
	if size != "64" || extent != "208" {
		t.Errorf("size %q extent %q, want 64 and 208", size, extent)
	}
	// The picture: 8 runs of 16 bytes of doubles (green) in rows of 64.
	for _, want := range []string{"packed 64 B", `fill="#3c9f4a"`, "row = 64 B", `id="bounds"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("picture lacks %q", want)
		}
	}
	if n := strings.Count(svg, `fill="#3c9f4a"`); n < 4 {
		t.Errorf("picture has %d double-colored rects, want at least 4", n)
	}
	// The picture is drawn, not only present: it has a size on the page.
	box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector("#picture svg").getBoundingClientRect(); return [r.width, r.height]; })()`))
	if err != nil || len(box) != 2 || box[0] < 200 || box[1] < 100 {
		t.Errorf("picture box %v, %v", box, err)
	}

	// An error names its line and column and marks the line.
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#src"), "\nvector(2, 1, 3, nosuch)")); err != nil {
		t.Fatalf("typing an error: %v", err)
	}
	waitFor("an error", `document.getElementById("error").textContent.length > 0`, 30*time.Second)
	errText, bad := text("#error"), text("#gutter .bad")
	if !strings.HasPrefix(errText, "line 2, column ") || !strings.Contains(errText, "nosuch") || bad != "2" {
		t.Errorf("error %q, marked line %q", errText, bad)
	}
	// The single-file page of ddt serve --export works from disk.
	page := filepath.Join(t.TempDir(), "playground.html")
	root, _ := filepath.Abs("../../..")
	if out, err := exec.Command(ddt, "serve", "--export", page, "--src", root).CombinedOutput(); err != nil {
		t.Fatalf("ddt serve --export: %v\n%s", err, out)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("loading %s: %v", page, err)
	}
	waitFor("the exported page's picture", `(document.getElementById("show-size") || {}).textContent === "7996" && document.querySelector("#picture svg") !== null`, 2*time.Minute)

	if p := os.Getenv("DDT_SCREENSHOT"); p != "" {
		chromedp.Run(ctx, chromedp.Evaluate[any](`document.getElementById("src").value = "subarray([6, 6, 6], [4, 4, 1], [1, 1, 4], C, double)"; update()`))
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			os.WriteFile(p, png, 0o644)
			fmt.Println("screenshot:", p)
		}
	}
}
