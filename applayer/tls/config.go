package tls

import (
	"sync/atomic"

	"github.com/meerkat-ids/meerkat/config"
)

// EncHandling is app-layer.protocols.tls.encryption-handling (SSL_CNF_ENC_HANDLE_*).
type EncHandling uint8

const (
	// EncTrackOnly (default): at the first application-data record the flow's payload is no
	// longer inspected and raw stream reassembly stops; TLS parsing goes on.
	EncTrackOnly EncHandling = iota
	// EncBypass: in addition parsing stops and the flow is bypassed.
	EncBypass
	// EncFull: nothing changes, content rules keep inspecting the encrypted stream.
	EncFull
)

// FingerprintMode is ja3-fingerprints / ja4-fingerprints: auto (off until a rule needs it),
// yes, no (rules using it fail to load).
type FingerprintMode uint8

const (
	FingerprintAuto FingerprintMode = iota
	FingerprintYes
	FingerprintNo
)

// Settings is TLS's configuration (RegisterSSLParsers' ssl_config).
type Settings struct {
	Enc EncHandling
	JA3 FingerprintMode
	JA4 FingerprintMode
	// MaxHandshake bounds one reassembled handshake message (Suricata's hs_buffer has only
	// the 24-bit message length as limit); a longer one raises HANDSHAKE_INVALID_LENGTH and
	// stops parsing of the flow.
	MaxHandshake int
	// MaxCerts bounds the certificates kept of one chain.
	MaxCerts int
}

// DefaultMaxHandshake is Settings.MaxHandshake's default: 256 KiB, far above real chains.
const DefaultMaxHandshake = 256 << 10

// DefaultSettings are the settings of an absent tls node.
func DefaultSettings() *Settings {
	return &Settings{MaxHandshake: DefaultMaxHandshake, MaxCerts: 64}
}

// The process-wide JA3/JA4 switches (ssl_config.enable_ja3/_ja4, atomics so that rule loading
// may turn them on: SSLEnableJA3).
var (
	ja3On, ja4On     atomic.Bool
	ja3Mode, ja4Mode atomic.Uint32
)

// Preconfigure reads, before the rules load, what decides whether ja3.* / ja4.hash rules
// load: ja3-fingerprints and ja4-fingerprints (CheckJA3Enabled, CheckJA4Enabled), setting the
// process-wide modes; yes turns computation on, auto leaves it to the rules (Buffer.Use).
func Preconfigure(conf *config.Node) error {
	var s Settings
	if conf != nil {
		s.JA3 = fingerprintMode(conf, "ja3-fingerprints")
		s.JA4 = fingerprintMode(conf, "ja4-fingerprints")
	}
	ja3Mode.Store(uint32(s.JA3))
	ja4Mode.Store(uint32(s.JA4))
	ja3On.Store(s.JA3 == FingerprintYes)
	ja4On.Store(s.JA4 == FingerprintYes)
	return nil
}

// Configure reads app-layer.protocols.tls (conf may be nil): encryption-handling (full,
// bypass, track-only, default = track-only, anything else track-only; absent: the legacy
// no-reassemble: yes means bypass), ja3-fingerprints and ja4-fingerprints (auto, yes, no).
// It also sets the process-wide JA3/JA4 modes (as Preconfigure; a switch a rule turned on
// stays on).
func Configure(conf *config.Node) (any, error) {
	s := DefaultSettings()
	if conf != nil {
		if v, ok := conf.String("encryption-handling"); ok {
			switch v {
			case "full":
				s.Enc = EncFull
			case "bypass":
				s.Enc = EncBypass
			default: // track-only, default (deprecated), unknown
				s.Enc = EncTrackOnly
			}
		} else if conf.Bool("no-reassemble", false) {
			s.Enc = EncBypass
		}
		s.JA3 = fingerprintMode(conf, "ja3-fingerprints")
		s.JA4 = fingerprintMode(conf, "ja4-fingerprints")
	}
	ja3Mode.Store(uint32(s.JA3))
	ja4Mode.Store(uint32(s.JA4))
	if s.JA3 == FingerprintYes {
		ja3On.Store(true)
	}
	if s.JA3 == FingerprintNo {
		ja3On.Store(false)
	}
	if s.JA4 == FingerprintYes {
		ja4On.Store(true)
	}
	return s, nil
}

func fingerprintMode(conf *config.Node, key string) FingerprintMode {
	v, ok := conf.String(key)
	switch {
	case !ok || v == "auto":
		return FingerprintAuto
	case config.IsTrue(v):
		return FingerprintYes
	case config.IsFalse(v):
		return FingerprintNo
	}
	return FingerprintAuto
}

// JA3Mode is the configured ja3-fingerprints mode: detection refuses rules using ja3.* or
// ja3s.* when it is FingerprintNo ("ja3 support is not enabled").
func JA3Mode() FingerprintMode { return FingerprintMode(ja3Mode.Load()) }

// JA4Mode is the configured ja4-fingerprints mode (FingerprintNo: ja4.hash rules fail to load).
func JA4Mode() FingerprintMode { return FingerprintMode(ja4Mode.Load()) }

// EnableJA3 turns JA3/JA3S computation on for hellos parsed from now on (SSLEnableJA3: a
// loaded rule uses ja3.* or ja3s.*); it does nothing when the config says no. It reports
// whether JA3 is on.
func EnableJA3() bool {
	if JA3Mode() == FingerprintNo {
		return false
	}
	ja3On.Store(true)
	return true
}

// EnableJA4 is EnableJA3 for ja4.hash rules (SSLEnableJA4). JA4 itself is always computed
// for EVE; the switch only gates rules.
func EnableJA4() bool {
	if JA4Mode() == FingerprintNo {
		return false
	}
	ja4On.Store(true)
	return true
}

// JA3Enabled reports whether hellos compute JA3/JA3S now.
func JA3Enabled() bool { return ja3On.Load() }
