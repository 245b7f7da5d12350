//go:build mpi

package mpi

import "github.com/ddtlab/ddt/datatype"

func intType() *datatype.Type { return datatype.Of(datatype.Int) }
