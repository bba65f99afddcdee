package ssh

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// feeder hands a state chunks of one direction the way the framework does: the unconsumed
// rest is handed again in front of the next chunk.
type feeder struct {
	s     *State
	pend  [2][]byte
	flags applayer.ParserFlags
	err   error
}

func (f *feeder) feed(dir applayer.Dir, chunk []byte) applayer.Result {
	f.pend[dir] = append(f.pend[dir], chunk...)
	r := f.s.Parse(dir, f.pend[dir], 0)
	f.flags |= r.Flags
	if r.Err != nil {
		f.err = r.Err
		f.pend[dir] = f.pend[dir][:0]
		return r
	}
	f.pend[dir] = append(f.pend[dir][:0], f.pend[dir][min(r.Consumed, len(f.pend[dir])):]...)
	return r
}

func newState(cfg *Settings) *State { return NewPool(cfg).NewState() }

// record builds one binary packet: length, padding length, code, body.
func record(code byte, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(body)+2))
	return append(append(b, 4, code), body...)
}

func nameList(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

func kexinitBody(lists [10]string) []byte {
	b := make([]byte, 16)
	for _, l := range lists {
		b = append(b, nameList(l)...)
	}
	return append(b, 0, 0, 0, 0, 0)
}

// TestBanner follows src/app-layer-ssh.c SSHParserTest01-03, 23-25: the banner's fields,
// comments excluded, the invalid banners (no '-' after the version, a CR inside, an empty
// line) are parser errors with invalid_banner, and an empty software version.
func TestBanner(t *testing.T) {
	for _, tc := range []struct {
		name, in, proto, sw string
		err                 bool
		state               uint8
	}{
		{"SSHParserTest01", "SSH-2.0-MySSHClient-0.5.1\n", "2.0", "MySSHClient-0.5.1", false, StateBannerDone},
		{"SSHParserTest02", "SSH-2.0-MySSHClient-0.5.1 some comments...\n", "2.0", "MySSHClient-0.5.1", false, StateBannerDone},
		{"SSHParserTest03", "SSH-2.0 some comments...\n", "", "", true, StateInProgress},
		{"SSHParserTest23", "SSH-2.0\r-MySSHClient-0.5.1\n", "", "", true, StateInProgress},
		{"SSHParserTest24", "SSH-2.0-\rMySSHClient-0.5.1\n", "2.0", "", false, StateBannerDone},
		{"SSHParserTest25", "\n", "", "", true, StateInProgress},
		{"crlf", "SSH-1.99-OpenSSH_7.4\r\n", "1.99", "OpenSSH_7.4", false, StateBannerDone},
		{"empty-software-at-space", "SSH-2.0- x\n", "2.0", " x", false, StateBannerDone},
		{"lower-case-prefix", "ssh-2.0-x\n", "", "", true, StateInProgress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(nil)
			r := s.Parse(flow.ToServer, []byte(tc.in), applayer.EOF)
			if (r.Err != nil) != tc.err {
				t.Fatalf("err %v, want error %v", r.Err, tc.err)
			}
			h := &s.tx.Client
			if string(h.Proto) != tc.proto || string(h.Software) != tc.sw || h.Flags != tc.state {
				t.Errorf("got proto %q sw %q state %d", h.Proto, h.Software, h.Flags)
			}
			if tc.err != s.tx.td.Events.Has(EventInvalidBanner) {
				t.Errorf("invalid_banner %v", s.tx.td.Events.Has(EventInvalidBanner))
			}
			if s.tx.td.Progress[flow.ToServer] != min(tc.state, StateBannerDone) {
				t.Errorf("progress %d", s.tx.td.Progress[flow.ToServer])
			}
		})
	}
}

// TestSplitBannerNewKeys is SSHParserTest18: a banner in two segments, NEWKEYS from both
// sides: the server finished and APP_LAYER_PARSER_NO_INSPECTION set (track-only); progress
// 3 in both directions only then.
func TestSplitBannerNewKeys(t *testing.T) {
	f := &feeder{s: newState(nil)}
	f.feed(flow.ToClient, []byte("SSH-2.0-OpenSSH_4.7p1 Debian-8ubuntu3\r\n"))
	if r := f.feed(flow.ToServer, []byte("SSH-")); r.Needed != 5 || r.Consumed != 0 {
		t.Fatalf("partial banner: %+v", r)
	}
	f.feed(flow.ToServer, []byte("2.0-MySSHClient-0.5.1\r\n"))
	f.feed(flow.ToClient, []byte{0, 0, 0, 3, 1, 21, 0})
	if got := f.s.tx.td.Progress; got != [2]uint8{StateBannerDone, StateBannerDone} {
		t.Fatalf("one NEWKEYS: progress %v", got)
	}
	if f.flags != 0 {
		t.Fatalf("flags after one NEWKEYS: %v", f.flags)
	}
	f.feed(flow.ToServer, []byte{0, 0, 0, 3, 1, 21, 0})
	if f.s.tx.Server.Flags != StateFinished || f.flags != applayer.NoInspection {
		t.Fatalf("server flags %d, parser flags %v", f.s.tx.Server.Flags, f.flags)
	}
	if got := f.s.tx.td.Progress; got != [2]uint8{StateFinished, StateFinished} {
		t.Fatalf("progress %v", got)
	}
	if string(f.s.tx.Client.Software) != "MySSHClient-0.5.1" || string(f.s.tx.Server.Software) != "OpenSSH_4.7p1" {
		t.Errorf("software %q %q", f.s.tx.Client.Software, f.s.tx.Server.Software)
	}
}

