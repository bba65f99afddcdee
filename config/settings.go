package config

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Suricata's compiled-in default paths, used when the configuration does not name the file.
const (
	// DefaultClassificationFile is the classification-file default.
	DefaultClassificationFile = "/etc/suricata/classification.config"
	// DefaultReferenceFile is the reference-config-file default.
	DefaultReferenceFile = "/etc/suricata/reference.config"
	// DefaultThresholdFile is the threshold-file default.
	DefaultThresholdFile = "/etc/suricata/threshold.config"
	// DefaultLogDir is the default-log-dir default.
	DefaultLogDir = "/var/log/suricata/"
)

// DefaultActionOrder is the order in which rule actions are processed when the configuration
// has no action-order.
var DefaultActionOrder = []string{"pass", "drop", "reject", "alert"}

// Settings is the typed view of a configuration: everything the engine reads, with Suricata's
// defaults filled in for missing keys. Where Suricata refuses a value (and exits), Settings
// returns an error naming the key; where Suricata only warns and falls back to a default, the
// default is used and a line is added to Warnings.
type Settings struct {
	// Vars are the rule variables.
	Vars Vars

	// DefaultRulePath is default-rule-path; empty when not set (rule-files entries are then
	// used as given, relative to the current directory). See RulePath.
	DefaultRulePath string
	// RuleFiles is rule-files, as written (names may be globs).
	RuleFiles []string
	// ClassificationFile is classification-file (default DefaultClassificationFile).
	ClassificationFile string
	// ReferenceConfigFile is reference-config-file (default DefaultReferenceFile).
	ReferenceConfigFile string
	// ThresholdFile is threshold-file (default DefaultThresholdFile; Suricata only warns when
	// this file does not exist).
	ThresholdFile string
	// DefaultLogDir is default-log-dir (default DefaultLogDir); -l overrides it.
	DefaultLogDir string

	// Outputs are the entries of outputs.
	Outputs Outputs
	// Stats is the top-level stats section.
	Stats Stats

	// PacketAlertMax is packet-alert-max: at most this many alerts are kept per packet
	// (1..255, default 15; an invalid value falls back to 15 with a warning).
	PacketAlertMax int
	// ActionOrder is action-order, default DefaultActionOrder.
	ActionOrder []string
	// Runmode is runmode (single, workers or autofp), lower-cased; empty when not set, in
	// which case the capture method's default applies.
	Runmode string
	// MaxPendingPackets is max-pending-packets (1..65534, default 1024).
	MaxPendingPackets int
	// HostMode is host-mode: auto (default), router or sniffer-only.
	HostMode string
	// ExceptionPolicy is exception-policy (default "auto"), as written.
	ExceptionPolicy string
	// MPMAlgo is mpm-algo (default "auto"), SPMAlgo spm-algo (default "auto").
	MPMAlgo, SPMAlgo string

	// Flow is the flow section.
	Flow Flow
	// FlowTimeouts is the flow-timeouts section.
	FlowTimeouts FlowTimeouts
	// VLANUseForTracking is vlan.use-for-tracking (default true).
	VLANUseForTracking bool
	// Stream is the stream section.
	Stream Stream
	// PcapFileChecksumChecks is pcap-file.checksum-checks: "auto" (default), "yes" or "no",
	// read as Suricata reads it: any other word leaves its mode at zero, which is "no".
	PcapFileChecksumChecks string
	// AppLayerEnabled holds the app-layer.protocols.<proto>.enabled and
	// app-layer.protocols.<proto>.<ipproto>.enabled values as written, keyed by what follows
	// "app-layer.protocols." ("dns.enabled", "dns.tcp.enabled"); a key written without a value
	// maps to "". rules.DisabledAppProtos reads it as Suricata does.
	AppLayerEnabled map[string]string
	// CaptureChecksumValidation is capture.checksum-validation as written ("" when absent):
	// without -k, "none" and "all" act as -k none and -k all.
	CaptureChecksumValidation string
	// Defrag is the defrag section.
	Defrag Defrag
	// Host is the host table section.
	Host Host
	// Detect is the detect section.
	Detect Detect
	// PCRE is the pcre section.
	PCRE PCRE
	// Firewall is the firewall section.
	Firewall Firewall
	// EngineAnalysis is the engine-analysis section.
	EngineAnalysis EngineAnalysis
	// Logging is the logging section.
	Logging Logging

	// AFPacket are the entries of af-packet, kept as raw nodes for the capture code.
	AFPacket []*Node
	// NFQ is the nfq section (nil when absent), kept raw for the capture code.
	NFQ *Node

	// Warnings are the values Suricata would have warned about and replaced by a default.
	Warnings []string
}

