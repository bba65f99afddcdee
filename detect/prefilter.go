package detect

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/prefilter/broad"
	"github.com/meerkat-ids/meerkat/prefilter/candidates"
	"github.com/meerkat-ids/meerkat/prefilter/header"
)

// prefilterIndex picks the candidate rules of a packet (collect): the broad-rule index or
// per-protocol lists for rules without a fast pattern, the decoder-event lists, and the
// signature groups whose Hyperscan databases mark the rules with a fast pattern.
type prefilterIndex struct {
	// useBroad is false when Config.NoBroadIndex asked for the per-protocol lists.
	useBroad bool
	// nFW is the number of firewall rules (iids 0..nFW-1), which flow caches count apart.
	nFW int
	// broad indexes the rules without a fast pattern by address, port and protocol (issue #5):
	// one lookup per packet returns the ones whose header can accept it. broadIID maps the
	// index's dense numbering to iids; broadIPOnly marks the IP-only ones by that numbering.
	broad       *broad.Index
	broadIID    []uint32
	broadIPOnly []uint64
	// hdr is the header witness index over the broad rules, numbered as broad numbers them
	// (nil without one): a broad candidate whose witness does not hold for the packet is
	// left out. hdrAlways marks the broad rules without a witness.
	hdr       *header.Index
	hdrAlways []uint64
	// hasEventRules says whether any rule is in eventRules.
	hasEventRules bool
	// sgh holds the signature groups and their Hyperscan databases of pkt_data fast
	// patterns: by IP protocol, direction and server port, as Suricata groups rules, so a
	// packet is scanned only for the patterns of rules that can apply to it.
	sgh sigGroups
	// deRules lists, in iid order, the decoder-event-only rules that can match a packet
	// without an IP layer that carries decoder events (Suricata's decoder_event_sgh).
	deRules []uint32
	// always[proto] lists, in iid order, the rules without a fast pattern that apply to that IP
	// protocol; they are candidates for every packet of it. alwaysIPOnly holds the IP-only
	// ones, candidates only on the first packet of each flow direction.
	always       [256][]uint32
	alwaysIPOnly [256][]uint32
	// eventRules[ev] lists, in iid order, the rules without a fast pattern that require decoder
	// event ev (Rule.eventIndexed): candidates only for packets carrying it.
	eventRules [decode.EventCount][]uint32
}

// buildPrefilter sorts the rules into the prefilter: those with a pkt_data fast pattern into the
// signature groups' Hyperscan databases, the others into the broad-rule index (or per-protocol
// lists).
func (e *Engine) buildPrefilter() (prefilterIndex, error) {
	pf := prefilterIndex{nFW: e.fw.nFW}
	for _, r := range e.rules {
		if r.tx != nil {
			// The transaction stage finds its candidates (txProgram); one whose fast
			// pattern is payload content is found by the packet's database and handed over.
			r.hasMPM = r.tx.streamMPM && !e.cfg.NoTxPrefilter
			continue
		}
		fp, ok := r.Src.FastPattern()
		if ok && fp.Buffer == "pkt_data" && !fp.Content.Negated && len(fp.Pattern()) > 0 {
			r.hasMPM = true
			continue
		}
		if r.deOnly && r.deHeaderAny() {
			pf.deRules = append(pf.deRules, r.IID)
		}
		if r.eventIndexed() {
			pf.eventRules[r.event] = append(pf.eventRules[r.event], r.IID)
			pf.hasEventRules = true
			continue
		}
		for p := 0; p < 256; p++ {
			if r.anyProto || r.hasProto(uint8(p)) {
				if r.ipOnly {
					pf.alwaysIPOnly[p] = append(pf.alwaysIPOnly[p], r.IID)
				} else {
					pf.always[p] = append(pf.always[p], r.IID)
				}
			}
		}
	}
	if !e.cfg.NoBroadIndex {
		var brs []broad.Rule
		for p := 0; p < 256; p++ {
			pf.always[p], pf.alwaysIPOnly[p] = nil, nil
		}
		// The index's bit order is free (broadIID maps it back to iids): rules with the same
		// header fields are put side by side, so that a packet's matches fall in few words
		// and the index's summaries skip the others.
		var broadRules []*Rule
		for _, r := range e.rules {
			if !r.hasMPM && !r.eventIndexed() && r.tx == nil {
				broadRules = append(broadRules, r)
			}
		}
		sort.SliceStable(broadRules, func(i, j int) bool { return headerOrder(broadRules[i], broadRules[j]) < 0 })
		for _, r := range broadRules {
			br := broad.Rule{Src: r.src, Dst: r.dst, SrcPort: r.sp, DstPort: r.dp,
				IPv4Only: r.ipv4Only, IPv6Only: r.ipv6Only}
			if !r.anyProto {
				for p := 0; p < 256; p++ {
					if r.hasProto(uint8(p)) {
						br.Protos = append(br.Protos, uint8(p))
					}
				}
			}
			brs = append(brs, br)
			pf.broadIID = append(pf.broadIID, r.IID)
		}
		idx, err := broad.Build(brs, broad.Options{})
		if err != nil {
			return prefilterIndex{}, fmt.Errorf("detect: broad-rule index: %w", err)
		}
		if !e.cfg.NoHeaderIndex {
			hrs := make([]header.Rule, len(broadRules))
			for k, r := range broadRules {
				hrs[k] = header.FromRule(r.Src)
			}
			hx, err := header.Build(hrs, header.Options{})
			if err != nil {
				return prefilterIndex{}, fmt.Errorf("detect: header witness index: %w", err)
			}
			for k, r := range broadRules {
				r.witness = hx.Choice(k)
			}
			if hx.Stats().Witnessed > 0 {
				pf.hdr, pf.hdrAlways = hx, hx.Always()
			}
		}
		pf.broad, pf.useBroad = idx, true
		pf.broadIPOnly = make([]uint64, idx.Words())
		for k, iid := range pf.broadIID {
			if e.rules[iid].ipOnly {
				pf.broadIPOnly[k>>6] |= 1 << (k & 63)
			}
		}
	}
	var err error
	if pf.sgh, err = buildGroups(e.rules, &e.cfg); err != nil {
		return prefilterIndex{}, err
	}
	return pf, nil
}