// TestEncryptionHandling: bypass sets NO_INSPECTION|NO_REASSEMBLY|BYPASS_READY, full nothing
// (rust/src/ssh/ssh.rs parse_record at NEWKEYS).
func TestEncryptionHandling(t *testing.T) {
	for _, tc := range []struct {
		enc  Encryption
		want applayer.ParserFlags
	}{
		{TrackOnly, applayer.NoInspection},
		{Bypass, applayer.NoInspection | applayer.NoReassembly | applayer.BypassReady},
		{Full, 0},
	} {
		f := &feeder{s: newState(&Settings{Encryption: tc.enc})}
		f.feed(flow.ToServer, append([]byte("SSH-2.0-a\r\n"), record(msgNewKeys, []byte{0})...))
		f.feed(flow.ToClient, append([]byte("SSH-2.0-b\r\n"), record(msgNewKeys, []byte{0})...))
		if f.flags != tc.want {
			t.Errorf("%d: flags %v, want %v", tc.enc, f.flags, tc.want)
		}
	}
}

// TestLoneCRRecords is SSHParserTest22: a banner ended by a lone CR, then 30 records in the
// same chunk, the last one NEWKEYS.
func TestLoneCRRecords(t *testing.T) {
	f := &feeder{s: newState(nil)}
	f.feed(flow.ToClient, []byte("SSH-"))
	f.feed(flow.ToClient, []byte("2.0-"))
	b := []byte("libssh\r")
	for i := range 30 {
		code := byte(17)
		if i == 29 {
			code = 21
		}
		b = append(b, 0, 0, 0, 6, 1, code, 0, 0, 0, 0)
	}
	f.feed(flow.ToClient, b)
	if f.err != nil || f.s.tx.Server.Flags != StateFinished {
		t.Fatalf("err %v state %d", f.err, f.s.tx.Server.Flags)
	}
	if string(f.s.tx.Server.Proto) != "2.0" || string(f.s.tx.Server.Software) != "libssh" {
		t.Errorf("got %q %q", f.s.tx.Server.Proto, f.s.tx.Server.Software)
	}
}

// TestLongBanner follows SSHParserTest19-21: a line of 256 bytes or more raises
// long_banner; an unterminated one that long keeps its fields and skips to the line end.
func TestLongBanner(t *testing.T) {
	long := "SSH-2.0-" + string(bytes.Repeat([]byte("a"), 300))
	s := newState(nil)
	s.Parse(flow.ToServer, []byte(long+"\r\n"), 0)
	if !s.tx.td.Events.Has(EventLongBanner) || s.tx.Client.Flags != StateBannerDone {
		t.Errorf("terminated long banner: events %v state %d", s.tx.td.Events, s.tx.Client.Flags)
	}
	s = newState(nil)
	f := &feeder{s: s}
	r := f.feed(flow.ToServer, []byte(long))
	if r.Consumed != len(long) || s.tx.Client.Flags != StateBannerWaitEOL || !s.tx.td.Events.Has(EventLongBanner) {
		t.Fatalf("unterminated: %+v state %d", r, s.tx.Client.Flags)
	}
	if s.tx.td.Progress[flow.ToServer] != StateInProgress {
		t.Errorf("banner_wait_eol reported as %d", s.tx.td.Progress[flow.ToServer])
	}
	// The line end does not make the banner done (parse_banner's banner_wait_eol branch
	// only parses the records after it): a NEWKEYS in the same chunk finishes the side.
	f.feed(flow.ToServer, append([]byte("bbbb\n"), record(msgNewKeys, []byte{0})...))
	if s.tx.Client.Flags != StateFinished || len(s.tx.Client.Software) != 300 {
		t.Errorf("state %d software %d bytes", s.tx.Client.Flags, len(s.tx.Client.Software))
	}
	// A short unterminated banner waits for more (incomplete: len+1).
	s = newState(nil)
	if r := s.Parse(flow.ToServer, []byte("SSH-2.0-x"), 0); r.Needed != 10 || r.Consumed != 0 {
		t.Errorf("short: %+v", r)
	}
}

