package match

import (
	"fmt"

	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/rules"
)

// Post is the compiled PostMatches of one rule (flowbits set/unset/toggle, flowint
// arithmetic, xbits and hostbits set/unset/toggle, tls.store), applied right after the rule fully
// matched so rules later in the same packet see the change.
type Post struct {
	actions []action
}

type action interface {
	apply(in *Input)
}

// CompilePost compiles r.PostMatches; unsupported keywords give an error whose text is
// exactly "keyword <name> is not supported yet".
func CompilePost(r *rules.Rule, names *Names) (*Post, error) {
	if names == nil {
		names = NewNames()
	}
	p := &Post{}
	for _, o := range r.PostMatches {
		bad := func() error {
			return fmt.Errorf("keyword %s: unexpected argument %T (%q)", o.Name, o.Arg, o.Value)
		}
		switch o.Name {
		case "flowbits":
			fb, ok := o.Arg.(*rules.Flowbit)
			if !ok || fb == nil || fb.IsCheck() {
				return nil, bad()
			}
			a := &flowbitAction{}
			switch fb.Cmd {
			case "set":
				a.cmd = xbSet
			case "unset":
				a.cmd = xbUnset
			case "toggle":
				a.cmd = xbToggle
			default:
				return nil, bad()
			}
			if len(fb.Names) == 1 {
				a.id = names.Flowbit(fb.Names[0])
			} // an OR list acts on bit 0, which no name has (as Suricata does)
			p.actions = append(p.actions, a)
		case "flowint":
			fi, ok := o.Arg.(*rules.Flowint)
			if !ok || fi == nil || !fi.IsModifier() {
				return nil, bad()
			}
			p.actions = append(p.actions, flowintAction{compileFlowint(fi, names)})
		case "xbits", "hostbits":
			x, ok := o.Arg.(*rules.Xbit)
			if !ok || x == nil || x.IsCheck() {
				return nil, bad()
			}
			if x.Track == "tx" {
				if x.Cmd != "set" {
					return nil, bad() // DetectXbitParse: tx xbits only support set and isset
				}
				id, err := names.TxbitID(x.Name)
				if err != nil {
					return nil, err
				}
				p.actions = append(p.actions, txbitAction{id})
				continue
			}
			c, err := compileXbit(o.Name, x, names)
			if err != nil {
				return nil, err
			}
			p.actions = append(p.actions, xbitAction{c})
		case "tls_store":
			p.actions = append(p.actions, tlsStoreAction{})
		default:
			return nil, notSupported(o.Name)
		}
	}
	return p, nil
}

// Empty reports whether there is nothing to apply.
func (p *Post) Empty() bool { return p == nil || len(p.actions) == 0 }

// Apply runs the post-match actions in order.
func (p *Post) Apply(in *Input) {
	if p == nil || in == nil || in.P == nil {
		return
	}
	for _, a := range p.actions {
		a.apply(in)
	}
}

// Len returns the number of compiled actions.
func (p *Post) Len() int {
	if p == nil {
		return 0
	}
	return len(p.actions)
}

type flowbitAction struct {
	cmd uint8
	id  uint32
}

func (a *flowbitAction) apply(in *Input) {
	if in.F == nil {
		return
	}
	v := flowVars(in.F)
	switch a.cmd {
	case xbSet:
		v.Set(a.id)
	case xbUnset:
		v.Unset(a.id)
	case xbToggle:
		v.Toggle(a.id)
	}
}

type flowintAction struct{ op *flowintOp }

func (a flowintAction) apply(in *Input) { a.op.eval(in) }

type xbitAction struct{ op *xbitOp }

func (a xbitAction) apply(in *Input) { a.op.eval(in) }

// CertStorer is implemented by an app-layer state whose certificates the tls-store output
// can write (the TLS state): MarkCertStore marks the side that sent packets of direction
// dir.
type CertStorer interface {
	MarkCertStore(dir flow.Direction)
}

// tlsStoreAction is tls.store (DetectTlsStorePostMatch): the flow's app-layer state (not
// the tx: TLS has one per flow) gets the packet's side marked for the tls-store output.
type tlsStoreAction struct{}

func (tlsStoreAction) apply(in *Input) {
	if in.F == nil || in.App == nil {
		return
	}
	if s, ok := in.App.State.(CertStorer); ok {
		s.MarkCertStore(in.Dir)
	}
}

// txbitAction is xbits set with track tx: the bit is set on the transaction the rule
// matched on (DetectXbitPostMatchTx, TxBitSet); without one nothing happens.
type txbitAction struct{ id uint32 }

func (a txbitAction) apply(in *Input) {
	if in.Tx != nil && in.F != nil {
		in.Tx.Bits.Set(a.id)
	}
}