// headerOrder orders the broad-rule index: firewall rules first, in iid order (a flow
// direction's cached candidates keep them at the front, broadCache.nFW), then the other
// rules by their header fields as written (source, destination, protocols, ports, IP
// version), which clusters them.
func headerOrder(a, b *Rule) int {
	if a.fw || b.fw {
		return cmp.Or(boolOrder(a.fw, b.fw), cmp.Compare(a.IID, b.IID))
	}
	return cmp.Or(strings.Compare(a.src.Text, b.src.Text), strings.Compare(a.dst.Text, b.dst.Text),
		boolOrder(a.anyProto, b.anyProto), slices.Compare(a.ipProtos[:], b.ipProtos[:]),
		strings.Compare(a.sp.Text, b.sp.Text), strings.Compare(a.dp.Text, b.dp.Text),
		boolOrder(a.ipv4Only, b.ipv4Only), boolOrder(a.ipv6Only, b.ipv6Only))
}

// boolOrder orders true before false.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// addEventRules adds the candidates of the decoder events a packet carries.
func (pf *prefilterIndex) addEventRules(cs *candidates.Set, events *decode.EventSet) {
	for w, word := range events {
		for word != 0 {
			ev := w<<6 | bits0(word)
			word &= word - 1
			if ev < len(pf.eventRules) {
				for _, iid := range pf.eventRules[ev] {
					cs.Add(int(iid))
				}
			}
		}
	}
}

// collectBroad adds the broad rules that may apply to p: those whose address, port and
// protocol fields accept its tuple (the broad-rule index, looked up on a flow direction's first
// packet and cached in its broadCache) and whose header witness holds (the witness index,
// looked up per packet, since the header values change; rules without a witness need none).
func (pf *prefilterIndex) collectBroad(tc *ThreadCtx, p *decode.Packet, ipOnlyDone bool) {
	cs := tc.cands
	bc := tc.broadCache()
	if bc != nil && bc.valid && !bc.overflow {
		// The flow direction's tuple does not change: the cached broad candidates (IP-only ones
		// excluded, they ran on the first packet) stand for the lookup. A known deciding
		// firewall rule stands for the firewall candidates.
		from := 0
		if bc.fwFirst != 0 {
			from = int(bc.nFW)
		}
		if !bc.witnessed {
			for _, k := range bc.keys[from:bc.n] {
				cs.Add(int(pf.broadIID[k]))
			}
			return
		}
		hw := pf.hdr.Lookup(tc.hbuf, p)
		for _, k := range bc.keys[from:bc.n] {
			if (pf.hdrAlways[k>>6]|hw[k>>6])&(1<<(k&63)) != 0 {
				cs.Add(int(pf.broadIID[k]))
			}
		}
		return
	}
	words := pf.broad.Lookup(tc.bbuf, p.SrcIP, p.DstIP, p.IPProto, p.SrcPort, p.DstPort, p.HasPorts())
	var hw []uint64
	if pf.hdr != nil {
		hw = pf.hdr.Lookup(tc.hbuf, p)
	}
	fill := bc != nil && !bc.valid // an overflowed cache is not filled again
	if fill {
		*bc = broadCache{valid: true}
	}
	for w, bits := range words {
		pass := ^uint64(0) // the rules of this word whose witness holds, or that have none
		if hw != nil {
			pass = pf.hdrAlways[w] | hw[w]
		}
		if !fill {
			bits &= pass
			if ipOnlyDone {
				bits &^= pf.broadIPOnly[w]
			}
			for ; bits != 0; bits &= bits - 1 {
				cs.Add(int(pf.broadIID[w<<6|bits0(bits)]))
			}
			continue
		}
		for bits != 0 {
			k := w<<6 | bits0(bits)
			bit := uint64(1) << (k & 63)
			bits &= bits - 1
			ipOnly := pf.broadIPOnly[w]&bit != 0
			if !ipOnly {
				if int(bc.n) < len(bc.keys) {
					bc.keys[bc.n] = uint32(k)
					bc.n++
					if int(pf.broadIID[k]) < pf.nFW { // a firewall rule
						bc.nFW++
					}
					if hw != nil && pf.hdrAlways[w]&bit == 0 {
						bc.witnessed = true
					}
				} else {
					bc.overflow = true
				}
			}
			if ipOnly && ipOnlyDone || pass&bit == 0 {
				continue
			}
			cs.Add(int(pf.broadIID[k]))
		}
	}
}

