package match

import (
	"github.com/meerkat-ids/meerkat/rules"
)

// flowint operations.
const (
	fiSet uint8 = iota
	fiAdd
	fiSub
	fiEq
	fiNe
	fiLt
	fiLe
	fiGt
	fiGe
	fiIsset
	fiNotset
)

// flowintOp is one compiled flowint keyword (a check or a modification).
type flowintOp struct {
	op    uint8
	id    uint32
	val   uint32
	hasTV bool   // the operand is another flowint
	tvar  uint32 // its number
}

func compileFlowint(fi *rules.Flowint, names *Names) *flowintOp {
	c := &flowintOp{id: names.Flowint(fi.Name), val: fi.Value}
	if fi.ValueVar != "" {
		c.hasTV = true
		c.tvar = names.Flowint(fi.ValueVar)
	}
	switch fi.Op {
	case "=":
		c.op = fiSet
	case "+":
		c.op = fiAdd
	case "-":
		c.op = fiSub
	case "==":
		c.op = fiEq
	case "!=":
		c.op = fiNe
	case "<":
		c.op = fiLt
	case "<=":
		c.op = fiLe
	case ">":
		c.op = fiGt
	case ">=":
		c.op = fiGe
	case "isset":
		c.op = fiIsset
	default: // notset, isnotset
		c.op = fiNotset
	}
	return c
}

// eval runs the flowint keyword like Suricata's DetectFlowintMatch: modifications change
// the flow and return true (- on an unset variable changes nothing and returns false),
// checks return whether they hold.
func (c *flowintOp) eval(in *Input) bool {
	if in.F == nil {
		return false
	}
	v := flowVars(in.F)
	target := c.val
	if c.hasTV {
		target, _ = v.Int(c.tvar) // unset reads 0
	}
	if c.op == fiSet {
		v.SetInt(c.id, target)
		return true
	}
	cur, ok := v.Int(c.id)
	switch c.op {
	case fiIsset:
		return ok
	case fiNotset:
		return !ok
	}
	if !ok {
		if c.op == fiAdd {
			v.SetInt(c.id, target)
			return true
		}
		return false
	}
	switch c.op {
	case fiAdd:
		v.SetInt(c.id, cur+target)
		return true
	case fiSub:
		v.SetInt(c.id, cur-target)
		return true
	case fiEq:
		return cur == target
	case fiNe:
		return cur != target
	case fiLt:
		return cur < target
	case fiLe:
		return cur <= target
	case fiGt:
		return cur > target
	case fiGe:
		return cur >= target
	}
	return false
}

func (c *flowintOp) match(in *Input) bool { return c.eval(in) }

// xbit commands.
const (
	xbSet uint8 = iota
	xbUnset
	xbToggle
	xbIsset
	xbIsnotset
)

// xbit trackers.
const (
	trackSrc uint8 = iota
	trackDst
	trackPair
)

// xbitOp is one compiled xbits / hostbits keyword.
type xbitOp struct {
	cmd    uint8
	track  uint8
	id     uint32
	expire int64 // seconds
}

// Default expiry (seconds) of a bit set without an expire option.
const (
	xbitsDefaultExpire    = 30
	hostbitsDefaultExpire = 300
)

func compileXbit(kw string, x *rules.Xbit, names *Names) (*xbitOp, error) {
	c := &xbitOp{expire: xbitsDefaultExpire}
	if x.Hostbits || kw == "hostbits" {
		c.expire = hostbitsDefaultExpire
	}
	if x.Expire != 0 {
		c.expire = int64(x.Expire)
	}
	switch x.Track {
	case "ip_src":
		c.track = trackSrc
	case "ip_dst":
		c.track = trackDst
	case "ip_pair":
		c.track = trackPair
	default: // tx: an inspect engine or txbitAction, never a packet check (Compile, CompilePost)
		return nil, notSupported(kw)
	}
	switch x.Cmd {
	case "set":
		c.cmd = xbSet
	case "unset":
		c.cmd = xbUnset
	case "toggle":
		c.cmd = xbToggle
	case "isset":
		c.cmd = xbIsset
	case "isnotset":
		c.cmd = xbIsnotset
	default:
		return nil, notSupported(kw)
	}
	if c.track == trackPair {
		c.id = names.IPPairbit(x.Name)
	} else {
		c.id = names.Hostbit(x.Name)
	}
	return c, nil
}

func (c *xbitOp) match(in *Input) bool { return c.eval(in) }

// eval runs the xbits command against in.Hosts; without a host table nothing matches and
// nothing changes.
func (c *xbitOp) eval(in *Input) bool {
	h := in.Hosts
	p := in.P
	if h == nil || p == nil || (p.IPVersion != 4 && p.IPVersion != 6) {
		return false
	}
	var k hostKey
	switch c.track {
	case trackSrc:
		k = hostKey{a: p.SrcIP.Unmap()}
	case trackDst:
		k = hostKey{a: p.DstIP.Unmap()}
	default:
		k = pairKey(p.SrcIP.Unmap(), p.DstIP.Unmap())
	}
	now := p.Timestamp.UnixNano()
	switch c.cmd {
	case xbIsset:
		return h.isset(k, c.id, now)
	case xbIsnotset:
		return !h.isset(k, c.id, now)
	case xbSet:
		return h.set(k, c.id, now, now+c.expire*1e9)
	case xbUnset:
		h.unset(k, c.id)
		return true
	case xbToggle:
		return h.toggle(k, c.id, now, now+c.expire*1e9)
	}
	return false
}
