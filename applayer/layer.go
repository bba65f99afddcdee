package applayer

import (
	"fmt"

	"github.com/meerkat-ids/meerkat/flow"
)

// Config is the app layer's configuration: per protocol whether it runs, and the settings
// the framework itself reads.
type Config struct {
	// Protocols holds app-layer.protocols.<name> per protocol.
	Protocols [protoMax]ProtoConfig
	// Midstream is stream.midstream: pattern detection also tries the other direction's
	// patterns (AppLayerProtoDetectPMGetProto).
	Midstream bool
	// Inline says the engine runs inline (IPS): the "detection done" flag goes on the
	// detecting packet rather than the next packet of the direction (FlagPacketFlow).
	Inline bool
}

// ProtoConfig is one protocol's app-layer.protocols.<name> settings.
type ProtoConfig struct {
	// Enabled: detection runs for the protocol ("yes" or "detection-only").
	Enabled bool
	// DetectionOnly: detection sets the protocol but no parser runs ("detection-only").
	DetectionOnly bool
	// Ports says per direction (flow.ToServer: the destination port, detection-ports dp)
	// which ports the protocol's probing parsers run on; nil uses Parser.Ports.
	Ports [2]func(port uint16) bool
	// UDPPorts are Ports for the UDP side of a protocol on both transports (Parser.UDP:
	// detection-ports, else udp.detection-ports); nil uses Parser.UDP.Ports.
	UDPPorts [2]func(port uint16) bool
	// Conf is what Parser.Configure made of the protocol's config node.
	Conf any
}

// DefaultConfig enables every registered protocol with its built-in settings (what an
// absent app-layer section gives), configuring each parser from no config node.
func DefaultConfig() (*Config, error) {
	c := &Config{}
	for p, ps := range parsers {
		if ps == nil {
			continue
		}
		pc := ProtoConfig{Enabled: true}
		if ps.Configure != nil {
			conf, err := ps.Configure(nil)
			if err != nil {
				return nil, fmt.Errorf("app-layer.protocols.%s: %w", ps.Proto, err)
			}
			pc.Conf = conf
		}
		c.Protocols[p] = pc
	}
	return c, nil
}

// Counters are the app layer's statistics (stats app_layer.*).
type Counters struct {
	// Flows counts flows per detected protocol (app_layer.flow.<proto>; ProtoFailed is
	// app_layer.flow.failed_tcp).
	Flows [protoMax]uint64
	// Txs counts transactions per protocol (app_layer.tx.<proto>).
	Txs [protoMax]uint64
	// ParserErrors counts parse errors per protocol (app_layer.error.<proto>.parser).
	ParserErrors [protoMax]uint64
	// FailedUDP counts the UDP flows whose detection failed (app_layer.flow.failed_udp).
	FailedUDP uint64
	// FlowsUDP, TxsUDP and ParserErrorsUDP are Flows, Txs and ParserErrors of UDP flows.
	FlowsUDP, TxsUDP, ParserErrorsUDP [protoMax]uint64
}

// Add adds o to c.
func (c *Counters) Add(o *Counters) {
	for i := range c.Flows {
		c.Flows[i] += o.Flows[i]
		c.Txs[i] += o.Txs[i]
		c.ParserErrors[i] += o.ParserErrors[i]
		c.FlowsUDP[i] += o.FlowsUDP[i]
		c.TxsUDP[i] += o.TxsUDP[i]
		c.ParserErrorsUDP[i] += o.ParserErrorsUDP[i]
	}
	c.FailedUDP += o.FailedUDP
}

// Each calls fn with every counter's stats name and value, in Suricata's naming, for the
// protocols that have a parser.
func (c *Counters) Each(fn func(name string, v uint64)) {
	for p := range protoMax {
		c.each(p, "app_layer.flow.", "", &c.Flows, &c.FlowsUDP, fn)
	}
	fn("app_layer.flow.failed_tcp", c.Flows[ProtoFailed])
	if c.udp() {
		fn("app_layer.flow.failed_udp", c.FailedUDP)
	}
	for p := range protoMax {
		c.each(p, "app_layer.tx.", "", &c.Txs, &c.TxsUDP, fn)
	}
	for p := range protoMax {
		c.each(p, "app_layer.error.", ".parser", &c.ParserErrors, &c.ParserErrorsUDP, fn)
	}
}

// each writes protocol p's counter of tcp and udp: a protocol on both transports has one per
// transport (<proto>_tcp, <proto>_udp: AppLayerSetupCounters), a UDP-only one the UDP count.
func (c *Counters) each(p Proto, prefix, suffix string, tcp, udp *[protoMax]uint64, fn func(string, uint64)) {
	ps := parsers[p]
	switch {
	case ps == nil:
	case ps.OnTCP() && ps.OnUDP():
		fn(prefix+p.String()+"_tcp"+suffix, tcp[p])
		fn(prefix+p.String()+"_udp"+suffix, udp[p])
	case ps.OnUDP():
		fn(prefix+p.String()+suffix, udp[p])
	default:
		fn(prefix+p.String()+suffix, tcp[p])
	}
}

