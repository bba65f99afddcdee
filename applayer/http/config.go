package http

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/gaissmai/bart"

	"github.com/meerkat-ids/meerkat/config"
)

// BodyInline is http-body-inline.
type BodyInline uint8

// http-body-inline values: auto follows the engine mode (GetCtx.Inline).
const (
	BodyInlineAuto BodyInline = iota
	BodyInlineYes
	BodyInlineNo
)

// Config is one libhtp configuration (default-config or a server-config entry), as
// Suricata's HTPCfgRec holds it. The zero value is not usable; DefaultConfig gives the
// built-in defaults (the values used when a key is absent, §5.1).
type Config struct {
	// Name is "default" or the server-config entry's name.
	Name string
	// Personality is the libhtp server personality name ("IDS", "Minimal", ...).
	Personality string
	// URI is the URI decoding configuration: the personality's with the path-* and
	// decoding keys applied on top (HTPConfigParseParameters).
	URI URIOptions

	RequestBodyLimit, ResponseBodyLimit uint64 // 0 = unlimited
	// Body inspection (after randomisation when enabled).
	RequestMinInspect, RequestInspectWindow   uint64
	ResponseMinInspect, ResponseInspectWindow uint64
	Randomize                                 bool
	RandomizeRange                            int
	BodyInline                                BodyInline

	LayerLimit      int           // response-body-decompress-layer-limit
	MetaFieldLimit  int           // meta-field-limit: longest line/field buffered
	MaxTx           int           // max-tx: live transactions per flow
	HeadersLimit    int           // headers-limit
	LzmaLayers      int           // lzma-enabled (0: LZMA refused)
	LzmaMemlimit    uint64        // lzma-memlimit
	BombLimit       uint64        // compression-bomb-limit
	BombCount       int           // compression-bomb-count (libhtp max_bombs)
	DecompressLimit time.Duration // decompression-time-limit

	// ForceHash asks for MD5/SHA1/SHA256 of tracked files (file-store / force-hash).
	ForceHash bool

	// uriCfg is URI built for the uri package (buildURI).
	uriCfg uriConfig
}

// URIOptions are the URI decoding keys of a config: the personality plus explicit
// overrides (nil = personality's value).
type URIOptions struct {
	ConvertBackslash, DecodeSeparators, CompressSeparators, UEncodingDecode      *bool
	UTF8ConvertBestfit, ConvertLowercase, NulEncodedTerminates, NulRawTerminates *bool
	BestfitReplacement                                                           *byte
	// InvalidHandling is "preserve_percent", "remove_percent", "decode_invalid" or "".
	InvalidHandling                     string
	DoubleDecodePath, DoubleDecodeQuery bool
	PlusSpaceDecode, IncludeAll         bool
}

// DefaultConfig returns the built-in defaults of HTPConfigSetDefaultsPhase1 with Suricata's
// overrides (query-plusspace-decode off, request decompression on).
func DefaultConfig() Config {
	return Config{
		Name:                  "default",
		Personality:           "Minimal",
		RequestBodyLimit:      4096,
		ResponseBodyLimit:     4096,
		RequestMinInspect:     32768,
		RequestInspectWindow:  4096,
		ResponseMinInspect:    32768,
		ResponseInspectWindow: 4096,
		Randomize:             true,
		RandomizeRange:        10,
		LayerLimit:            2,
		MetaFieldLimit:        18000,
		MaxTx:                 512,
		HeadersLimit:          1024,
		LzmaLayers:            0,
		LzmaMemlimit:          1 << 20,
		BombLimit:             1 << 20,
		BombCount:             3,
		DecompressLimit:       100 * time.Millisecond,
	}
}

// Settings is the whole of app-layer.protocols.http's libhtp configuration: the default
// config and the server-config entries selected by server address.
type Settings struct {
	Default *Config
	Servers []*Config
	table   bart.Table[int] // server address -> index in Servers
}

// For returns the config of a flow whose server is addr (HTPStateAlloc's radix lookup).
func (s *Settings) For(addr netip.Addr) *Config {
	if addr.IsValid() {
		if i, ok := s.table.Lookup(addr); ok {
			return s.Servers[i]
		}
	}
	return s.Default
}

