package txtest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestTxXbits: xbits with track tx (Suricata 8.0.6 detect-xbits.c, tx-bit.c). set is a
// post-match on the transaction the rule matched (DetectXbitPostMatchTx), isset an inspect
// engine at the rule's hook (DetectXbitSetup puts it on the hook's list) that matches while
// the transaction has the bit (DetectXbitTxMatch). The bit belongs to one tx: the next tx
// of the flow does not see it. Expectations follow suricata-verify's
// ruletype-firewall-111-ftp-download-active (set on the request of PASS, isset on its
// response_started).
func TestTxXbits(t *testing.T) {
	set := `alert http1:request_line any any -> any any (http.method; content:"GET"; xbits:set,seen,track tx; sid:1;)`
	isset := `alert http1:response_line any any -> any any (xbits:isset,seen,track tx; sid:2;)`
	cases := []struct {
		name  string
		rules []string
		steps []step
	}{
		{"set then isset on the response", []string{set, isset}, []step{
			{ts, "GET /a\n", []string{"1/0"}},
			{ts, "\n.\n", nil},
			{tc, "200\n", []string{"2/0"}},
		}},
		{"no set, no match", []string{set, isset}, []step{
			{ts, "POST /a\n\n.\n", nil},
			{tc, "200\n", nil},
		}},
		{"the bit is the tx's only", []string{set, isset}, []step{
			{ts, "GET /a\n\n.\n", []string{"1/0"}},
			{ts, "POST /b\n\n.\n", nil},
			{tc, "200\n\n.\n", []string{"2/0"}},
			{tc, "200\n\n.\n", nil},
		}},
		{"names are distinct bits", []string{set,
			`alert http1:response_line any any -> any any (xbits:isset,other,track tx; sid:3;)`}, []step{
			{ts, "GET /a\n\n.\n", []string{"1/0"}},
			{tc, "200\n", nil},
		}},
		{"isset with another keyword", []string{set,
			`alert http1:response_line any any -> any any (xbits:isset,seen,track tx; http.stat_code; content:"404"; sid:4;)`}, []step{
			{ts, "GET /a\n\n.\n", []string{"1/0"}},
			{tc, "200\n\n.\n", nil},
			{ts, "GET /b\n\n.\n", []string{"1/1"}},
			{tc, "404\n", []string{"4/1"}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := build(t, detect.Config{}, c.rules...)
			cn := newConn(t, e)
			for i, s := range c.steps {
				cn.tc.StartPacket()
				got := cn.send(s.dir, s.data)
				if strings.Join(got, ",") != strings.Join(s.want, ",") {
					t.Errorf("step %d (%q): alerts %v, want %v", i, s.data, got, s.want)
				}
			}
		})
	}
}

// TestTxXbitsLoadErrors: the rule errors of DetectXbitParse / DetectXbitSetup for track tx.
func TestTxXbitsLoadErrors(t *testing.T) {
	cases := []struct{ rule, err string }{
		{`alert http any any -> any any (xbits:isset,a,track tx; sid:1;)`, "tx xbits require an explicit rule hook"},
		{`alert http1:request_line any any -> any any (xbits:unset,a,track tx; sid:1;)`, "tx xbits only support set and isset"},
		{`alert http1:request_line any any -> any any (xbits:toggle,a,track tx; sid:1;)`, "tx xbits only support set and isset"},
		{`alert http1:request_line any any -> any any (xbits:isnotset,a,track tx; sid:1;)`, "tx xbits only support set and isset"},
	}
	for _, c := range cases {
		_, err := rules.Parse(c.rule)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.rule, err, c.err)
		}
	}
	// A set without a hook loads (it is a post-match; Suricata only checks the isset).
	if _, err := rules.Parse(`alert http any any -> any any (xbits:set,a,track tx; sid:1;)`); err != nil {
		t.Errorf("set without hook: %v", err)
	}
}

// TestTxXbitsOrder: tx bits do not make a rule a hostbits writer or reader in the rule
// order (SCSigGetXbitsType counts VAR_TYPE_HOST_BIT and VAR_TYPE_IPPAIR_BIT bits only), so
// these rules stay in sid order; a hostbits setter still goes first.
func TestTxXbitsOrder(t *testing.T) {
	e := build(t, detect.Config{},
		`alert http1:request_line any any -> any any (xbits:isset,a,track tx; sid:6;)`,
		`alert http1:request_line any any -> any any (xbits:set,a,track tx; sid:5;)`,
		`alert http1:request_line any any -> any any (sid:1;)`,
		`alert http1:request_line any any -> any any (hostbits:set,h; sid:9;)`,
	)
	var got []uint32
	for _, r := range e.Rules() {
		got = append(got, r.Src.SID)
	}
	if want := []uint32{9, 1, 5, 6}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
