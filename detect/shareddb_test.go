package detect

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// sidIIDs maps the engine's rules' sids to their iids.
func sidIIDs(e *Engine) map[uint32]int {
	m := map[uint32]int{}
	for _, r := range e.Rules() {
		m[r.Src.SID] = int(r.IID)
	}
	return m
}

// TestSharedDBPortFilter: the port groups of a protocol class share one database of pkt_data
// fast patterns, and a port-specific rule whose pattern is in that database is still not a
// candidate on another port (RulesGroupByPorts: a rule belongs only to the groups of the ports
// its header admits). The payload holds every rule's pattern, so the database hits them all.
func TestSharedDBPortFilter(t *testing.T) {
	texts := []string{
		`alert tcp any any -> any 8080 (content:"secret"; sid:1;)`,
		`alert tcp any any -> any any (content:"open"; sid:2;)`,
		`alert tcp any any -> any 443 (content:"tls-only"; sid:3;)`,
		`alert tcp any any -> any [8080,9000] (content:"open"; sid:4;)`, // shares sid 2's pattern
	}
	for i := range 10 { // enough single ports for several groups
		texts = append(texts, fmt.Sprintf(`alert tcp any any -> any %d (content:"p%d"; sid:%d;)`, 2000+i, i, 100+i))
	}
	// sgh-mpm-context full (a database per group) must find the same candidates.
	for _, perGroup := range []bool{false, true} {
		sharedDBPortFilter(t, texts, perGroup)
	}
}

func sharedDBPortFilter(t *testing.T, texts []string, perGroup bool) {
	e, errs, err := Build(mustRules(t, texts...), Config{Grouping: Grouping{PerGroupMPM: perGroup}})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	iid := sidIIDs(e)
	g80, g8080 := e.pf.sgh.tcp[flow.ToServer][80], e.pf.sgh.tcp[flow.ToServer][8080]
	if g80 == g8080 {
		t.Fatalf("ports 80 and 8080 share group %d: the test shows nothing", g80)
	}
	if a, b := e.pf.sgh.mpm[g80].db, e.pf.sgh.mpm[g8080].db; a == nil || (a != b) != perGroup {
		t.Fatalf("per group %v: ports 80 and 8080 databases %p %p", perGroup, a, b)
	}
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	payload := "secret open tls-only p0 p1 p2 p3 p4 p5 p6 p7 p8 p9"
	tests := []struct {
		port      uint16
		want, not []uint32
	}{
		{80, []uint32{2}, []uint32{1, 3, 4, 100, 105}},
		{8080, []uint32{1, 2, 4}, []uint32{3, 100}},
		{443, []uint32{2, 3}, []uint32{1, 4}},
		{9000, []uint32{2, 4}, []uint32{1, 3}},
		{2005, []uint32{2, 105}, []uint32{1, 100, 104}},
	}
	for _, tt := range tests {
		p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, tt.port, payload)
		e.pf.collect(tc, p, flow.ToServer)
		for _, sid := range tt.want {
			if !tc.cands.Has(iid[sid]) {
				t.Errorf("per group %v: port %d: sid %d is not a candidate", perGroup, tt.port, sid)
			}
		}
		for _, sid := range tt.not {
			if tc.cands.Has(iid[sid]) {
				t.Errorf("per group %v: port %d: sid %d (written for other ports) is a candidate", perGroup, tt.port, sid)
			}
		}
	}
}

