package decode

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// sharedPath finds /work/shared from the package directory (the repository may be checked
// out elsewhere: then the tests that need captures skip).
func sharedPath(t testing.TB, rel string) string {
	t.Helper()
	for _, base := range []string{"..", "/work/main"} {
		p := filepath.Join(base, rel)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("capture %s not found (the shared reference material is not checked out here)", rel)
	return ""
}

// readCapture calls fn for every record of a pcap or pcapng file (gzip-compressed or not).
func readCapture(path string, fn func(lt LinkType, data []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReader(f)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return err
		}
		r = gz
	}
	br := bufio.NewReader(r)
	magic, err := br.Peek(4)
	if err != nil {
		return err
	}
	if string(magic) == "\x0a\x0d\x0d\x0a" {
		ng, err := pcapgo.NewNgReader(br, pcapgo.DefaultNgReaderOptions)
		if err != nil {
			return err
		}
		for {
			data, ci, err := ng.ReadPacketData()
			if err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			lt := ng.LinkType()
			if ci.InterfaceIndex >= 0 && ci.InterfaceIndex < ng.NInterfaces() {
				if intf, err := ng.Interface(ci.InterfaceIndex); err == nil {
					lt = intf.LinkType
				}
			}
			fn(LinkType(lt), data)
		}
	}
	pr, err := pcapgo.NewReader(br)
	if err != nil {
		return err
	}
	for {
		data, _, err := pr.ReadPacketData()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		fn(LinkType(pr.LinkType()), data)
	}
}

// TestConformanceCaptures decodes captures of Suricata's verify suite whose expected result
// depends on the decoder.
func TestConformanceCaptures(t *testing.T) {
	t.Run("udp-trailing-data", func(t *testing.T) {
		// The UDP length (72) is below the IP payload (86): Suricata cuts the payload and
		// decodes the ports (12594), so the "port 0" rule of the test must not match.
		path := sharedPath(t, "../shared/conformance/tests/udp-trailing-data/input.pcap")
		var d Decoder
		var p Packet
		n := 0
		if err := readCapture(path, func(lt LinkType, data []byte) {
			n++
			d.Decode(&p, lt, data)
			if !p.IsUDP() || p.SrcPort != 12594 || p.DstPort != 12594 || len(p.Payload) != 64 || !p.Events.Empty() {
				t.Errorf("udp %v ports %d %d payload %d events %v", p.IsUDP(), p.SrcPort, p.DstPort, len(p.Payload), names(eventsOf(&p)))
			}
		}); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Errorf("%d packets", n)
		}
	})
	for _, name := range []string{"ipv6-malformed-fragments-35/frag-35.pcap", "ipv6-malformed-fragments-36/frag-36.pcap"} {
		t.Run(name, func(t *testing.T) {
			// The rule of these tests matches the ICMPv6 parameter problem (type 4, code 0)
			// the target sent back; the fragments before it carry nested fragment headers.
			path := sharedPath(t, "../shared/conformance/tests/"+name)
			var d Decoder
			var p Packet
			paramProblems, fragments := 0, 0
			if err := readCapture(path, func(lt LinkType, data []byte) {
				d.Decode(&p, lt, data)
				if p.IsICMP() && p.IPVersion == 6 && p.ICMPType == 4 && p.ICMPCode == 0 {
					paramProblems++
				}
				if p.IsFragment {
					fragments++
				}
			}); err != nil {
				t.Fatal(err)
			}
			if paramProblems != 1 || fragments == 0 {
				t.Errorf("%d ICMPv6 parameter problems, %d fragments", paramProblems, fragments)
			}
		})
	}
}

