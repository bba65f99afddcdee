package pipeline

import "sync/atomic"

// Progress is what a progress display reads while a run goes on: the frames read and the
// alerts logged so far. The reader stores its frame count every 1024 frames and each worker
// its alert count after each batch (in single mode every 1024 frames), with plain atomic
// stores of counters the packet loop keeps anyway, so the display costs the packet path
// nothing; it may lag by that much. The zero value is ready; a nil *Progress is ignored.
type Progress struct {
	packets atomic.Uint64
	alerts  atomic.Pointer[[]paddedCounter]
}

// paddedCounter keeps each worker's counter on its own cache line.
type paddedCounter struct {
	v atomic.Uint64
	_ [56]byte
}

// Packets returns the number of frames read so far.
func (p *Progress) Packets() uint64 { return p.packets.Load() }

// Alerts returns the number of alerts logged so far, over every worker.
func (p *Progress) Alerts() uint64 {
	s := p.alerts.Load()
	if s == nil {
		return 0
	}
	var n uint64
	for i := range *s {
		n += (*s)[i].v.Load()
	}
	return n
}

func (p *Progress) setWorkers(n int) {
	if p == nil {
		return
	}
	s := make([]paddedCounter, n)
	p.alerts.Store(&s)
}

func (p *Progress) setPackets(n uint64) {
	if p != nil {
		p.packets.Store(n)
	}
}

// setAlerts publishes worker w's alert count in slot i; called on w's goroutine.
func (p *Progress) setAlerts(i int, w *worker) {
	if p == nil || w.tc == nil {
		return
	}
	(*p.alerts.Load())[i].v.Store(w.tc.Queue.Counters.Alerts + w.tc.FirewallAlertCount())
}
