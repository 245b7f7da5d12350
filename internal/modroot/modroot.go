// Package modroot finds the root of a ddt source checkout. It imports no
// networking code, so that the ddt command can use it and stay free of cgo.
package modroot

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path is the module path of the ddt source tree.
const Path = "github.com/ddtlab/ddt"

// Find returns the root of the ddt source tree containing dir (or a parent
// of it), or an error if dir is not inside one.
func Find(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for line := range strings.SplitSeq(string(b), "\n") {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && f[1] == Path {
					return d, nil
				}
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is not inside a checkout of %s (the playground is built from its source: run ddt serve there, or pass --src DIR)", dir, Path)
		}
		d = parent
	}
}

// CacheDir returns (creating it) the directory where ddt serve keeps the
// playground's server and WebAssembly builds: ddt-playground in the user's
// cache directory, or in the temporary directory if there is none.
func CacheDir() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "ddt-playground")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, nil
}
