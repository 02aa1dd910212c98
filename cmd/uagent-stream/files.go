package main

import (
	"runtime"
	"sync"
)

// forEachFile runs do for every name, on as many cores as there are, and
// returns one channel per name, in argument order, that delivers its
// result: files are independent, and the results are printed in order.
func forEachFile(names []string, do func(name string) any) []chan any {
	out := make([]chan any, len(names))
	for i := range out {
		out[i] = make(chan any, 1)
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(names)) {
		wg.Go(func() {
			for i := range work {
				out[i] <- do(names[i])
			}
		})
	}
	go func() {
		for i := range names {
			work <- i
		}
		close(work)
		wg.Wait()
	}()
	return out
}
