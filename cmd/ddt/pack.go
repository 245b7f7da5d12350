package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/ddtlab/ddt"
	"github.com/ddtlab/ddt/datatype"
	"github.com/ddtlab/ddt/external32"
)

// Memory bounds of pack and unpack. Only the window of the memory image
// that the type touches is read (at most maxWindow bytes); a message of up
// to maxWhole bytes is moved in one call, a larger one (or any with
// --chunk) streams through the resumable engine in pieces of at most
// maxPiece bytes, so the output is never held whole.
const (
	maxWindow = 1 << 30
	maxWhole  = 64 << 20
	maxPiece  = 1 << 20
)

func init() {
	register(&command{name: "pack", args: "TYPE --count N --in SRC --out DST [--origin K] [--chunk C] [--engine E] [--datarep R]",
		summary: "pack N instances from the memory image SRC (origin at byte K) into DST; - is stdin or stdout", run: runPack})
	register(&command{name: "unpack", args: "TYPE --count N --in PACKED --out IMAGE [--origin K] [--chunk C] [--engine E] [--datarep R]",
		summary: "unpack N instances from PACKED into the existing memory image IMAGE (origin at byte K); --in - reads stdin, --out - filters an image from stdin to stdout", run: runUnpack})
}

// count is a required non-negative integer flag; its zero value is unset.
type countFlag struct {
	v   int64
	set bool
}

func (c *countFlag) String() string {
	if c == nil || !c.set {
		return ""
	}
	return strconv.FormatInt(c.v, 10)
}

func (c *countFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return errors.New("not an integer")
	}
	c.v, c.set = v, true
	return nil
}

type packFlags struct {
	count          countFlag
	origin, chunk  int64
	in, out, engin string
	datarep        string
}

func (p *packFlags) define(fs *flag.FlagSet) {
	fs.Var(&p.count, "count", "number of instances `N` (required)")
	fs.StringVar(&p.in, "in", "", "input `file` (required; - for stdin)")
	fs.StringVar(&p.out, "out", "", "output `file` (required; - for stdout)")
	fs.Int64Var(&p.origin, "origin", 0, "`byte` of the memory image where displacement 0 of instance 0 lies")
	fs.Int64Var(&p.chunk, "chunk", 0, "move the message through the resumable engine in pieces of at most `C` bytes")
	fs.StringVar(&p.engin, "engine", "auto", "`engine`: auto, reference, interpreter, compiled or native")
	fs.StringVar(&p.datarep, "datarep", "native", "data `representation` of the packed bytes: native (MPI_Pack) or external32 (MPI_Pack_external)")
}

// codec is what pack and unpack need of a committed type in one data
// representation.
type codec interface {
	PackSize(count int64) (int64, error)
	Pack(dst, src []byte, origin, count int64) (int64, error)
	Unpack(dst, src []byte, origin, count int64) (int64, error)
}

type piecePacker interface{ Pack([]byte) (int, error) }
type pieceUnpacker interface{ Unpack([]byte) (int, error) }

func (j *job) newPacker(src []byte, origin int64) (piecePacker, error) {
	if x, ok := j.x.(*external32.Codec); ok {
		return x.NewPacker(src, origin, j.count.v)
	}
	return j.c.NewPacker(src, origin, j.count.v)
}

func (j *job) newUnpacker(dst []byte, origin int64) (pieceUnpacker, error) {
	if x, ok := j.x.(*external32.Codec); ok {
		return x.NewUnpacker(dst, origin, j.count.v)
	}
	return j.c.NewUnpacker(dst, origin, j.count.v)
}

// job is a checked pack or unpack command line with its type.
type job struct {
	packFlags
	t       *datatype.Type
	c       *ddt.Committed
	x       codec // c in the representation --datarep chose
	size    int64 // packed bytes
	lo, hi  int64 // the bytes count instances touch, relative to the origin
	first   int64 // origin+lo, the first image byte touched
	last    int64 // origin+hi
	engine  ddt.Engine
	imgName string // "SRC" or "IMAGE", for messages
}

