package main

import (
	"bufio"
	"flag"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{name: "version", args: "", summary: "print the module version, VCS revision and Go version of this ddt", run: runVersion})
}

func runVersion(e *env, args []string) error {
	pos, err := parse(e, lookup("version"), flag.NewFlagSet("version", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if err := wantArgs(pos, 0, 0, ""); err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	version, revision, when, modified, goVersion := "unknown", "unknown", "", "", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		goVersion = bi.GoVersion
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
	}
	fmt.Fprintf(w, "version: %s\nrevision: %s\n", version, revision)
	if when != "" {
		fmt.Fprintf(w, "revision_time: %s\n", when)
	}
	if modified != "" {
		fmt.Fprintf(w, "modified: %s\n", modified)
	}
	fmt.Fprintf(w, "go: %s\n", goVersion)
	return w.Flush()
}