func (c *Counters) flows(udp bool) *[protoMax]uint64 {
	if udp {
		return &c.FlowsUDP
	}
	return &c.Flows
}

func (c *Counters) txs(udp bool) *[protoMax]uint64 {
	if udp {
		return &c.TxsUDP
	}
	return &c.Txs
}

func (c *Counters) errors(udp bool) *[protoMax]uint64 {
	if udp {
		return &c.ParserErrorsUDP
	}
	return &c.ParserErrors
}

// Layer is one worker's app layer: the flows' app-layer states, indexed by flow slot, and
// the protocols' state pools. Not safe for concurrent use.
type Layer struct {
	cfg   *Config
	flows flow.Slots[flowApp]
	pools [protoMax]Pool
	// maxDepth is per direction the most bytes pattern detection looks at.
	maxDepth [2]int
	// probeDP and probeSP are per protocol the ports its probing parsers run on, matched
	// against the flow's destination and source port (detection-ports dp / sp; the
	// parser's built-in Ports are dp ports); a nil dp matcher with no built-in ports lets
	// the prober run on every port.
	probeDP, probeSP [protoMax]func(port uint16) bool
	// release is told of every tx about to be freed (detection's per-tx state).
	release  func(td *TxData)
	noDetect bool
	// frameTypes are per protocol the frame types rules use (EnableFrames); freeFrames the
	// frame containers of ended flows, for reuse.
	frameTypes [protoMax]uint64
	freeFrames []*Frames
	// udp, udpDP and udpSP are per protocol its UDP detection and the ports of its UDP
	// probing parsers (nil: the protocol does not run over UDP).
	udp          [protoMax]*UDPDetect
	udpDP, udpSP [protoMax]func(port uint16) bool
	Counters     Counters
}

// NoDetection says that no detection runs: transactions are freed without waiting for
// detection's inspect ids.
func (l *Layer) NoDetection() { l.noDetect = true }

// NoInspection says that detection no longer inspects f (a flow passed by a pass rule:
// Suricata's FlowSetNoPayloadInspectionFlag sets APP_LAYER_PARSER_NO_INSPECTION), so its
// transactions are freed once logged, without waiting for inspect ids.
func (l *Layer) NoInspection(f *flow.Flow) { l.flows.At(f).noInspect = true }

// OnRelease sets fn to be called for every transaction before it is freed or its state is
// reset (detection releases its per-tx state: ThreadCtx.ReleaseTx).
func (l *Layer) OnRelease(fn func(td *TxData)) { l.release = fn }

// releaseTxs tells the release hook of s's transactions with ids below below (all: ^0).
func (l *Layer) releaseTxs(s State, below uint64) {
	if l.release == nil || s == nil {
		return
	}
	for i, n := 0, s.TxCount(); i < n; i++ {
		td := s.TxAt(i).TxData()
		if td.ID >= below {
			return
		}
		l.release(td)
	}
}

// flowApp is a flow's app-layer state: FlowApp plus what protocol detection and the
// update flags keep between packets.
type flowApp struct {
	FlowApp
	pmDone, ppDone [2]bool
	// detected is the stream's "app proto detection completed" flag per direction.
	detected [2]bool
	// firstData is data_first_seen_dir: the direction whose data came first (0 none, 1+dir),
	// sentFirst once data went to a parser.
	firstData int8
	sentFirst bool
	// updated and updateNext are the flow's FLOW_TS/TC_APP_UPDATED and _UPDATE_NEXT flags;
	// parsedNow says the current packet made the parser take data (app_update_direction).
	updated, updateNext [2]bool
	parsedNow           [2]bool
	// doneNext is the detection-done flag handed to the next packet of a direction (IDS).
	doneNext [2]bool
	// ppMask masks probing parsers (by protocol bit) that failed, per direction.
	ppMask [2]uint64
	// changing is FLOW_CHANGE_PROTO; old is the state from before the change, kept for its
	// transactions' logs until the flow ends.
	changing  bool
	old       State
	oldParser *Parser
	counted   bool
	// noInspect: detection no longer inspects the flow (NoInspection).
	noInspect bool
	// eofSent says the parser was told the direction ended.
	eofSent [2]bool
	// txSeen is one past the highest tx id counted.
	txSeen uint64
	// dp and sp are the flow's ports as the probing parsers see them (dp is the change's
	// port after a protocol change that named one: protodetect_dp).
	dp, sp     uint16
	changePort uint16
	// streamOff is per direction the stream offset of the next byte Data is given: the
	// bytes consumed and the gaps so far (frames are placed by it).
	streamOff [2]uint64
	// frames are the flow's frames, nil while none is tracked.
	frames *Frames
	// udp says the flow is UDP (its counters are the UDP ones).
	udp bool
	// needed is per direction the parser's last Result.Needed (the stream's data_required):
	// the parser is not called again until that many bytes are there (or the stream ends).
	needed [2]int
	// peDone is per direction FLOW_PE_DONE (the expectation table was asked); expected is
	// the data of the expectation the flow fulfilled, for its parser (expect.go).
	peDone   [2]bool
	expected any
}

