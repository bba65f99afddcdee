package ja

// The reference check of issue #19: JA3, JA3S and JA4 of the hellos of the corpus TLS flows equal
// the values reference implementations compute.
//
// References (both run as external programs, nothing of them is in this repository):
//   - JA3 and JA3S: Wireshark's TLS dissector (tshark fields tls.handshake.ja3_full and
//     tls.handshake.ja3s_full; tshark 4.0.x, Debian bookworm `apt-get install tshark`). tshark 4.0 has
//     no JA4 field.
//   - JA4: FoxIO's JA4 reference implementation, python/ja4.py of github.com/FoxIO-LLC/ja4 (JA4 for
//     TLS is BSD-3-Clause; the script reads tshark's JSON). Point MEERKAT_JA4_PY at python/ja4.py,
//     e.g. `git -C /work/.mirror/FoxIO-LLC+ja4/repo archive HEAD python | tar -x -C /tmp/ja4ref`
//     then MEERKAT_JA4_PY=/tmp/ja4ref/python/ja4.py.
//
// Our values come from this package's JA3/JA3S/JA4 over hellos parsed here with cryptobyte
// (hello_test.go: parseHello), not with the TLS parser. Hellos are paired with the reference's by
// connection direction (address:port pairs) and order.
//
// Where Suricata's JA4 (rust/src/ja4.rs, which we reproduce) and FoxIO's python differ by design,
// the difference is not hidden: the test recomputes the reference's value from the same hello with
// FoxIO's rules (foxioJA4 below) and requires that to equal the reference exactly, and counts each
// rule that made the two differ:
//   - version: Suricata takes the maximum of the legacy version and the FIRST valid
//     supported_versions entry (§2.8 note); FoxIO the highest supported_versions entry. FoxIO also
//     maps 0x0002 to "s2".
//   - no-sigalgs: without signature algorithms Suricata still hashes "<exts>_" (the '_' is always
//     there; "" -> d2e2adf7177b); FoxIO hashes "<exts>" alone, and writes 000000000000 when both are
//     empty.
//   - no-ciphers: Suricata hashes "" (e3b0c44298fc); FoxIO writes 000000000000.
//   - alpn: Suricata writes the hex nibbles of the first/last byte when one of them is not ASCII
//     alphanumeric and 00 for a 2-byte GREASE name; FoxIO writes the first and last character, "99"
//     for a non-ASCII first one.
//   - sigalgs-cert: with both signature_algorithms (13) and signature_algorithms_cert (50), ja4.py
//     (get_signature_algorithms over tshark's concatenated tls.handshake.sig_hash_alg) keeps the
//     second list in wire order, usually the _cert one; Suricata (and the JA4 spec) use extension 13.
//   - stopped-extensions: Suricata stops recording extensions at the first one that does not
//     decode (§2.3); FoxIO (tshark) lists them all.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/applayer/tls/ja/tlspcap"
	"golang.org/x/crypto/cryptobyte"
)

// corpusTLSPcaps lists the corpus pcaps MANIFEST.tsv marks as having TLS flows, plus the
// conformance pcaps of the JA3/JA4 tests.
func corpusTLSPcaps(t *testing.T) (corpus, conformance []string) {
	dir := tlspcap.Shared("corpus/pcaps")
	if dir == "" {
		t.Skip("corpus not found (shared/corpus/pcaps; set MEERKAT_SHARED)")
	}
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Skipf("corpus manifest: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 11 || cols[0] == "file" {
			continue
		}
		// flows column: "48 flows: tls 21, dns 15, ..."
		if strings.Contains(cols[10], " tls ") || strings.Contains(cols[10], ": tls ") {
			out = append(out, filepath.Join(dir, cols[0]))
		}
	}
	for _, test := range []string{"ja4-tls", "bug-5713-02-ja4", "detect-bidir-ja3", "ja4-cl-handshake",
		"tls-ja3s", "tls13-draft22", "tls-duplicate-hello", "tls-glupteba", "tls-pre-1970"} {
		if d := tlspcap.ConformanceTest(test); d != "" {
			m, _ := filepath.Glob(filepath.Join(d, "*.pcap"))
			conformance = append(conformance, m...)
		}
	}
	return out, conformance
}

type refHello struct {
	key   string // src>dst of the direction
	typ   int
	value string // ja3_full / ja3s_full / JA4
}