// Rand is the source of the inspection-size randomisation (Suricata's RandomGet); tests
// replace it to fix the values.
var Rand = rand.New(rand.NewPCG(0x6d65, 0x6572))

// Configure reads app-layer.protocols.http (conf may be nil): libhtp.default-config and
// libhtp.server-config[] (HTPConfigure, HTPConfigParseParameters). It returns *Settings.
func Configure(conf *config.Node) (any, error) {
	return configure(conf)
}

func configure(conf *config.Node) (*Settings, error) {
	s := &Settings{}
	def := DefaultConfig()
	if n, ok := conf.Lookup("libhtp.default-config"); ok {
		if err := parseParams(n, &def, "app-layer.protocols.http.libhtp.default-config"); err != nil {
			return nil, err
		}
	}
	base := def // server configs inherit the defaults before randomisation
	randomize(&def)
	if err := def.buildURI(); err != nil {
		return nil, err
	}
	s.Default = &def
	for _, e := range conf.ChildrenOf("libhtp.server-config") {
		name := e.SeqName()
		body := e
		if e.Kind == config.MappingNode && len(e.Children) == 1 && e.Children[0].Kind == config.MappingNode {
			body = e.Children[0]
		}
		c := base
		c.Name = name
		where := "app-layer.protocols.http.libhtp.server-config." + name
		if err := parseParams(body, &c, where); err != nil {
			return nil, err
		}
		randomize(&c)
		if err := c.buildURI(); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		idx := len(s.Servers)
		s.Servers = append(s.Servers, &c)
		for _, a := range body.List("address") {
			p, err := parsePrefix(a)
			if err != nil {
				// Suricata warns and ignores a bad address; a config we cannot honour is an
				// error here so it is not silently dropped.
				return nil, fmt.Errorf("%s.address: bad address %q: %v", where, a, err)
			}
			s.table.Insert(p, idx)
		}
	}
	return s, nil
}

func parsePrefix(a string) (netip.Prefix, error) {
	if strings.Contains(a, "/") {
		p, err := netip.ParsePrefix(a)
		return p.Masked(), err
	}
	ip, err := netip.ParseAddr(a)
	if err != nil {
		return netip.Prefix{}, err
	}
	return netip.PrefixFrom(ip, ip.BitLen()), nil
}

// randomize is HTPConfigSetDefaultsPhase2: each inspection size moves by up to ±range/2 %.
func randomize(c *Config) {
	if !c.Randomize {
		return
	}
	perturb := func(v *uint64) {
		f := Rand.Float64() - 0.5
		*v = uint64(int64(*v) + int64(float64(*v)*f*float64(c.RandomizeRange)/100))
	}
	perturb(&c.RequestMinInspect)
	perturb(&c.RequestInspectWindow)
	perturb(&c.ResponseMinInspect)
	perturb(&c.ResponseInspectWindow)
}

var personalities = []string{"minimal", "generic", "ids", "iis_4_0", "iis_5_0", "iis_5_1",
	"iis_6_0", "iis_7_0", "iis_7_5", "apache_2", "apache"}