// NewLayer makes a worker's app layer.
func NewLayer(cfg *Config) *Layer {
	l := &Layer{cfg: cfg}
	for p, ps := range parsers {
		if ps == nil || !cfg.Protocols[p].Enabled {
			continue
		}
		if ps.NewPool != nil && !cfg.Protocols[p].DetectionOnly {
			l.pools[p] = ps.NewPool(cfg.Protocols[p].Conf)
		}
		for d := range 2 {
			for _, pat := range ps.Patterns[d] {
				l.maxDepth[d] = max(l.maxDepth[d], pat.Depth, pat.Offset+len(pat.Bytes))
			}
		}
		l.probeDP[p], l.probeSP[p] = cfg.Protocols[p].Ports[0], cfg.Protocols[p].Ports[1]
		if l.probeDP[p] == nil && l.probeSP[p] == nil && ps.Ports != "" {
			if pl, ok := parsePorts(ps.Ports); ok {
				l.probeDP[p] = pl.has
			}
		}
	}
	l.initUDP()
	return l
}

// App returns f's app-layer view (for detection and logging of the current packet).
func (l *Layer) App(f *flow.Flow) *FlowApp { return &l.flows.At(f).FlowApp }

// Begin starts a packet of f in direction dir: the flags earlier packets left for this
// direction take effect (FlowWorker's FLOW_*_APP_UPDATE_NEXT), the packet's own app-layer
// events and flags are cleared.
func (l *Layer) Begin(f *flow.Flow, dir Dir) *FlowApp { return l.begin(f, dir, false) }

// BeginPseudo is Begin for a flow-end pseudo packet: it does not take the detection-done
// flag a detection left for the next packet of the direction, as pseudo packets do not
// pass FlowHandlePacketUpdate.
func (l *Layer) BeginPseudo(f *flow.Flow, dir Dir) *FlowApp { return l.begin(f, dir, true) }

func (l *Layer) begin(f *flow.Flow, dir Dir, pseudo bool) *FlowApp {
	fa := l.flows.At(f)
	if fa.updateNext[dir] {
		fa.updated[dir], fa.updateNext[dir] = true, false
	}
	fa.parsedNow = [2]bool{}
	fa.Events = 0
	fa.DetectDone = [2]bool{}
	if fa.doneNext[dir] && !pseudo {
		fa.DetectDone[dir], fa.doneNext[dir] = true, false
	}
	fa.Updated = [2]bool{}
	return &fa.FlowApp
}

// DataResult is what the app layer did with one direction's data.
type DataResult struct {
	// Consumed is how many bytes the stream may release (ConsumeApp).
	Consumed int
	// Disable says the app layer gave up on the flow: the stream stops reassembling for it
	// (StreamTcpDisableAppLayer).
	Disable bool
	// Err is a parser error (app-layer.error-policy applies to the packet).
	Err error
	// Reversed says detection reversed the flow (a midstream pickup whose first data was
	// the server's): the caller swaps the flow's and the packet's direction and the
	// session's streams; the data given was parsed as the other direction's.
	Reversed bool
	// TriggerRaw is the parser's Result.TriggerRaw (in the flow's directions after any
	// reversal): the stream is to inspect that direction's raw data now
	// (StreamTcpReassembleTriggerRawInspection).
	TriggerRaw [2]bool
	// Changing says the parser's data started a protocol change: the caller hands no more
	// data on this packet (ReassembleUpdateAppLayer stops on FlowChangeProto); detection of
	// the new protocol starts with the next call.
	Changing bool
	// MinInspect is the stream's minimal inspection depth the parser set for the data's
	// direction (after any reversal), when MinInspectSet (MinInspecter: HTTP at a message
	// start, StreamTcpReassemblySetMinInspectDepth).
	MinInspect    uint64
	MinInspectSet bool
	// Flags are the parser-state flags the parser set (Result.Flags); NoInspection also
	// sets Disable.
	Flags ParserFlags
}

// Data hands the app layer n bytes of direction d of TCP flow f during a packet of
// direction pktDir (AppLayerHandleTCPData): protocol detection while d's protocol is
// unknown, then the parser. midstream and synAck say how the session was picked up.
func (l *Layer) Data(f *flow.Flow, pktDir, d Dir, data []byte, flags Flags, synAck bool) DataResult {
	fa := l.flows.At(f)
	r := l.dataTCP(f, fa, pktDir, d, data, flags, synAck)
	if r.Reversed {
		d = 1 - d
	}
	fa.streamOff[d] += uint64(max(r.Consumed, 0))
	return r
}

