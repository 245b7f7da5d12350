package opt_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddtlab/ddt/dame"
	"github.com/ddtlab/ddt/dame/opt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/lang"
)

// TestRules is the one data-driven harness of the optimizer. Each file
// testdata/rules/NAME.txt holds comment lines (#) and sections opened by
// "-- NAME --" lines:
//
//	-- type --        a .ddt type (input): Compile lowers it, and
//	-- compiled --    is the program Compile must build (DAME text);
//	-- program --     a DAME program (input) instead of a type;
//	-- budget --      optional: always (CommitBudget, the default), auto or
//	                  offline (OfflineBudget);
//	-- simplified --  the program Simplify must return, or "unchanged" when
//	                  it must return its input itself.
//
// Programs from types are also run by the interpreter and the compiled
// engine and compared with the reference engine. go test -update rewrites
// the expected sections from what the optimizer does now.
func TestRules(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "rules", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rule files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parseRuleFile(string(text))
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var ty *datatype.Type
			var p *dame.Program
			switch {
			case f.has("type"):
				if ty, err = lang.Parse(file, []byte(f.get("type"))); err != nil {
					t.Fatal(err)
				}
				p = opt.Compile(ty)
				f.check(t, "compiled", p.String())
			case f.has("program"):
				if p, err = dame.Parse(f.get("program")); err != nil {
					t.Fatal(err)
				}
			default:
				t.Fatal("no type or program section")
			}
			b := opt.CommitBudget
			switch strings.TrimSpace(f.get("budget")) {
			case "", "always":
			case "auto":
				b = opt.AutoBudget
			case "offline":
				b = opt.OfflineBudget
			default:
				t.Fatalf("unknown budget %q", f.get("budget"))
			}
			q := opt.Simplify(p, b)
			if err := dame.Validate(q); err != nil {
				t.Fatalf("simplified program invalid: %v\n%v", err, q)
			}
			got := "unchanged\n"
			if q != p {
				got = q.String()
			}
			f.check(t, "simplified", got)
			if ty != nil {
				checkSimplified(t, rand.New(rand.NewPCG(1, 2)), ty, p, q, file)
			}
			if *update && f.changed {
				if err := os.WriteFile(file, []byte(f.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// ruleFile is a parsed testdata/rules file.
type ruleFile struct {
	comment  string
	names    []string
	sections map[string]string
	changed  bool
}

func parseRuleFile(text string) (*ruleFile, error) {
	f := &ruleFile{sections: map[string]string{}}
	cur := ""
	for _, l := range strings.SplitAfter(text, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(l), "-- "); ok && strings.HasSuffix(name, " --") {
			cur = strings.TrimSuffix(name, " --")
			if _, dup := f.sections[cur]; dup {
				return nil, fmt.Errorf("section %q twice", cur)
			}
			f.names = append(f.names, cur)
			f.sections[cur] = ""
			continue
		}
		if cur == "" {
			f.comment += l
			continue
		}
		f.sections[cur] += l
	}
	return f, nil
}

func (f *ruleFile) has(name string) bool   { _, ok := f.sections[name]; return ok }
func (f *ruleFile) get(name string) string { return f.sections[name] }

// check compares section name with got, or with -update records got.
func (f *ruleFile) check(t *testing.T, name, got string) {
	t.Helper()
	want, ok := f.sections[name]
	if strings.TrimSpace(want) == strings.TrimSpace(got) {
		return
	}
	if *update {
		if !ok {
			f.names = append(f.names, name)
		}
		f.sections[name], f.changed = got, true
		return
	}
	t.Errorf("%s: got\n%swant\n%s", name, got, want)
}

func (f *ruleFile) String() string {
	var b strings.Builder
	b.WriteString(f.comment)
	for _, n := range f.names {
		fmt.Fprintf(&b, "-- %s --\n%s", n, f.sections[n])
		if s := f.sections[n]; s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