// TestInvalidRecord: a record length of 0 or 1 is invalid_record and a parser error
// (ssh_parse_record's verify(be_u32, val > 1)).
func TestInvalidRecord(t *testing.T) {
	s := newState(nil)
	r := s.Parse(flow.ToServer, []byte("SSH-2.0-x\n\x00\x00\x00\x01\x00\x00"), 0)
	if r.Err == nil || !s.tx.td.Events.Has(EventInvalidRecord) {
		t.Fatalf("%+v events %v", r, s.tx.td.Events)
	}
}

var kexLists = [10]string{"curve25519-sha256,diffie-hellman-group14-sha1", "ssh-ed25519",
	"aes128-ctr", "aes256-ctr", "hmac-sha2-256", "hmac-sha1", "none", "none,zlib@openssh.com", "", ""}

// TestHassh: the client HASSH is kex;enc c2s;mac c2s;comp c2s, the server's the s2c lists,
// hashed to lower-case hex MD5 (generate_hassh), whole or reassembled across chunks.
func TestHassh(t *testing.T) {
	body := kexinitBody(kexLists)
	for _, split := range []int{0, 8, 40} {
		s := newState(&Settings{Hassh: true})
		f := &feeder{s: s}
		cli := append([]byte("SSH-2.0-c\r\n"), record(msgKexinit, body)...)
		srv := append([]byte("SSH-2.0-s\r\n"), record(msgKexinit, body)...)
		if split == 0 {
			f.feed(flow.ToServer, cli)
		} else {
			f.feed(flow.ToServer, cli[:len(cli)-split])
			f.feed(flow.ToServer, cli[len(cli)-split:])
		}
		f.feed(flow.ToClient, srv)
		wantC := "curve25519-sha256,diffie-hellman-group14-sha1;aes128-ctr;hmac-sha2-256;none"
		wantS := "curve25519-sha256,diffie-hellman-group14-sha1;aes256-ctr;hmac-sha1;none,zlib@openssh.com"
		if string(s.tx.Client.HasshString) != wantC || string(s.tx.Server.HasshString) != wantS {
			t.Fatalf("split %d: %q / %q", split, s.tx.Client.HasshString, s.tx.Server.HasshString)
		}
		if fmt.Sprintf("%x", md5sum(wantC)) != string(s.tx.Client.Hassh) {
			t.Errorf("split %d: hash %s", split, s.tx.Client.Hassh)
		}
	}
	// Without HASSH enabled, nothing is computed (unless a rule enabled it process-wide).
	if !HasshEnabled() {
		s := newState(nil)
		s.Parse(flow.ToServer, append([]byte("SSH-2.0-c\r\n"), record(msgKexinit, body)...), 0)
		if len(s.tx.Client.Hassh) != 0 {
			t.Errorf("hassh computed while disabled")
		}
	}
}

// TestLongKex: a KEXINIT announced longer than 65535 bytes (here 131070) is long_kex_record and skipped.
func TestLongKex(t *testing.T) {
	s := newState(&Settings{Hassh: true})
	b := append([]byte("SSH-2.0-c\r\n"), 0, 2, 0, 0, 4, msgKexinit, 1, 2, 3)
	r := s.Parse(flow.ToServer, b, 0)
	if r.Err != nil || !s.tx.td.Events.Has(EventLongKexRecord) || r.Consumed != len(b) {
		t.Fatalf("%+v events %v", r, s.tx.td.Events)
	}
}

// TestBuffers: ssh.proto/ssh.software per direction, hassh buffers only in their direction.
func TestBuffers(t *testing.T) {
	s := newState(&Settings{Hassh: true})
	f := &feeder{s: s}
	f.feed(flow.ToServer, append([]byte("SSH-2.0-OpenSSH_for_Windows_7.7\r\n"), record(msgKexinit, kexinitBody(kexLists))...))
	f.feed(flow.ToClient, []byte("SSH-1.99-OpenSSH_7.4\r\n"))
	get := func(name string, dir applayer.Dir) string {
		for _, id := range applayer.BuffersNamed(name) {
			if b := applayer.BufferOf(id); b.Proto == applayer.ProtoSSH {
				v, ok := b.Get(&s.tx, dir, 0, nil)
				if !ok {
					return "<none>"
				}
				return string(v)
			}
		}
		return "<unregistered>"
	}
	for _, tc := range []struct {
		name string
		dir  applayer.Dir
		want string
	}{
		{"ssh.proto", flow.ToServer, "2.0"}, {"ssh.proto", flow.ToClient, "1.99"},
		{"ssh.software", flow.ToServer, "OpenSSH_for_Windows_7.7"}, {"ssh.software", flow.ToClient, "OpenSSH_7.4"},
		{"ssh.hassh.string", flow.ToServer, "curve25519-sha256,diffie-hellman-group14-sha1;aes128-ctr;hmac-sha2-256;none"},
		{"ssh.hassh.string", flow.ToClient, "<none>"}, {"ssh.hassh.server", flow.ToClient, "<none>"},
	} {
		if got := get(tc.name, tc.dir); got != tc.want {
			t.Errorf("%s dir %d: %q, want %q", tc.name, tc.dir, got, tc.want)
		}
	}
}

