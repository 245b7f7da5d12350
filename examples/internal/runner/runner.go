// Package runner starts the ranks of the examples: in-process ranks by
// default, or, in a build with tag mpi launched under mpirun, this
// process's rank of the MPI world.
package runner

import "github.com/ddtlab/ddt/comm"

// World is how Run ran: the number of ranks, and whether this process
// should print the summary (rank 0 under MPI; always in process).
type World struct {
	Size   int
	Leader bool
	MPI    bool
}

func inProcess(ranks int, fn func(c comm.Communicator) error) (World, error) {
	w, err := comm.NewWorld(ranks, comm.Options{})
	if err != nil {
		return World{}, err
	}
	return World{Size: ranks, Leader: true}, w.RunAll(fn)
}
