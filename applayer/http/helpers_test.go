package http

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// testState returns a fresh state with the built-in defaults (randomisation off).
func testState(t testing.TB, mod func(*Config)) *State {
	t.Helper()
	c := DefaultConfig()
	c.Randomize = false
	c.Personality = "IDS"
	if mod != nil {
		mod(&c)
	}
	p := NewPool(&Settings{Default: &c})
	return p.NewState(applayer.FlowInfo{})
}

// feed hands data to dir in pieces of at most split bytes (0: all at once), handing
// unconsumed bytes again as the framework does.
func feed(t testing.TB, s *State, dir applayer.Dir, data []byte, split int, eof bool) applayer.Result {
	t.Helper()
	var pend []byte
	var r applayer.Result
	for len(data) > 0 || eof {
		n := len(data)
		if split > 0 && n > split {
			n = split
		}
		pend = append(pend, data[:n]...)
		data = data[n:]
		var fl applayer.Flags
		last := len(data) == 0
		if last && eof {
			fl = applayer.EOF
		}
		r = s.Parse(dir, pend, fl)
		if r.Err != nil || r.Change != nil {
			return r
		}
		pend = append(pend[:0], pend[r.Consumed:]...)
		if last {
			break
		}
	}
	return r
}

func req(t testing.TB, s *State, data string) applayer.Result {
	t.Helper()
	return feed(t, s, flow.ToServer, []byte(data), 0, false)
}

func resp(t testing.TB, s *State, data string) applayer.Result {
	t.Helper()
	return feed(t, s, flow.ToClient, []byte(data), 0, false)
}

func hasEvent(tx *Tx, name string) bool {
	for i, n := range EventNames {
		if n == name {
			return tx.data.Events.Has(uint8(i))
		}
	}
	panic("no event " + name)
}

func eventList(tx *Tx) []string {
	var out []string
	tx.data.Events.Each(func(e uint8) { out = append(out, EventNames[e]) })
	return out
}