// RulePath returns where an entry of rule-files is read from: a relative name is joined to
// default-rule-path when that is set (Suricata's DetectLoadCompleteSigPath), otherwise it is
// used as given. Files named with -s or -S are not passed through it: Suricata opens them as
// given.
func (s *Settings) RulePath(file string) string {
	if s.DefaultRulePath == "" || filepath.IsAbs(file) {
		return file
	}
	return filepath.Join(s.DefaultRulePath, file)
}

// Stats is the top-level stats section.
type Stats struct {
	// Enabled is enabled (default true; only a false word disables it).
	Enabled bool
	// Interval is interval (default 8 s).
	Interval time.Duration
	// DecoderEvents is decoder-events [yes].
	DecoderEvents bool
	// StreamEvents is stream-events [no].
	StreamEvents bool
	// DecoderEventsPrefix is decoder-events-prefix [decoder.event].
	DecoderEventsPrefix string
}

// Flow is the flow section.
type Flow struct {
	// Memcap is memcap (default 128 MiB).
	Memcap uint64
	// HashSize is hash-size (default 65536).
	HashSize int
	// Prealloc is prealloc (default 10000).
	Prealloc int
	// EmergencyRecovery is emergency-recovery, a percentage 1..100 (default 30).
	EmergencyRecovery int
	// Managers and Recyclers are managers and recyclers (default 1 each).
	Managers, Recyclers int
	// MemcapPolicy is memcap-policy as written ("" when not set).
	MemcapPolicy string
}

// Timeouts are the flow timeouts of one protocol.
type Timeouts struct {
	// New, Established, Closed and Bypassed are the timeouts of a flow in each state (keys new,
	// established, closed, bypassed).
	New, Established, Closed, Bypassed time.Duration
	// EmergencyNew, EmergencyEstablished, EmergencyClosed and EmergencyBypassed apply while the
	// flow engine is in emergency mode (keys emergency-new, ...).
	EmergencyNew, EmergencyEstablished, EmergencyClosed, EmergencyBypassed time.Duration
}

// FlowTimeouts is the flow-timeouts section. Each protocol starts from Suricata's compiled-in
// defaults for that protocol (flow-private.h) and each key present in its section replaces one
// value; a key missing from tcp does NOT come from the default section (Suricata does not do
// that). The default section applies to protocols other than TCP, UDP and ICMP. Suricata
// reads no closed/emergency-closed for UDP and ICMP (always 0); Meerkat ignores them too.
type FlowTimeouts struct {
	// Default is flow-timeouts.default, for protocols other than TCP, UDP and ICMP.
	Default Timeouts
	// TCP, UDP and ICMP are flow-timeouts.tcp, .udp and .icmp (ICMP covers ICMPv6 too).
	TCP, UDP, ICMP Timeouts
}

// For returns the timeouts of an IP protocol number (6 TCP, 17 UDP, 1 and 58 ICMP, else
// Default).
func (f *FlowTimeouts) For(ipProto uint8) Timeouts {
	switch ipProto {
	case 6:
		return f.TCP
	case 17:
		return f.UDP
	case 1, 58:
		return f.ICMP
	}
	return f.Default
}

// timeouts builds a Timeouts from whole seconds.
func timeouts(n, e, c, b, en, ee, ec, eb time.Duration) Timeouts {
	return Timeouts{New: n * time.Second, Established: e * time.Second, Closed: c * time.Second,
		Bypassed: b * time.Second, EmergencyNew: en * time.Second, EmergencyEstablished: ee * time.Second,
		EmergencyClosed: ec * time.Second, EmergencyBypassed: eb * time.Second}
}

// Suricata's compiled-in flow timeouts (flow-private.h).
var (
	defaultTimeoutsDefault = timeouts(30, 300, 0, 100, 10, 100, 0, 50)
	defaultTimeoutsTCP     = timeouts(30, 300, 10, 100, 10, 100, 5, 50)
	defaultTimeoutsUDP     = timeouts(30, 300, 0, 100, 10, 100, 0, 50)
)

// Stream is the stream section.
type Stream struct {
	// Memcap is memcap (default 64 MiB).
	Memcap uint64
	// ChecksumValidation is checksum-validation (default true).
	ChecksumValidation bool
	// Midstream is midstream (default false).
	Midstream bool
	// Inline is inline: "auto" (default: inline in IPS mode), "yes" or "no".
	Inline string
	// AsyncOneside is async-oneside (default false); DropInvalid is drop-invalid (default
	// true); Bypass is bypass (default false).
	AsyncOneside, DropInvalid, Bypass bool
	// MemcapPolicy and MidstreamPolicy are memcap-policy and midstream-policy as written.
	MemcapPolicy, MidstreamPolicy string
	// Reassembly is stream.reassembly.
	Reassembly Reassembly
	// Enabled is Meerkat's stream.enabled (default true): false runs without the stream
	// engine (TCP inspected packet by packet), for measuring what the stream engine costs.
	Enabled bool
	// HostOSPolicy is host-os-policy: per OS policy name, the networks it applies to, in
	// file order.
	HostOSPolicy []HostOSPolicy
}

