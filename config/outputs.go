package config

import (
	"os"
	"strconv"
	"strings"
)

// Outputs are the entries of the outputs list.
type Outputs struct {
	// All lists every entry in order, enabled or not, including types Meerkat does not know.
	All []Output
	// Fast is the first enabled fast entry (else the first fast entry; zero when none).
	Fast FastOutput
	// EVE is the first enabled eve-log entry (else the first eve-log entry; zero when none).
	EVE EVEOutput
	// EVELogs are all eve-log entries in order (Suricata allows several).
	EVELogs []EVEOutput
	// FileStoreMD5, FileStoreSHA1 and FileStoreSHA256 are the digests the enabled
	// file-store outputs force (force-hash, force-md5).
	FileStoreMD5, FileStoreSHA1, FileStoreSHA256 bool
	// TLSStore is the enabled tls-store output (the last one: each sets the one directory
	// LogTlsStoreLogInitCtx keeps); zero when none is enabled.
	TLSStore TLSStoreOutput
}

// TLSStoreOutput is the tls-store output (src/log-tlsstore.c).
type TLSStoreOutput struct {
	// Enabled is true for an entry with enabled: yes.
	Enabled bool
	// CertsLogDir is certs-log-dir: the directory of the certificate files, relative to the
	// log directory unless absolute; "" means the log directory itself.
	CertsLogDir string
}

// Output is one entry of outputs ("- fast: {...}").
type Output struct {
	// Name is the output module ("fast", "eve-log", "stats", ...).
	Name string
	// Key is the dotted key of its settings, e.g. "outputs.1.eve-log".
	Key string
	// Enabled is its enabled key; Suricata skips an output without "enabled: yes".
	Enabled bool
	// Node holds its settings (may be a null scalar when the entry has none).
	Node *Node
}

// FastOutput is the fast.log output.
type FastOutput struct {
	// Present is true when outputs has a fast entry.
	Present bool
	// Enabled is enabled (default false: Suricata needs enabled: yes).
	Enabled bool
	// Filename is filename (default "fast.log"), relative to the log directory unless absolute.
	Filename string
	// Append is append (default true).
	Append bool
	// Filetype is filetype (default "regular").
	Filetype string
}

// EVEOutput is one eve-log output.
type EVEOutput struct {
	// Present is true when this is a real eve-log entry (false for the zero value).
	Present bool
	// Key is the dotted key of its settings, e.g. "outputs.1.eve-log".
	Key string
	// Enabled is enabled (default false).
	Enabled bool
	// Filetype is filetype: regular (default; "file" is read as regular), syslog,
	// unix_dgram, unix_stream or redis.
	Filetype string
	// Filename is filename (default "eve.json").
	Filename string
	// Threaded is threaded (default false).
	Threaded bool
	// CommunityID is community-id (default false).
	CommunityID bool
	// CommunityIDSeed is community-id-seed (0..65535, default 0).
	CommunityIDSeed int
	// Ethernet is ethernet (default false): log MAC addresses.
	Ethernet bool
	// PcapFile is pcap-file (default false): log the pcap file name.
	PcapFile bool
	// Types are the entries of types, in order, including unknown ones.
	Types []TypeConfig
	// Alert holds the options of the alert type (Enabled is false when the type is not listed
	// or is disabled; likewise for Drop and Stats).
	Alert AlertOptions
	// Drop holds the options of the drop type.
	Drop DropOptions
	// Stats holds the options of the stats type.
	Stats StatsOptions
	// Anomaly holds the options of the anomaly type.
	Anomaly AnomalyOptions
	// HTTP holds the options of the http type.
	HTTP HTTPOptions
	// Files holds the options of the files type (fileinfo records).
	Files FilesOptions
	// DNS holds the options of the dns type.
	DNS DNSOptions
	// TLS holds the options of the tls type.
	TLS TLSOptions
	// SMTP holds the options of the smtp type.
	SMTP SMTPOptions
	// XFF is eve-log's own xff section, used by the types without one.
	XFF XFFOptions
	// Node holds all its settings.
	Node *Node
}

