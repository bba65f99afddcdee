package capture

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
)

// OpenPath opens a capture file (see OpenFile) or, when path is a directory, every capture
// in it (see OpenDir) as one Source.
func OpenPath(path string) (Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if st.IsDir() {
		d, err := OpenDir(path)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	s, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// DirSource reads the captures of a directory one after another as a single Source. Cnt keeps
// counting across files, as Suricata's pcap_cnt does in directory mode. It implements Source;
// it is not safe for concurrent use.
type DirSource struct {
	dir      string
	files    []string // captures not yet opened, in name order
	sizes    []int64  // their sizes, as OpenDir found them
	re       reuse    // what the files share, one after another
	cur      *FileSource
	cnt      uint64       // Cnt of the last frame delivered
	read     atomic.Int64 // bytes read from the directory's files so far
	size     int64        // the captures' sizes added up
	warnings []string
	closed   bool
}

// OpenDir opens the captures in directory dir, to be read in file name order. It does not
// descend into subdirectories (as Suricata without --pcap-file-recursive) and says so: in a
// warning, or in the error when the directory holds no capture. Files that are not captures (told by their magic bytes, as
// OpenFile does) are skipped with a warning (see Warnings); a directory without any capture is
// an error.
//
// Suricata orders a directory by modification time; Meerkat uses the name, which does not
// change when files are copied.
func OpenDir(dir string) (*DirSource, error) {
	entries, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	d := &DirSource{dir: dir}
	subdirs := 0
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		st, err := os.Stat(path) // follows symbolic links
		if err != nil {
			d.warn(fmt.Sprintf("capture: %v; skipped", err))
			continue
		}
		if st.IsDir() {
			subdirs++
			continue
		}
		if !st.Mode().IsRegular() {
			d.warn(fmt.Sprintf("capture: %s: not a regular file; skipped", path))
			continue
		}
		if err := sniffFile(path); err != nil {
			d.warn(err.Error() + "; skipped")
			continue
		}
		d.files = append(d.files, path)
		d.sizes = append(d.sizes, st.Size())
		d.size += st.Size()
	}
	if len(d.files) == 0 {
		if subdirs > 0 {
			return nil, fmt.Errorf("capture: %s: no pcap or pcapng file in the directory (its %d subdirectories are not read: "+
				"a directory is replayed without descending into it, as Suricata does without --pcap-file-recursive)", dir, subdirs)
		}
		return nil, fmt.Errorf("capture: %s: no pcap or pcapng file in the directory", dir)
	}
	if subdirs > 0 {
		d.warn(fmt.Sprintf("capture: %s: %d subdirectories not read (a directory is replayed without descending into it)", dir, subdirs))
	}
	return d, nil
}

// sniffFile checks that path starts like a capture file, reading only its first bytes.
func sniffFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 512)
	head, err := br.Peek(4)
	if err != nil && err != io.EOF {
		return fmt.Errorf("capture: %s: %w", path, err)
	}
	compressed := len(head) >= 2 && binary.BigEndian.Uint16(head) == magicGzip
	if compressed {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("capture: %s: bad gzip stream: %s", path, headerErr(err))
		}
		defer gz.Close()
		var buf [4]byte
		n, err := io.ReadFull(gz, buf[:])
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fmt.Errorf("capture: %s: bad gzip stream: %w", path, err)
		}
		head = buf[:n]
	}
	_, err = classify(path, head, compressed)
	return err
}

// Warnings returns the files skipped so far and why, one message per file: files that are not
// captures (found by OpenDir) and files that could not be opened when their turn came.
func (d *DirSource) Warnings() []string { return d.warnings }

func (d *DirSource) warn(msg string) { d.warnings = append(d.warnings, msg) }

// Next fills f with the next frame of the current file, moving on to the next file at the end
// of one. An error from one file (see Source) is returned once; the next call goes on with the
// next file. Next returns io.EOF after the last file.
func (d *DirSource) Next(f *Frame) error {
	if d.closed {
		return fmt.Errorf("capture: %s: %w", d.dir, os.ErrClosed)
	}
	for {
		if d.cur == nil {
			if len(d.files) == 0 {
				return io.EOF
			}
			path, size := d.files[0], d.sizes[0]
			d.files, d.sizes = d.files[1:], d.sizes[1:]
			s, err := openFile(path, &d.read, &d.re, size)
			if err != nil {
				d.warn(err.Error() + "; skipped")
				continue
			}
			s.base = d.cnt
			d.cur = s
		}
		err := d.cur.Next(f)
		if err == nil {
			d.cnt = f.Cnt
			return nil
		}
		_ = d.cur.Close()
		d.cur = nil
		if err != io.EOF {
			return err
		}
	}
}

// BytesRead returns how many bytes of the directory's captures have been read so far, and
// Size their sizes added up; both are safe to call from another goroutine while Next runs.
func (d *DirSource) BytesRead() int64 { return d.read.Load() }

// Size returns the sizes of the directory's captures added up (see BytesRead).
func (d *DirSource) Size() int64 { return d.size }

// Current returns the path of the file being read, or "" between files.
func (d *DirSource) Current() string {
	if d.cur == nil {
		return ""
	}
	return d.cur.path
}

// Close closes the file being read. It is safe to call more than once.
func (d *DirSource) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	d.files, d.sizes = nil, nil
	if d.cur != nil {
		err := d.cur.Close()
		d.cur = nil
		return err
	}
	return nil
}
