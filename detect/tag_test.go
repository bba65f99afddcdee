package detect

import (
	"fmt"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// tagRun sends packets through an IPS-mode engine with a flow table and returns, per packet,
// "t" when it was tagged and "-" when not.
func tagRun(t *testing.T, texts []string, pkts []*decode.Packet) string {
	t.Helper()
	e, errs, err := Build(mustRules(t, texts...), Config{IPS: true})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	t.Cleanup(e.Close)
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	to := flow.Timeouts{New: time.Hour, Established: time.Hour, Closed: time.Hour}
	flows := flow.NewTable(flow.Config{TCP: to, UDP: to, ICMP: to, Default: to}, 1024, 0)
	out := ""
	for _, p := range pkts {
		f, dir := flows.Packet(p)
		e.Inspect(tc, p, f, dir)
		if tc.Tagged {
			out += "t"
		} else {
			out += "-"
		}
	}
	return out
}

func TestTagSession(t *testing.T) {
	mk := func(n int, payload string) []*decode.Packet {
		var ps []*decode.Packet
		for i := range n {
			p := tcpPacket("10.0.0.1", "10.0.0.2", 4000, 80, payload)
			if i%2 == 1 {
				p = tcpPacket("10.0.0.2", "10.0.0.1", 80, 4000, "reply")
			}
			p.Timestamp = p.Timestamp.Add(time.Duration(i) * time.Second)
			ps = append(ps, p)
		}
		return ps
	}
	trigger := func(i int, ps []*decode.Packet) []*decode.Packet {
		ps[i] = tcpPacket("10.0.0.1", "10.0.0.2", 4000, 80, "trigger")
		ps[i].Timestamp = time.Unix(1700000000, 0).Add(time.Duration(i) * time.Second)
		return ps
	}
	cases := []struct {
		name, rule string
		pkts       []*decode.Packet
		want       string
	}{
		// The triggering packet counts as the first of the tag's packets but is not tagged:
		// a 3-packet tag tags the next two (Suricata's TagHandlePacketFlow).
		{"packets", `alert tcp any any -> any any (content:"trigger"; tag:session,3,packets; sid:1;)`, trigger(1, mk(7, "x")), "--tt---"},
		{"default 256 packets", `alert tcp any any -> any any (content:"trigger"; tag:session; sid:1;)`, trigger(0, mk(5, "x")), "-tttt"},
		{"bytes", `alert tcp any any -> any any (content:"trigger"; tag:session,150,bytes; sid:1;)`, trigger(0, mk(5, "x")), "-t---"},
		{"seconds", `alert tcp any any -> any any (content:"trigger"; tag:session,2,seconds; sid:1;)`, trigger(0, mk(6, "x")), "-tt---"},
		{"no alert, no tag", `alert tcp any any -> any any (content:"nothing"; tag:session,3,packets; sid:1;)`, trigger(0, mk(4, "x")), "----"},
		{"host tag on the destination", `alert tcp any any -> any any (content:"trigger"; tag:host,3,packets,dst; sid:1;)`, trigger(0, mk(5, "x")), "-tt--"},
		{"thresholded alert installs nothing", `alert tcp any any -> any any (content:"trigger"; threshold:type threshold,track by_src,count 5,seconds 60; tag:session,3,packets; sid:1;)`, trigger(0, mk(4, "x")), "----"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := tagRun(t, []string{c.rule}, c.pkts); got != c.want {
				t.Errorf("tagged %s, want %s", got, c.want)
			}
		})
	}
}

// TestTagAfterPass: a pass rule that matches first ends alert processing, so a tagging rule
// after it installs nothing.
func TestTagAfterPass(t *testing.T) {
	var ps []*decode.Packet
	for i := range 3 {
		p := tcpPacket("10.0.0.1", "10.0.0.2", 4000, 80, "trigger")
		p.Timestamp = p.Timestamp.Add(time.Duration(i) * time.Second)
		ps = append(ps, p)
	}
	rs := []string{
		`pass tcp any any -> any any (content:"trigger"; sid:2;)`,
		`alert tcp any any -> any any (content:"trigger"; tag:session,3,packets; sid:1;)`,
	}
	if got := tagRun(t, rs, ps); got != "---" {
		t.Errorf("tagged %s, want ---", got)
	}
	if got := tagRun(t, rs[1:], ps); got != fmt.Sprint("-tt") {
		t.Errorf("without the pass: tagged %s, want -tt", got)
	}
}