// TypeConfig is one entry of eve-log.types: "- alert" or "- alert: {payload: yes, ...}".
type TypeConfig struct {
	// Name is the type ("alert", "drop", "flow", "http", ...).
	Name string
	// Key is the dotted key of its options, e.g. "outputs.1.eve-log.types.0.alert".
	Key string
	// Enabled is false only when its options say enabled: no.
	Enabled bool
	// Options are its options; nil for the plain "- alert" form or an empty "- alert:".
	Options *Node
}

// Type returns the first entry of types called name.
func (e *EVEOutput) Type(name string) (TypeConfig, bool) {
	for _, t := range e.Types {
		if t.Name == name {
			return t, true
		}
	}
	return TypeConfig{}, false
}

// Has reports whether the type name is listed and enabled.
func (e *EVEOutput) Has(name string) bool {
	t, ok := e.Type(name)
	return ok && t.Enabled
}

// AlertOptions are the options of the eve-log alert type (Suricata's defaults in brackets).
type AlertOptions struct {
	// Enabled is true when alert is listed and enabled.
	Enabled bool
	// Payload is payload [no]: log the payload in base64.
	Payload bool
	// PayloadPrintable is payload-printable [no]: log the payload as printable text.
	PayloadPrintable bool
	// PayloadLength is payload-length [no]: log the payload length.
	PayloadLength bool
	// PayloadBufferSize is payload-buffer-size [4 KiB].
	PayloadBufferSize uint64
	// Packet is packet [no]: log the packet in base64.
	Packet bool
	// HTTPBody is http-body [no]: log HTTP bodies in base64.
	HTTPBody bool
	// HTTPBodyPrintable is http-body-printable [no].
	HTTPBodyPrintable bool
	// TaggedPackets is tagged-packets [no].
	TaggedPackets bool
	// Verdict is verdict [no].
	Verdict bool
	// Metadata is metadata [yes]: "metadata: no" turns off AppLayer, Flow and RuleMetadata; a
	// mapping sets them one by one (app-layer, flow, rule.metadata, rule.raw, rule.reference).
	Metadata bool
	// AppLayer is metadata.app-layer [yes]: the app-layer record of the alert's transaction.
	AppLayer bool
	// Flow is metadata.flow [yes]: the flow object.
	Flow bool
	// RuleMetadata is metadata.rule.metadata [yes]: the rule's metadata keyword.
	RuleMetadata bool
	// RuleRaw is metadata.rule.raw [no]: the rule text.
	RuleRaw bool
	// RuleReference is metadata.rule.reference [no]: the rule's references.
	RuleReference bool
	// XFF is the alert type's xff section.
	XFF XFFOptions
}

// XFFOptions are an xff section (eve-log.xff or a type's): HttpXFFGetCfg's settings.
type XFFOptions struct {
	// Present says the section exists: a type with one uses it (even disabled), one
	// without uses eve-log's.
	Present bool
	// Enabled is enabled [no].
	Enabled bool
	// Mode is mode: overwrite or extra-data (anything else, with a warning, is extra-data).
	Mode string
	// Deployment is deployment: forward or reverse (anything else is reverse).
	Deployment string
	// Header is header [X-Forwarded-For].
	Header string
}

// HTTPOptions are the options of the eve-log http type (OutputHttpLogInitSub).
type HTTPOptions struct {
	// Enabled is true when http is listed and enabled.
	Enabled bool
	// Extended is extended [no; the shipped suricata.yaml says yes].
	Extended bool
	// DumpAllHeaders is dump-all-headers: both, request or response ("" none).
	DumpAllHeaders string
	// Custom lists custom: the fields to log as request_headers/response_headers.
	Custom []string
	// XFF is the type's xff section.
	XFF XFFOptions
}

// DNSOptions are the options of the eve-log dns type (src/output-json-dns.c:
// JsonDnsLogInitCtxSub, JsonDnsParseLogFormats, JsonDnsLogParseConfig).
type DNSOptions struct {
	// Enabled is true when dns is listed and enabled.
	Enabled bool
	// Version is version [3] (SURICATA_EVE_DNS_VERSION when absent; 1 or an invalid value
	// warns and gives 3; 2 is the deprecated v2 format).
	Version int
	// Requests and Responses are requests / responses [yes, yes].
	Requests, Responses bool
	// Detailed and Grouped are formats: [detailed, grouped] (an empty list is both).
	Detailed, Grouped bool
	// Types lists types: the rrtype names logged (nil: all).
	Types []string
}