// TestCorpusCaptures decodes every capture of the shared corpus: nothing may panic, and for
// every packet gopacket decodes as TCP or UDP over IP (no fragment, no decoding error) this
// decoder must find the same addresses, ports and payload length.
func TestCorpusCaptures(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the corpus walk")
	}
	root := sharedPath(t, "../shared/corpus/pcaps")
	var files []string
	filepath.WalkDir(root, func(path string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && (strings.Contains(de.Name(), ".pcap") || strings.HasSuffix(de.Name(), ".cap")) {
			files = append(files, path)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skip("no captures in the corpus")
	}
	var d Decoder
	d.Checksums = ChecksumAll
	var p Packet
	compared, mismatches := 0, 0
	for _, path := range files {
		err := readCapture(path, func(lt LinkType, data []byte) {
			d.Decode(&p, lt, data)
			gp := gopacket.NewPacket(data, layers.LinkType(lt), gopacket.DecodeOptions{Lazy: true, NoCopy: true})
			if gp.ErrorLayer() != nil {
				return
			}
			var sport, dport uint16
			var payload int
			isTCP := false
			if l, ok := gp.Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
				sport, dport, payload, isTCP = uint16(l.SrcPort), uint16(l.DstPort), len(l.Payload), true
			} else if l, ok := gp.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
				sport, dport, payload = uint16(l.SrcPort), uint16(l.DstPort), len(l.Payload)
			} else {
				return
			}
			// Only plain IPv4/IPv6 over the link layers decoded here: no tunnels (gopacket
			// decodes their inner packets), no LLC/SNAP or PPP, no fragments, nothing cut by
			// the snap length.
			nl := gp.NetworkLayer()
			if nl == nil || gp.Metadata().Truncated {
				return
			}
			ipLayers := 0
			for _, l := range gp.Layers() {
				switch l.LayerType() {
				case layers.LayerTypeIPv4, layers.LayerTypeIPv6:
					ipLayers++
				case layers.LayerTypeLLC, layers.LayerTypePPP, layers.LayerTypePPPoE, layers.LayerTypeMPLS,
					layers.LayerTypeGRE, layers.LayerTypeIPv6Fragment, layers.LayerTypeFDDI:
					return
				}
			}
			if ipLayers != 1 {
				return
			}
			if ip4, ok := nl.(*layers.IPv4); ok && (ip4.Flags&layers.IPv4MoreFragments != 0 || ip4.FragOffset != 0) {
				return
			}
			// Where gopacket is more lenient than Suricata: IP total length 0 (captures of
			// segmentation offload) and a wrong version nibble make the IPv4 header invalid.
			if p.Events.Has(EventIPv4IPLenSmallerThanHlen) || p.Events.Has(EventIPv4WrongIPVersion) {
				return
			}
			compared++
			src, dst := nl.NetworkFlow().Endpoints()
			ok := p.HasL4 && p.IsTCP() == isTCP && p.SrcPort == sport && p.DstPort == dport &&
				len(p.Payload) == payload && string(src.Raw()) == string(p.SrcIP.AsSlice()) && string(dst.Raw()) == string(p.DstIP.AsSlice())
			if !ok {
				mismatches++
				if mismatches <= 10 {
					t.Errorf("%s: gopacket tcp=%v %d->%d payload %d; decode tcp=%v %d->%d payload %d events %v",
						path, isTCP, sport, dport, payload, p.IsTCP(), p.SrcPort, p.DstPort, len(p.Payload), names(eventsOf(&p)))
				}
			}
		})
		if err != nil {
			t.Logf("%s: %v", path, err)
		}
	}
	c := &d.Counters
	t.Logf("%d files, %d packets (%d ipv4, %d ipv6, %d tcp, %d udp, %d invalid), %d compared with gopacket, %d mismatches",
		len(files), c.Pkts, c.IPv4, c.IPv6, c.TCP, c.UDP, c.Invalid, compared, mismatches)
	if c.IPv4 == 0 || c.IPv6 == 0 || c.TCP == 0 || c.UDP == 0 || c.SLL == 0 || c.SLL2 == 0 || c.Null == 0 ||
		c.Raw == 0 || c.VLAN == 0 || compared < 1000 {
		t.Errorf("decoded too little: %+v", c)
	}
}

// TestChecksumCaptures checks the good/bad checksum pairs of Zeek's test traces. The
// variants whose pseudo-header takes its address from an extension header (home address
// option, type 0 routing header) are left out: like Suricata, the decoder always uses the
// addresses of the fixed header.
func TestChecksumCaptures(t *testing.T) {
	dir := sharedPath(t, "../shared/corpus/pcaps/zeek-traces/chksums")
	for _, name := range []string{
		"ip4-bad-chksum.pcap", "ip4-icmp-bad-chksum.pcap", "ip4-icmp-good-chksum.pcap",
		"ip4-tcp-bad-chksum.pcap", "ip4-tcp-good-chksum.pcap", "ip4-udp-bad-chksum.pcap",
		"ip4-udp-good-chksum.pcap", "ip6-icmp6-bad-chksum.pcap", "ip6-icmp6-good-chksum.pcap",
		"ip6-tcp-bad-chksum.pcap", "ip6-tcp-good-chksum.pcap", "ip6-udp-bad-chksum.pcap",
		"ip6-udp-good-chksum.pcap",
	} {
		t.Run(name, func(t *testing.T) {
			d := Decoder{Checksums: ChecksumAll}
			var p Packet
			bad := 0
			if err := readCapture(filepath.Join(dir, name), func(lt LinkType, data []byte) {
				d.Decode(&p, lt, data)
				if p.IPv4ChecksumBad || p.L4ChecksumBad {
					bad++
				}
			}); err != nil {
				t.Fatal(err)
			}
			if want := strings.Contains(name, "-bad-"); (bad > 0) != want || d.Counters.Pkts == 0 {
				t.Errorf("%d of %d packets with a bad checksum", bad, d.Counters.Pkts)
			}
		})
	}
}
