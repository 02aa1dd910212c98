// Package pool runs independent jobs on all cores and hands their results
// back in the jobs' order, as each comes due: what is said of many files
// is said in argument order.
package pool

import (
	"runtime"
	"sync"
)

// InOrder runs n jobs on all cores and hands their results to report in
// the jobs' order. At most a window of results wait for their turn, so
// memory does not grow with n. worker is called once per worker
// goroutine, with its number, and returns the function that does a job
// there and, when not nil, one called when the worker has no more jobs.
func InOrder[R any](n int, worker func(w int) (do func(i int) R, done func()), report func(i int, r R)) {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	type job struct {
		i      int
		result chan R
	}
	order, work := make(chan chan R, 4*workers), make(chan job)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			do, done := worker(w)
			for j := range work {
				j.result <- do(j.i)
			}
			if done != nil {
				done()
			}
		})
	}
	go func() {
		for i := range n {
			result := make(chan R, 1)
			order <- result
			work <- job{i, result}
		}
		close(order)
		close(work)
	}()
	i := 0
	for result := range order {
		report(i, <-result)
		i++
	}
	wg.Wait()
}

// Each is a worker for InOrder that needs no state of its own.
func Each[R any](do func(i int) R) func(int) (func(int) R, func()) {
	return func(int) (func(int) R, func()) { return do, nil }
}
