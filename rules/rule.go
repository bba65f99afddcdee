package rules

// Rule is one parsed rule.
type Rule struct {
	// File and Line are where the rule starts (Line 0 for a rule parsed from a string).
	File string
	Line int
	// Raw is the rule text as read (continuation lines joined).
	Raw string

	// Firewall is set for a rule loaded from a firewall rule file (ParseOptions.Firewall).
	Firewall bool

	// Header is the part before the option block.
	Header Header
	// Options holds every option of the option block in order, with canonical names and
	// values; printing them back gives the canonical rule.
	Options []*Option

	// SID, GID (default 1) and Rev (default 0) identify the rule.
	SID uint32
	GID uint32
	Rev uint32
	// Msg is the alert text, escapes removed.
	Msg string
	// Classtype is the classtype name as written (lower-cased), "" when absent.
	Classtype string
	// Priority is the priority keyword's value, 0 when absent (the engine then takes the
	// classtype's priority, or 3).
	Priority int
	// References and Metadata are the reference and metadata entries in order.
	References []Reference
	Metadata   []Metadata
	// Target is "src_ip" or "dest_ip" when the target keyword is used.
	Target string
	// NoAlert is set by noalert or flowbits:noalert; Alert by the alert keyword.
	NoAlert bool
	Alert   bool
	// Requires is the parsed requires keyword, nil when absent.
	Requires *Requires
	// Tags are the tag keywords.
	Tags []*Tag

	// AppProto is the app-layer protocol the rule is bound to, from the header or from its
	// keywords ("http" means HTTP/1 or HTTP/2); "" for none.
	AppProto string
	// Buffers are the inspection buffers in the order they were first used. The packet payload
	// (and reassembled stream) is the buffer "pkt_data".
	Buffers []*Buffer
	// Matches are the packet and flow keywords evaluated with the rule (Suricata's match list),
	// in order; PostMatches the keywords that act after the rule matched (flowbits:set ...).
	Matches     []*Option
	PostMatches []*Option
	// Prefilter is the keyword the rule's prefilter keyword follows (the last match of any
	// list before it, Suricata's prefilter_sm), nil when the rule has no prefilter keyword.
	Prefilter *Option
	// Flow is the flow keyword, nil when absent.
	Flow *Flow
	// Flowbits, Flowints and Xbits (hostbits included, as xbits with track ip_src/ip_dst) are
	// the variable commands in order.
	Flowbits []*Flowbit
	Flowints []*Flowint
	Xbits    []*Xbit
	// Threshold and DetectionFilter are the rate keywords, nil when absent.
	Threshold       *Threshold
	DetectionFilter *Threshold

	// ToServer and ToClient give the rule's direction after parsing (both when it has none).
	ToServer bool
	ToClient bool
	// RequirePacket and RequireStream say the rule only inspects packets (tcp-pkt, dsize,
	// flags, ...) or only the reassembled stream (tcp-stream, flow:only_stream).
	RequirePacket bool
	RequireStream bool

	// typ caches the rule type.
	typ RuleType
	// flags collected while parsing, for the rule type.
	hasDecodeEvent bool
	hasAppProtoKW  bool
	appLayerFlag   bool
	flowvarCapture bool
}

// Option is one keyword of the option block.
type Option struct {
	// Name is the keyword's canonical name (aliases are replaced: "tls_sni" -> "tls.sni").
	Name string
	// Value is the canonical argument text, "" for a keyword without argument. It includes
	// the double quotes of quoted arguments (content:"abc").
	Value string
	// Negated is set when the argument was negated with '!'.
	Negated bool
	// Arg is the parsed argument: *Content, *PCRE, *ByteTest, IntMatch, *Flow, ... (nil for
	// keywords without argument or whose argument is kept as text).
	Arg any
}

// Buffer is one inspection buffer of a rule with the matches that inspect it.
type Buffer struct {
	// Name is the buffer's canonical name: "pkt_data" for the packet payload, a sticky buffer
	// name ("http.uri", "dns.query", "file.data"...), or "base64_data".
	Name string
	// Transforms are the transform keywords applied to the buffer before inspection.
	Transforms []*Option
	// Matches are the payload keywords inspecting the buffer, in order: content (with its
	// modifiers folded into the *Content), pcre, byte_test, isdataat, bsize, ...
	Matches []*Option

	id     string // list id while parsing: the name plus the transforms
	multi  bool   // the buffer type supports several instances
	smInit bool   // set up by a match rather than by the sticky keyword
	onlyTS bool   // forced to_server by a keyword prefix
	onlyTC bool   // forced to_client by a keyword prefix
}

// Reference is one reference keyword.
type Reference struct {
	// System is the reference system as written ("url", "cve"), or the scheme when the value
	// carried one ("url,https://x" gives System "https", Scheme true), which Suricata then
	// prints instead of reference.config's prefix.
	System string
	// ID is the reference value.
	ID string
	// Scheme is set when System is a scheme written in the value.
	Scheme bool
}

// Metadata is one key/value entry of a metadata keyword.
type Metadata struct {
	Key   string
	Value string
}

// Tag is a tag keyword.
type Tag struct {
	// Type is "session" or "host".
	Type string
	// Count and Metric ("packets", "bytes", "seconds") limit the tagging; Count is 0 when
	// not given (the engine then tags 256 packets).
	Count  uint32
	Metric string
	// Direction is "src" or "dst" for host tags ("" when not given).
	Direction string
}

// RuleType is Suricata's classification of a rule (SignatureSetType).
type RuleType uint8

// Rule types, as Suricata names them in its engine analysis.
const (
	TypeNotSet RuleType = iota
	TypeIPOnly
	TypeLikeIPOnly
	TypePDOnly
	TypeDEOnly
	TypePkt
	TypePktStream
	TypeStream
	TypeAppLayer
	TypeAppTx
)

// String returns Suricata's name of the type ("ip_only", "app_tx", ...).
func (t RuleType) String() string {
	switch t {
	case TypeIPOnly:
		return "ip_only"
	case TypeLikeIPOnly:
		return "like_ip_only"
	case TypePDOnly:
		return "pd_only"
	case TypeDEOnly:
		return "de_only"
	case TypePkt:
		return "pkt"
	case TypePktStream:
		return "pkt_stream"
	case TypeStream:
		return "stream"
	case TypeAppLayer:
		return "app_layer"
	case TypeAppTx:
		return "app_tx"
	}
	return "not_set"
}

// Buffer returns the first buffer with the given name, or nil.
func (r *Rule) Buffer(name string) *Buffer {
	for _, b := range r.Buffers {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Contents returns every content of the rule, buffer by buffer, in order.
func (r *Rule) Contents() []*Content {
	var out []*Content
	for _, b := range r.Buffers {
		for _, m := range b.Matches {
			if c, ok := m.Arg.(*Content); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// Option returns the first option with the given canonical keyword name, or nil.
func (r *Rule) Option(name string) *Option {
	for _, o := range r.Options {
		if o.Name == name {
			return o
		}
	}
	return nil
}

// Keywords returns the canonical names of the keywords the rule uses, each once, in order of
// first use.
func (r *Rule) Keywords() []string {
	seen := make(map[string]bool, len(r.Options))
	var out []string
	for _, o := range r.Options {
		if !seen[o.Name] {
			seen[o.Name] = true
			out = append(out, o.Name)
		}
	}
	return out
}
