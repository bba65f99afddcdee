package capture

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"

	"github.com/meerkat-ids/meerkat/decode"
)

func TestOpenPathDirectory(t *testing.T) {
	dir := t.TempDir()
	pa, pb, pc := genPkts(10, 3), genPkts(11, 2), genPkts(12, 4)
	// Written out of name order: reading follows the names.
	writeFile(t, dir, "c.pcap.gz", gz(pcapgoBytes(t, true, layers.LinkTypeRaw, pc)))
	writeFile(t, dir, "a.pcapng", ngWriterBytes(t, []layers.LinkType{layers.LinkTypeLinuxSLL2}, pa))
	writeFile(t, dir, "b.cap", pcapBytes(binary.BigEndian, false, 65535, 1, pb))
	writeFile(t, dir, "notes.txt", []byte("not a capture"))
	writeFile(t, dir, "d.pcap", nil)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub"), "0.pcap", pcapgoBytes(t, false, 1, genPkts(13, 5)))

	src, err := OpenPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := src.(*DirSource)
	if !ok {
		t.Fatalf("OpenPath(dir) returned %T", src)
	}
	if w := d.Warnings(); len(w) != 3 || !strings.Contains(w[0], "d.pcap: not a pcap or pcapng file (empty)") ||
		!strings.Contains(w[1], "notes.txt: not a pcap or pcapng file (magic 0x6e6f7420); skipped") ||
		!strings.Contains(w[2], "1 subdirectories not read") {
		t.Errorf("warnings %q", w)
	}
	var size int64
	for _, name := range []string{"a.pcapng", "b.cap", "c.pcap.gz"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	if d.Size() != size || d.BytesRead() != 0 {
		t.Errorf("before reading: Size %d, BytesRead %d; want %d (the three captures) and 0", d.Size(), d.BytesRead(), size)
	}
	got, err := readAll(t, src, 100)
	if err != nil {
		t.Fatal(err)
	}
	if d.BytesRead() != size {
		t.Errorf("after reading: BytesRead %d, want every byte of the captures, %d", d.BytesRead(), size)
	}
	want := expect(pa, []decode.LinkType{decode.LinkTypeSLL2}, time.Nanosecond, 1)
	want = append(want, expect(pb, []decode.LinkType{decode.LinkTypeEthernet}, time.Microsecond, 4)...)
	want = append(want, expect(pc, []decode.LinkType{decode.LinkTypeRaw}, time.Nanosecond, 6)...)
	compareFrames(t, got, want)
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	var f Frame
	if err := src.Next(&f); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
}

// TestDirectoryOfDirectories: a directory that holds only directories is an error that says
// they are not read.
func TestDirectoryOfDirectories(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "2024"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "2024"), "0.pcap", pcapgoBytes(t, false, 1, genPkts(13, 5)))
	_, err := OpenPath(dir)
	if err == nil || !strings.Contains(err.Error(), "no pcap or pcapng file in the directory (its 1 subdirectories are not read") {
		t.Errorf("OpenPath = %v", err)
	}
}

// TestDirectoryErrors: a file that ends early, or breaks, is reported once and reading goes on.
func TestDirectoryErrors(t *testing.T) {
	dir := t.TempDir()
	pa, pb, pc := genPkts(20, 3), genPkts(21, 2), genPkts(22, 2)
	a := pcapgoBytes(t, false, 1, pa)
	writeFile(t, dir, "1.pcap", a[:len(a)-5]) // the last record is cut
	bad := pcapgoBytes(t, false, 1, pb)
	binary.LittleEndian.PutUint32(bad[24+8:], 1<<30) // the first record is too long
	writeFile(t, dir, "2.pcap", bad)
	writeFile(t, dir, "3.pcap", pcapgoBytes(t, false, 1, pc))

	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var f Frame
	var cnts []uint64
	var errs []error
	for {
		err := d.Next(&f)
		if err != nil {
			if err == io.EOF {
				break
			}
			errs = append(errs, err)
			continue
		}
		cnts = append(cnts, f.Cnt)
		if got := d.Current(); got != filepath.Join(dir, []string{"", "1.pcap", "1.pcap", "3.pcap", "3.pcap"}[f.Cnt]) {
			t.Errorf("Current() = %q for Cnt %d", got, f.Cnt)
		}
	}
	if len(cnts) != 4 || cnts[3] != 4 {
		t.Errorf("Cnt %v", cnts)
	}
	if len(errs) != 2 || !isTruncated(errs[0]) || !strings.Contains(errs[0].Error(), "1.pcap") ||
		isTruncated(errs[1]) || !strings.Contains(errs[1].Error(), "2.pcap: record 1: ") {
		t.Errorf("errors %v", errs)
	}
}

func TestOpenPathErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := OpenPath(dir); err == nil || !strings.Contains(err.Error(), "no pcap or pcapng file") {
		t.Errorf("empty directory: %v", err)
	}
	writeFile(t, dir, "a.txt", []byte("text"))
	writeFile(t, dir, "b.pcap", []byte{0xd4, 0xc3})
	if _, err := OpenPath(dir); err == nil || !strings.Contains(err.Error(), "no pcap or pcapng file") {
		t.Errorf("directory without captures: %v", err)
	}
	if _, err := OpenPath(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing path: %v", err)
	}
	src, err := OpenPath(filepath.Join(dir, "a.txt"))
	if src != nil || !errors.Is(err, ErrNotCapture) {
		t.Errorf("text file: %v, %v", src, err)
	}
	p := writeFile(t, dir, "c.pcap", pcapgoBytes(t, false, 1, genPkts(1, 2)))
	src, err = OpenPath(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.(*FileSource); !ok {
		t.Errorf("OpenPath(file) returned %T", src)
	}
	src.Close()
}
