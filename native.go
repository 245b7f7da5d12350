package ddt

import (
	"github.com/ddtlab/ddt/internal/engine"
	_ "github.com/ddtlab/ddt/internal/jit" // links native code generation into Auto (engine.NewNative)
)

// compileNow asks a native-code engine to generate its code now (see
// Options.JITNow); other engines have nothing to do.
func compileNow(e engine.Engine) {
	if n, ok := e.(interface{ CompileNow() }); ok {
		n.CompileNow()
	}
}