// TLSOptions are the options of the eve-log tls type (OutputTlsInitCtx).
type TLSOptions struct {
	// Enabled is true when tls is listed and enabled.
	Enabled bool
	// HasNode says the type has an options node (a plain "- tls" has none).
	HasNode bool
	// Extended is extended [no; the shipped suricata.yaml says yes].
	Extended bool
	// Custom lists custom: (nil when absent).
	Custom []string
	// SessionResumption is session-resumption's value ("" when absent).
	SessionResumption string
}

// SMTPOptions are the options of the eve-log smtp type (OutputSmtpLogInitSub,
// OutputEmailInitConf).
type SMTPOptions struct {
	// Enabled is true when smtp is listed and enabled.
	Enabled bool
	// Extended is extended [no]. OutputEmailInitConf of 8.0.6 clears the flag it sets
	// before md5 is read, so it has no effect there; it is kept here as read.
	Extended bool
	// Custom lists custom: the email fields to log (config or header names).
	Custom []string
	// MD5 lists md5: body and/or subject.
	MD5 []string
}

// FilesOptions are the options of the eve-log files type (OutputFileLogInitSub).
type FilesOptions struct {
	// Enabled is true when files is listed and enabled.
	Enabled bool
	// ForceMagic is force-magic [no].
	ForceMagic bool
	// ForceMD5, ForceSHA1 and ForceSHA256 are force-hash: [md5, sha1, sha256] (and the
	// legacy force-md5: yes), as FileForceHashParseCfg reads them.
	ForceMD5, ForceSHA1, ForceSHA256 bool
	// XFF is the type's xff section.
	XFF XFFOptions
}

// DropOptions are the options of the eve-log drop type.
type DropOptions struct {
	// Enabled is true when drop is listed and enabled.
	Enabled bool
	// Alerts is alerts [no]: add the alert that caused the drop.
	Alerts bool
	// Flows is flows: "start" (default: the first drop of each flow direction) or "all".
	Flows string
	// Verdict is verdict [no].
	Verdict bool
}

// StatsOptions are the options of the eve-log stats type.
type StatsOptions struct {
	// Enabled is true when stats is listed and enabled.
	Enabled bool
	// Totals is totals [yes]: counters for the whole engine. Totals and Threads cannot both
	// be off.
	Totals bool
	// Threads is threads [no]: counters per thread.
	Threads bool
	// Deltas is deltas [no]: also the change since the previous record.
	Deltas bool
	// NullValues is null-values: zero counters are written too unless it is set to a false
	// value (Suricata adds JSON_STATS_NO_ZEROES only for an explicit "no").
	NullValues bool
}

// AnomalyOptions are the options of the eve-log anomaly type (Suricata's JsonAnomalyLogConf;
// defaults in brackets). A types key or packethdr set to anything but a true word turns its
// flag off.
type AnomalyOptions struct {
	// Enabled is true when anomaly is listed and enabled.
	Enabled bool
	// Decode is types.decode [no]: log decoder events.
	Decode bool
	// Stream is types.stream [no]: log stream events.
	Stream bool
	// AppLayer is types.applayer [yes]: log app-layer events (protocol detection and parsers).
	AppLayer bool
	// PacketHeader is packethdr [no]: add the packet's first 32 bytes to decode and stream
	// records. Suricata keeps it only with Decode on (and warns otherwise).
	PacketHeader bool
}