func (l *Layer) dataTCP(f *flow.Flow, fa *flowApp, pktDir, d Dir, data []byte, flags Flags, synAck bool) DataResult {
	if fa.Disabled {
		return DataResult{Consumed: len(data)}
	}
	if flags&EOF != 0 && len(data) == 0 {
		// The direction closed with nothing new: the parser hears of it once
		// (ReassembleUpdateAppLayer's STREAM_EOF call without data).
		if fa.eofSent[d] {
			return DataResult{}
		}
		fa.eofSent[d] = true
	}
	if fa.firstData == 0 && len(data) > 0 && !fa.sentFirst {
		fa.firstData = int8(d) + 1
	}
	fa.dp, fa.sp = f.DstPort, f.SrcPort
	if fa.changing && fa.changePort != 0 {
		fa.dp = fa.changePort
	}
	switch {
	case fa.ProtoDir[d] == ProtoUnknown && !fa.detected[d]:
		return l.detectTCP(f, fa, pktDir, d, data, flags, synAck)
	case fa.changing:
		return l.detectTCP(f, fa, pktDir, d, data, flags, synAck)
	}
	return l.parse(fa, pktDir, d, data, flags)
}

// Gap tells the app layer that n bytes of direction d are missing (STREAM_GAP).
func (l *Layer) Gap(f *flow.Flow, pktDir, d Dir, n uint64) DataResult {
	fa := l.flows.At(f)
	r := l.gap(fa, pktDir, d, n)
	fa.streamOff[d] += n
	return r
}

func (l *Layer) gap(fa *flowApp, pktDir, d Dir, n uint64) DataResult {
	if fa.Disabled {
		return DataResult{}
	}
	if fa.ProtoDir[d] == ProtoUnknown {
		fa.detected[d] = true
		if fa.Proto == ProtoUnknown {
			l.disable(fa, pktDir)
			return DataResult{Disable: true}
		}
	}
	if fa.changing {
		fa.changing = false
		l.disable(fa, pktDir)
		return DataResult{Disable: true}
	}
	if fa.State == nil {
		return DataResult{}
	}
	fa.parsedNow[d] = true
	fa.needed[d] = 0 // a gap consumes data_required
	l.handFrames(fa, d)
	r := fa.State.Gap(d, n)
	l.countTxs(fa)
	if r.Err != nil {
		return l.parseError(fa, r.Err)
	}
	return DataResult{TriggerRaw: r.TriggerRaw}
}

