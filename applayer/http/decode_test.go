package http

import (
	"bytes"
	"compress/flate"
	"fmt"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

func deflateRaw(s string) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// Bodies through decompress (§5.6): gzip and deflate responses, gzip request bodies (SV
// http-post-data-decompression), two layers, clear text labelled gzip passed through (SV
// http-encoding-gzip-uncompressed), at every split.
func TestDecompression(t *testing.T) {
	page := strings.Repeat("hello compressed world ", 50)
	for _, split := range []int{0, 1, 7, 100} {
		s := testState(t, func(c *Config) { c.ResponseBodyLimit = 0; c.RequestBodyLimit = 0 })
		z := gz(page)
		feed(t, s, flow.ToServer, []byte(fmt.Sprintf("POST / HTTP/1.1\r\nHost: a\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s", len(z), z)), split, false)
		d := deflateRaw(page)
		two := gz(string(d))
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: %d\r\n\r\n%s", len(d), d)
		feed(t, s, flow.ToClient, []byte(resp), split, false)
		feed(t, s, flow.ToServer, []byte("GET /2 HTTP/1.1\r\nHost: a\r\n\r\n"), split, false)
		feed(t, s, flow.ToClient, []byte(fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: deflate, gzip\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(two), two)), split, false)
		tx := s.Tx(0)
		if string(tx.RequestBody.Data) != page {
			t.Fatalf("split %d: request body %q", split, tx.RequestBody.Data)
		}
		if string(tx.ResponseBody.Data) != page || tx.ResponseLength != uint64(len(d)) || tx.ResponseFiles[0].Size != uint64(len(page)) {
			t.Fatalf("split %d: response body %d bytes, length %d", split, len(tx.ResponseBody.Data), tx.ResponseLength)
		}
		if tx2 := s.Tx(1); string(tx2.ResponseBody.Data) != page {
			t.Fatalf("split %d: two layers %q", split, tx2.ResponseBody.Data)
		}
	}
}

func TestDecompressionEvents(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, foo\r\nContent-Length: 0\r\n\r\n")
	if !hasEvent(s.Tx(0), "abnormal_ce_header") {
		t.Errorf("abnormal: %v", eventList(s.Tx(0)))
	}
	s = testState(t, nil)
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip, gzip\r\nContent-Length: 0\r\n\r\n")
	if !hasEvent(s.Tx(0), "too_many_encoding_layers") {
		t.Errorf("layers: %v", eventList(s.Tx(0)))
	}
	// a bomb: 10 MiB of zeros compressed twice (one deflate layer cannot pass the 2048
	// ratio of libhtp's bomb check)
	bomb := gz(string(gz(strings.Repeat("\x00", 10<<20))))
	s = testState(t, func(c *Config) { c.BombCount = 1 })
	req(t, s, "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	resp(t, s, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Encoding: gzip, gzip\r\nContent-Length: %d\r\n\r\n%s", len(bomb), bomb))
	if tx := s.Tx(0); !hasEvent(tx, "compression_bomb") || !hasEvent(tx, "compression_bomb_limit_reached") || tx.ResponseBody.Len > 2<<20 {
		t.Errorf("bomb: %v len %d", eventList(tx), tx.ResponseBody.Len)
	}
}

// URI normalisation through uri (§5.3) and the host checks of §5.5.
func TestURIGlue(t *testing.T) {
	s := testState(t, func(c *Config) { c.URI.DoubleDecodePath = true })
	req(t, s, "GET /a%2527b/./c//d%20e?x=%41+b HTTP/1.1\r\nHost: a\r\n\r\n")
	tx := s.Tx(0)
	if b, _ := getBuf(t, "http.uri", tx, flow.ToServer, 0, &applayer.GetCtx{}); string(b) != "/a'b/c/d e?x=A+b" {
		t.Errorf("http.uri %q", b)
	}
	if !hasEvent(tx, "double_encoded_uri") {
		t.Errorf("double: %v", eventList(tx))
	}
	s = testState(t, nil)
	req(t, s, "GET http://WWW.A.com:81/p HTTP/1.1\r\nHost: b.com\r\n\r\n")
	tx = s.Tx(0)
	if string(tx.Hostname) != "www.a.com" || tx.Port != 81 || string(tx.HostRaw) != "www.a.com" || !hasEvent(tx, "host_header_ambiguous") {
		t.Errorf("absolute: %q %d %q %v", tx.Hostname, tx.Port, tx.HostRaw, eventList(tx))
	}
	s = testState(t, nil)
	req(t, s, "GET http://a..b/ HTTP/1.1\r\nHost: a..b\r\n\r\n")
	if !hasEvent(s.Tx(0), "request_uri_host_invalid") {
		t.Errorf("uri host: %v", eventList(s.Tx(0)))
	}
	s = testState(t, nil)
	req(t, s, "CONNECT a.com:8443 HTTP/1.1\r\nHost: a.com:8443\r\n\r\n")
	if tx := s.Tx(0); string(tx.Hostname) != "a.com" || tx.Port != 8443 {
		t.Errorf("CONNECT authority %q %d", tx.Hostname, tx.Port)
	}
}

// Suricata turns lowercase conversion off for every personality (§5.1).
func TestURIKeepsCase(t *testing.T) {
	s := testState(t, nil)
	req(t, s, "GET /Dir/FILE.HTML HTTP/1.1\r\nHost: a\r\n\r\n")
	if string(s.Tx(0).URINorm) != "/Dir/FILE.HTML" {
		t.Errorf("%q", s.Tx(0).URINorm)
	}
}
