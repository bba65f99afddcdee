package output

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// certStoreWarnLimit is LOGGING_WRITE_ISSUE_LIMIT: how many write failures are reported.
const certStoreWarnLimit = 6

// CertStore is the tls-store output (src/log-tlsstore.c): the certificate chain of a TLS
// side that a tls.store rule marked is written to <dir>/[client-]<sec>.<usec>-<n>.pem, with
// a <same>.meta file describing the packet and the first certificate. One CertStore is
// shared by all workers: n is one counter for the whole run (cert_id), starting at 1.
type CertStore struct {
	dir string
	// Warn, when set, receives the write failures (the first certStoreWarnLimit of them).
	Warn   func(msg string)
	id     atomic.Uint32
	warned atomic.Int32
}

// CertStoreDir is LogTlsStoreLogInitCtx's choice of directory: certs-log-dir relative to
// the log directory unless absolute, the log directory itself when empty.
func CertStoreDir(logDir, certsLogDir string) string {
	if certsLogDir == "" {
		return logDir
	}
	if filepath.IsAbs(certsLogDir) {
		return certsLogDir
	}
	return logDir + "/" + certsLogDir
}

// NewCertStore returns the tls-store output writing into dir, creating dir (one level, mode
// 0750, as LogTlsStoreLogThreadInit does) when it does not exist.
func NewCertStore(dir string) (*CertStore, error) {
	if _, err := os.Stat(dir); err != nil {
		if err := os.Mkdir(dir, 0o750); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, errors.New("cannot create certs drop directory " + dir + ": " + err.Error())
		}
	}
	s := &CertStore{dir: dir}
	s.id.Store(1)
	return s, nil
}

// Dir is the directory the files go to.
func (s *CertStore) Dir() string { return s.dir }

// TLSStoreReady is LogTlsStoreCondition / LogTlsStoreConditionClient for side c: it is
// marked by tls.store and its first certificate decoded (cert0's subject and issuer are
// known).
func TLSStoreReady(c *tls.Conn) bool { return c.StoreCerts && c.HasCert }

// Store is LogTlsLogPem: when side c (client: the client's) is marked and has certificates,
// its chain is written as PEM and the .meta file next to it, both named after packet p's
// time (dir is p's direction in the flow); the mark is cleared once both files are written.
// buf is the caller's scratch buffer, reused. A side without certificates writes nothing
// and takes no number.
func (s *CertStore) Store(buf *[]byte, p *decode.Packet, dir flow.Direction, c *tls.Conn, client bool) {
	if !c.StoreCerts || len(c.Certs) == 0 {
		return
	}
	id := s.id.Add(1) - 1
	b := appendCertFileName((*buf)[:0], s.dir, client, p.Timestamp, id)
	name := string(b)
	b = appendCertsPEM(b[:0], c.Certs)
	if err := os.WriteFile(name, b, 0o666); err != nil {
		*buf = b
		s.warn("Can't create PEM file '" + name + "' in '" + s.dir + "' directory: " + err.Error())
		return
	}
	meta := name[:len(name)-3] + "meta"
	b = appendCertMeta(b[:0], p, dir, c)
	*buf = b
	if err := os.WriteFile(meta, b, 0o666); err != nil {
		s.warn("Can't create meta file '" + meta + "' in '" + s.dir + "' directory: " + err.Error())
		return
	}
	c.StoreCerts = false
}

func (s *CertStore) warn(msg string) {
	if s.Warn != nil && s.warned.Add(1) <= certStoreWarnLimit {
		s.Warn(msg)
	}
}

// appendCertFileName appends CreateFileName's path: "<dir>/[client-]<sec>.<usec>-<id>.pem",
// the microseconds printed without padding (%ld) and the id as a C int (%d).
func appendCertFileName(b []byte, dir string, client bool, ts time.Time, id uint32) []byte {
	b = append(b, dir...)
	b = append(b, '/')
	if client {
		b = append(b, "client-"...)
	}
	b = strconv.AppendInt(b, ts.Unix(), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(ts.Nanosecond()/1000), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(int32(id)), 10)
	return append(b, ".pem"...)
}

// appendCertsPEM appends each DER certificate as a PEM block (LogTlsLogPem): standard
// base64 with padding, 64 characters a line, each block between the CERTIFICATE header and
// footer lines.
func appendCertsPEM(b []byte, certs [][]byte) []byte {
	for _, der := range certs {
		b = append(b, "-----BEGIN CERTIFICATE-----\n"...)
		// 48 bytes encode to exactly one 64-character line, so encoding 48 at a time splits
		// the whole encoding into its lines
		for len(der) > 0 {
			k := min(len(der), 48)
			b = base64.StdEncoding.AppendEncode(b, der[:k])
			b = append(b, '\n')
			der = der[k:]
		}
		b = append(b, "-----END CERTIFICATE-----\n"...)
	}
	return b
}

// appendCertMeta appends the .meta file of side c written on packet p (LogTlsLogPem's
// second half): the packet's time and pcap number, the flow's addresses with the client
// first (TLSGetIPInformations), the protocol, the ports and cert0's subject, issuer and
// SHA-1 fingerprint.
func appendCertMeta(b []byte, p *decode.Packet, dir flow.Direction, c *tls.Conn) []byte {
	b = append(b, "TIME:              "...)
	b = AppendFastTime(b, p.Timestamp)
	b = append(b, '\n')
	if p.PcapCnt > 0 {
		b = append(b, "PCAP PKT NUM:      "...)
		b = strconv.AppendUint(b, p.PcapCnt, 10)
		b = append(b, '\n')
	}
	src, dst, sp, dp := p.SrcIP, p.DstIP, p.SrcPort, p.DstPort
	if dir != flow.ToServer {
		src, dst, sp, dp = dst, src, dp, sp
	}
	b = append(b, "SRC IP:            "...)
	b = AppendIP(b, src)
	b = append(b, "\nDST IP:            "...)
	b = AppendIP(b, dst)
	b = append(b, "\nPROTO:             "...)
	b = strconv.AppendUint(b, uint64(p.IPProto), 10)
	b = append(b, '\n')
	if p.IPProto == decode.ProtoTCP || p.IPProto == decode.ProtoUDP {
		b = append(b, "SRC PORT:          "...)
		b = strconv.AppendUint(b, uint64(sp), 10)
		b = append(b, "\nDST PORT:          "...)
		b = strconv.AppendUint(b, uint64(dp), 10)
		b = append(b, '\n')
	}
	b = append(b, "TLS SUBJECT:       "...)
	if c.HasCert {
		b = appendCString(b, c.Cert.Subject)
	} else {
		b = append(b, "<ERROR>"...) // no cert0: a NULL subject (only at the flow's end)
	}
	b = append(b, "\nTLS ISSUERDN:      "...)
	if c.HasCert {
		b = appendCString(b, c.Cert.Issuer)
	} else {
		b = append(b, "<ERROR>"...)
	}
	b = append(b, "\nTLS FINGERPRINT:   "...)
	if c.HasCert {
		b = append(b, c.Cert.Fingerprint...)
	} else {
		b = append(b, "(null)"...) // glibc's %s of a NULL cert0_fingerprint
	}
	return append(b, '\n')
}

// appendCString appends s as CreateStringFromByteArray and %s print it: up to its first
// NUL byte.
func appendCString(b, s []byte) []byte {
	for i, c := range s {
		if c == 0 {
			return append(b, s[:i]...)
		}
	}
	return append(b, s...)
}