// TestConfigure: hassh yes enables, encryption-handling values (RegisterSSHParsers).
func TestConfigure(t *testing.T) {
	c, err := Configure(nil)
	if err != nil || c.(*Settings).Encryption != TrackOnly || c.(*Settings).Hassh {
		t.Fatalf("%+v %v", c, err)
	}
}

// TestAllocs: a warm state parsing another flow's banners, KEXINITs and NEWKEYS allocates
// nothing.
func TestAllocs(t *testing.T) {
	p := NewPool(&Settings{Hassh: true, Encryption: Full})
	cli := append([]byte("SSH-2.0-c\r\n"), record(msgKexinit, kexinitBody(kexLists))...)
	cli = append(cli, record(msgNewKeys, []byte{0})...)
	run := func() {
		s := p.NewState()
		s.Parse(flow.ToServer, cli, 0)
		s.Parse(flow.ToClient, cli, 0)
		p.Put(s)
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per flow", n)
	}
}

func fuzzSeeds() map[string][]byte {
	body := kexinitBody(kexLists)
	both := func(ts, tc []byte) []byte {
		b := binary.BigEndian.AppendUint16(nil, uint16(len(ts)))
		return append(append(b, ts...), tc...)
	}
	return map[string][]byte{
		"banner":    both([]byte("SSH-2.0-OpenSSH_7.4\r\n"), []byte("SSH-2.0-x y\n")),
		"hassh":     both(append([]byte("SSH-2.0-c\r\n"), record(msgKexinit, body)...), append([]byte("SSH-2.0-s\r\n"), record(msgKexinit, body)...)),
		"newkeys":   both(append([]byte("SSH-2.0-c\r"), record(msgNewKeys, []byte{0})...), append([]byte("SSH-2.0-s\n"), record(msgNewKeys, []byte{0})...)),
		"long":      both(append([]byte("SSH-2.0-"), bytes.Repeat([]byte{'z'}, 300)...), []byte("SSH-\n")),
		"badrecord": both([]byte("SSH-2.0-c\n\x00\x00\x00\x01"), []byte("SSH-2.0-s\n\xff\xff\xff\xff\x04\x14")),
		"shortkex":  both(append([]byte("SSH-2.0-c\n"), record(msgKexinit, body[:30])...), nil),
	}
}

func md5sum(s string) [16]byte { return md5.Sum([]byte(s)) }

// FuzzSSH feeds both directions in chunks (the first two input bytes give the to-server
// length, a byte of each chunk its size): no panic, bounded fields, progress within range.
func FuzzSSH(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	p := NewPool(&Settings{Hassh: true, Encryption: Full})
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		n := min(int(binary.BigEndian.Uint16(in)), len(in)-2)
		dirs := [2][]byte{in[2 : 2+n], in[2+n:]}
		s := p.NewState()
		fd := &feeder{s: s}
		for round := 0; round < 64 && (len(dirs[0]) > 0 || len(dirs[1]) > 0); round++ {
			d := applayer.Dir(round % 2)
			if fd.err != nil {
				break
			}
			c := 1 + round*7%13
			c = min(c, len(dirs[d]))
			fd.feed(d, dirs[d][:c])
			dirs[d] = dirs[d][c:]
		}
		for _, h := range []*Header{&s.tx.Client, &s.tx.Server} {
			if len(h.Proto) > maxField || len(h.Software) > maxField || len(h.HasshString) > maxField || h.Flags > StateFinished {
				t.Fatalf("unbounded header %+v", h)
			}
		}
		for _, pr := range s.tx.td.Progress {
			if pr > StateFinished || pr == StateBannerWaitEOL {
				t.Fatalf("progress %v", s.tx.td.Progress)
			}
		}
		p.Put(s)
	})
}

// TestWriteFuzzSeeds keeps testdata/fuzz/FuzzSSH in step with fuzzSeeds (MEERKAT_WRITE_SEEDS=1
// rewrites it).
func TestWriteFuzzSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzSSH")
	seeds := fuzzSeeds()
	names := make([]string, 0, len(seeds))
	for name := range seeds {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", seeds[name])
		if os.Getenv("MEERKAT_WRITE_SEEDS") != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("seed %s missing or stale (run with MEERKAT_WRITE_SEEDS=1): %v", name, err)
		}
	}
}