// HostOSPolicy is one entry of host-os-policy: an OS name (windows, linux, ...) and the
// addresses or networks written for it.
type HostOSPolicy struct {
	Policy string
	Nets   []string
}

// InlineFor reports whether streams are handled inline, given whether the engine runs in IPS
// (or firewall) mode.
func (s *Stream) InlineFor(ips bool) bool {
	if s.Inline == "auto" {
		return ips
	}
	return s.Inline == "yes"
}

// Reassembly is the stream.reassembly section.
type Reassembly struct {
	// Memcap is memcap (default 256 MiB).
	Memcap uint64
	// Depth is depth (0, unlimited, when absent: StreamTcpReassemblyConfig; the shipped
	// suricata.yaml sets 1 MiB).
	Depth uint64
	// ToServerChunkSize and ToClientChunkSize are toserver-chunk-size and
	// toclient-chunk-size (default 2560 each, at most 65535).
	ToServerChunkSize, ToClientChunkSize uint64
	// RandomizeChunkSize is randomize-chunk-size (default true).
	RandomizeChunkSize bool
	// RandomizeChunkRange is randomize-chunk-range, in percent (default 10).
	RandomizeChunkRange int
	// Raw is raw (default true): keep raw stream data for stream inspection.
	Raw bool
	// SegmentPrealloc is segment-prealloc (default 2048).
	SegmentPrealloc int
	// CheckOverlapDifferentData is check-overlap-different-data (default false).
	CheckOverlapDifferentData bool
	// MemcapPolicy is memcap-policy as written.
	MemcapPolicy string
	// UrgentPolicy and UrgentOOBLimitPolicy are urgent.policy and urgent.oob-limit-policy
	// as written ("" when absent: Suricata's built-in inline).
	UrgentPolicy, UrgentOOBLimitPolicy string
	// MaxRegions is max-regions (default 8).
	MaxRegions int
}

// Defrag is the defrag section.
type Defrag struct {
	// Memcap is memcap (default 32 MiB).
	Memcap uint64
	// HashSize is hash-size (default 65536); Trackers is trackers (default 65535); MaxFrags is
	// max-frags (default 65535).
	HashSize, Trackers, MaxFrags int
	// Prealloc is prealloc (default true).
	Prealloc bool
	// Timeout is timeout (default 60 s).
	Timeout time.Duration
}

// Host is the host table section (used by thresholds, tags, hostbits).
type Host struct {
	// HashSize is hash-size (default 4096); Prealloc is prealloc (default 1000).
	HashSize, Prealloc int
	// Memcap is memcap (default 32 MiB).
	Memcap uint64
}

// Detect is the detect section.
type Detect struct {
	// Profile is profile: low, medium (default), high or custom ("lowest" and "highest", the
	// legacy names, read as low and high).
	Profile string
	// CustomToClientGroups and CustomToServerGroups are custom-values.toclient-groups and
	// toserver-groups, used with the custom profile: 0..65535, 0 meaning no limit; missing or
	// invalid (a warning) they are 20 and 40, as in Suricata's DetectEngineCtxLoadConf.
	CustomToClientGroups, CustomToServerGroups int
	// TCPPriorityPorts and UDPPriorityPorts are grouping.tcp-priority-ports and
	// udp-priority-ports (or the legacy tcp-whitelist and udp-whitelist), port lists whose
	// rule groups are kept apart first. Defaults: "53, 80, 139, 443, 445, 1433, 3306, 3389,
	// 6666, 6667, 8080" and "53, 135, 5060". The detection engine parses them.
	TCPPriorityPorts, UDPPriorityPorts string
	// SGHMPMContext is sgh-mpm-context: auto (default), single or full.
	SGHMPMContext string
	// SGHMPMCaching is sgh-mpm-caching (default false).
	SGHMPMCaching bool
	// SGHMPMCachingPath is sgh-mpm-caching-path (default /var/lib/suricata/cache/sgh).
	SGHMPMCachingPath string
	// SGHMPMCachingMaxAge is sgh-mpm-caching-max-age: cached databases unused for longer are
	// pruned after start-up; 0 disables pruning. Default (also for a value that does not
	// parse, with a warning) 7 days, as in Suricata 8.
	SGHMPMCachingMaxAge time.Duration
	// InspectionRecursionLimit is inspection-recursion-limit (default 3000).
	InspectionRecursionLimit int
	// StreamTxLogLimit is stream-tx-log-limit (default 4).
	StreamTxLogLimit int
	// GuessApplayerTx is guess-applayer-tx (default false).
	GuessApplayerTx bool
	// PrefilterDefault is prefilter.default: mpm (default) or auto.
	PrefilterDefault string
	// Thresholds is detect.thresholds.
	Thresholds Thresholds
}

