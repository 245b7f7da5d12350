//go:build mpi

package runner

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/ddtlab/ddt/comm"
	"github.com/ddtlab/ddt/comm/mpi"
)

// Run runs fn on this process's rank of the MPI world when the process was
// launched by mpirun (ranks is then ignored), else on ranks in-process
// ranks. The environment variable DDT_MPI_MODE selects the MPI mode
// (packed, native, raw; default packed).
func Run(ranks int, fn func(c comm.Communicator) error) (World, error) {
	if !mpi.Launched() {
		return inProcess(ranks, fn)
	}
	opts := mpi.Options{}
	if m := os.Getenv("DDT_MPI_MODE"); m != "" {
		mode, err := mpi.ParseMode(m)
		if err != nil {
			return World{}, err
		}
		opts.Mode = mode
	}
	c, err := mpi.Init(opts)
	if err != nil {
		return World{}, err
	}
	w := World{Size: c.Size(), Leader: c.Rank() == 0, MPI: true}
	if c.Size() != ranks {
		return w, errors.Join(fmt.Errorf("the MPI world has %d ranks, the program expected %d", c.Size(), ranks), c.Finalize())
	}
	err = fn(c)
	if err != nil {
		err = fmt.Errorf("rank %d: %w", c.Rank(), err)
	} else {
		err = c.Barrier()
	}
	return w, errors.Join(err, c.Finalize())
}

// Ranks is the number of ranks Run will run: the MPI world's size, as the
// launcher's environment tells it, when launched by mpirun, else ranks.
func Ranks(ranks int) int {
	if !mpi.Launched() {
		return ranks
	}
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"} {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return ranks
}
