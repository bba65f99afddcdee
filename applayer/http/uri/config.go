// Package uri parses and normalises HTTP request targets the way Suricata 8's
// libhtp (rust/htp) does: the split into scheme, credentials, host, port,
// path, query and fragment (Uri::parse_uri), the path decoding of each server
// personality (urlencoded.rs path_decode_uri), UTF-8 best-fit conversion
// (utf8_decoder.rs), RFC 3986 dot-segment removal (normalize_uri_path_inplace)
// and the normalized URI that Suricata's http.uri buffer shows
// (Uri::generate_normalized_uri, htp_tx_normalized_uri).
//
// Everything appends into caller-owned buffers; nothing allocates in steady
// state and no input makes it panic.
package uri

import (
	"errors"
	"strings"
)

// InvalidHandling says what path decoding does with an invalid %-escape
// (libhtp HtpUrlEncodingHandling; suricata.yaml
// path-url-encoding-invalid-handling).
type InvalidHandling uint8

const (
	// PreservePercent keeps the '%' and the bytes after it (preserve_percent).
	PreservePercent InvalidHandling = iota
	// RemovePercent drops the '%' and keeps the bytes after it (remove_percent).
	RemovePercent
	// DecodeInvalid decodes the two (or four for %u) bytes as if they were hex
	// digits (decode_invalid, libhtp PROCESS_INVALID).
	DecodeInvalid
)

// ParseInvalidHandling maps the suricata.yaml value (case-insensitive) to an
// InvalidHandling; ok is false for any other value (Suricata then rejects the
// config section: HTPConfigParseParameters).
func ParseInvalidHandling(s string) (h InvalidHandling, ok bool) {
	switch strings.ToLower(s) {
	case "preserve_percent":
		return PreservePercent, true
	case "remove_percent":
		return RemovePercent, true
	case "decode_invalid":
		return DecodeInvalid, true
	}
	return PreservePercent, false
}

// Config is libhtp's URI decoding configuration (DecoderConfig) for one server
// personality, with the suricata.yaml path-* keys applied on top.
type Config struct {
	// ConvertBackslash turns '\' into '/' in the path
	// (path-convert-backslash-separators).
	ConvertBackslash bool
	// DecodeSeparators decodes %2F (and %5C with ConvertBackslash) in the path;
	// without it they stay encoded (path-separators-decode).
	DecodeSeparators bool
	// CompressSeparators collapses runs of '/' in the path
	// (path-separators-compress).
	CompressSeparators bool
	// UEncodingDecode decodes %uXXXX (path-u-encoding-decode).
	UEncodingDecode bool
	// UTF8ConvertBestfit replaces the decoded path by its best-fit single-byte
	// form (path-utf8-convert-bestfit). Validation flags are raised either way.
	UTF8ConvertBestfit bool
	// ConvertLowercase lowercases the path (path-convert-lowercase). Suricata
	// turns it off whenever a personality is set.
	ConvertLowercase bool
	// NulEncodedTerminates ends the path (or the decoded field) at %00
	// (path-nul-encoded-terminates).
	NulEncodedTerminates bool
	// NulRawTerminates ends the path (or the decoded field) at a raw NUL byte
	// (path-nul-raw-terminates).
	NulRawTerminates bool
	// BestfitReplacement is the byte used for code points without a best-fit
	// mapping and for invalid UTF-8 (path-bestfit-replacement-char, '?').
	BestfitReplacement byte
	// InvalidHandling is path-url-encoding-invalid-handling.
	InvalidHandling InvalidHandling
	// DoubleDecodePath decodes the normalized path once more
	// (double-decode-path), raising FlagDoubleEncoded when that shortens it.
	DoubleDecodePath bool
	// DoubleDecodeQuery does the same for the query (double-decode-query).
	DoubleDecodeQuery bool
	// PlusSpaceDecode decodes '+' as a space in the query (and in other
	// url-decoded fields) (query-plusspace-decode; Suricata default no).
	PlusSpaceDecode bool
	// IncludeAll makes Normalize produce the complete form with scheme,
	// credentials and host (uri-include-all).
	IncludeAll bool
}

// ErrPersonalityIgnored is returned by Personality for a name Suricata knows
// but libhtp refuses (IIS_4_0, IIS_5_0): Suricata logs "Failed adding
// personality, ignoring" and keeps the defaults, which is the Config returned
// with this error.
var ErrPersonalityIgnored = errors.New("personality not supported by libhtp, ignored")

// ErrUnknownPersonality is returned for a name Suricata does not know
// (including Tomcat_6_0, which it rejects); the section keeps its defaults.
var ErrUnknownPersonality = errors.New("unknown libhtp personality")

// Default is the configuration Suricata gives libhtp before any suricata.yaml
// key is read (libhtp DecoderConfig::default with HTPConfigSetDefaultsPhase1's
// query-plusspace-decode off): personality Minimal.
func Default() Config {
	return Config{BestfitReplacement: '?', InvalidHandling: PreservePercent}
}

// Personality returns the URI configuration for a libhtp server personality
// name (case-insensitive, as Suricata's HTPLookupPersonality), starting from
// Default and applying libhtp's set_server_personality, then Suricata's
// override that turns lowercase conversion off. "apache" and "apache_2_2" are
// accepted as Apache_2 as Suricata does.
func Personality(name string) (Config, error) {
	c := Default()
	switch strings.ToLower(name) {
	case "minimal":
	case "generic":
		c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators = true, true, true
	case "ids":
		c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators = true, true, true
		c.ConvertLowercase = true
		c.UTF8ConvertBestfit = true
		c.UEncodingDecode = true
	case "apache_2", "apache", "apache_2_2":
		c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators = false, false, true
		c.UEncodingDecode = false
		c.InvalidHandling = PreservePercent
	case "iis_5_1":
		c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators = true, true, true
		c.UEncodingDecode = false
		c.InvalidHandling = PreservePercent
	case "iis_6_0", "iis_7_0", "iis_7_5":
		c.ConvertBackslash, c.DecodeSeparators, c.CompressSeparators = true, true, true
		c.UEncodingDecode = true
		c.InvalidHandling = PreservePercent
	case "iis_4_0", "iis_5_0":
		// libhtp set_server_personality returns an error for these; Suricata
		// warns and still applies its lowercase override.
		return c, ErrPersonalityIgnored
	default:
		return c, ErrUnknownPersonality
	}
	// app-layer-htp.c HTPConfigParseParameters: "The IDS personality by
	// default converts the path ... to lowercase. Signatures do not expect
	// this, so override it."
	c.ConvertLowercase = false
	return c, nil
}