// Thresholds is detect.thresholds.
type Thresholds struct {
	// HashSize is hash-size (default 16384).
	HashSize int
	// Memcap is memcap (default 16 MiB).
	Memcap uint64
}

// PCRE is the pcre section.
type PCRE struct {
	// MatchLimit is match-limit (default 3500); MatchLimitRecursion is match-limit-recursion
	// (default 1500).
	MatchLimit, MatchLimitRecursion int
}

// EngineAnalysis is the engine-analysis section (used with --engine-analysis).
type EngineAnalysis struct {
	// RulesFastPattern is rules-fast-pattern and Rules is rules; both false when missing, as
	// in Suricata (the stock configuration sets both).
	RulesFastPattern, Rules bool
}

// Logging is the logging section.
type Logging struct {
	// DefaultLogLevel is default-log-level (default "notice"), lower-cased.
	DefaultLogLevel string
}

// Settings builds the typed view of the configuration. The error, when not nil, joins one
// Error per bad key.
func (c *Config) Settings() (*Settings, error) {
	b := &builder{c: c}
	s := &Settings{}

	s.Vars = b.vars()
	s.DefaultRulePath = b.str("default-rule-path", "")
	s.RuleFiles = b.list("rule-files")
	s.ClassificationFile = b.str("classification-file", DefaultClassificationFile)
	s.ReferenceConfigFile = b.str("reference-config-file", DefaultReferenceFile)
	s.ThresholdFile = b.str("threshold-file", DefaultThresholdFile)
	s.DefaultLogDir = b.str("default-log-dir", DefaultLogDir)

	s.Outputs = b.outputs()
	s.Stats = Stats{
		Enabled:             !b.isFalse("stats.enabled"),
		Interval:            b.seconds("stats.interval", 8*time.Second),
		DecoderEvents:       b.bool("stats.decoder-events", true),
		StreamEvents:        b.bool("stats.stream-events", false),
		DecoderEventsPrefix: b.str("stats.decoder-events-prefix", "decoder.event"),
	}

	s.PacketAlertMax = 15
	if n, ok := c.Get("packet-alert-max"); ok && !n.IsNull() {
		v, err := c.Int("packet-alert-max", 15)
		if err != nil || v < 1 || v > 255 {
			b.warn(n, "packet-alert-max", "invalid value %q (must be 1..255): using the default 15", n.Value)
		} else {
			s.PacketAlertMax = int(v)
		}
	}
	s.ActionOrder = b.actionOrder()
	s.Runmode = b.enum("runmode", "", "single", "workers", "autofp")
	s.MaxPendingPackets = b.intRange("max-pending-packets", 1024, 1, 65534)
	s.HostMode = b.enumWarn("host-mode", "auto", "auto", "router", "sniffer-only")
	s.ExceptionPolicy = b.str("exception-policy", "auto")
	s.MPMAlgo = b.str("mpm-algo", "auto")
	s.SPMAlgo = b.str("spm-algo", "auto")

	s.Flow = Flow{
		Memcap:       b.size("flow.memcap", 128<<20),
		HashSize:     b.intRange("flow.hash-size", 65536, 1, 1<<31-1),
		Prealloc:     b.intRange("flow.prealloc", 10000, 0, 1<<31-1),
		Managers:     b.intRange("flow.managers", 1, 1, 1024),
		Recyclers:    b.intRange("flow.recyclers", 1, 1, 1024),
		MemcapPolicy: b.str("flow.memcap-policy", ""),
	}
	s.Flow.EmergencyRecovery = 30
	if n, ok := c.Get("flow.emergency-recovery"); ok && !n.IsNull() {
		v, err := c.Int("flow.emergency-recovery", 30)
		if err != nil || v < 1 || v > 100 {
			b.warn(n, "flow.emergency-recovery", "invalid value %q (must be a percentage 1..100): using 30", n.Value)
		} else {
			s.Flow.EmergencyRecovery = int(v)
		}
	}
	s.FlowTimeouts = b.flowTimeouts()
	s.VLANUseForTracking = b.bool("vlan.use-for-tracking", true)

	s.PcapFileChecksumChecks = "auto"
	if v := b.str("pcap-file.checksum-checks", "auto"); v != "auto" {
		// Suricata (ReceivePcapFileThreadInit) sets a mode only for auto, a true word or a
		// false word; pcap_g was zeroed, and zero is CHECKSUM_VALIDATION_DISABLE.
		s.PcapFileChecksumChecks = "no"
		if IsTrue(v) {
			s.PcapFileChecksumChecks = "yes"
		}
	}
	s.CaptureChecksumValidation = b.str("capture.checksum-validation", "")
	s.AppLayerEnabled = map[string]string{}
	for _, proto := range c.Children("app-layer.protocols") {
		for _, n := range proto.Children {
			switch {
			case n.Name == "enabled":
				s.AppLayerEnabled[proto.Name+".enabled"] = n.Value
			case n.Kind == MappingNode:
				if e, ok := n.Lookup("enabled"); ok {
					s.AppLayerEnabled[proto.Name+"."+n.Name+".enabled"] = e.Value
				}
			}
		}
	}
	s.Stream = Stream{
		Memcap:             b.size("stream.memcap", 64<<20),
		ChecksumValidation: b.bool("stream.checksum-validation", true),
		Midstream:          b.bool("stream.midstream", false),
		Inline:             b.inline("stream.inline"),
		AsyncOneside:       b.bool("stream.async-oneside", false),
		DropInvalid:        b.bool("stream.drop-invalid", true),
		Bypass:             b.bool("stream.bypass", false),
		MemcapPolicy:       b.str("stream.memcap-policy", ""),
		MidstreamPolicy:    b.str("stream.midstream-policy", ""),
		Enabled:            b.bool("stream.enabled", true),
		HostOSPolicy:       hostOSPolicy(b.c),
		Reassembly: Reassembly{
			Memcap:                    b.size("stream.reassembly.memcap", 256<<20),
			Depth:                     b.size("stream.reassembly.depth", 0),
			ToServerChunkSize:         b.sizeMax("stream.reassembly.toserver-chunk-size", 2560, 65535),
			ToClientChunkSize:         b.sizeMax("stream.reassembly.toclient-chunk-size", 2560, 65535),
			RandomizeChunkSize:        b.bool("stream.reassembly.randomize-chunk-size", true),
			RandomizeChunkRange:       b.intRange("stream.reassembly.randomize-chunk-range", 10, 0, 100),
			Raw:                       b.bool("stream.reassembly.raw", true),
			SegmentPrealloc:           b.intRange("stream.reassembly.segment-prealloc", 2048, 0, 1<<31-1),
			UrgentPolicy:              b.str("stream.reassembly.urgent.policy", ""),
			UrgentOOBLimitPolicy:      b.str("stream.reassembly.urgent.oob-limit-policy", ""),
			MaxRegions:                b.intRange("stream.reassembly.max-regions", 8, 0, 65535),
			CheckOverlapDifferentData: b.bool("stream.reassembly.check-overlap-different-data", false),
			MemcapPolicy:              b.str("stream.reassembly.memcap-policy", ""),
		},
	}

	s.Defrag = Defrag{
		Memcap:   b.size("defrag.memcap", 32<<20),
		HashSize: b.intRange("defrag.hash-size", 65536, 1, 1<<31-1),
		Trackers: b.intRange("defrag.trackers", 65535, 1, 1<<31-1),
		MaxFrags: b.intRange("defrag.max-frags", 65535, 1, 1<<31-1),
		Prealloc: b.bool("defrag.prealloc", true),
		Timeout:  b.seconds("defrag.timeout", 60*time.Second),
	}
	s.Host = Host{
		HashSize: b.intRange("host.hash-size", 4096, 1, 1<<31-1),
		Prealloc: b.intRange("host.prealloc", 1000, 0, 1<<31-1),
		Memcap:   b.size("host.memcap", 32<<20),
	}

	s.Detect = Detect{
		Profile:                  b.profile(),
		CustomToClientGroups:     b.uint16Warn("detect.custom-values.toclient-groups", 20),
		CustomToServerGroups:     b.uint16Warn("detect.custom-values.toserver-groups", 40),
		TCPPriorityPorts:         b.priorityPorts("tcp", DefaultTCPPriorityPorts),
		UDPPriorityPorts:         b.priorityPorts("udp", DefaultUDPPriorityPorts),
		SGHMPMContext:            b.enum("detect.sgh-mpm-context", "auto", "auto", "single", "full"),
		SGHMPMCaching:            b.bool("detect.sgh-mpm-caching", false),
		SGHMPMCachingPath:        b.str("detect.sgh-mpm-caching-path", "/var/lib/suricata/cache/sgh"),
		SGHMPMCachingMaxAge:      b.durationWarn("detect.sgh-mpm-caching-max-age", 7*24*time.Hour),
		InspectionRecursionLimit: b.intRange("detect.inspection-recursion-limit", 3000, 0, 1<<31-1),
		StreamTxLogLimit:         b.intRange("detect.stream-tx-log-limit", 4, 0, 255),
		GuessApplayerTx:          b.bool("detect.guess-applayer-tx", false),
		PrefilterDefault:         b.enum("detect.prefilter.default", "mpm", "mpm", "auto"),
		Thresholds: Thresholds{
			HashSize: b.intRange("detect.thresholds.hash-size", 16384, 1, 1<<31-1),
			Memcap:   b.size("detect.thresholds.memcap", 16<<20),
		},
	}
	s.PCRE = PCRE{
		MatchLimit:          b.intRange("pcre.match-limit", 3500, 1, 1<<31-1),
		MatchLimitRecursion: b.intRange("pcre.match-limit-recursion", 1500, 1, 1<<31-1),
	}
	s.Firewall = b.firewall()
	s.EngineAnalysis = EngineAnalysis{
		RulesFastPattern: b.bool("engine-analysis.rules-fast-pattern", false),
		Rules:            b.bool("engine-analysis.rules", false),
	}
	s.Logging = Logging{DefaultLogLevel: b.enumWarn("logging.default-log-level", "notice",
		"error", "warning", "notice", "info", "perf", "config", "debug")}

	for _, n := range c.Children("af-packet") {
		s.AFPacket = append(s.AFPacket, n)
	}
	if n, ok := c.Get("nfq"); ok && !n.IsNull() {
		s.NFQ = n
	}

	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	s.Warnings = b.warns
	return s, nil
}