// tsharkHellos runs tshark and returns, per direction key, the JA3 (ClientHello) and JA3S
// (ServerHello) strings in order.
func tsharkHellos(ctx context.Context, path string) (map[string][]refHello, error) {
	cmd := exec.CommandContext(ctx, "tshark", "-n", "-r", path, "-Y", "tls.handshake.type == 1 || tls.handshake.type == 2",
		"-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|",
		"-e", "ip.src", "-e", "ipv6.src", "-e", "tcp.srcport", "-e", "ip.dst", "-e", "ipv6.dst", "-e", "tcp.dstport",
		"-e", "tls.handshake.type", "-e", "tls.handshake.ja3_full", "-e", "tls.handshake.ja3s_full")
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return nil, err
	}
	res := map[string][]refHello{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 9 || f[2] == "" || strings.Contains(f[2], "|") {
			continue // not TCP, or tunnelled/nested (ambiguous addresses)
		}
		src, dst := f[0], f[3]
		if src == "" {
			src, dst = f[1], f[4]
		}
		if src == "" || strings.Contains(src, "|") || strings.Contains(dst, "|") || (f[0] != "" && f[1] != "") {
			continue
		}
		key := addrPort(src, f[2]) + ">" + addrPort(dst, f[5])
		ja3s, ja3ss := strings.Split(f[7], "|"), strings.Split(f[8], "|")
		ci, si := 0, 0
		for _, ty := range strings.Split(f[6], "|") {
			switch ty {
			case "1":
				if ci < len(ja3s) && ja3s[ci] != "" {
					res[key] = append(res[key], refHello{key, 1, ja3s[ci]})
				}
				ci++
			case "2":
				if si < len(ja3ss) && ja3ss[si] != "" {
					res[key] = append(res[key], refHello{key, 2, ja3ss[si]})
				}
				si++
			}
		}
	}
	return res, nil
}

func addrPort(a, p string) string {
	if strings.Contains(a, ":") {
		return "[" + a + "]:" + p
	}
	return a + ":" + p
}

// foxioHellos runs FoxIO's ja4.py and returns the JA4 of each ClientHello per client direction.
func foxioHellos(ctx context.Context, script, path string) (map[string][]refHello, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "python3", script, "-J", abs)
	cmd.Dir = filepath.Dir(script)
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return nil, err
	}
	res := map[string][]refHello{}
	type entry struct {
		stream int
		key    string
		ja4    []string
	}
	var entries []entry
	// ja4.py -J prints one JSON object per stream, interleaved with tshark's warnings.
	i := bytes.IndexByte(out, '{')
	if i < 0 {
		return res, nil
	}
	dec := json.NewDecoder(bytes.NewReader(out[i:]))
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err == io.EOF {
			break
		} else if err != nil {
			// skip a non-JSON line
			rest, _ := io.ReadAll(dec.Buffered())
			j := bytes.IndexByte(rest, '{')
			if j < 0 {
				break
			}
			dec = json.NewDecoder(bytes.NewReader(rest[j:]))
			continue
		}
		s, _ := obj["src"].(string)
		d, _ := obj["dst"].(string)
		sp, _ := obj["srcport"].(string)
		dp, _ := obj["dstport"].(string)
		st, _ := obj["stream"].(float64)
		e := entry{stream: int(st), key: addrPort(s, sp) + ">" + addrPort(d, dp)}
		for n := 1; ; n++ {
			v, ok := obj[fmt.Sprintf("JA4.%d", n)].(string)
			if !ok {
				break
			}
			e.ja4 = append(e.ja4, v)
		}
		if len(e.ja4) > 0 {
			entries = append(entries, e)
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].stream < entries[j].stream })
	for _, e := range entries {
		for _, v := range e.ja4 {
			res[e.key] = append(res[e.key], refHello{e.key, 1, v})
		}
	}
	return res, nil
}