// TestSharedTxDBPortFilter: the same for a transaction buffer: http.uri has one database
// per direction shared by the tx groups, and the hits of rules written for other ports are
// left out of the packet's group.
func TestSharedTxDBPortFilter(t *testing.T) {
	texts := []string{
		`alert http any any -> any 8080 (http.uri; content:"/secret"; sid:1;)`,
		`alert http any any -> any any (http.uri; content:"/open"; sid:2;)`,
		`alert http any any -> any [8080,8888] (http.uri; content:"/open"; sid:3;)`,
		`alert http any any -> any 81 (http.method; content:"GET"; sid:4;)`,
	}
	e, errs, err := Build(mustRules(t, texts...), Config{})
	if err != nil || len(errs) > 0 {
		t.Fatalf("build: %v %v", err, errs)
	}
	defer e.Close()
	iid := sidIIDs(e)
	tp := &e.tx
	var uri *txList
	for li := range tp.lists {
		if tp.lists[li].buf.Name == "http.uri" {
			uri = &tp.lists[li]
		}
	}
	if uri == nil {
		t.Fatal("no http.uri list")
	}
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	var db any
	tests := []struct {
		port      uint16
		want, not []uint32
	}{
		{80, []uint32{2}, []uint32{1, 3}},
		{8080, []uint32{1, 2, 3}, nil},
		{8888, []uint32{2, 3}, []uint32{1}},
	}
	for _, tt := range tests {
		p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, tt.port, "")
		m := &uri.grp[flow.ToServer][tp.groups.groupOf(p, flow.ToServer)]
		if m.db == nil {
			t.Fatalf("port %d: no http.uri database", tt.port)
		}
		if db == nil {
			db = m.db
		} else if db != any(m.db) {
			t.Errorf("port %d: a database of its own", tt.port)
		}
		tc.tx.cands.Reset()
		e.scanTx(tc, m, []byte("/secret/open"))
		for _, sid := range tt.want {
			if !tc.tx.cands.Has(iid[sid]) {
				t.Errorf("port %d: sid %d is not a candidate", tt.port, sid)
			}
		}
		for _, sid := range tt.not {
			if tc.tx.cands.Has(iid[sid]) {
				t.Errorf("port %d: sid %d (written for other ports) is a candidate", tt.port, sid)
			}
		}
	}
	// Port 82's group has no rule with a fast pattern in http.method: not scanned at all.
	for li := range tp.lists {
		if l := &tp.lists[li]; l.buf.Name == "http.method" {
			p := tcpPacket("10.0.0.1", "10.0.0.2", 40000, 82, "")
			if m := &l.grp[flow.ToServer][tp.groups.groupOf(p, flow.ToServer)]; m.db != nil {
				t.Errorf("port 82 scans http.method, which only a port-81 rule uses")
			}
		}
	}
}

// TestDatabasesGrowWithBuffers: a synthetic rule set with G port groups and B buffers (one
// rule per port and buffer, plus pkt_data rules per port) builds B transaction databases and
// one packet database, whatever G: the databases grow with the buffers, not with groups times
// buffers (issue #19 item 5).
func TestDatabasesGrowWithBuffers(t *testing.T) {
	bufs := []string{"http.uri", "http.method", "http.user_agent", "http.host"}
	for _, nb := range []int{1, 2, 4} {
		for _, ng := range []int{3, 12, 30} {
			var texts []string
			sid := 1
			for g := range ng {
				port := 1000 + 3*g
				for _, b := range bufs[:nb] {
					texts = append(texts, fmt.Sprintf(`alert http any any -> any %d (%s; content:"%s-%d"; sid:%d;)`, port, b, b, g, sid))
					sid++
				}
				texts = append(texts, fmt.Sprintf(`alert tcp any any -> any %d (content:"pkt-%d"; sid:%d;)`, port, g, sid))
				sid++
			}
			e, errs, err := Build(mustRules(t, texts...), Config{})
			if err != nil || len(errs) > 0 {
				t.Fatalf("build: %v %v", err, errs)
			}
			groups := 0
			for _, st := range e.GroupStats() {
				if st.Proto == "tcp" && st.ToServer {
					groups = st.Groups
				}
			}
			if want := min(ng, 40); groups < want {
				t.Errorf("G=%d B=%d: %d tcp to-server groups, want at least %d", ng, nb, groups, want)
			}
			if len(e.tx.sets(flow.ToServer)) < ng {
				t.Errorf("G=%d B=%d: %d tx groups, want at least %d", ng, nb, len(e.tx.sets(flow.ToServer)), ng)
			}
			if got := len(e.tx.dbs); got != nb {
				t.Errorf("G=%d B=%d: %d tx databases, want %d (one per buffer)", ng, nb, got, nb)
			}
			if got := len(e.pf.sgh.dbs); got != 1 {
				t.Errorf("G=%d B=%d: %d packet databases, want 1", ng, nb, got)
			}
			e.Close()
		}
	}
}