func (b *builder) outputs() Outputs {
	var o Outputs
	entries := b.c.Children("outputs")
	if n, ok := b.c.Get("outputs"); ok && n.Kind == MappingNode {
		b.fail(nodeError(n, "outputs", "expected a list of outputs, found a mapping"))
		return o
	}
	fastSet := false
	for i, e := range entries {
		idx := "outputs." + strconv.Itoa(i)
		if e.Kind != MappingNode || len(e.Children) == 0 {
			b.fail(nodeError(e, idx, "an output must be written \"- NAME: {settings}\""))
			continue
		}
		name := e.Children[0].Name
		key := idx + "." + name
		out := Output{Name: name, Key: key, Enabled: b.bool(key+".enabled", false), Node: e.Children[0]}
		o.All = append(o.All, out)
		switch name {
		case "fast":
			f := FastOutput{
				Present:  true,
				Enabled:  out.Enabled,
				Filename: b.str(key+".filename", "fast.log"),
				Append:   b.bool(key+".append", true),
				Filetype: b.str(key+".filetype", "regular"),
			}
			if !fastSet || (!o.Fast.Enabled && f.Enabled) {
				o.Fast = f
				fastSet = true
			}
		case "file-store":
			if out.Enabled {
				m, s1, s2 := b.forceHash(key)
				o.FileStoreMD5, o.FileStoreSHA1, o.FileStoreSHA256 = o.FileStoreMD5 || m, o.FileStoreSHA1 || s1, o.FileStoreSHA256 || s2
			}
		case "tls-store":
			if out.Enabled {
				o.TLSStore = TLSStoreOutput{Enabled: true, CertsLogDir: b.str(key+".certs-log-dir", "")}
			}
		case "eve-log":
			e := b.eve(key, out)
			o.EVELogs = append(o.EVELogs, e)
		}
	}
	for _, e := range o.EVELogs {
		if e.Enabled {
			o.EVE = e
			break
		}
	}
	if !o.EVE.Present && len(o.EVELogs) > 0 {
		o.EVE = o.EVELogs[0]
	}
	return o
}