// builder reads typed values by full dotted key, collecting errors and warnings.
type builder struct {
	c     *Config
	errs  []error
	warns []string
}

func (b *builder) fail(err error) {
	if err != nil {
		b.errs = append(b.errs, err)
	}
}

func (b *builder) warn(n *Node, key, format string, args ...any) {
	b.warns = append(b.warns, nodeError(n, key, format, args...).Error())
}

// str returns the scalar at key, def when missing or null; a mapping or list is an error.
func (b *builder) str(key, def string) string {
	n, ok := b.c.Get(key)
	if !ok || n.IsNull() {
		return def
	}
	if n.Kind != ScalarNode {
		b.fail(nodeError(n, key, "expected a value, found a %s", n.Kind))
		return def
	}
	return n.Value
}

func (b *builder) bool(key string, def bool) bool { return b.c.Bool(key, def) }

// isFalse reports whether key is set to a false word.
func (b *builder) isFalse(key string) bool {
	s, ok := b.c.String(key)
	return ok && IsFalse(s)
}

func (b *builder) size(key string, def uint64) uint64 {
	v, err := b.c.Size(key, def)
	b.fail(err)
	return v
}

func (b *builder) sizeMax(key string, def, max uint64) uint64 {
	v := b.size(key, def)
	if v > max {
		n, _ := b.c.Get(key)
		b.fail(nodeError(n, key, "%d is too large (at most %d)", v, max))
		return def
	}
	return v
}