// collect fills tc.cands with the rules that may apply to p (broad index or per-protocol
// lists, and the Hyperscan hits of the packet's signature group) and reports whether there
// are any. It does not reset the alert queue.
func (pf *prefilterIndex) collect(tc *ThreadCtx, p *decode.Packet, dir flow.Direction) bool {
	cs := tc.cands
	cs.Reset()
	ipOnlyDone := tc.ipOnlyDone()
	if pf.useBroad {
		pf.collectBroad(tc, p, ipOnlyDone)
	} else {
		for _, iid := range pf.always[p.IPProto] {
			cs.Add(int(iid))
		}
		if !ipOnlyDone {
			for _, iid := range pf.alwaysIPOnly[p.IPProto] {
				cs.Add(int(iid))
			}
		}
	}
	if !p.Events.Empty() && pf.hasEventRules { // the packet's events first: they sit in a hot line
		pf.addEventRules(cs, &p.Events)
	}
	if len(p.Payload) == 0 && !p.StreamData || len(pf.sgh.dbs) == 0 {
		return tc.counted()
	}
	if g := pf.groupFor(p, dir); g.db != nil {
		// The packet payload, and the raw stream data the packet inspects (Suricata's
		// PrefilterPktPayload and PrefilterPktStream over one pattern store). Suricata's
		// stream store, which holds the REQUIRE_STREAM rules, scans the raw stream when the
		// packet has some and the packet payload only when it has none and the packet was
		// not added to the stream (src/detect-engine-payload.c: PrefilterPktStream); the
		// packet store holds the REQUIRE_PACKET rules and scans the payload
		// (src/detect-engine-mpm.c: SignatureHasPacketContent, SignatureHasStreamContent).
		// So the payload makes no stream-only rule a candidate on such a packet.
		if len(p.Payload) > 0 {
			pf.scan(tc, g, p.Payload, p.StreamData || p.StreamAdded)
		}
		if p.StreamData {
			for _, c := range tc.chunks {
				pf.scan(tc, g, c, false)
			}
		}
	}
	return tc.counted()
}

// scan runs group g's database (its protocol class's) over data and adds the rules of the
// patterns found that belong to the group (mpmGroup.members), but for the stream-only rules
// (REQUIRE_STREAM without REQUIRE_PACKET) when noStreamOnly is set.
func (pf *prefilterIndex) scan(tc *ThreadCtx, g *mpmGroup, data []byte, noStreamOnly bool) {
	cs := tc.cands
	tc.MPMScans++
	n, err := tc.scanner.Scan(g.db, data, tc.hits) // overflow cannot happen: hits holds every id
	if err != nil {
		// A failed scan must not read as "no pattern here": every rule of the group becomes
		// a candidate and its full match decides.
		tc.MPMErrors++
		n = len(g.patternRules) // hits holds the most ids of any database
		for id := range n {
			tc.hits[id] = uint32(id)
		}
	}
	members := g.members
	if noStreamOnly {
		rs := tc.e.rules
		for _, id := range tc.hits[:n] {
			for _, ref := range g.patternRules[id] {
				if members != nil && !members.has(ref.bit) {
					continue
				}
				if m := &rs[ref.iid].stream; !m.requireStream || m.requirePacket {
					cs.Add(int(ref.iid))
				}
			}
		}
		return
	}
	if members == nil {
		for _, id := range tc.hits[:n] {
			for _, ref := range g.patternRules[id] {
				cs.Add(int(ref.iid))
			}
		}
		return
	}
	for _, id := range tc.hits[:n] {
		for _, ref := range g.patternRules[id] {
			if members.has(ref.bit) {
				cs.Add(int(ref.iid))
			}
		}
	}
}