func (b *builder) eve(key string, out Output) EVEOutput {
	e := EVEOutput{
		Present:     true,
		Key:         key,
		Enabled:     out.Enabled,
		Filetype:    b.enum(key+".filetype", "regular", "regular", "file", "syslog", "unix_dgram", "unix_stream", "redis"),
		Filename:    b.str(key+".filename", "eve.json"),
		Threaded:    b.bool(key+".threaded", false),
		CommunityID: b.bool(key+".community-id", false),
		Ethernet:    b.bool(key+".ethernet", false),
		PcapFile:    b.bool(key+".pcap-file", false),
		Node:        out.Node,
	}
	if e.Filetype == "file" {
		e.Filetype = "regular"
	}
	e.CommunityIDSeed = b.intRange(key+".community-id-seed", 0, 0, 65535)

	tkey := key + ".types"
	if n, ok := b.c.Get(tkey); ok && n.Kind == MappingNode {
		b.fail(nodeError(n, tkey, "expected a list of types, found a mapping"))
	}
	for i, t := range b.c.Children(tkey) {
		ekey := tkey + "." + strconv.Itoa(i)
		var tc TypeConfig
		switch {
		case t.Kind == ScalarNode && !t.Null:
			tc = TypeConfig{Name: t.Value, Key: ekey, Enabled: true}
		case t.Kind == MappingNode && len(t.Children) > 0:
			opt := t.Children[0]
			tc = TypeConfig{Name: opt.Name, Key: ekey + "." + opt.Name, Enabled: true}
			if opt.Kind == MappingNode {
				tc.Options = opt
				if s, ok := opt.String("enabled"); ok && !IsTrue(s) {
					tc.Enabled = false
				}
			}
		case t.IsNull():
			continue
		default:
			b.fail(nodeError(t, ekey, "an eve-log type must be a name or \"NAME: {options}\""))
			continue
		}
		e.Types = append(e.Types, tc)
	}

	e.Alert = AlertOptions{PayloadBufferSize: 4096, Metadata: true, AppLayer: true, Flow: true, RuleMetadata: true}
	if t, ok := e.Type("alert"); ok && t.Enabled {
		a := &e.Alert
		a.Enabled = true
		k := t.Key + "."
		a.Payload = b.bool(k+"payload", false)
		a.PayloadPrintable = b.bool(k+"payload-printable", false)
		a.PayloadLength = b.bool(k+"payload-length", false)
		a.PayloadBufferSize = b.sizeMax(k+"payload-buffer-size", 4096, 1<<32-1)
		a.Packet = b.bool(k+"packet", false)
		a.HTTPBody = b.bool(k+"http-body", false)
		a.HTTPBodyPrintable = b.bool(k+"http-body-printable", false)
		a.TaggedPackets = b.bool(k+"tagged-packets", false)
		a.Verdict = b.bool(k+"verdict", false)
		if m, ok := b.c.Get(k + "metadata"); ok && !m.IsNull() {
			switch m.Kind {
			case ScalarNode:
				if IsFalse(m.Value) {
					a.Metadata, a.AppLayer, a.Flow, a.RuleMetadata = false, false, false, false
				}
			case MappingNode:
				a.AppLayer = b.bool(k+"metadata.app-layer", true)
				a.Flow = b.bool(k+"metadata.flow", true)
				a.RuleMetadata = b.bool(k+"metadata.rule.metadata", true)
				a.RuleRaw = b.bool(k+"metadata.rule.raw", false)
				a.RuleReference = b.bool(k+"metadata.rule.reference", false)
			}
		}
	}
	e.XFF = b.xff(key)
	if t, ok := e.Type("alert"); ok && t.Enabled {
		e.Alert.XFF = b.xff(t.Key)
	}
	if t, ok := e.Type("http"); ok && t.Enabled {
		h := &e.HTTP
		h.Enabled = true
		k := t.Key + "."
		h.Extended = b.bool(k+"extended", false)
		h.DumpAllHeaders, _ = b.c.String(k + "dump-all-headers")
		for _, c := range b.c.Children(k + "custom") {
			if c.Kind == ScalarNode && !c.Null {
				h.Custom = append(h.Custom, c.Value)
			}
		}
		h.XFF = b.xff(t.Key)
	}
	if t, ok := e.Type("tls"); ok && t.Enabled {
		tl := &e.TLS
		tl.Enabled, tl.HasNode = true, t.Options != nil
		k := t.Key + "."
		tl.Extended = b.bool(k+"extended", false)
		if n, ok := b.c.Get(k + "custom"); ok && n != nil {
			tl.Custom = []string{}
			for _, c := range b.c.Children(k + "custom") {
				if c.Kind == ScalarNode && !c.Null {
					tl.Custom = append(tl.Custom, c.Value)
				}
			}
		}
		tl.SessionResumption, _ = b.c.String(k + "session-resumption")
	}
	if t, ok := e.Type("smtp"); ok && t.Enabled {
		m := &e.SMTP
		m.Enabled = true
		k := t.Key + "."
		m.Extended = b.bool(k+"extended", false)
		for _, c := range b.c.Children(k + "custom") {
			if c.Kind == ScalarNode && !c.Null {
				m.Custom = append(m.Custom, c.Value)
			}
		}
		for _, c := range b.c.Children(k + "md5") {
			if c.Kind == ScalarNode && !c.Null {
				m.MD5 = append(m.MD5, c.Value)
			}
		}
	}
	if t, ok := e.Type("files"); ok && t.Enabled {
		f := &e.Files
		f.Enabled = true
		k := t.Key
		f.ForceMagic = b.bool(k+".force-magic", false)
		f.ForceMD5, f.ForceSHA1, f.ForceSHA256 = b.forceHash(k)
		f.XFF = b.xff(t.Key)
	}
	if t, ok := e.Type("dns"); ok && t.Enabled {
		e.DNS = b.dns(t.Key)
	}
	e.Drop = DropOptions{Flows: "start"}
	if t, ok := e.Type("drop"); ok && t.Enabled {
		d := &e.Drop
		d.Enabled = true
		k := t.Key + "."
		d.Alerts = b.bool(k+"alerts", false)
		d.Verdict = b.bool(k+"verdict", false)
		if v, ok := b.c.String(k + "flows"); ok {
			switch strings.ToLower(v) {
			case "start", "all":
				d.Flows = strings.ToLower(v)
			default:
				n, _ := b.c.Get(k + "flows")
				b.warn(n, k+"flows", "invalid value %q (expected start or all): using start", v)
			}
		}
	}
	e.Stats = StatsOptions{Totals: true}
	if t, ok := e.Type("stats"); ok && t.Enabled {
		st := &e.Stats
		st.Enabled = true
		k := t.Key + "."
		st.Totals = b.bool(k+"totals", true)
		st.Threads = b.bool(k+"threads", false)
		st.Deltas = b.bool(k+"deltas", false)
		st.NullValues = b.bool(k+"null-values", true)
		if !st.Totals && !st.Threads {
			b.fail(nodeError(t.Options, t.Key, "totals and threads cannot both be disabled"))
		}
	}
	e.Anomaly = AnomalyOptions{AppLayer: true}
	if t, ok := e.Type("anomaly"); ok && t.Enabled {
		an := &e.Anomaly
		an.Enabled = true
		k := t.Key + "."
		an.AppLayer = b.bool(k+"types.applayer", true)
		an.Stream = b.bool(k+"types.stream", false)
		an.Decode = b.bool(k+"types.decode", false)
		an.PacketHeader = b.bool(k+"packethdr", false)
		if an.PacketHeader && !an.Decode {
			n, _ := b.c.Get(k + "packethdr")
			b.warn(n, k+"packethdr", "anomaly logging is configured to include packet headers, but decode type logging is not selected: packet headers will not be logged")
			an.PacketHeader = false
		}
		if !an.Decode && !an.Stream && !an.AppLayer {
			b.warn(t.Options, t.Key, "anomaly logging is configured, but no logging types are selected: select one or more of decode, stream and applayer")
		}
	}
	return e
}