// detectTCP is TCPProtoDetect: find the protocol of direction d, then parse.
func (l *Layer) detectTCP(f *flow.Flow, fa *flowApp, pktDir, d Dir, data []byte, flags Flags, synAck bool) DataResult {
	if fa.changing {
		// A protocol change asked for new detection; up to 4096 bytes (FLOW_PROTO_CHANGE_MAX_DEPTH).
		p, _ := l.detectProto(f, fa, d, data, flags)
		if p == ProtoUnknown {
			if len(data) >= 4096 || flags&EOF != 0 {
				fa.changing = false
				l.disable(fa, pktDir)
				return DataResult{Disable: true}
			}
			return DataResult{}
		}
		fa.changing = false
		fa.ProtoDir = [2]Proto{}
		fa.ProtoDir[d], fa.Proto = p, p
		l.flagDone(fa, pktDir, d) // TCPProtoDetect's FlagPacketFlow, on the new protocol too
		if fa.ProtoExpect != ProtoUnknown && p != fa.ProtoExpect {
			fa.Events.Set(EventUnexpectedProtocol)
			if fa.ProtoExpect == ProtoTLS {
				fa.Events.Set(EventNoTLSAfterStartTLS)
			}
		}
		l.startState(f, fa, p)
		// The new parser runs while the change is still pending: a change it asks for now
		// is refused (TCPProtoDetect parses before AppLayerHandleTCPData unsets
		// FLOW_CHANGE_PROTO).
		fa.changing = true
		r := l.parse(fa, pktDir, d, data, flags)
		fa.changing = false
		return r
	}
	p, reverse := l.detectProto(f, fa, d, data, flags)
	other := &fa.ProtoDir[1-d]
	if p != ProtoUnknown {
		fa.ProtoDir[d] = p
		switch {
		case *other != ProtoUnknown && *other != ProtoFailed && *other != p:
			fa.Events.Set(EventMismatchProtocolBothDirections)
			if !fa.sentFirst && d == flow.ToClient {
				fa.Proto = p
			} else {
				fa.Proto = *other
			}
		case fa.Proto == ProtoUnknown:
			fa.Proto = p
		}
		fa.detected[d] = true
		l.flagDone(fa, pktDir, d)
		// A midstream pickup (not on a SYN/ACK) that found the protocol by the other
		// direction's pattern is reversed (PacketSwap, FlowSwap) while the other side is
		// still unknown: the caller swaps the flow, the packet and the streams.
		reversed := reverse && flags&Midstream != 0 && !synAck && *other == ProtoUnknown
		if reversed {
			fa.ProtoDir[d], fa.ProtoDir[1-d] = ProtoUnknown, p
			fa.pmDone[d], fa.pmDone[1-d] = fa.pmDone[1-d], fa.pmDone[d]
			fa.ppDone[d], fa.ppDone[1-d] = fa.ppDone[1-d], fa.ppDone[d]
			fa.detected[d], fa.detected[1-d] = false, true
			// FlowSwap swaps the FLOW_PROTO_DETECT_*_DONE flags and PacketSwap the packet's.
			fa.doneNext[0], fa.doneNext[1] = fa.doneNext[1], fa.doneNext[0]
			fa.DetectDone[0], fa.DetectDone[1] = fa.DetectDone[1], fa.DetectDone[0]
			d, pktDir = 1-d, 1-pktDir
		}
		if *other != ProtoUnknown && !fa.counted {
			l.countFlow(fa)
		}
		if fa.State == nil && fa.Parser == nil {
			l.startState(f, fa, fa.Proto)
		}
		if pf := l.parserOf(fa.Proto); pf != nil && pf.FirstData != nil && !fa.sentFirst {
			if fa.firstData != 0 && Dir(fa.firstData-1) != *pf.FirstData {
				fa.Events.Set(EventWrongDirectionFirstData)
				l.disable(fa, pktDir)
				return DataResult{Disable: true}
			}
		}
		if !fa.counted {
			l.countFlow(fa)
		}
		r := l.parse(fa, pktDir, d, data, flags)
		r.Reversed = reversed
		return r
	}
	// Not (yet) found in this direction.
	if midstream := flags&Midstream != 0; midstream && !synAck && d == flow.ToServer && fa.pmDone[d] && fa.ppDone[d] {
		l.disable(fa, pktDir) // midstream and to_server detection failed: give up
		return DataResult{Disable: true}
	}
	if *other != ProtoUnknown && *other != ProtoFailed {
		if fa.pmDone[d] && fa.ppDone[d] {
			// Only the other direction was recognised: this one goes to its parser too.
			fa.Events.Set(EventDetectProtocolOnlyOneDirection)
			fa.ProtoDir[d] = ProtoFailed
			fa.detected[d] = true
			l.flagDone(fa, pktDir, d)
			if !fa.counted {
				l.countFlow(fa)
			}
			return l.parse(fa, pktDir, d, data, flags)
		}
		if flags&EOF != 0 {
			fa.ProtoDir[d] = fa.Proto
			fa.detected[d] = true
			if !fa.counted {
				l.countFlow(fa)
			}
		}
		return DataResult{}
	}
	// Both sides unknown: give up when both are done, or on too much data
	// (TCPProtoDetectCheckBailConditions; the window/depth part of its limit is left out).
	const limit = 100000
	if (fa.pmDone[0] && fa.ppDone[0] || fa.detected[0]) && (fa.pmDone[1] && fa.ppDone[1] || fa.detected[1]) {
		l.disable(fa, pktDir)
		return DataResult{Disable: true}
	}
	if len(data) > 2*limit || fa.pmDone[d] && fa.ppDone[d] && len(data) > limit {
		fa.Events.Set(EventProtoDetectionSkipped)
		l.disable(fa, pktDir)
		return DataResult{Disable: true}
	}
	return DataResult{}
}

// detectProto runs the PM and PP steps on data of direction d (AppLayerProtoDetectGetProto);
// reverse says the match was a pattern of the other direction.
func (l *Layer) detectProto(f *flow.Flow, fa *flowApp, d Dir, data []byte, flags Flags) (Proto, bool) {
	if !fa.pmDone[d] {
		if p, st := l.pm(d, data, d); st == pmFound {
			fa.pmDone[d] = true
			return p, false
		} else if st == pmFailed && !l.cfg.Midstream {
			fa.pmDone[d] = true
		} else if l.cfg.Midstream {
			p2, st2 := l.pm(1-d, data, d)
			if st2 == pmFound {
				fa.pmDone[d] = true
				return p2, true
			}
			if st == pmFailed && st2 == pmFailed {
				fa.pmDone[d] = true
			}
		}
	}
	if !fa.ppDone[d] {
		p, rev, done := l.pp(fa, d, data)
		if done {
			fa.ppDone[d] = true
		}
		if p != ProtoUnknown {
			fa.ppDone[d] = true
			return p, rev
		}
	}
	if p := l.expected(f, fa, d); p != ProtoUnknown {
		return p, false
	}
	_ = flags
	return ProtoUnknown, false
}

