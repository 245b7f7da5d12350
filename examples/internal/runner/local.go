//go:build !mpi

package runner

import "github.com/ddtlab/ddt/comm"

// Run runs fn on ranks in-process ranks.
func Run(ranks int, fn func(c comm.Communicator) error) (World, error) {
	return inProcess(ranks, fn)
}

// Ranks is the number of ranks Run will run: ranks.
func Ranks(ranks int) int { return ranks }