// xff reads the xff section under key (HttpXFFGetCfg).
func (b *builder) xff(key string) XFFOptions {
	k := key + ".xff"
	n, ok := b.c.Get(k)
	if !ok {
		return XFFOptions{}
	}
	x := XFFOptions{Present: true}
	if n.Kind != MappingNode {
		return x
	}
	x.Enabled = b.bool(k+".enabled", false)
	x.Mode, _ = b.c.String(k + ".mode")
	x.Deployment, _ = b.c.String(k + ".deployment")
	x.Header, _ = b.c.String(k + ".header")
	if x.Enabled {
		if x.Mode == "" {
			b.warn(n, k+".mode", "the XFF mode is not set: using extra-data")
		} else if !strings.EqualFold(x.Mode, "overwrite") && !strings.EqualFold(x.Mode, "extra-data") {
			mn, _ := b.c.Get(k + ".mode")
			b.warn(mn, k+".mode", "invalid XFF mode %q: using extra-data", x.Mode)
		}
		if x.Deployment == "" {
			b.warn(n, k+".deployment", "the XFF deployment is not set: using reverse")
		} else if !strings.EqualFold(x.Deployment, "forward") && !strings.EqualFold(x.Deployment, "reverse") {
			dn, _ := b.c.Get(k + ".deployment")
			b.warn(dn, k+".deployment", "invalid XFF deployment %q: using reverse", x.Deployment)
		}
	}
	return x
}

// forceHash reads force-hash (a list of md5, sha1, sha256, case-insensitive) and the legacy
// force-md5 under key (FileForceHashParseCfg).
func (b *builder) forceHash(key string) (md5, sha1, sha256 bool) {
	md5 = b.bool(key+".force-md5", false)
	for _, c := range b.c.Children(key + ".force-hash") {
		if c.Kind != ScalarNode || c.Null {
			continue
		}
		switch strings.ToLower(c.Value) {
		case "md5":
			md5 = true
		case "sha1":
			sha1 = true
		case "sha256":
			sha256 = true
		}
	}
	return md5, sha1, sha256
}

// dns reads a dns type's options at key.
func (b *builder) dns(key string) DNSOptions {
	k := key + "."
	d := DNSOptions{Enabled: true, Version: 3, Requests: b.bool(k+"requests", true), Responses: b.bool(k+"responses", true)}
	v, ok := b.c.String(k + "version")
	if !ok {
		v, ok = os.LookupEnv("SURICATA_EVE_DNS_VERSION")
	}
	if ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		switch {
		case err == nil && (n == 2 || n == 3):
			d.Version = n
		default:
			node, _ := b.c.Get(k + "version")
			b.warn(node, k+"version", "invalid or unsupported dns log version %q: using 3", v)
		}
	}
	formats := b.c.Children(k + "formats")
	d.Detailed, d.Grouped = len(formats) == 0, len(formats) == 0
	for _, f := range formats {
		switch strings.ToLower(f.Value) {
		case "detailed":
			d.Detailed = true
		case "grouped":
			d.Grouped = true
		}
	}
	for _, t := range b.c.Children(k + "types") {
		if t.Kind == ScalarNode && !t.Null {
			d.Types = append(d.Types, t.Value)
		}
	}
	return d
}
