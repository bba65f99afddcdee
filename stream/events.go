package stream

import "github.com/meerkat-ids/meerkat/decode"

// event raises a stream event on the packet (StreamTcpSetEvent) and counts it.
func (t *Tracker) event(c *pctx, e decode.Event) {
	c.p.Events.Add(e)
	t.Counters.Events[e-decode.EventStream3WHSAckInWrongDir]++
}

// numStreamEvents is how many stream events decode defines.
const numStreamEvents = int(decode.EventCount - decode.EventStream3WHSAckInWrongDir)

// eventOnCurrent raises e on the packet last given to Packet (for events found while the
// app layer reads data: reassembly_seq_gap).
func (t *Tracker) eventOnCurrent(e decode.Event) {
	if t.cur != nil {
		t.cur.Events.Add(e)
	}
	t.Counters.Events[e-decode.EventStream3WHSAckInWrongDir]++
}
