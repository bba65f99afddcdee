package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/meerkat-ids/meerkat/pipeline"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
	"github.com/meerkat-ids/meerkat/rules"
)

// progressInterval is how often the progress line reads the counters and redraws: once a
// second, or what MEERKAT_PROGRESS_INTERVAL says (a Go duration; the tests use it to see the
// line on runs shorter than a second).
func progressInterval() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("MEERKAT_PROGRESS_INTERVAL")); err == nil && d > 0 {
		return d
	}
	return time.Second
}

// isTerminal reports whether w is a terminal: only then does Meerkat draw a progress line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine is a one-line progress display at the bottom of a terminal, drawn with
// progressbar, and the writer the rest of the program writes its messages to: a message first
// erases the line, which the next tick draws again, so the two never mix. The display reads
// counters once a second (progressInterval) and draws nothing for work that ends sooner. A
// nil *progressLine draws nothing.
type progressLine struct {
	mu    sync.Mutex
	w     io.Writer // the terminal
	drawn bool      // a progress line is on the screen
}

func newProgressLine(w io.Writer) *progressLine { return &progressLine{w: w} }

// Write writes a message, erasing the progress line first.
func (pl *progressLine) Write(p []byte) (int, error) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.eraseLocked()
	return pl.w.Write(p)
}

func (pl *progressLine) eraseLocked() {
	if pl.drawn {
		io.WriteString(pl.w, "\r\x1b[K")
		pl.drawn = false
	}
}

// barWriter is where the bar draws: the terminal, marking the line as drawn.
type barWriter struct{ pl *progressLine }

func (b barWriter) Write(p []byte) (int, error) {
	b.pl.mu.Lock()
	defer b.pl.mu.Unlock()
	b.pl.drawn = true
	return b.pl.w.Write(p)
}

// run draws bar every progressInterval with what update sets, until the returned function is
// called; that function erases the line and returns once nothing draws any more.
func (pl *progressLine) run(bar *progressbar.ProgressBar, update func(bar *progressbar.ProgressBar)) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(progressInterval())
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				update(bar)
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		bar.Exit()
		pl.mu.Lock()
		pl.eraseLocked()
		pl.mu.Unlock()
	}
}

// startup shows start-up progress while rules load and pattern databases compile: the rules
// parsed, the databases compiled and those read from the cache. Call the returned function
// when start-up is done.
func (pl *progressLine) startup() func() {
	if pl == nil {
		return func() {}
	}
	rules0 := rules.ParsedRules()
	compiled0, cached0 := hs.Progress()
	bar := progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(barWriter{pl}),
		progressbar.OptionSetSpinnerChangeInterval(0), // drawn by the ticker only
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetDescription("loading rules"),
	)
	return pl.run(bar, func(bar *progressbar.ProgressBar) {
		compiled, cached := hs.Progress()
		bar.Describe(fmt.Sprintf("start-up: %d rules parsed, %d pattern databases compiled, %d read from cache",
			rules.ParsedRules()-rules0, compiled-compiled0, cached-cached0))
		bar.Add64(1)
	})
}

// sizedSource is a capture source that tells how much of its files it has read.
type sizedSource interface {
	BytesRead() int64
	Size() int64
}

// replay shows a replay's progress: packets, packets per second, bytes read of the
// capture's size, elapsed time and alerts, from counters the pipeline publishes (pr) and the
// source's byte count. Call the returned function when the replay ends.
func (pl *progressLine) replay(pr *pipeline.Progress, src any) func() {
	if pl == nil {
		return func() {}
	}
	ss, _ := src.(sizedSource)
	size := int64(-1)
	if ss != nil && ss.Size() > 0 {
		size = ss.Size()
	}
	bar := progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(barWriter{pl}),
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetDescription("replay"),
	)
	start := time.Now()
	return pl.run(bar, func(bar *progressbar.ProgressBar) {
		pkts := pr.Packets()
		rate := float64(pkts) / time.Since(start).Seconds()
		bar.Describe(fmt.Sprintf("%d packets (%.0f/s), %d alerts", pkts, rate, pr.Alerts()))
		if ss != nil {
			bar.Set64(ss.BytesRead())
		} else {
			bar.Add64(1)
		}
	})
}
