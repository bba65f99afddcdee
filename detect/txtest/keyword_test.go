package txtest_test

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
)

// A second stand-in, registered as DNS in this test binary only, for the match keywords that
// are not sticky buffers (applayer.Value and applayer.Keyword): the line protocol of the
// HTTP stand-in, with the start line's second word as dns.opcode, every header line "T: n"
// as one dns.rrtype value, and a test grammar ("even" / "odd" of the opcode) under the name
// dns.rcode for the Keyword path (the real DNS registers dns.rcode as a Value).
var dnsLineParser = &applayer.Parser{
	Proto: applayer.ProtoDNS, IPProto: 17,
	Complete:      [2]uint8{progComplete, progComplete},
	ProgressNames: lineParser.ProgressNames,
}

// startWord returns the number in the second word of dir's start line.
func startWord(tx applayer.Tx, dir applayer.Dir) (uint64, bool) {
	_, w, ok := bytes.Cut(lineTxOf(tx).start[dir], []byte(" "))
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(string(w), 10, 64)
	return n, err == nil
}

func init() {
	applayer.Register(dnsLineParser)
	both := [2]bool{true, true}
	line := [2]uint8{progLine, progLine}
	applayer.RegisterValue(applayer.Value{Name: "dns.opcode", Proto: applayer.ProtoDNS, Dirs: both, Progress: line, Max: 15,
		Get: func(tx applayer.Tx, dir applayer.Dir, _ int, _ *applayer.GetCtx) (uint64, bool) {
			return startWord(tx, dir)
		}})
	applayer.RegisterValue(applayer.Value{Name: "dns.rrtype", Proto: applayer.ProtoDNS, Dirs: both,
		Progress: [2]uint8{progBody, progBody}, Multi: true, Max: 0xffff, Names: map[string]uint64{"A": 1, "MX": 15},
		Get: func(tx applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) (uint64, bool) {
			h := lineTxOf(tx).hdrs[dir]
			if i >= len(h) {
				return 0, false
			}
			n, err := strconv.ParseUint(string(bytes.TrimPrefix(h[i], []byte("T: "))), 10, 64)
			return n, err == nil
		}})
	applayer.RegisterKeyword(applayer.Keyword{Name: "dns.rcode", Proto: applayer.ProtoDNS, Dirs: both, Progress: line,
		Compile: func(value string, _ bool) (applayer.TxMatch, error) {
			var want uint64
			switch value {
			case "even":
			case "odd":
				want = 1
			default:
				return nil, fmt.Errorf("dns.rcode: %q is neither even nor odd", value)
			}
			return func(tx applayer.Tx, dir applayer.Dir, _ *applayer.GetCtx) bool {
				n, ok := startWord(tx, dir)
				return ok && n%2 == want
			}, nil
		}})
}

func newDNSConn(t testing.TB, e *detect.Engine) *conn {
	c := newConn(t, e)
	c.fa = applayer.FlowApp{Proto: applayer.ProtoDNS, ProtoDir: [2]applayer.Proto{applayer.ProtoDNS, applayer.ProtoDNS},
		Parser: dnsLineParser, State: c.st}
	return c
}

// TestKeywordEngines checks the inspect engines of Value and Keyword match keywords
// (DetectEngineInspectGenericList): a match at the keyword's progress alerts once per tx and
// direction; a miss is retried while the direction is incomplete and final once it is
// complete; a keyword of both directions follows the rule's direction; names and integer
// expressions; any value of a multi-valued keyword.
func TestKeywordEngines(t *testing.T) {
	cases := []struct {
		name  string
		rule  string
		steps []step
	}{
		{"value equal, both directions, once per direction", `alert dns any any -> any any (dns.opcode:5; sid:1;)`, []step{
			{ts, "Q 5\n", []string{"1/0"}},
			{ts, "X: y\n", nil},
			{tc, "R 5\n", []string{"1/0"}},
			{tc, "\n", nil},
		}},
		{"flow:to_server restricts", `alert dns any any -> any any (dns.opcode:5; flow:to_server; sid:1;)`, []step{
			{tc, "R 5\n", nil}, // a response without request: tx 0
			{ts, "Q 5\n", []string{"1/1"}},
		}},
		{"integer expression and negation", `alert dns any any -> any any (dns.opcode:!5; sid:1;)`, []step{
			{ts, "Q 4\n", []string{"1/0"}},
			{tc, "R 5\n", nil},
		}},
		{"range", `alert dns any any -> any any (dns.opcode:3-6; sid:1;)`, []step{
			{ts, "Q 6\n\n.\n", nil},
			{ts, "Q 4\n", []string{"1/1"}},
		}},
		{"multi-valued: any value, by name", `alert dns any any -> any any (dns.rrtype:MX; sid:1;)`, []step{
			{ts, "Q 1\n", nil},
			{ts, "T: 1\n", nil},
			{ts, "T: 15\n", nil},
			{ts, "\n", []string{"1/0"}}, // progress BODY: the keyword's
		}},
		{"negated name", `alert dns any any -> any any (dns.rrtype:!a; sid:1;)`, []step{
			{ts, "Q 1\nT: 1\n\n", nil},
			{ts, ".\n", nil},
			{ts, "Q 1\nT: 2\n\n", []string{"1/1"}},
		}},
		{"keyword grammar", `alert dns any any -> any any (dns.rcode:odd; sid:1;)`, []step{
			{ts, "Q 2\n", nil},
			{tc, "R 3\n", []string{"1/0"}},
		}},
		{"two keywords: both must match, each at its progress", `alert dns any any -> any any (dns.opcode:1; dns.rrtype:A; flow:to_server; sid:1;)`, []step{
			{ts, "Q 1\n", nil},
			{ts, "T: 1\n\n", []string{"1/0"}},
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			for _, cfg := range []detect.Config{{}, {NoTxPrefilter: true}} {
				c := newDNSConn(t, build(t, cfg, tt.rule))
				for i, s := range tt.steps {
					if got := c.send(s.dir, s.data); fmt.Sprint(got) != fmt.Sprint(s.want) {
						t.Errorf("step %d (%q): alerts %q, want %q", i, s.data, got, s.want)
					}
				}
			}
		})
	}
}