// setup parses the command line, loads the type and computes what the
// message needs, without reading any data.
func (p *packFlags) setup(e *env, name string, args []string) (*job, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	p.define(fs)
	j := &job{imgName: "SRC"}
	if name == "unpack" {
		j.imgName = "IMAGE"
	}
	t, err := typeArg(e, name, fs, args, func(typePath string) error {
		switch {
		case !p.count.set:
			return &usageError{"--count N is required"}
		case p.count.v < 0:
			return &usageError{fmt.Sprintf("negative --count %d", p.count.v)}
		case p.in == "":
			return &usageError{"--in is required"}
		case p.out == "":
			return &usageError{"--out is required"}
		}
		if err := nonNegative("--chunk", p.chunk); err != nil {
			return err
		}
		stdin := 0
		for _, s := range []string{typePath, p.in, p.out} {
			if s == "-" {
				stdin++
			}
		}
		if name == "pack" && p.out == "-" {
			stdin-- // stdout
		}
		if stdin > 1 {
			return &usageError{"only one of TYPE, --in and --out can be - (stdin)"}
		}
		if p.datarep != "native" && p.datarep != external32.DataRep {
			return &usageError{fmt.Sprintf("--datarep %q: want native or external32", clipMsg(p.datarep))}
		}
		var err error
		if j.engine, err = ddt.ParseEngine(p.engin); err != nil {
			return &usageError{err.Error()}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	j.packFlags, j.t = *p, t
	count := p.count.v
	if j.c, err = ddt.CommitWith(t, ddt.Options{Engine: j.engine}); err != nil {
		return nil, err
	}
	j.x = j.c
	if p.datarep == external32.DataRep {
		j.x = external32.New(j.c)
	}
	if j.size, err = j.x.PackSize(count); err != nil {
		return nil, err
	}
	if j.lo, j.hi, err = t.Span(count); err != nil {
		return nil, err
	}
	if j.lo == j.hi {
		return j, nil // nothing is touched: no byte of the image is needed
	}
	var ok1, ok2 bool
	j.first, ok1 = addOK(p.origin, j.lo)
	j.last, ok2 = addOK(p.origin, j.hi)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("--origin %d with the type's bytes [%d, %d) overflows int64", p.origin, j.lo, j.hi)
	}
	if j.first < 0 {
		return nil, fmt.Errorf("--count %d reaches %d bytes before the start of %s %s (--origin %d): use --origin %d or more",
			count, -j.first, j.imgName, p.imageName(name), p.origin, p.origin-j.first)
	}
	return j, nil
}

// windowLimit is the largest image window ddt reads: maxWindow, or half
// the memory ddt may use when that is limited.
func windowLimit() int64 {
	if memBudget > 0 {
		return min(maxWindow, memBudget/2)
	}
	return maxWindow
}

// window allocates the window of the image the message touches.
func (j *job) window() ([]byte, error) {
	if n := j.last - j.first; n > windowLimit() {
		return nil, fmt.Errorf("--count %d spans %d bytes of %s, more than the %d ddt holds in memory (1 GiB, at most half the memory limit)",
			j.count.v, n, j.imgName, windowLimit())
	}
	return make([]byte, j.last-j.first), nil
}

func (p *packFlags) imageName(cmd string) string {
	if cmd == "pack" {
		return p.in
	}
	return p.out
}

func addOK(a, b int64) (int64, bool) {
	c := a + b
	return c, (c > a) == (b > 0)
}

// tooSmall is the error of an image of have bytes where need are needed.
func (j *job) tooSmall(path string, have int64) error {
	return fmt.Errorf("image too small (need %d bytes, have %d): %s %s with --count %d --origin %d",
		j.last, have, j.imgName, path, j.count.v, j.origin)
}

// piece is the size of the pieces a streamed message moves in.
func (j *job) piece() int64 {
	if j.chunk > 0 {
		return min(j.chunk, maxPiece)
	}
	return maxPiece
}

// streamed reports whether the message moves in pieces: with --chunk, and
// when it is larger than maxWhole or a quarter of the memory limit.
func (j *job) streamed() bool {
	whole := int64(maxWhole)
	if memBudget > 0 {
		whole = min(whole, memBudget/4)
	}
	return j.chunk > 0 || j.size > whole
}

func runPack(e *env, args []string) error {
	var p packFlags
	j, err := p.setup(e, "pack", args)
	if err != nil {
		return err
	}
	win, err := j.readSource(e)
	if err != nil {
		return err
	}
	origin := j.origin - j.first // where the origin lies in win
	var out io.Writer = e.stdout
	var f *os.File
	if j.out != "-" {
		if f, err = os.Create(j.out); err != nil {
			return err
		}
		out = f
	}
	err = func() error {
		if !j.streamed() {
			dst := make([]byte, j.size)
			if _, err := j.x.Pack(dst, win, origin, j.count.v); err != nil {
				return err
			}
			_, err := out.Write(dst)
			return err
		}
		pk, err := j.newPacker(win, origin)
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(out, 1<<16)
		buf := make([]byte, j.piece())
		for {
			n, err := pk.Pack(buf)
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
		}
		return w.Flush()
	}()
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// readSource reads the window [first, last) of the pack source, after
// checking that the source holds it.
func (j *job) readSource(e *env) ([]byte, error) {
	if j.in == "-" {
		win, err := j.window()
		if err != nil {
			return nil, err
		}
		if _, err := io.CopyN(io.Discard, e.stdin, j.first); err != nil {
			return nil, j.shortStdin(err, 0)
		}
		if n, err := io.ReadFull(e.stdin, win); err != nil {
			return nil, j.shortStdin(err, int64(n))
		}
		return win, nil
	}
	f, err := os.Open(j.in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (use --in - to read a stream)", j.in)
	}
	if st.Size() < j.last {
		return nil, j.tooSmall(j.in, st.Size())
	}
	win, err := j.window()
	if err != nil {
		return nil, err
	}
	if _, err := f.ReadAt(win, j.first); err != nil {
		return nil, err
	}
	return win, nil
}

func (j *job) shortStdin(err error, got int64) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("image too small (need %d bytes, have %d): %s (stdin) with --count %d --origin %d",
			j.last, j.first+got, j.imgName, j.count.v, j.origin)
	}
	return err
}

func runUnpack(e *env, args []string) error {
	var p packFlags
	j, err := p.setup(e, "unpack", args)
	if err != nil {
		return err
	}
	// The packed input: check its size before reading it.
	var packed io.Reader = e.stdin
	if j.in != "-" {
		f, err := os.Open(j.in)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if st.Mode().IsRegular() && st.Size() < j.size {
			return fmt.Errorf("PACKED %s holds %d bytes, --count %d needs %d", j.in, st.Size(), j.count.v, j.size)
		}
		packed = f
	}
	// The image: the window it holds, checked before any byte is written.
	var img *os.File
	var win, prefix []byte
	if j.out == "-" {
		if j.last > windowLimit() {
			return fmt.Errorf("--count %d --origin %d reaches byte %d of IMAGE (stdin), more than the %d ddt holds in memory (1 GiB, at most half the memory limit)",
				j.count.v, j.origin, j.last, windowLimit())
		}
		all := make([]byte, j.last)
		if n, err := io.ReadFull(e.stdin, all); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("image too small (need %d bytes, have %d): IMAGE (stdin) with --count %d --origin %d",
					j.last, n, j.count.v, j.origin)
			}
			return err
		}
		prefix, win = all[:j.first], all[j.first:]
	} else {
		img, err = os.OpenFile(j.out, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("the memory image must exist: %w", err)
		}
		defer img.Close()
		st, err := img.Stat()
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file (use --out - to filter a stream)", j.out)
		}
		if st.Size() < j.last {
			return j.tooSmall(j.out, st.Size())
		}
		if win, err = j.window(); err != nil {
			return err
		}
		if _, err := img.ReadAt(win, j.first); err != nil {
			return err
		}
	}
	origin := j.origin - j.first
	short := func(got int64) error {
		return fmt.Errorf("PACKED %s holds %d bytes, --count %d needs %d", j.in, got, j.count.v, j.size)
	}
	if !j.streamed() {
		buf := make([]byte, j.size)
		if n, err := io.ReadFull(packed, buf); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return short(int64(n))
			}
			return err
		}
		if _, err := j.x.Unpack(win, buf, origin, j.count.v); err != nil {
			return err
		}
	} else {
		u, err := j.newUnpacker(win, origin)
		if err != nil {
			return err
		}
		buf := make([]byte, j.piece())
		for done := int64(0); done < j.size; {
			k := min(int64(len(buf)), j.size-done)
			if n, err := io.ReadFull(packed, buf[:k]); err != nil {
				if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
					return short(done + int64(n))
				}
				return err
			}
			if _, err := u.Unpack(buf[:k]); err != nil {
				return err
			}
			done += k
		}
	}
	if img != nil {
		if _, err := img.WriteAt(win, j.first); err != nil {
			return err
		}
		return img.Close()
	}
	w := bufio.NewWriterSize(e.stdout, 1<<16)
	w.Write(prefix)
	w.Write(win)
	if _, err := io.Copy(w, e.stdin); err != nil {
		return err
	}
	return w.Flush()
}