type pmState uint8

const (
	pmNeedMore pmState = iota
	pmFound
	pmFailed
)

// pm matches the patterns registered for direction pd against data of direction d.
func (l *Layer) pm(pd Dir, data []byte, d Dir) (Proto, pmState) {
	for p, ps := range parsers {
		if ps == nil || !l.cfg.Protocols[p].Enabled || ps.IPProto != 6 {
			continue
		}
		for _, pat := range ps.Patterns[pd] {
			if pat.match(data) {
				return Proto(p), pmFound
			}
		}
	}
	if len(data) >= l.maxDepth[pd] {
		return ProtoUnknown, pmFailed
	}
	return ProtoUnknown, pmNeedMore
}

// match reports whether the pattern is in data within its offset and depth.
func (pat *Pattern) match(data []byte) bool {
	end := min(len(data), max(pat.Depth, pat.Offset+len(pat.Bytes)))
	for i := pat.Offset; i+len(pat.Bytes) <= end; i++ {
		ok := true
		for j, c := range pat.Bytes {
			x := data[i+j]
			if pat.NoCase {
				x, c = lower(x), lower(c)
			}
			if x != c {
				ok = false
				break
			}
		}
		if ok && (pat.Confirm == nil || pat.Confirm(data)) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// pp runs the probing parsers of direction d (AppLayerProtoDetectPPGetProto): those
// registered for the flow's destination port or its source port; done says no candidate is
// left.
func (l *Layer) pp(fa *flowApp, d Dir, data []byte) (Proto, bool, bool) {
	p, rev, done, tried := l.ppPorts(fa, d, data, fa.dp, fa.sp, 0)
	if p == ProtoUnknown && l.cfg.Midstream {
		// No match and midstream: the ports are tried the other way round
		// (AppLayerProtoDetectPPGetProto's again_midstream), for a flow picked up by the
		// server's packet.
		var done2 bool
		p, rev, done2, _ = l.ppPorts(fa, d, data, fa.sp, fa.dp, tried)
		done = done && done2
	}
	return p, rev, done
}

// ppPorts is one round of pp with the destination and source ports dp and sp, skipping the
// protocols in skip; tried are the protocols whose ports matched.
func (l *Layer) ppPorts(fa *flowApp, d Dir, data []byte, dp, sp uint16, skip uint64) (Proto, bool, bool, uint64) {
	left := false
	var tried uint64
	for p, ps := range parsers {
		if ps == nil || ps.Probe[d] == nil && ps.Probe[1-d] == nil || !l.cfg.Protocols[p].Enabled ||
			fa.ppMask[d]&(1<<p) != 0 || skip&(1<<p) != 0 {
			continue
		}
		if dpm, spm := l.probeDP[p], l.probeSP[p]; (dpm != nil || spm != nil) &&
			!(dpm != nil && dpm(dp) || spm != nil && spm(sp)) {
			continue // not on this flow's ports
		}
		tried |= 1 << p
		if len(data) < ps.ProbeMin {
			left = true
			continue
		}
		probe, other := ps.Probe[d], false
		if probe == nil {
			// Only the other direction has a prober: tried with stream.midstream on, a
			// match meaning the flow is the other way round (AppLayerProtoDetectPPGetProto's
			// midstream retry).
			if !l.cfg.Midstream {
				continue
			}
			probe, other = ps.Probe[1-d], true
		}
		switch probe(data[:min(len(data), max(ps.ProbeMax, ps.ProbeMin))]) {
		case ProbeMatch:
			return Proto(p), other, true, tried
		case ProbeMatchReverse:
			return Proto(p), !other, true, tried
		case ProbeFail:
			fa.ppMask[d] |= 1 << p
		default:
			if ps.ProbeMax > 0 && len(data) >= ps.ProbeMax {
				fa.ppMask[d] |= 1 << p
			} else {
				left = true
			}
		}
	}
	return ProtoUnknown, false, !left, tried
}

// flagDone sets the detection-done flag for direction d (FlagPacketFlow): the flow's
// FLOW_PROTO_DETECT_TS/TC_DONE, which the next packet of that direction takes
// (FlowHandlePacketUpdate); inline the current packet also gets it when it is of that
// direction. In IDS TCP the detecting packet itself never carries it.
func (l *Layer) flagDone(fa *flowApp, pktDir, d Dir) {
	if l.cfg.Inline && pktDir == d {
		fa.DetectDone[d] = true
	}
	fa.doneNext[d] = true
}

func (l *Layer) parserOf(p Proto) *Parser {
	if p < protoMax {
		return parsers[p]
	}
	return nil
}

// startState gives the flow a parser state for protocol p (none when detection-only).
func (l *Layer) startState(f *flow.Flow, fa *flowApp, p Proto) {
	fa.Parser = l.parserOf(p)
	if pool := l.pools[p]; pool != nil {
		fa.State = pool.Get(FlowInfo{F: f, Expected: fa.expected})
	}
}

// parse hands data to the flow's parser (AppLayerParserParse).
func (l *Layer) parse(fa *flowApp, pktDir, d Dir, data []byte, flags Flags) DataResult {
	fa.sentFirst = true
	if fa.State == nil {
		if fa.Parser != nil && l.cfg.Protocols[fa.Proto].DetectionOnly {
			// detection-only: the first data handed over disables the app layer.
			fa.Disabled = true
			return DataResult{Consumed: len(data), Disable: true}
		}
		return DataResult{Consumed: len(data)}
	}
	if n := fa.needed[d]; n > 0 && len(data) < n && flags&EOF == 0 {
		// StreamTcpReassembleAppLayer: less than data_required is there, the parser waits
		// (and the app layer is not updated by this packet).
		return DataResult{}
	}
	fa.needed[d] = 0
	fa.parsedNow[d] = true
	l.handFrames(fa, d)
	r := fa.State.Parse(d, data, flags)
	if r.Err == nil && r.Needed > len(data)-min(r.Consumed, len(data)) {
		fa.needed[d] = r.Needed
	}
	l.countTxs(fa)
	var minDepth uint64
	var minSet bool
	if mi, ok := fa.State.(MinInspecter); ok {
		minDepth, minSet = mi.TakeMinInspect(d)
	}
	res := l.parsed(fa, d, data, r)
	res.MinInspect, res.MinInspectSet = minDepth, minSet
	return res
}

// parsed is what parse makes of the parser's result r for data of direction d.
func (l *Layer) parsed(fa *flowApp, d Dir, data []byte, r Result) DataResult {
	if r.Err != nil {
		res := l.parseError(fa, r.Err)
		res.Consumed = len(data) // AppLayerParserParse's error still moves the app progress
		res.TriggerRaw = r.TriggerRaw
		return res
	}
	if r.Change != nil {
		if fa.changing {
			// AppLayerRequestProtocolChange: a change is pending already (say SMTP's
			// STARTTLS, and the protocol found instead is HTTP asking for HTTP/2): refused,
			// and the parser is told so.
			if cr, ok := fa.State.(ChangeRefuser); ok {
				cr.ProtocolChangeRefused(d)
			}
			return DataResult{Consumed: min(r.Consumed, len(data)), TriggerRaw: r.TriggerRaw}
		}
		fa.changing = true
		fa.ProtoOrig, fa.ProtoExpect = fa.Proto, r.Change.Expect
		fa.changePort = r.Change.Port
		if fa.old != nil && fa.oldParser != nil && l.pools[fa.oldParser.Proto] != nil {
			// A second change: the state from before the first one goes
			// (AppLayerParserStateProtoCleanup of the original state).
			l.releaseTxs(fa.old, ^uint64(0))
			l.pools[fa.oldParser.Proto].Put(fa.old)
		}
		fa.old, fa.oldParser = fa.State, fa.Parser
		fa.State, fa.Parser = nil, nil
		fa.pmDone, fa.ppDone, fa.detected, fa.ppMask = [2]bool{}, [2]bool{}, [2]bool{}, [2]uint64{}
		return DataResult{Consumed: min(r.Consumed, len(data)), TriggerRaw: r.TriggerRaw, Changing: true}
	}
	res := DataResult{Consumed: min(r.Consumed, len(data)), TriggerRaw: r.TriggerRaw, Flags: r.Flags}
	if r.Flags&NoInspection != 0 {
		// AppLayerParserParse: APP_LAYER_PARSER_NO_INSPECTION sets the parser's EOF and
		// disables the flow's app layer (StreamTcpDisableAppLayer); the protocol stays.
		fa.Disabled = true
		res.Disable = true
	}
	return res
}

// parseError disables the app layer for the flow after a parser error; its transactions
// stay to be logged.
func (l *Layer) parseError(fa *flowApp, err error) DataResult {
	l.Counters.errors(fa.udp)[fa.Proto]++
	fa.Disabled = true
	return DataResult{Disable: true, Err: err}
}

// disable is DisableAppLayer: detection failed, the flow's protocol is "failed".
func (l *Layer) disable(fa *flowApp, pktDir Dir) {
	fa.Disabled = true
	fa.Proto = ProtoFailed
	if !fa.counted {
		l.countFlow(fa)
	}
	for d := range 2 {
		if fa.ProtoDir[d] != ProtoFailed {
			if fa.ProtoDir[d] == ProtoUnknown {
				fa.ProtoDir[d] = ProtoFailed
			}
			l.flagDone(fa, pktDir, Dir(d))
		}
	}
}

func (l *Layer) countFlow(fa *flowApp) {
	fa.counted = true
	l.Counters.flows(fa.udp)[fa.Proto]++
}

// countTxs counts the transactions the parser created.
func (l *Layer) countTxs(fa *flowApp) {
	if n := fa.State.TxCount(); n > 0 {
		if id := fa.State.TxAt(n-1).TxData().ID + 1; id > fa.txSeen {
			l.Counters.txs(fa.udp)[fa.Proto] += id - fa.txSeen
			fa.txSeen = id
		}
	}
}

// Ready sets, after the stream and app layer handled a packet of direction dir, whether
// detection inspects the flow's transactions on it (FlowApp.Updated[dir]) and the flags the
// packet leaves for later ones (PacketAppUpdate2FlowFlags).
func (l *Layer) Ready(f *flow.Flow, dir Dir) *FlowApp {
	fa := l.flows.At(f)
	own, opp := fa.parsedNow[dir], fa.parsedNow[1-dir]
	switch {
	case own && opp:
		fa.updated = [2]bool{true, true}
		fa.updateNext = [2]bool{true, true}
	case own:
		fa.updated[dir] = true
	case opp:
		fa.updated[1-dir] = true
		fa.updateNext[dir] = true
	}
	fa.Updated[dir] = own || opp || fa.updated[dir]
	return &fa.FlowApp
}

// End finishes a packet of direction dir after detection and logging: the direction's
// update flag is cleared (pseudo packets and updated directions) and the transactions every
// side is done with are freed. release is called for each tx about to be freed (detection's
// per-tx state). logged says whether the loggers are done with a tx.
func (l *Layer) End(f *flow.Flow, dir Dir, pseudo, established bool, done func(tx Tx) bool) {
	fa := l.flows.At(f)
	if !(pseudo || fa.updated[dir]) || !established {
		return
	}
	fa.updated[dir] = false
	if fa.State == nil || fa.Parser == nil {
		return
	}
	below := uint64(0)
	n := fa.State.TxCount()
	for i := range n {
		fa.State.TxAt(i).TxData().Updated[dir] = false // AppLayerParserTransactionsCleanup
	}
	for i := range n {
		tx := fa.State.TxAt(i)
		td := tx.TxData()
		// A direction the tx is never inspected in does not wait for that direction's
		// inspect id (AppLayerParserTransactionsCleanup takes SKIP_INSPECT as inspected).
		if td.Progress[0] < fa.Parser.Complete[0] || td.Progress[1] < fa.Parser.Complete[1] ||
			!l.noDetect && !fa.noInspect && (td.ID >= fa.InspectID[0] && !td.SkipInspect[0] || td.ID >= fa.InspectID[1] && !td.SkipInspect[1]) || !done(tx) {
			break
		}
		below = td.ID + 1
	}
	if below > 0 {
		l.releaseTxs(fa.State, below)
		fa.State.FreeTxs(below)
	}
}

// NeedsFlush says per direction whether f's transactions still need a flow-end pseudo
// packet of that direction (FlowNeedsReassembly's app-layer part): a live transaction
// detection has not finished with in that direction (below the parser's tx count), or,
// without detection, one the loggers are not done with.
func (l *Layer) NeedsFlush(f *flow.Flow, done func(tx Tx) bool) [2]bool {
	fa := l.flows.At(f)
	var out [2]bool
	if fa.State == nil || !fa.Proto.Known() {
		return out
	}
	n := fa.State.TxCount()
	if n == 0 {
		return out
	}
	total := fa.State.TxAt(n-1).TxData().ID + 1
	if !l.noDetect && !fa.noInspect {
		for d := range 2 {
			out[d] = fa.InspectID[d] < total
		}
		return out
	}
	for i := range n {
		if !done(fa.State.TxAt(i)) {
			return [2]bool{true, true}
		}
	}
	return out
}

// Release ends f's app-layer state: its parser states go back to their pools.
func (l *Layer) Release(f *flow.Flow) {
	fa := l.flows.At(f)
	if fa.State != nil && fa.Parser != nil && l.pools[fa.Parser.Proto] != nil {
		l.releaseTxs(fa.State, ^uint64(0))
		l.pools[fa.Parser.Proto].Put(fa.State)
	}
	if fa.old != nil && fa.oldParser != nil && l.pools[fa.oldParser.Proto] != nil {
		l.releaseTxs(fa.old, ^uint64(0))
		l.pools[fa.oldParser.Proto].Put(fa.old)
	}
	l.releaseFrames(fa)
	*fa = flowApp{}
}

// Old returns the parser and state from before a protocol change (nil if none), whose
// transactions are still to be logged.
func (l *Layer) Old(f *flow.Flow) (*Parser, State) {
	fa := l.flows.At(f)
	return fa.oldParser, fa.old
}