func (b *builder) seconds(key string, def time.Duration) time.Duration {
	v, err := b.c.Seconds(key, def)
	b.fail(err)
	return v
}

func (b *builder) intRange(key string, def, min, max int64) int {
	v, err := b.c.Int(key, def)
	if err != nil {
		b.fail(err)
		return int(def)
	}
	if v < min || v > max {
		n, _ := b.c.Get(key)
		b.fail(nodeError(n, key, "%d is out of range (%d..%d)", v, min, max))
		return int(def)
	}
	return int(v)
}

// enum returns the value at key lower-cased, which must be one of allowed.
func (b *builder) enum(key, def string, allowed ...string) string {
	v := b.str(key, def)
	if v == def {
		return v
	}
	lv := strings.ToLower(v)
	for _, a := range allowed {
		if lv == a {
			return a
		}
	}
	n, _ := b.c.Get(key)
	b.fail(nodeError(n, key, "invalid value %q (expected one of: %s)", v, strings.Join(allowed, ", ")))
	return def
}

// durationWarn returns the time duration at key (ParseDuration), def when missing; a value that
// does not parse is replaced by def with a warning.
func (b *builder) durationWarn(key string, def time.Duration) time.Duration {
	n, ok := b.c.Get(key)
	if !ok || n.IsNull() || n.Kind != ScalarNode || strings.TrimSpace(n.Value) == "" {
		return def
	}
	d, err := ParseDuration(n.Value)
	if err != nil {
		b.warn(n, key, "%v: using %s", err, def)
		return def
	}
	return d
}

