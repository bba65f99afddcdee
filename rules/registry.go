package rules

import (
	"slices"
	"strings"
)

// Kind says what a keyword does in a rule.
type Kind uint8

// Keyword kinds.
const (
	// KindMeta keywords describe the rule (msg, sid, classtype, ...); they match nothing.
	KindMeta Kind = iota + 1
	// KindPayload keywords inspect the current buffer (content, pcre, byte_test, bsize ...).
	KindPayload
	// KindModifier keywords modify the preceding content (nocase, depth, fast_pattern, the
	// legacy http_* content modifiers ...).
	KindModifier
	// KindStickyBuffer keywords select the buffer the following payload keywords inspect.
	KindStickyBuffer
	// KindTransform keywords transform the current sticky buffer before inspection.
	KindTransform
	// KindMatch keywords match on the packet, the flow or an app-layer transaction.
	KindMatch
	// KindPostMatch keywords act once the rule has matched (flowbits:set, filestore ...); some
	// keywords (flowbits, flowint, xbits) are match or post-match depending on their command.
	KindPostMatch
)

// String returns the kind's name.
func (k Kind) String() string {
	switch k {
	case KindMeta:
		return "meta"
	case KindPayload:
		return "payload"
	case KindModifier:
		return "content modifier"
	case KindStickyBuffer:
		return "sticky buffer"
	case KindTransform:
		return "transform"
	case KindMatch:
		return "match"
	case KindPostMatch:
		return "post-match"
	}
	return "unknown"
}

// KeywordFlags are properties of a keyword.
type KeywordFlags uint32

// Keyword flags (Suricata's SIGMATCH_* flags, and a few of Meerkat's own).
const (
	// KwNoOpt keywords take no argument.
	KwNoOpt KeywordFlags = 1 << iota
	// KwOptionalOpt keywords may take an argument.
	KwOptionalOpt
	// KwQuotesMandatory keywords need a double-quoted argument.
	KwQuotesMandatory
	// KwQuotesOptional keywords accept a double-quoted argument (quotes are removed).
	KwQuotesOptional
	// KwNegation keywords accept '!' before their argument.
	KwNegation
	// KwIPOnlyCompat keywords leave an otherwise IP-only rule IP-only.
	KwIPOnlyCompat
	// KwDEOnlyCompat keywords leave a decoder-event rule decoder-event only.
	KwDEOnlyCompat
	// KwFirewall keywords are supported (tested) in firewall rules.
	KwFirewall
	// KwDeprecated keywords still work but Suricata warns about them.
	KwDeprecated
	// KwMultiBuffer sticky buffers have several instances per transaction (each use of the
	// keyword opens a new instance).
	KwMultiBuffer
	// KwPacketBuffer sticky buffers are packet buffers (headers), not app-layer buffers.
	KwPacketBuffer
	// KwRequirePacket keywords make the rule inspect packets only (dsize, flags, ttl ...).
	KwRequirePacket
	// KwSupportDir keywords accept a to_server/to_client prefix in their argument.
	KwSupportDir
)

// Keyword describes one rule keyword.
type Keyword struct {
	// Name is the canonical name; Aliases are the other names (all case-insensitive).
	Name    string
	Aliases []string
	// Kind says what the keyword does.
	Kind Kind
	// Flags are the keyword's properties.
	Flags KeywordFlags
	// AppProtos are the app-layer protocols the keyword binds a rule to (any one of them);
	// nil when the keyword is not app-layer specific.
	AppProtos []string
	// Buffer is the buffer a legacy content modifier moves its content to, or the buffer a
	// sticky buffer keyword selects (its canonical name).
	Buffer string
	// Desc is a one-line description.
	Desc string

	setup setupFunc
}

// setupFunc parses a keyword's argument (quotes and negation already handled by the option
// parser) into o and applies it to the rule being parsed.
type setupFunc func(p *ruleParser, o *Option, arg string) error

var registry = map[string]*Keyword{}
var keywordList []*Keyword

// register adds keywords to the registry.
func register(kws ...*Keyword) {
	for _, k := range kws {
		for _, n := range append([]string{k.Name}, k.Aliases...) {
			key := strings.ToLower(n)
			if _, dup := registry[key]; dup {
				panic("rules: keyword registered twice: " + n)
			}
			registry[key] = k
		}
		keywordList = append(keywordList, k)
	}
}

// Lookup returns the keyword with the given name or alias (case-insensitive), or nil.
func Lookup(name string) *Keyword {
	if k, ok := registry[name]; ok {
		return k
	}
	return registry[strings.ToLower(name)]
}

// Keywords returns every registered keyword, sorted by name (for --list-keywords).
func Keywords() []*Keyword {
	out := slices.Clone(keywordList)
	slices.SortFunc(out, func(a, b *Keyword) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// IsIPOnlyCompatible reports whether the keyword keeps a rule IP-only.
func (k *Keyword) IsIPOnlyCompatible() bool { return k.Flags&KwIPOnlyCompat != 0 }

// IsFirewallSupported reports whether the keyword is supported in firewall rules.
func (k *Keyword) IsFirewallSupported() bool { return k.Flags&KwFirewall != 0 }
