//go:build js && wasm

// Command wasm is the ddt playground's WebAssembly program: it exposes
// ddtRender(json) to the page, which returns the playground.Result of a
// playground.Request as JSON.
package main

import (
	"encoding/json"
	"syscall/js"

	"github.com/ddtlab/ddt/cmd/ddt-playground/internal/playground"
)

func main() {
	js.Global().Set("ddtRender", js.FuncOf(func(this js.Value, args []js.Value) any {
		var req playground.Request
		if len(args) != 1 {
			return `{"error":{"msg":"ddtRender takes one JSON argument"}}`
		}
		if err := json.Unmarshal([]byte(args[0].String()), &req); err != nil {
			return `{"error":{"msg":"bad request"}}`
		}
		out, _ := json.Marshal(playground.Render(req))
		return string(out)
	}))
	js.Global().Call("ddtReady")
	select {}
}
