package output

import (
	"fmt"
	"os"
	"sync"
)

// Writer is one log file shared by all workers. Workers collect lines in their own Buffers
// and hand them over in large chunks of whole lines, which the Writer writes straight to the
// file (one copy, no second buffer), so lines never interleave and nothing waits in memory
// once a chunk is handed over.
type Writer struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error
}

// OpenWriter opens (creating) the log file at path, appending to it when appendMode is set
// (Suricata's default) and truncating it otherwise.
func OpenWriter(path string, appendMode bool) (*Writer, error) {
	flags := os.O_CREATE | os.O_WRONLY
	if appendMode {
		flags |= os.O_APPEND
	} else {
		flags |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return nil, fmt.Errorf("output: open log file: %w", err)
	}
	return &Writer{path: path, f: f}, nil
}

// Path returns the file's path.
func (w *Writer) Path() string { return w.path }

// Write appends complete lines. The first error is kept and returned by every later call.
func (w *Writer) Write(lines []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil && w.f != nil {
		if _, err := w.f.Write(lines); err != nil {
			w.err = fmt.Errorf("output: write %s: %w", w.path, err)
		}
	}
	return w.err
}

// Close closes the file. Buffers must be flushed first.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.err
	if w.f != nil {
		if cerr := w.f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("output: close %s: %w", w.path, cerr)
		}
		w.f = nil
	}
	return err
}

// Buffer collects one worker's lines for a Writer and hands them over in large chunks. It is
// not safe for concurrent use; each worker owns its Buffers.
type Buffer struct {
	W     *Writer
	lines []byte
}

// bufferFlushAt is the size at which a Buffer hands its lines to the Writer.
const bufferFlushAt = 64 << 10

// Grow makes room for n bytes of lines, so the first records do not allocate.
func (b *Buffer) Grow(n int) {
	if cap(b.lines)-len(b.lines) < n {
		b.lines = append(make([]byte, 0, len(b.lines)+n), b.lines...)
	}
}

// Line appends one record and a newline.
func (b *Buffer) Line(rec []byte) {
	if b == nil || b.W == nil {
		return
	}
	b.lines = append(b.lines, rec...)
	b.lines = append(b.lines, '\n')
	if len(b.lines) >= bufferFlushAt {
		b.Flush()
	}
}

// Lines appends complete lines (each already ending in a newline), as fast.log lines are made.
func (b *Buffer) Lines(lines []byte) {
	if b == nil || b.W == nil {
		return
	}
	b.lines = append(b.lines, lines...)
	if len(b.lines) >= bufferFlushAt {
		b.Flush()
	}
}

// Flush hands buffered lines to the Writer.
func (b *Buffer) Flush() error {
	if b == nil || b.W == nil || len(b.lines) == 0 {
		return nil
	}
	err := b.W.Write(b.lines)
	b.lines = b.lines[:0]
	return err
}
