//go:build invariants

package opt

import (
	"fmt"

	"github.com/ddtlab/ddt/dame"
)

// invariants is set by the invariants build tag: every program and every
// rewritten node is checked with dame.Validate, and a violation panics with
// the rule that broke it (a bug in this package, never bad input).
const invariants = true

func checkProgram(rule string, p *dame.Program) {
	if err := dame.Validate(p); err != nil {
		panic(fmt.Sprintf("opt: %s broke an invariant: %v\n%v", rule, err, p))
	}
}

func checkNode(rule string, n *dame.Node, off int64) {
	if n == nil {
		return
	}
	p := &dame.Program{Size: n.Size, Extent: n.Extent}
	p.SetRoot(n, off)
	checkProgram(rule, p)
}
