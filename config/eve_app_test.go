package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestEVEHTTPFilesXFFOptions reads the http and files types and the xff sections as
// OutputHttpLogInitSub, OutputFileLogInitSub, FileForceHashParseCfg and HttpXFFGetCfg do.
func TestEVEHTTPFilesXFFOptions(t *testing.T) {
	yaml := header + `outputs:
  - eve-log:
      enabled: yes
      xff:
        enabled: yes
        mode: overwrite
        deployment: forward
        header: X-Real-IP
      types:
        - alert:
            xff:
              enabled: yes
              mode: sideways
        - http:
            extended: yes
            dump-all-headers: both
            custom: [accept_encoding, Server]
        - files:
            force-magic: yes
            force-md5: yes
            force-hash: [SHA256, crc]
  - file-store:
      enabled: yes
      force-hash: [sha1]
`
	s := settings(t, load(t, yaml))
	e := s.Outputs.EVE
	if want := (XFFOptions{Present: true, Enabled: true, Mode: "overwrite", Deployment: "forward", Header: "X-Real-IP"}); e.XFF != want {
		t.Errorf("eve-log xff %+v, want %+v", e.XFF, want)
	}
	if want := (XFFOptions{Present: true, Enabled: true, Mode: "sideways"}); e.Alert.XFF != want {
		t.Errorf("alert xff %+v, want %+v", e.Alert.XFF, want)
	}
	w := strings.Join(s.Warnings, "\n")
	for _, sub := range []string{`invalid XFF mode "sideways"`, "deployment is not set"} {
		if !strings.Contains(w, sub) {
			t.Errorf("warnings %q lack %q", w, sub)
		}
	}
	wantHTTP := HTTPOptions{Enabled: true, Extended: true, DumpAllHeaders: "both", Custom: []string{"accept_encoding", "Server"}}
	if !reflect.DeepEqual(e.HTTP, wantHTTP) {
		t.Errorf("http %+v, want %+v", e.HTTP, wantHTTP)
	}
	if want := (FilesOptions{Enabled: true, ForceMagic: true, ForceMD5: true, ForceSHA256: true}); e.Files != want {
		t.Errorf("files %+v, want %+v", e.Files, want)
	}
	if o := s.Outputs; o.FileStoreMD5 || !o.FileStoreSHA1 || o.FileStoreSHA256 {
		t.Errorf("file-store hashes %v %v %v, want sha1 only", o.FileStoreMD5, o.FileStoreSHA1, o.FileStoreSHA256)
	}

	// Not listed: nothing enabled; a plain "- http" has extended off (LOG_HTTP_DEFAULT).
	s = settings(t, load(t, header+"outputs:\n  - eve-log:\n      enabled: yes\n      types:\n        - http\n"))
	if e := s.Outputs.EVE; !e.HTTP.Enabled || e.HTTP.Extended || e.Files.Enabled || e.XFF.Present {
		t.Errorf("plain http: %+v files %+v xff %+v", e.HTTP, e.Files, e.XFF)
	}
}

// TestTLSStoreOutput reads the tls-store output as LogTlsStoreLogInitCtx does: enabled and
// certs-log-dir (tls-store-02's suricata.yaml); a disabled entry is off, an entry without
// certs-log-dir keeps "" (the log directory).
func TestTLSStoreOutput(t *testing.T) {
	tests := []struct {
		yaml string
		want TLSStoreOutput
	}{
		{"  - tls-store:\n      enabled: yes\n      certs-log-dir: certs # directory to store the certificates files\n",
			TLSStoreOutput{Enabled: true, CertsLogDir: "certs"}},
		{"  - tls-store:\n      enabled: yes\n", TLSStoreOutput{Enabled: true}},
		{"  - tls-store:\n      enabled: no\n      certs-log-dir: certs\n", TLSStoreOutput{}},
		{"  - tls-store:\n      certs-log-dir: certs\n", TLSStoreOutput{}},
		{"  - fast:\n      enabled: yes\n", TLSStoreOutput{}},
	}
	for _, tc := range tests {
		s := settings(t, load(t, header+"outputs:\n"+tc.yaml))
		if s.Outputs.TLSStore != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.yaml, s.Outputs.TLSStore, tc.want)
		}
	}
}