// parseParams is HTPConfigParseParameters: each known key of n overrides c.
func parseParams(n *config.Node, c *Config, where string) error {
	if n == nil {
		return nil
	}
	for _, p := range n.Children {
		key := strings.ToLower(p.Name)
		val, _ := p.Scalar()
		bad := func(why string) error {
			return fmt.Errorf("%s.%s: invalid value %q: %s", where, p.Name, val, why)
		}
		size := func(dst *uint64) error {
			if p.IsNull() {
				return nil
			}
			v, err := config.ParseSize(val)
			if err != nil {
				return bad("not a size")
			}
			*dst = v
			return nil
		}
		integer := func(dst *int, min, max int) error {
			if p.IsNull() {
				return nil
			}
			v, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil || v < min || v > max {
				return bad(fmt.Sprintf("not an integer in %d..%d", min, max))
			}
			*dst = v
			return nil
		}
		flag := func(dst **bool) {
			b := config.IsTrue(val)
			*dst = &b
		}
		var err error
		switch key {
		case "address":
		case "personality":
			ok := false
			for _, q := range personalities {
				if strings.EqualFold(q, val) {
					ok = true
				}
			}
			if !ok {
				return bad("unknown personality")
			}
			c.Personality = val
		case "request-body-limit", "request_body_limit":
			err = size(&c.RequestBodyLimit)
		case "response-body-limit":
			err = size(&c.ResponseBodyLimit)
		case "request-body-minimal-inspect-size":
			err = size(&c.RequestMinInspect)
		case "request-body-inspect-window":
			err = size(&c.RequestInspectWindow)
		case "response-body-minimal-inspect-size":
			err = size(&c.ResponseMinInspect)
		case "response-body-inspect-window":
			err = size(&c.ResponseInspectWindow)
		case "double-decode-query":
			c.URI.DoubleDecodeQuery = config.IsTrue(val)
		case "double-decode-path":
			c.URI.DoubleDecodePath = config.IsTrue(val)
		case "response-body-decompress-layer-limit":
			err = integer(&c.LayerLimit, 0, 1<<16)
		case "path-convert-backslash-separators":
			flag(&c.URI.ConvertBackslash)
		case "path-bestfit-replacement-char":
			if len(val) != 1 {
				return bad("not one character")
			}
			b := val[0]
			c.URI.BestfitReplacement = &b
		case "path-convert-lowercase":
			flag(&c.URI.ConvertLowercase)
		case "path-nul-encoded-terminates":
			flag(&c.URI.NulEncodedTerminates)
		case "path-nul-raw-terminates":
			flag(&c.URI.NulRawTerminates)
		case "path-separators-compress":
			flag(&c.URI.CompressSeparators)
		case "path-separators-decode":
			flag(&c.URI.DecodeSeparators)
		case "path-u-encoding-decode":
			flag(&c.URI.UEncodingDecode)
		case "path-url-encoding-invalid-handling":
			switch strings.ToLower(val) {
			case "preserve_percent", "remove_percent", "decode_invalid":
				c.URI.InvalidHandling = strings.ToLower(val)
			default:
				return bad("want preserve_percent, remove_percent or decode_invalid")
			}
		case "path-utf8-convert-bestfit":
			flag(&c.URI.UTF8ConvertBestfit)
		case "uri-include-all":
			c.URI.IncludeAll = config.IsTrue(val)
		case "query-plusspace-decode":
			c.URI.PlusSpaceDecode = config.IsTrue(val)
		case "meta-field-limit":
			err = integer(&c.MetaFieldLimit, 1, 1<<30)
		case "lzma-memlimit":
			err = size(&c.LzmaMemlimit)
			if err == nil && c.LzmaMemlimit == 0 {
				return bad("must be positive")
			}
		case "lzma-enabled":
			if b, ok := config.ParseBool(val); ok {
				c.LzmaLayers = 0
				if b {
					c.LzmaLayers = 1
				}
			} else {
				err = integer(&c.LzmaLayers, 0, 255)
			}
		case "compression-bomb-count":
			err = integer(&c.BombCount, 1, 1<<30)
		case "compression-bomb-limit":
			err = size(&c.BombLimit)
			if err == nil && c.BombLimit == 0 {
				return bad("must be positive")
			}
		case "decompression-time-limit":
			var us int
			if err = integer(&us, 0, 1<<31-1); err == nil && !p.IsNull() {
				c.DecompressLimit = time.Duration(us) * time.Microsecond
			}
		case "max-tx":
			err = integer(&c.MaxTx, 1, 1<<31-1)
		case "headers-limit":
			err = integer(&c.HeadersLimit, 1, 1<<31-1)
		case "randomize-inspection-sizes":
			c.Randomize = config.IsTrue(val)
		case "randomize-inspection-range":
			err = integer(&c.RandomizeRange, 0, 100)
		case "http-body-inline":
			switch {
			case strings.EqualFold(val, "auto"):
				c.BodyInline = BodyInlineAuto
			case config.IsTrue(val):
				c.BodyInline = BodyInlineYes
			case config.IsFalse(val):
				c.BodyInline = BodyInlineNo
			default:
				return bad("want auto, yes or no")
			}
		case "force-hash":
			c.ForceHash = config.IsTrue(val)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
