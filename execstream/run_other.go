//go:build !unix && !windows

package execstream

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// procGroup is empty: this platform starts no processes (js/wasm, wasip1,
// plan9). Start fails; Open, the Sink, the Decoder and the rest work.
type procGroup struct{}

func prepare(*exec.Cmd) error {
	return fmt.Errorf("%w: this platform starts no processes (Open still replays recordings)", errors.ErrUnsupported)
}

func attach(*os.Process) procGroup          { return procGroup{} }
func (procGroup) interrupt()                {}
func (procGroup) kill()                     {}
func (procGroup) release()                  {}
func exitSignal(*os.ProcessState) os.Signal { return nil }
func isStopSignal(os.Signal) bool           { return false }
