package smtp

import (
	"fmt"
	"strings"

	"github.com/meerkat-ids/meerkat/config"
)

// The defaults of src/app-layer-smtp.c (smtp_config, SMTPConfigure) and rust/src/mime/smtp.rs.
const (
	DefaultContentLimit          = 100000 // FILEDATA_CONTENT_LIMIT
	DefaultContentInspectMinSize = 32768  // FILEDATA_CONTENT_INSPECT_MIN_SIZE
	DefaultContentInspectWindow  = 4096   // FILEDATA_CONTENT_INSPECT_WINDOW
	DefaultMaxTx                 = 256    // SMTP_DEFAULT_MAX_TX
	DefaultHeaderValueDepth      = 2000   // suricata.yaml's mime.header-value-depth
)

// Config is app-layer.protocols.smtp as SMTPConfigure reads it.
type Config struct {
	// DecodeMIME parses the DATA message as MIME (mime.decode-mime, default yes).
	DecodeMIME bool
	// DecodeBase64 and DecodeQP decode base64 and quoted-printable parts
	// (mime.decode-base64, mime.decode-quoted-printable, default yes).
	DecodeBase64, DecodeQP bool
	// HeaderValueDepth is mime.header-value-depth. Suricata 8.0.6 stores the value
	// (SCMimeSmtpConfigHeaderValueDepth) but its Rust MIME parser never reads it: header
	// values are kept whole. Meerkat does the same and bounds values with MaxHeaderValue.
	HeaderValueDepth uint32
	// ExtractURLs collects URLs from text parts (mime.extract-urls, default yes), for the
	// schemes URLSchemes (mime.extract-urls-schemes, default [http], each with "://");
	// LogURLScheme keeps the scheme in the logged URL (mime.log-url-scheme, default no).
	ExtractURLs  bool
	URLSchemes   [][]byte
	LogURLScheme bool
	// BodyMD5 computes the MD5 of the message body (mime.body-md5, default no).
	BodyMD5 bool
	// RawExtraction makes the raw message one file "rawmsg" (raw-extraction, default no;
	// exclusive with DecodeMIME, which wins).
	RawExtraction bool
	// ContentLimit, ContentInspectMinSize and ContentInspectWindow are inspected-tracker's
	// content-limit, content-inspect-min-size and content-inspect-window: the file.data
	// inspection sizes (FileSetInspectSizes) and the bytes of a file kept for inspection.
	ContentLimit, ContentInspectMinSize, ContentInspectWindow uint32
	// MaxTx is max-tx: a flow creating more transactions than this is a parse error
	// (SMTPTransactionCreate returns NULL once tx_cnt > max_tx).
	MaxTx uint64
}

// Bounds Meerkat adds where Suricata grows without limit (hostile input is normal input).
const (
	// MaxHeaders is the most MIME headers kept per transaction (main and part headers).
	MaxHeaders = 256
	// MaxHeaderValue is the most bytes of one header value kept (folded lines included).
	MaxHeaderValue = 16384
	// MaxURLs is the most URLs kept per transaction; MaxAttachments the most file names.
	MaxURLs        = 256
	MaxAttachments = 256
	// MaxBoundaries is the deepest multipart nesting followed.
	MaxBoundaries = 16
	// MaxRcptTo is the most RCPT TO addresses kept per transaction.
	MaxRcptTo = 256
	// maxCmds bounds the pipelined commands waiting for replies (Suricata: USHRT_MAX).
	maxCmds = 65535
)

// DefaultConfig is the configuration of an absent app-layer.protocols.smtp.
func DefaultConfig() *Config {
	return &Config{
		DecodeMIME: true, DecodeBase64: true, DecodeQP: true,
		HeaderValueDepth: DefaultHeaderValueDepth, ExtractURLs: true,
		URLSchemes:   [][]byte{[]byte("http://")},
		ContentLimit: DefaultContentLimit, ContentInspectMinSize: DefaultContentInspectMinSize,
		ContentInspectWindow: DefaultContentInspectWindow, MaxTx: DefaultMaxTx,
	}
}

// Configure reads app-layer.protocols.smtp (conf may be nil) as SMTPConfigure does.
func Configure(conf *config.Node) (any, error) { return configure(conf) }

func configure(conf *config.Node) (*Config, error) {
	c := DefaultConfig()
	if m, ok := conf.Lookup("mime"); ok && !m.IsNull() {
		c.DecodeMIME = m.Bool("decode-mime", c.DecodeMIME)
		c.DecodeBase64 = m.Bool("decode-base64", c.DecodeBase64)
		c.DecodeQP = m.Bool("decode-quoted-printable", c.DecodeQP)
		d, err := m.Int("header-value-depth", int64(c.HeaderValueDepth))
		if err != nil {
			return nil, err
		}
		if d < 0 || d > 1<<32-1 {
			return nil, fmt.Errorf("app-layer.protocols.smtp.mime.header-value-depth: invalid value %d", d)
		}
		c.HeaderValueDepth = uint32(d)
		c.ExtractURLs = m.Bool("extract-urls", c.ExtractURLs)
		if _, ok := m.Lookup("extract-urls-schemes"); ok {
			c.URLSchemes = nil
			for _, s := range m.List("extract-urls-schemes") {
				if s == "" {
					continue
				}
				if !strings.HasSuffix(s, "/") {
					s += "://"
				}
				c.URLSchemes = append(c.URLSchemes, []byte(strings.ToLower(s)))
			}
		}
		c.LogURLScheme = m.Bool("log-url-scheme", c.LogURLScheme)
		c.BodyMD5 = m.Bool("body-md5", c.BodyMD5)
	}
	// inspected-tracker: a bad size keeps the default (SMTPConfigure warns).
	for _, k := range []struct {
		key string
		dst *uint32
		def uint32
	}{
		{"inspected-tracker.content-limit", &c.ContentLimit, DefaultContentLimit},
		{"inspected-tracker.content-inspect-min-size", &c.ContentInspectMinSize, DefaultContentInspectMinSize},
		{"inspected-tracker.content-inspect-window", &c.ContentInspectWindow, DefaultContentInspectWindow},
	} {
		if v, err := conf.Size(k.key, uint64(k.def)); err == nil && v <= 1<<32-1 {
			*k.dst = uint32(v)
		}
	}
	c.RawExtraction = conf.Bool("raw-extraction", false)
	if c.RawExtraction && c.DecodeMIME {
		c.RawExtraction = false // "decode-mime" and "raw-extraction" can't both be on
	}
	if s, ok := conf.String("max-tx"); ok {
		if v, err := config.ParseSize(s); err == nil {
			c.MaxTx = v
		}
	}
	return c, nil
}
