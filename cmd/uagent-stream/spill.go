package main

import (
	"bytes"
	"io"
	"os"
)

// spill holds what one file's worker says, in memory up to spillMemory
// bytes and in a temporary file beyond, until it is its file's turn to be
// printed: files are read on all cores and said in argument order, and a
// file that says much (a session of many runs) costs no memory for it.
type spill struct {
	mem  bytes.Buffer
	file *os.File
	err  error
}

// spillMemory is how much of what a worker says is held in memory.
const spillMemory = 1 << 20

func (s *spill) Write(p []byte) (int, error) {
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

// writeTo writes what was said to w, and lets go of it.
func (s *spill) writeTo(w io.Writer) error {
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