// ParseDuration parses a time duration as Suricata's SCParseTimeDuration does (the humantime
// syntax): a plain number is seconds; otherwise one or more <number><unit> terms, spaces
// allowed between them, units ns, us, ms, s (sec, second(s)), m (min, minute(s)), h (hr,
// hour(s)), d (day(s)), w (week(s)), month(s) (30.44 days) and y (year(s), 365.25 days), case
// ignored.
func ParseDuration(text string) (time.Duration, error) {
	s := strings.ToLower(strings.TrimSpace(text))
	if s == "" {
		return 0, fmt.Errorf("empty duration")
	}
	if strings.Trim(s, "0123456789") == "" {
		s += "s"
	}
	units := map[string]time.Duration{
		"ns": time.Nanosecond, "nsec": time.Nanosecond, "us": time.Microsecond, "usec": time.Microsecond,
		"ms": time.Millisecond, "msec": time.Millisecond,
		"s": time.Second, "sec": time.Second, "secs": time.Second, "second": time.Second, "seconds": time.Second,
		"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
		"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
		"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
		"month": 2629746 * time.Second, "months": 2629746 * time.Second,
		"y": 31557600 * time.Second, "year": 31557600 * time.Second, "years": 31557600 * time.Second,
	}
	var total time.Duration
	for s != "" {
		s = strings.TrimLeft(s, " ")
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		k := j
		for k < len(s) && s[k] >= 'a' && s[k] <= 'z' {
			k++
		}
		if i == 0 || k == j {
			return 0, fmt.Errorf("invalid duration %q", text)
		}
		n, err := strconv.ParseUint(s[:i], 10, 63)
		unit, ok := units[s[j:k]]
		if err != nil || !ok {
			return 0, fmt.Errorf("invalid duration %q", text)
		}
		if n > uint64(math.MaxInt64/unit) || total > math.MaxInt64-time.Duration(n)*unit {
			return 0, fmt.Errorf("duration %q is too long", text)
		}
		total += time.Duration(n) * unit
		s = s[k:]
	}
	return total, nil
}

// Default port lists of detect.grouping (DetectEngineCtxLoadConf).
const (
	DefaultTCPPriorityPorts = "53, 80, 139, 443, 445, 1433, 3306, 3389, 6666, 6667, 8080"
	DefaultUDPPriorityPorts = "53, 135, 5060"
)

// profile returns detect.profile; the legacy names lowest and highest read as low and high.
func (b *builder) profile() string {
	switch v := b.enum("detect.profile", "medium", "low", "medium", "high", "custom", "lowest", "highest"); v {
	case "lowest":
		return "low"
	case "highest":
		return "high"
	default:
		return v
	}
}

// uint16Warn returns the integer at key, def when missing; a value that is not 0..65535 is
// replaced by def with a warning, as Suricata's StringParseUint16 failures are.
func (b *builder) uint16Warn(key string, def int) int {
	n, ok := b.c.Get(key)
	if !ok || n.IsNull() {
		return def
	}
	v, err := b.c.Int(key, int64(def))
	if err != nil || v < 0 || v > 65535 {
		b.warn(n, key, "invalid value %q (must be 0..65535): using %d", n.Value, def)
		return def
	}
	return int(v)
}

// priorityPorts returns detect.grouping.<proto>-priority-ports, or the legacy
// <proto>-whitelist, or def.
func (b *builder) priorityPorts(proto, def string) string {
	if v := b.str("detect.grouping."+proto+"-priority-ports", ""); v != "" {
		return v
	}
	if v := b.str("detect.grouping."+proto+"-whitelist", ""); v != "" {
		return v
	}
	return def
}

// enumWarn is enum where Suricata only warns and uses def.
func (b *builder) enumWarn(key, def string, allowed ...string) string {
	v := b.str(key, def)
	lv := strings.ToLower(v)
	for _, a := range allowed {
		if lv == a {
			return a
		}
	}
	n, _ := b.c.Get(key)
	b.warn(n, key, "invalid value %q (expected one of: %s): using %q", v, strings.Join(allowed, ", "), def)
	return def
}

// list returns the list at key; a mapping is an error.
func (b *builder) list(key string) []string {
	n, ok := b.c.Get(key)
	if !ok || n.IsNull() {
		return nil
	}
	if n.Kind == MappingNode {
		b.fail(nodeError(n, key, "expected a list, found a mapping"))
		return nil
	}
	return b.c.List(key)
}

// inline reads stream.inline: "auto" or a boolean.
func (b *builder) inline(key string) string {
	v := b.str(key, "auto")
	if v == "auto" {
		return "auto"
	}
	if IsTrue(v) {
		return "yes"
	}
	return "no"
}

