package decode

// Event is a decoder event: something malformed or unusual seen while decoding. The names
// (Event.String) are Suricata's decoder event names, used in stats as decoder.event.<name>.
type Event uint8

// EventSet is the set of events raised for one packet. It is a value type; adding an event
// does not allocate.
type EventSet [4]uint64

// Add records e.
func (s *EventSet) Add(e Event) { s[e>>6] |= 1 << (e & 63) }

// Has reports whether e was recorded.
func (s *EventSet) Has(e Event) bool { return s[e>>6]&(1<<(e&63)) != 0 }

// Empty reports whether no event was recorded.
func (s *EventSet) Empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }
