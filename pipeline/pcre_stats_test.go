package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/detect"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestPCRETimeoutStats: 20 packets of issue #24's catastrophic payload against a backtracking
// pcre rule take at most 20 x 110 ms, raise no alert (a timed-out pcre does not match), and
// each evaluation cut short is counted in stats as detect.pcre.time_limit_errors.
func TestPCRETimeoutStats(t *testing.T) {
	r, err := rules.Parse(`alert tcp any any -> any any (msg:"catastrophic"; pcre:"/^(a+)+b(?=c)/"; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	e, errs, err := detect.Build([]*rules.Rule{r}, detect.Config{})
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	defer e.Close()
	cfg := testConfig(RunmodeSingle)
	cfg.Engine = e
	payload := strings.Repeat("a", 1459) + "!"
	c, s := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	ts := time.Unix(1700000000, 0)
	var frames []capture.Frame
	for i := range 20 {
		frames = append(frames, capture.Frame{Data: frame(c, s, uint16(40000+i), 80, decode.TCPFlagACK, payload),
			Timestamp: ts.Add(time.Duration(i) * time.Millisecond), LinkType: decode.LinkTypeEthernet, Cnt: uint64(i + 1)})
	}
	start := time.Now()
	res, err := Run(context.Background(), &memSource{frames: frames}, cfg)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("20 packets in %v", elapsed)
	if elapsed > 20*110*time.Millisecond {
		t.Errorf("20 packets took %v, want within %v", elapsed, 20*110*time.Millisecond)
	}
	if res.Alerts != 0 {
		t.Errorf("%d alerts, want none", res.Alerts)
	}
	if got := res.Stats.Value("detect.pcre.time_limit_errors"); got != 20 {
		t.Errorf("detect.pcre.time_limit_errors = %d, want 20", got)
	}
}