func (b *builder) vars() Vars {
	v := Vars{AddressGroups: map[string]string{}, PortGroups: map[string]string{}, nodes: map[string]*Node{}}
	for _, sec := range []struct {
		key, kind string
		dst       map[string]string
		def       map[string]string
		defaulted *bool
	}{
		{"vars.address-groups", "address", v.AddressGroups, DefaultAddressGroups, &v.AddressDefaulted},
		{"vars.port-groups", "port", v.PortGroups, DefaultPortGroups, &v.PortDefaulted},
	} {
		n, ok := b.c.Get(sec.key)
		if !ok || n.IsNull() {
			for k, val := range sec.def {
				sec.dst[k] = val
			}
			*sec.defaulted = true
			continue
		}
		if n.Kind != MappingNode {
			b.fail(nodeError(n, sec.key, "expected a mapping of variables, found a %s", n.Kind))
			continue
		}
		for _, g := range n.Children {
			if g.Kind != ScalarNode {
				b.fail(nodeError(g, sec.key+"."+g.Name, "a variable must be a value, found a %s", g.Kind))
				continue
			}
			sec.dst[g.Name] = g.Value
			v.nodes[sec.kind+"/"+g.Name] = g
		}
	}
	for _, err := range v.check() {
		b.fail(err)
	}
	return v
}

func (b *builder) actionOrder() []string {
	n, ok := b.c.Get("action-order")
	if !ok || n.IsNull() {
		return append([]string(nil), DefaultActionOrder...)
	}
	if n.Kind != SequenceNode {
		b.fail(nodeError(n, "action-order", "expected a list of actions"))
		return append([]string(nil), DefaultActionOrder...)
	}
	var order []string
	seen := map[string]bool{}
	for _, e := range n.Children {
		v, _ := e.Scalar()
		switch v {
		case "pass", "drop", "reject", "alert":
		default:
			b.fail(nodeError(e, "action-order", "invalid action %q (use pass, drop, reject and alert)", v))
			return append([]string(nil), DefaultActionOrder...)
		}
		if seen[v] {
			b.fail(nodeError(e, "action-order", "action %q is listed twice", v))
			return append([]string(nil), DefaultActionOrder...)
		}
		seen[v] = true
		order = append(order, v)
	}
	if len(order) != len(DefaultActionOrder) {
		b.fail(nodeError(n, "action-order", "all of pass, drop, reject and alert must be listed"))
		return append([]string(nil), DefaultActionOrder...)
	}
	return order
}

func (b *builder) flowTimeouts() FlowTimeouts {
	ft := FlowTimeouts{Default: defaultTimeoutsDefault, TCP: defaultTimeoutsTCP,
		UDP: defaultTimeoutsUDP, ICMP: defaultTimeoutsUDP}
	type field struct {
		key string
		f   func(*Timeouts) *time.Duration
	}
	common := []field{
		{"new", func(t *Timeouts) *time.Duration { return &t.New }},
		{"established", func(t *Timeouts) *time.Duration { return &t.Established }},
		{"bypassed", func(t *Timeouts) *time.Duration { return &t.Bypassed }},
		{"emergency-new", func(t *Timeouts) *time.Duration { return &t.EmergencyNew }},
		{"emergency-established", func(t *Timeouts) *time.Duration { return &t.EmergencyEstablished }},
		{"emergency-bypassed", func(t *Timeouts) *time.Duration { return &t.EmergencyBypassed }},
	}
	withClosed := append(append([]field(nil), common...),
		field{"closed", func(t *Timeouts) *time.Duration { return &t.Closed }},
		field{"emergency-closed", func(t *Timeouts) *time.Duration { return &t.EmergencyClosed }})
	for _, p := range []struct {
		name   string
		t      *Timeouts
		fields []field
	}{
		{"default", &ft.Default, withClosed}, {"tcp", &ft.TCP, withClosed},
		{"udp", &ft.UDP, common}, {"icmp", &ft.ICMP, common},
	} {
		for _, fl := range p.fields {
			key := "flow-timeouts." + p.name + "." + fl.key
			n, ok := b.c.Get(key)
			if !ok || n.IsNull() {
				continue
			}
			dst := fl.f(p.t)
			v, err := b.c.Seconds(key, *dst)
			if err != nil {
				// Suricata ignores a value it cannot parse and keeps the default.
				b.warn(n, key, "invalid value %q: using the default %d", n.Value, *dst/time.Second)
				continue
			}
			*dst = v
		}
	}
	return ft
}

// hostOSPolicy reads host-os-policy: a mapping of OS names to lists of addresses (or one
// address as a scalar).
func hostOSPolicy(c *Config) []HostOSPolicy {
	var out []HostOSPolicy
	for _, n := range c.Children("host-os-policy") {
		e := HostOSPolicy{Policy: n.Name}
		if v, ok := n.Scalar(); ok {
			e.Nets = append(e.Nets, v)
		}
		for _, ch := range n.Children {
			if v, ok := ch.Scalar(); ok {
				e.Nets = append(e.Nets, v)
			}
		}
		out = append(out, e)
	}
	return out
}