// TestKeywordEngineCantMatch: once a direction is complete, a miss is final (no state left
// to retry), and a tx that completes with the value never alerts later.
func TestKeywordEngineCantMatch(t *testing.T) {
	c := newDNSConn(t, build(t, detect.Config{}, `alert dns any any -> any any (dns.rrtype:15; flow:to_server; sid:1;)`))
	for _, s := range []step{{ts, "Q 1\nT: 1\n\n", nil}, {ts, ".\n", nil}, {ts, "Q 1\n", nil}} {
		if got := c.send(s.dir, s.data); len(got) != 0 {
			t.Fatalf("%q: alerts %q", s.data, got)
		}
	}
}

// TestKeywordLoadErrors: a Keyword's Compile error and a bad integer expression are the
// rule's load error.
func TestKeywordLoadErrors(t *testing.T) {
	for _, r := range []string{
		`alert dns any any -> any any (dns.rcode:three; sid:1;)`,
		`alert dns any any -> any any (dns.opcode:16; sid:1;)`,
		`alert dns any any -> any any (dns.rrtype:NOSUCH; sid:1;)`,
	} {
		if _, errs, err := detect.Build(parseAll(t, r), detect.Config{}); err == nil && len(errs) == 0 {
			t.Errorf("%s: loaded", r)
		}
	}
}

// TestAppLayerState checks app-layer-state (src/detect-app-layer-state.c): "<name" and
// ">name" compare the tx progress of the state's direction with the named state; a plain
// name is the rule's hook (test detect-app-layer-state-01: the hook rule matches on every
// packet while the tx is at the state, and once more when it first passes it).
func TestAppLayerState(t *testing.T) {
	cases := []struct {
		name  string
		rule  string
		steps []step
	}{
		{"below", `alert http any any -> any any (app-layer-state:<request_headers; sid:1;)`, []step{
			{ts, "GET /\n", []string{"1/0"}},
			{ts, "Host: x\n", nil},
		}},
		{"above", `alert http any any -> any any (app-layer-state:>request_headers; sid:1;)`, []step{
			{ts, "GET /\n", nil},
			{ts, "Host: x\n", nil},
			{ts, "\n", []string{"1/0"}},
			{ts, "body\n", nil},
		}},
		{"to-client state", `alert http any any -> any any (app-layer-state:>response_line; sid:1;)`, []step{
			{ts, "GET /\n", nil},
			{tc, "200\n", nil},
			{tc, "A: b\n", []string{"1/0"}},
		}},
		{"plain name: the hook", `alert http any any -> any any (app-layer-state:request_headers; sid:1;)`, []step{
			{ts, "GET /\n", nil},
			{ts, "Host: x\n", []string{"1/0"}},
			{ts, "A: b\n", []string{"1/0"}},
			{ts, "\n", []string{"1/0"}},
			{ts, "body\n", nil},
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, []string{tt.rule}, tt.steps)
		})
	}
	if _, errs, err := detect.Build(parseAll(t, `alert http any any -> any any (app-layer-state:no_such_state; sid:1;)`), detect.Config{}); err == nil && len(errs) == 0 {
		t.Error("unknown state loaded")
	}
}

func parseAll(t testing.TB, texts ...string) []*rules.Rule {
	t.Helper()
	var rs []*rules.Rule
	for _, s := range texts {
		r, err := rules.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// queryUses counts the rules that loaded with the stand-in's dns.query; refuseQuery makes
// its Use refuse them.
var queryUses, refuseQuery = 0, false

func init() {
	applayer.RegisterBuffer(applayer.Buffer{Name: "dns.query", Proto: applayer.ProtoDNS, Dirs: [2]bool{true, false},
		Progress: [2]uint8{progLine, progLine},
		Get: func(tx applayer.Tx, dir applayer.Dir, _ int, _ *applayer.GetCtx) ([]byte, bool) {
			l := lineTxOf(tx).start[dir]
			return l, l != nil
		},
		Use: func() error {
			if refuseQuery {
				return fmt.Errorf("dns.query support is not enabled")
			}
			queryUses++
			return nil
		}})
}

// TestBufferUse: a buffer's Use hears of every rule that inspects it as the rule loads, and
// its error refuses the rule (ja3.hash with ja3-fingerprints: no).
func TestBufferUse(t *testing.T) {
	queryUses, refuseQuery = 0, false
	t.Cleanup(func() { refuseQuery = false })
	rs := parseAll(t, `alert dns any any -> any any (dns.query; content:"a"; sid:1;)`,
		`alert dns any any -> any any (dns.query; content:"b"; sid:2;)`, `alert dns any any -> any any (dns.opcode:1; sid:3;)`)
	e, errs, err := detect.Build(rs, detect.Config{})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	e.Close()
	if queryUses < 2 { // at least once per rule (the engine compiles twice)
		t.Errorf("Use called %d times, want at least 2", queryUses)
	}
	refuseQuery = true
	e, errs, err = detect.Build(rs, detect.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), "dns.query support is not enabled") {
		t.Errorf("errors %v, want the two dns.query rules refused", errs)
	}
}
