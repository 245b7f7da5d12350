// Package gotype connects Go values to ddt without package unsafe in user
// code: typed slices as memory images (Bytes, AnyBytes, Slice) and MPI
// datatypes derived from the layout of Go types by reflection (TypeOf,
// Type), like rsmpi's derive(Equivalence) in Rust.
//
// A derived type describes one value of the Go type exactly as the Go
// compiler lays it out: struct fields at their offsets with the compiler's
// padding, arrays as contiguous runs, and an extent equal to the Go size,
// so that count instances describe a []T. Only plain data can be
// described: booleans, integers, floating-point and complex numbers, and
// arrays and structs of them. Pointers, strings, slices, maps, channels,
// functions, interfaces and unsafe pointers hold addresses that mean
// nothing in another process, and writing bytes over them would corrupt
// the Go heap: they are errors that name the field.
//
// Memory images in ddt are x86-64 Linux images; on such a machine (GOARCH
// amd64) the Go layout and the MPI layout agree, and int and uint are
// 64-bit (int64_t, uint64_t).
package gotype

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/ddtlab/ddt/datatype"
)

// Scalar is the set of Go types whose values are plain numbers: the element
// types Bytes and Slice accept without checks.
type Scalar interface {
	~bool | ~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~uint | ~uintptr | ~float32 | ~float64 | ~complex64 | ~complex128
}

// Bytes returns the memory image of s: the bytes of its elements, shared
// with s (no copy), len(s)*size of T long. Packing from it reads s;
// unpacking into it writes s.
func Bytes[T Scalar](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// AnyBytes is Bytes for any element type that is plain data (see TypeOf):
// arrays and structs of numbers. It is an error, naming the field, if T
// holds a pointer, string, slice, map, channel, function or interface.
func AnyBytes[T any](s []T) ([]byte, error) {
	var zero T
	if err := check(reflect.TypeOf(&zero).Elem()); err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero))), nil
}

// Slice returns b viewed as a slice of T, sharing b's memory. It is an
// error if len(b) is not a multiple of T's size or if b is not aligned for
// T (byte slices from make are aligned for every Scalar).
func Slice[T Scalar](b []byte) ([]T, error) {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), uintptr(unsafe.Alignof(zero))
	if len(b)%size != 0 {
		return nil, fmt.Errorf("gotype: %d bytes are not a whole number of %T (%d bytes)", len(b), zero, size)
	}
	if len(b) == 0 {
		return nil, nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%align != 0 {
		return nil, fmt.Errorf("gotype: the bytes are not aligned for %T (%d-byte alignment)", zero, align)
	}
	return unsafe.Slice((*T)(p), len(b)/size), nil
}

// Type is TypeOf for the type parameter T.
func Type[T any]() (*datatype.Type, error) {
	var zero T
	return TypeOf(reflect.TypeOf(&zero).Elem())
}

// TypeOf derives the MPI datatype of Go type t: basic types map to the MPI
// basic type of the same size and kind (bool to c_bool, intN/uintN to
// intN_t/uintN_t, int/uint/uintptr by their size, float32/float64 to
// float/double, complex64/complex128 to c_float_complex/c_double_complex),
// arrays to contiguous, structs to struct with the fields' offsets (fields
// of size 0 left out), resized to lower bound 0 and the Go size so that
// its extent is the spacing of a []T. Unsupported kinds are errors naming
// the field path, for example "gotype: Particle.Name is a string".
func TypeOf(t reflect.Type) (*datatype.Type, error) {
	if t == nil {
		return nil, fmt.Errorf("gotype: nil type")
	}
	return derive(t, t.String())
}

func basicOf(t reflect.Type) (datatype.Basic, bool) {
	switch t.Kind() {
	case reflect.Bool:
		return datatype.CBool, true
	case reflect.Int8:
		return datatype.Int8, true
	case reflect.Uint8:
		return datatype.Uint8, true
	case reflect.Int16:
		return datatype.Int16, true
	case reflect.Uint16:
		return datatype.Uint16, true
	case reflect.Int32:
		return datatype.Int32, true
	case reflect.Uint32:
		return datatype.Uint32, true
	case reflect.Int64:
		return datatype.Int64, true
	case reflect.Uint64:
		return datatype.Uint64, true
	case reflect.Int:
		if t.Size() == 4 {
			return datatype.Int32, true
		}
		return datatype.Int64, true
	case reflect.Uint, reflect.Uintptr:
		if t.Size() == 4 {
			return datatype.Uint32, true
		}
		return datatype.Uint64, true
	case reflect.Float32:
		return datatype.Float, true
	case reflect.Float64:
		return datatype.Double, true
	case reflect.Complex64:
		return datatype.CFloatComplex, true
	case reflect.Complex128:
		return datatype.CDoubleComplex, true
	}
	return 0, false
}

// unsupported names the kinds that are not plain data.
func unsupported(t reflect.Type, path string) error {
	what := map[reflect.Kind]string{
		reflect.Pointer: "a pointer", reflect.UnsafePointer: "an unsafe.Pointer",
		reflect.String: "a string", reflect.Slice: "a slice", reflect.Map: "a map",
		reflect.Chan: "a channel", reflect.Func: "a function", reflect.Interface: "an interface",
	}[t.Kind()]
	if what == "" {
		what = "a " + t.Kind().String()
	}
	return fmt.Errorf("gotype: %s is %s (%s), not plain data: only numbers, booleans, arrays and structs of them have an MPI datatype", path, what, t)
}

// check reports the first field of t that is not plain data.
func check(t reflect.Type) error {
	_, err := walkCheck(t, t.String())
	return err
}

func walkCheck(t reflect.Type, path string) (bool, error) {
	if _, ok := basicOf(t); ok {
		return true, nil
	}
	switch t.Kind() {
	case reflect.Array:
		return walkCheck(t.Elem(), path+"[]")
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if _, err := walkCheck(f.Type, path+"."+f.Name); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return false, unsupported(t, path)
}

func derive(t reflect.Type, path string) (*datatype.Type, error) {
	if b, ok := basicOf(t); ok {
		return datatype.Of(b), nil
	}
	switch t.Kind() {
	case reflect.Array:
		el, err := derive(t.Elem(), path+"[]")
		if err != nil {
			return nil, err
		}
		return datatype.Contiguous(int64(t.Len()), el)
	case reflect.Struct:
		var bls, disps []int64
		var types []*datatype.Type
		for i := range t.NumField() {
			f := t.Field(i)
			ft, err := derive(f.Type, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			if f.Type.Size() == 0 {
				continue
			}
			bls = append(bls, 1)
			disps = append(disps, int64(f.Offset))
			types = append(types, ft)
		}
		st, err := datatype.Struct(bls, disps, types)
		if err != nil {
			return nil, fmt.Errorf("gotype: %s: %w", path, err)
		}
		return datatype.Resized(st, 0, int64(t.Size()))
	}
	return nil, unsupported(t, path)
}
