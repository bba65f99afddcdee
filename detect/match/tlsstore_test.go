package match

import (
	"testing"

	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/applayer/tls"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

var _ CertStorer = (*tls.State)(nil)

// TestTLSStorePost: tls.store (and its tls_store name) compiles to a post-match that marks
// the side of the packet's direction (DetectTlsStorePostMatch: to server the client's chain,
// to client the server's), and does nothing without a flow or a TLS state.
func TestTLSStorePost(t *testing.T) {
	for _, kw := range []string{"tls.store", "tls_store"} {
		r, err := rules.Parse(`alert tls any any -> any any (tls.cert_subject; content:"x"; ` + kw + `; sid:1;)`)
		if err != nil {
			t.Fatal(err)
		}
		if !Supports("tls_store") {
			t.Fatal("tls_store not supported")
		}
		p, err := CompilePost(r, nil)
		if err != nil || p.Len() != 1 {
			t.Fatalf("%s: %v, %d actions", kw, err, p.Len())
		}
		for _, dir := range []flow.Direction{flow.ToServer, flow.ToClient} {
			st := &tls.State{}
			in := &Input{P: tcp(0), F: &flow.Flow{}, Dir: dir, App: &applayer.FlowApp{Proto: applayer.ProtoTLS, State: st}}
			p.Apply(in)
			if st.Client.StoreCerts != (dir == flow.ToServer) || st.Server.StoreCerts != (dir == flow.ToClient) {
				t.Errorf("%s dir %d: client %v server %v", kw, dir, st.Client.StoreCerts, st.Server.StoreCerts)
			}
			st = &tls.State{}
			p.Apply(&Input{P: tcp(0), Dir: dir, App: &applayer.FlowApp{State: st}}) // no flow
			p.Apply(&Input{P: tcp(0), F: &flow.Flow{}, Dir: dir})                   // no app layer
			p.Apply(&Input{P: tcp(0), F: &flow.Flow{}, Dir: dir, App: &applayer.FlowApp{}})
			if st.Client.StoreCerts || st.Server.StoreCerts {
				t.Errorf("%s: marked without a flow", kw)
			}
		}
	}
}