// foxioJA4 computes JA4 from a ClientHello body with the rules of FoxIO's python/ja4.py
// (to_ja4, get_hex_sorted, get_supported_version), to explain a reference difference.
func foxioJA4(body []byte) (string, error) {
	s := cryptobyte.String(body)
	var version uint16
	var random, sid, cs, comp, exts cryptobyte.String
	if !s.ReadUint16(&version) || !s.ReadBytes((*[]byte)(&random), 32) || !s.ReadUint8LengthPrefixed(&sid) ||
		!s.ReadUint16LengthPrefixed(&cs) || !s.ReadUint8LengthPrefixed(&comp) {
		return "", errHello
	}
	var ciphers, extTypes, versions, sigalgs []uint16
	for len(cs) >= 2 {
		var c uint16
		cs.ReadUint16(&c)
		ciphers = append(ciphers, c)
	}
	var alpn []byte
	var sigLists [][]uint16 // the lists of extensions 13 and 50, in wire order (tshark's sig_hash_alg)
	sni, haveSigExt, haveVersions := false, false, false
	if !s.Empty() && s.ReadUint16LengthPrefixed(&exts) {
		for !exts.Empty() {
			var typ uint16
			var data cryptobyte.String
			if !exts.ReadUint16(&typ) || !exts.ReadUint16LengthPrefixed(&data) {
				break
			}
			extTypes = append(extTypes, typ)
			switch typ {
			case 0:
				var list, name cryptobyte.String
				var nt uint8
				if data.ReadUint16LengthPrefixed(&list) && list.ReadUint8(&nt) && list.ReadUint16LengthPrefixed(&name) && len(name) > 0 {
					sni = true
				}
			case 13, 50:
				haveSigExt = haveSigExt || typ == 13
				var l cryptobyte.String
				var list []uint16
				if data.ReadUint16LengthPrefixed(&l) {
					for len(l) >= 2 {
						var a uint16
						l.ReadUint16(&a)
						list = append(list, a)
					}
				}
				sigLists = append(sigLists, list)
			case 16:
				var l, p cryptobyte.String
				if alpn == nil && data.ReadUint16LengthPrefixed(&l) && l.ReadUint8LengthPrefixed(&p) {
					alpn = p
				}
			case 43:
				var l cryptobyte.String
				if data.ReadUint8LengthPrefixed(&l) {
					for len(l) >= 2 {
						var v uint16
						l.ReadUint16(&v)
						versions = append(versions, v)
						haveVersions = true
					}
				}
			}
		}
	}
	// get_signature_algorithms: with two sig_hash_alg lists (13 and 50) it drops the first list's
	// length from their concatenation, i.e. keeps the second list.
	switch len(sigLists) {
	case 1:
		sigalgs = sigLists[0]
	case 2:
		sigalgs = sigLists[1]
	}
	noGrease := func(l []uint16) []uint16 {
		var o []uint16
		for _, v := range l {
			if !IsGREASE(v) {
				o = append(o, v)
			}
		}
		return o
	}
	hexList := func(l []uint16) string {
		var p []string
		for _, v := range l {
			p = append(p, fmt.Sprintf("%04x", v))
		}
		return strings.Join(p, ",")
	}
	sha := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])[:12]
	}
	if haveVersions {
		vs := noGrease(versions)
		if len(vs) > 0 {
			sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
			version = vs[len(vs)-1]
		}
	}
	ver := map[uint16]string{0x0002: "s2", 0x0300: "s3", 0x0301: "10", 0x0302: "11", 0x0303: "12", 0x0304: "13"}[version]
	if ver == "" {
		ver = "00"
	}
	c := noGrease(ciphers)
	e := noGrease(extTypes)
	a := "t" + ver
	if sni {
		a += "d"
	} else {
		a += "i"
	}
	a += fmt.Sprintf("%02d%02d", min(len(c), 99), min(len(e), 99))
	al := "00"
	if len(alpn) > 0 {
		al = string(alpn)
		if len(al) > 2 {
			al = al[:1] + al[len(al)-1:]
		}
		if al[0] > 127 {
			al = "99"
		}
	}
	a += al
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	b := "000000000000"
	if len(c) > 0 {
		b = sha(hexList(c))
	}
	var es []uint16
	for _, v := range e {
		if v != 0 && v != 16 {
			es = append(es, v)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i] < es[j] })
	craw := hexList(es)
	if haveSigExt && len(noGrease(sigalgs)) > 0 {
		craw += "_" + hexList(noGrease(sigalgs))
	}
	cc := "000000000000"
	if craw != "" {
		cc = sha(craw)
	}
	return a + "_" + b + "_" + cc, nil
}

