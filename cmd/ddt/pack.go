package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/external32"
)

// maxWhole is the largest message pack and unpack hold in memory at once;
// larger ones must go through --chunk.
const maxWhole = 1 << 31

func init() {
	register(&command{name: "pack", args: "TYPE --count N --in SRC --out DST [--origin K] [--chunk C] [--engine E] [--datarep R]",
		summary: "pack N instances from the memory image SRC (origin at byte K) into DST", run: runPack})
	register(&command{name: "unpack", args: "TYPE --count N --in PACKED --out IMAGE [--origin K] [--chunk C] [--engine E] [--datarep R]",
		summary: "unpack N instances from PACKED into the existing memory image IMAGE (origin at byte K)", run: runUnpack})
}

type packFlags struct {
	count, origin, chunk int64
	in, out, engine      string
	datarep              string
}

func (p *packFlags) define(fs *flag.FlagSet) {
	fs.Int64Var(&p.count, "count", -1, "number of instances (required)")
	fs.StringVar(&p.in, "in", "", "input file (required)")
	fs.StringVar(&p.out, "out", "", "output file (required)")
	fs.Int64Var(&p.origin, "origin", 0, "byte of the memory image where displacement 0 of instance 0 lies")
	fs.Int64Var(&p.chunk, "chunk", 0, "move the message through the resumable engine in pieces of at most C bytes")
	fs.StringVar(&p.engine, "engine", "auto", "engine: auto, reference, ...")
	fs.StringVar(&p.datarep, "datarep", "native", "data representation of the packed bytes: native (MPI_Pack) or external32 (MPI_Pack_external)")
}

// codec is what pack and unpack need of a committed type in one data
// representation.
type codec interface {
	PackSize(count int64) (int64, error)
	Pack(dst, src []byte, origin, count int64) (int64, error)
	Unpack(dst, src []byte, origin, count int64) (int64, error)
}

// codec returns c in the representation --datarep chose, and functions
// that start a packer and an unpacker of it.
func (p *packFlags) codec(c *ddt.Committed) (codec, func(src []byte) (interface{ Pack([]byte) (int, error) }, error), func(dst []byte) (interface{ Unpack([]byte) (int, error) }, error)) {
	if p.datarep == external32.DataRep {
		x := external32.New(c)
		return x, func(src []byte) (interface{ Pack([]byte) (int, error) }, error) {
				return x.NewPacker(src, p.origin, p.count)
			}, func(dst []byte) (interface{ Unpack([]byte) (int, error) }, error) {
				return x.NewUnpacker(dst, p.origin, p.count)
			}
	}
	return c, func(src []byte) (interface{ Pack([]byte) (int, error) }, error) {
			return c.NewPacker(src, p.origin, p.count)
		}, func(dst []byte) (interface{ Unpack([]byte) (int, error) }, error) {
			return c.NewUnpacker(dst, p.origin, p.count)
		}
}

// setup parses the command line and commits the type.
func (p *packFlags) setup(e *env, name string, args []string) (*ddt.Committed, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	p.define(fs)
	var eng ddt.Engine
	t, err := typeArg(e, name, fs, args, func() error {
		switch {
		case p.count < 0:
			return &usageError{"--count N (N >= 0) is required"}
		case p.in == "":
			return &usageError{"--in is required"}
		case p.out == "":
			return &usageError{"--out is required"}
		}
		if err := nonNegative("--chunk", p.chunk); err != nil {
			return err
		}
		if p.datarep != "native" && p.datarep != external32.DataRep {
			return &usageError{fmt.Sprintf("--datarep %q: want native or external32", p.datarep)}
		}
		var err error
		if eng, err = ddt.ParseEngine(p.engine); err != nil {
			return &usageError{err.Error()}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ddt.CommitWith(t, ddt.Options{Engine: eng})
}

func runPack(e *env, args []string) error {
	var p packFlags
	c, err := p.setup(e, "pack", args)
	if err != nil {
		return err
	}
	x, newPacker, _ := p.codec(c)
	src, err := os.ReadFile(p.in)
	if err != nil {
		return err
	}
	size, err := x.PackSize(p.count)
	if err != nil {
		return err
	}
	if p.chunk == 0 && size > maxWhole {
		return fmt.Errorf("the message has %d bytes, more than %d: use --chunk", size, int64(maxWhole))
	}
	if p.chunk == 0 {
		dst := make([]byte, size)
		if _, err := x.Pack(dst, src, p.origin, p.count); err != nil {
			return err
		}
		return os.WriteFile(p.out, dst, 0o644)
	}
	pk, err := newPacker(src)
	if err != nil {
		return err
	}
	f, err := os.Create(p.out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	buf := make([]byte, min(p.chunk, 1<<24))
	for {
		n, err := pk.Pack(buf)
		if err == io.EOF {
			break
		}
		if err != nil {
			f.Close()
			return err
		}
		if _, err := w.Write(buf[:n]); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func runUnpack(e *env, args []string) error {
	var p packFlags
	c, err := p.setup(e, "unpack", args)
	if err != nil {
		return err
	}
	x, _, newUnpacker := p.codec(c)
	packed, err := os.ReadFile(p.in)
	if err != nil {
		return err
	}
	img, err := os.ReadFile(p.out)
	if err != nil {
		return fmt.Errorf("the memory image must exist: %w", err)
	}
	size, err := x.PackSize(p.count)
	if err != nil {
		return err
	}
	if int64(len(packed)) < size {
		return fmt.Errorf("%s holds %d bytes, %d instances need %d", p.in, len(packed), p.count, size)
	}
	if p.chunk == 0 {
		if _, err := x.Unpack(img, packed, p.origin, p.count); err != nil {
			return err
		}
	} else {
		u, err := newUnpacker(img)
		if err != nil {
			return err
		}
		rest := packed[:size]
		for len(rest) > 0 {
			k := min(int64(len(rest)), p.chunk)
			if _, err := u.Unpack(rest[:k]); err != nil {
				return err
			}
			rest = rest[k:]
		}
	}
	st, err := os.Stat(p.out)
	if err != nil {
		return err
	}
	return os.WriteFile(p.out, img, st.Mode().Perm())
}
