package pool

import (
	"bytes"
	"io"
	"os"
)

// Spill holds what one worker says, in memory up to spillMemory
// bytes and in a temporary file beyond, until it is its turn to be
// written (InOrder): what a worker that says much writes costs no memory
// for it. A Spill is not safe for concurrent use.
type Spill struct {
	mem  bytes.Buffer
	file *os.File
	err  error
}

// spillMemory is how much of what a worker says is held in memory.
const spillMemory = 1 << 20

// Write holds p.
func (s *Spill) Write(p []byte) (int, error) {
	if s.file == nil && s.mem.Len()+len(p) > spillMemory && s.err == nil {
		s.file, s.err = os.CreateTemp("", "uagent-stream-*")
		if s.file != nil {
			os.Remove(s.file.Name()) // unlinked at once where the system allows
		}
	}
	if s.file != nil {
		return s.file.Write(p)
	}
	return s.mem.Write(p)
}

// WriteOut writes what was held to w, and lets go of it.
func (s *Spill) WriteOut(w io.Writer) error {
	_, err := w.Write(s.mem.Bytes())
	s.mem = bytes.Buffer{}
	if s.file != nil {
		if _, serr := s.file.Seek(0, io.SeekStart); serr == nil && err == nil {
			_, err = io.Copy(w, s.file)
		}
		s.file.Close()
		s.file = nil
	}
	return err
}
