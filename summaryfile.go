package stream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/uagentkit/stream/internal/jsonparse"
	"github.com/uagentkit/stream/internal/regular"
	"os"
	"path/filepath"
	"reflect"
	"unsafe"
)

// WriteFile writes s to path as summary.json: 2-space indented JSON
// with a trailing newline, mode 0600. It writes atomically: a temporary file
// in the same directory is written, synced and renamed over path, then the
// directory is synced. A crash at any point leaves either the old file or the
// new one, never a torn one; on error the temporary file is removed. An
// error that wraps [ErrNotDurable] means the new file is in place and only
// the directory sync failed.
func (s SummaryDTO) WriteFile(path string) error { return writeSummaryFile(osFS{}, path, s) }

// fileSystem is what WriteFile needs of the OS; tests inject faults.
type fileSystem interface {
	CreateTemp(dir, pattern string) (tempFile, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	SyncDir(dir string) error
}

type tempFile interface {
	Name() string
	Write(p []byte) (int, error)
	Chmod(mode os.FileMode) error
	Sync() error
	Close() error
}

type osFS struct{}

func (osFS) CreateTemp(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }
func (osFS) Rename(oldpath, newpath string) error             { return os.Rename(oldpath, newpath) }
func (osFS) Remove(name string) error                         { return os.Remove(name) }
func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// MarshalIndent returns s as summary.json holds it: 2-space indented JSON,
// no HTML escaping, a trailing newline (what `uagent-stream stats` prints).
func (s SummaryDTO) MarshalIndent() ([]byte, error) {
	compact, err := summaryCodec.AppendObject(nil, reflect.ValueOf(s))
	if err != nil {
		return nil, fmt.Errorf("stream: encode summary: %w", err)
	}
	var out bytes.Buffer
	out.Grow(2 * len(compact))
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, fmt.Errorf("stream: encode summary: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func writeSummaryFile(fsys fileSystem, path string, s SummaryDTO) (err error) {
	data, err := s.MarshalIndent()
	if err != nil {
		return err
	}
	fail := func(step string, err error) error {
		return fmt.Errorf("stream: write summary %s: %s: %w", path, step, err)
	}
	dir := filepath.Dir(path)
	f, err := fsys.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fail("create temporary file", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			fsys.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fail("chmod", err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := f.Close(); err != nil {
		return fail("close", err)
	}
	if err := fsys.Rename(tmp, path); err != nil {
		return fail("rename", err)
	}
	if err := fsys.SyncDir(dir); err != nil {
		// The new file is in place; only its durability is in doubt.
		return fail("sync directory", errors.Join(err, ErrNotDurable))
	}
	return nil
}

// ReadSummaryFile reads a summary.json. A missing, empty, truncated or
// non-JSON file, a field of the wrong type and a v other than SchemaVersion
// are errors naming the file (test them with errors.Is against
// fs.ErrNotExist, ErrTruncated, ErrSyntax, ErrFieldType and
// ErrUnsupportedVersion). Any status is accepted, StatusRunning included.
// Only a regular file is read (a FIFO or a device where summary.json
// should be is an error, never a read that blocks), of at most
// MaxSummaryFile bytes.
func ReadSummaryFile(path string) (SummaryDTO, error) {
	var s SummaryDTO
	data, err := regular.Read(path, MaxSummaryFile)
	if err != nil {
		return s, fmt.Errorf("stream: read summary: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, fmt.Errorf("stream: read summary %s: %w: the file is empty", path, ErrTruncated)
	}
	if err := unmarshalSummary(data, &s); err != nil {
		return SummaryDTO{}, fmt.Errorf("stream: read summary %s: %w", path, err)
	}
	return s, nil
}

// unmarshalSummary decodes one summary object with the stream's parser.
func unmarshalSummary(data []byte, s *SummaryDTO) error {
	p := jsonparse.Parser{Data: data}
	err := p.Expect('{', "'{'")
	if err == nil {
		p.Pos--
		err = p.Object(summaryCodec, unsafe.Pointer(s), 1)
	}
	if err == nil && p.Peek() != 0 {
		err = p.Syntax("the end of the file")
	}
	if err != nil {
		if errors.Is(err.Err, ErrSyntax) && err.Pos >= len(data) {
			return fmt.Errorf("%w: the file ends at byte %d, inside the JSON", ErrTruncated, len(data))
		}
		if err.Field != "" {
			return fmt.Errorf("byte %d: field %q: %w", err.Pos, err.Field, err.Err)
		}
		return fmt.Errorf("byte %d: %w", err.Pos, err.Err)
	}
	if s.V != SchemaVersion {
		return fmt.Errorf("%w: v is %d, this reader knows %d", ErrUnsupportedVersion, s.V, SchemaVersion)
	}
	return nil
}