// ja4Causes names the rules of the file comment under which ours and the FoxIO value differ.
func ja4Causes(ours, ref string, h *Hello, body []byte) []string {
	var c []string
	if len(ours) != 36 || len(ref) != 36 {
		return []string{"malformed"}
	}
	if ours[1:3] != ref[1:3] {
		c = append(c, "version")
	}
	if ours[6:8] != ref[6:8] {
		c = append(c, "stopped-extensions")
	}
	if ours[8:10] != ref[8:10] {
		c = append(c, "alpn")
	}
	if ours[11:23] != ref[11:23] {
		c = append(c, "no-ciphers")
	}
	if ours[24:] != ref[24:] {
		sig := false
		for _, s := range h.SigAlgs {
			sig = sig || !IsGREASE(s)
		}
		cert := false
		for _, e := range h.Extensions {
			cert = cert || e == 50
		}
		switch {
		case !sig:
			c = append(c, "no-sigalgs")
		case cert:
			c = append(c, "sigalgs-cert")
		case ours[6:8] == ref[6:8]:
			c = append(c, "extensions-hash")
		}
	}
	return c
}

func TestReferenceFingerprints(t *testing.T) {
	if testing.Short() {
		t.Skip("reference check runs tshark and ja4.py over the corpus; skipped in -short")
	}
	if _, err := exec.LookPath("tshark"); err != nil {
		t.Skip("tshark not installed (Debian: apt-get install -y tshark); it is the JA3/JA3S reference")
	}
	script := os.Getenv("MEERKAT_JA4_PY")
	if script != "" {
		if _, err := os.Stat(script); err != nil {
			t.Fatalf("MEERKAT_JA4_PY=%s: %v", script, err)
		}
	} else {
		t.Log("MEERKAT_JA4_PY not set: JA4 not compared (FoxIO-LLC/ja4 python/ja4.py is the JA4 reference)")
	}
	pcaps, conformance := corpusTLSPcaps(t)
	// The whole corpus takes minutes (ja4.py dissects every packet with tshark): by default the
	// conformance pcaps and the first corpus ones run; MEERKAT_REF_FULL=1 runs all of them.
	if os.Getenv("MEERKAT_REF_FULL") == "" {
		const quick = 6
		if len(pcaps) > quick {
			t.Logf("comparing %d of %d pcaps (MEERKAT_REF_FULL=1 for all)", quick+len(conformance), len(pcaps)+len(conformance))
			pcaps = pcaps[:quick]
		}
	}
	pcaps = append(pcaps, conformance...)
	if only := os.Getenv("MEERKAT_REF_PCAPS"); only != "" { // comma-separated paths, for a rerun
		pcaps = strings.Split(only, ",")
	}
	results := make([]refResult, len(pcaps))
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0)) // the work is in tshark/python
	var wg sync.WaitGroup
	for i, p := range pcaps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = compareOne(p, script)
		}()
	}
	wg.Wait()
	var tot struct{ ja3, ja3s, ja4 [3]int }
	explained := map[string]int{}
	files, ja4Failed := 0, 0
	for _, r := range results {
		for _, e := range r.errs {
			t.Error(e)
		}
		if r.ja3[0]+r.ja3s[0]+r.ja4[0] > 0 {
			files++
		}
		for k := range 3 {
			tot.ja3[k] += r.ja3[k]
			tot.ja3s[k] += r.ja3s[k]
			tot.ja4[k] += r.ja4[k]
		}
		if r.ja4Failed {
			ja4Failed++
		}
		for k, v := range r.ja4Explained {
			explained[k] += v
		}
	}
	var unmatched []string
	for _, r := range results {
		unmatched = append(unmatched, r.unmatched...)
	}
	for i, u := range unmatched {
		if i == 10 {
			t.Logf("... %d more hellos without a tshark JA3/JA3S", len(unmatched)-10)
			break
		}
		t.Logf("no tshark JA3/JA3S for %s", u)
	}
	t.Logf("%d pcaps, %d with compared hellos", len(pcaps), files)
	t.Logf("JA3  (tshark %s): %d ClientHellos compared, %d equal; %d of ours had no tshark value", tsharkVersion(), tot.ja3[0], tot.ja3[1], tot.ja3[2])
	t.Logf("JA3S (tshark): %d ServerHellos compared, %d equal; %d of ours had no tshark value", tot.ja3s[0], tot.ja3s[1], tot.ja3s[2])
	if script != "" {
		var ks []string
		for k, v := range explained {
			ks = append(ks, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(ks)
		nExplained := 0
		for _, v := range explained {
			nExplained += v
		}
		t.Logf("JA4 (FoxIO ja4.py): %d ClientHellos compared, %d equal, %d differ by the documented Suricata/FoxIO rules (causes: %s); %d of ours had no ja4.py value (ja4.py aborted on %d pcaps)",
			tot.ja4[0], tot.ja4[1], tot.ja4[0]-tot.ja4[1], strings.Join(ks, ", "), tot.ja4[2], ja4Failed)
	}
	if tot.ja3[0] == 0 {
		t.Error("no hello compared")
	}
}

func tsharkVersion() string {
	out, err := exec.Command("tshark", "--version").Output()
	if err != nil {
		return "?"
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimPrefix(line, "TShark (Wireshark) ")
}

// refResult is one pcap's comparison: counts are compared, equal, ours-without-reference.
type refResult struct {
	path           string
	ja3, ja3s, ja4 [3]int
	ja4Explained   map[string]int // JA4 differences per documented cause
	ja4Failed      bool           // ja4.py gave no output for this pcap
	unmatched      []string       // our hellos tshark gave no JA3/JA3S for
	errs           []string
}

// compareOne compares one pcap's hellos with the references.
func compareOne(path, script string) (r refResult) {
	r.path = path
	r.ja4Explained = map[string]int{}
	name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
	msgs, err := tlspcap.Read(path)
	if err != nil {
		return // a capture gopacket cannot read is not a fingerprint question
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ts, err := tsharkHellos(ctx, path)
	if err != nil {
		r.errs = append(r.errs, fmt.Sprintf("%s: tshark: %v", name, err))
		return
	}
	var fx map[string][]refHello
	if script != "" {
		if fx, err = foxioHellos(ctx, script, path); err != nil {
			// ja4.py aborts on some captures (a Python exception in its JA4S/JA4X code, e.g.
			// KeyError 'version' on an SSLv2 ServerHello) before printing anything: no JA4
			// reference for this pcap; its hellos count as "ours without a reference".
			r.ja4Failed = true
			fx = map[string][]refHello{}
		}
	}
	nth := map[string]int{} // per key and type: hellos seen
	var h Hello
	for _, m := range msgs {
		if m.Type != tlspcap.ClientHello && m.Type != tlspcap.ServerHello {
			continue
		}
		client := m.Type == tlspcap.ClientHello
		if parseHello(m.Body, client, &h) != nil {
			continue
		}
		key := m.Key()
		k := fmt.Sprintf("%s/%d", key, m.Type)
		idx := nth[k]
		nth[k]++
		var refs []refHello
		for _, rh := range ts[key] {
			if rh.typ == int(m.Type) {
				refs = append(refs, rh)
			}
		}
		var ours string
		var cnt *[3]int
		if client {
			ours, cnt = string(JA3(nil, &h)), &r.ja3
		} else {
			ours, cnt = string(JA3S(nil, &h)), &r.ja3s
		}
		if idx >= len(refs) {
			cnt[2]++
			r.unmatched = append(r.unmatched, fmt.Sprintf("%s frame %d %s type %d", name, m.Frame, key, m.Type))
		} else {
			cnt[0]++
			if refs[idx].value == ours {
				cnt[1]++
			} else {
				r.errs = append(r.errs, fmt.Sprintf("%s frame %d %s: ours %q, tshark %q", name, m.Frame, key, ours, refs[idx].value))
			}
		}
		if !client || fx == nil {
			continue
		}
		fr := fx[key]
		if idx >= len(fr) {
			r.ja4[2]++
			continue
		}
		r.ja4[0]++
		ja4 := string(JA4(nil, &h))
		ref := fr[idx].value
		if ja4 == ref {
			r.ja4[1]++
			continue
		}
		spec, err := foxioJA4(m.Body)
		if err != nil || spec != ref {
			r.errs = append(r.errs, fmt.Sprintf("%s frame %d %s: JA4 ours %s, ja4.py %s, FoxIO rules give %s: unexplained",
				name, m.Frame, key, ja4, ref, spec))
			continue
		}
		for _, c := range ja4Causes(ja4, ref, &h, m.Body) {
			r.ja4Explained[c]++
		}
	}
	return r
}
