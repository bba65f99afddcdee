package detect

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
	"github.com/meerkat-ids/meerkat/rules"
)

// BenchmarkSharedVsGroupDB measures what sharing one database per protocol class (packets)
// and per list (transactions) costs per scan against the per-group databases it replaced
// (issue #19 item 5): the ET Open rules the engine loads, the payloads of the corpus captures
// (MEERKAT_BENCH_CAPTURE, a folder of captures; default the corpus's zeek-traces/http), each
// scanned with the packet's group as the engine has it ("shared": the class's database and
// the group's member filter) and with a database of the group's own patterns ("group", built
// here as the engine built it before; "group2" is a second pass of it, the control). The
// transaction lists are scanned over the same payloads (the buffers' bytes are the payloads'
// parts). The three run interleaved, 256 payloads at a time in rotating order, and report,
// for the packet databases (pkt-) and the lists' (tx-) apart, ns per payload and the median
// per-chunk ratios shared/group and group2/group (the control).
func BenchmarkSharedVsGroupDB(b *testing.B) {
	dir := ""
	for _, d := range []string{os.Getenv("MEERKAT_SHARED"), "../../shared", "/work/shared"} {
		if d == "" {
			continue
		}
		if st, err := os.Stat(filepath.Join(d, "corpus", "rules", "et-open-2024-04")); err == nil && st.IsDir() {
			dir = d
			break
		}
	}
	if dir == "" {
		b.Skip("no ET Open rules (set MEERKAT_SHARED)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "corpus", "rules", "et-open-2024-04", "*.rules"))
	sort.Strings(files)
	l := rules.NewLoader(nil)
	l.Supported = Supported
	for _, f := range files {
		l.LoadFile(f)
	}
	e, _, err := Build(l.Rules(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	capPath := os.Getenv("MEERKAT_BENCH_CAPTURE")
	if capPath == "" {
		capPath = filepath.Join(dir, "corpus", "pcaps", "zeek-traces", "http")
	}
	type item struct {
		p    *decode.Packet
		dir  flow.Direction
		data []byte
	}
	var items []item
	src, err := capture.OpenPath(capPath)
	if err != nil {
		b.Skip(err)
	}
	to := flow.Timeouts{New: 30 * time.Second, Established: 300 * time.Second, Closed: 10 * time.Second}
	flows := flow.NewTable(flow.Config{MaxFlows: 1 << 16, TCP: to, UDP: to, ICMP: to, Default: to}, 1<<14, 0)
	var dec decode.Decoder
	var fr capture.Frame
	for {
		err := src.Next(&fr)
		if err == io.EOF {
			break
		}
		if err != nil {
			continue
		}
		var p decode.Packet
		dec.Decode(&p, fr.LinkType, fr.Data)
		p.Timestamp = fr.Timestamp
		_, d := flows.Packet(&p)
		if len(p.Payload) == 0 {
			continue
		}
		cp := p
		cp.Payload = slices.Clone(p.Payload)
		items = append(items, item{&cp, d, cp.Payload})
	}
	src.Close()
	if len(items) == 0 {
		b.Skip("no payloads")
	}
	// The per-group databases, as the engine built them before: each group's own patterns.
	var oldDBs []*hs.Database
	// Recover each pattern's bytes: the engine keeps only ids, so rebuild them from the rules.
	patOf := func(iid uint32) hs.Pattern {
		fp, _ := e.rules[iid].Src.FastPattern()
		return hs.Pattern{Bytes: fp.Pattern(), Nocase: fp.Content.Nocase}
	}
	build := func(db *hs.Database, patternRules [][]mpmRef, members ruleSet) (*hs.Database, [][]mpmRef) {
		if db == nil {
			return nil, nil
		}
		var pats []hs.Pattern
		var prs [][]mpmRef
		for _, refs := range patternRules {
			var keep []mpmRef
			for _, r := range refs {
				if members == nil || members.has(r.bit) {
					keep = append(keep, r)
				}
			}
			if len(keep) == 0 {
				continue
			}
			p := patOf(keep[0].iid)
			p.ID = uint32(len(prs))
			pats = append(pats, p)
			prs = append(prs, keep)
		}
		odb, err := hs.Compile(pats, hs.Options{})
		if err != nil {
			b.Fatal(err)
		}
		oldDBs = append(oldDBs, odb)
		return odb, prs
	}
	oldPkt := make([]mpmGroup, len(e.pf.sgh.mpm))
	for gi := range e.pf.sgh.mpm {
		g := &e.pf.sgh.mpm[gi]
		oldPkt[gi].db, oldPkt[gi].patternRules = build(g.db, g.patternRules, g.members)
	}
	type txOld struct{ grp [2][]txMPM }
	oldTx := make([]txOld, len(e.tx.lists))
	for li := range e.tx.lists {
		for d := range 2 {
			for _, m := range e.tx.lists[li].grp[d] {
				var om txMPM
				om.db, om.patternRules = build(m.db, m.patternRules, m.members)
				oldTx[li].grp[d] = append(oldTx[li].grp[d], om)
			}
		}
	}
	defer func() {
		for _, db := range oldDBs {
			db.Close()
		}
	}()
	tc, err := e.NewThreadCtx(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()
	newScanner, newHits, newTxHits := tc.scanner, tc.hits, tc.tx.hits
	oldScanner, err := hs.NewScanner(oldDBs...)
	if err != nil {
		b.Fatal(err)
	}
	most := 1
	for _, db := range oldDBs {
		most = max(most, db.MaxMatches())
	}
	oldHits := make([]uint32, max(most, len(newHits), len(newTxHits)))
	// run scans items[from:to] the one way or the other, the packet databases (tx false) or
	// the lists'; it returns the candidates found.
	run := func(old, tx bool, from, to int) int {
		tc.scanner, tc.hits, tc.tx.hits = newScanner, newHits, newTxHits
		if old {
			tc.scanner, tc.hits, tc.tx.hits = oldScanner, oldHits, oldHits
		}
		n := 0
		for _, it := range items[from:to] {
			if !tx {
				tc.cands.Reset()
				gi := e.pf.groupIndex(it.p, it.dir)
				g := &e.pf.sgh.mpm[gi]
				if old {
					g = &oldPkt[gi]
				}
				if g.db != nil {
					e.pf.scan(tc, g, it.data, false)
				}
				n += tc.cands.Len()
				continue
			}
			tg := e.tx.groups.groupOf(it.p, it.dir)
			tc.tx.cands.Reset()
			for li := range e.tx.lists {
				grp := e.tx.lists[li].grp[it.dir]
				if old {
					grp = oldTx[li].grp[it.dir]
				}
				if tg < len(grp) && grp[tg].db != nil {
					e.scanTx(tc, &grp[tg], it.data)
				}
			}
			n += tc.tx.cands.Len()
		}
		return n
	}
	// The two must find the same candidates.
	for _, tx := range []bool{false, true} {
		if a, c := run(false, tx, 0, len(items)), run(true, tx, 0, len(items)); a != c {
			b.Fatalf("tx %v: shared databases found %d candidates, per-group ones %d", tx, a, c)
		}
	}
	const chunk = 256
	names := []string{"shared", "group", "group2"}
	var spent [2][3]time.Duration
	var ratios [2][2][]float64
	rot := 0
	for b.Loop() {
		for from := 0; from < len(items); from += chunk {
			to := min(from+chunk, len(items))
			for w, tx := range []bool{false, true} {
				var d [3]time.Duration
				for k := range 3 {
					i := (rot + k) % 3
					t0 := time.Now()
					run(i != 0, tx, from, to)
					d[i] = time.Since(t0)
				}
				for i := range 3 {
					spent[w][i] += d[i]
				}
				if d[1] > 0 {
					ratios[w][0] = append(ratios[w][0], float64(d[0])/float64(d[1]))
					ratios[w][1] = append(ratios[w][1], float64(d[2])/float64(d[1]))
				}
			}
			rot++
		}
	}
	tc.scanner, tc.hits, tc.tx.hits = newScanner, newHits, newTxHits
	n := float64(b.N * len(items))
	for w, what := range []string{"pkt", "tx"} {
		for i, name := range names {
			b.ReportMetric(float64(spent[w][i].Nanoseconds())/n, what+"-"+name+"-ns/payload")
		}
		for k, name := range []string{"shared/group", "group2/group"} {
			slices.Sort(ratios[w][k])
			b.ReportMetric(ratios[w][k][len(ratios[w][k])/2], what+"-"+name+"-median")
		}
	}
	b.Logf("%d payloads, %d packet databases shared / %d per group, %d tx shared / %d per group", len(items),
		len(e.pf.sgh.dbs), countDBs(oldPkt), len(e.tx.dbs), len(oldDBs)-countDBs(oldPkt))
}

func countDBs(gs []mpmGroup) int {
	n := 0
	for _, g := range gs {
		if g.db != nil {
			n++
		}
	}
	return n
}
