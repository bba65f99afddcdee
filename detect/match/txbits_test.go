package match

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// TestTxXbitCompile: xbits track tx is no packet check (Compile skips the isset, which
// detection makes a hook engine: DetectXbitSetup) and its set is a post-match on the
// matched tx (DetectXbitPostMatchTx): without a tx (det_ctx->tx_id_set false) or a flow it
// does nothing.
func TestTxXbitCompile(t *testing.T) {
	r, err := rules.Parse(`alert http1:request_line any any -> any any (xbits:isset,a,track tx; xbits:set,b,track tx; sid:1;)`)
	if err != nil {
		t.Fatal(err)
	}
	names := NewNames()
	m, err := Compile(r, names)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 0 {
		t.Errorf("tx isset compiled to packet checks %v", m.Keywords())
	}
	post, err := CompilePost(r, names)
	if err != nil || post.Len() != 1 {
		t.Fatalf("post %v %v", post.Len(), err)
	}
	id, _ := names.TxbitID("b")
	var td applayer.TxData
	in := &Input{P: tcp(0), F: flow.NewDetached()}
	post.Apply(in) // no tx
	if td.Bits.Has(id) {
		t.Fatal("set without a tx")
	}
	in.Tx = &td
	post.Apply(in)
	if !td.Bits.Has(id) {
		t.Errorf("bit %d not set on the tx", id)
	}
	if a, _ := names.TxbitID("a"); td.Bits.Has(a) {
		t.Errorf("isset's bit %d set", a)
	}
}

// TestTxbitNames: tx bit names are numbered from 1 in their own namespace; more distinct
// names than a transaction holds are refused.
func TestTxbitNames(t *testing.T) {
	n := NewNames()
	if h := n.Hostbit("x"); h != 1 {
		t.Fatalf("hostbit %d", h)
	}
	for i := 1; i <= applayer.MaxTxBits; i++ {
		id, err := n.TxbitID(fmt.Sprint("n", i))
		if err != nil || id != uint32(i) {
			t.Fatalf("name %d: id %d err %v", i, id, err)
		}
	}
	if id, err := n.TxbitID("n1"); err != nil || id != 1 {
		t.Errorf("known name: %d %v", id, err)
	}
	if _, err := n.TxbitID("overflow"); err == nil {
		t.Error("name past MaxTxBits accepted")
	}
}
