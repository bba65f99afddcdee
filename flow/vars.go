package flow

// Vars are the variables rules keep on a flow: flowbits and flowints. The flow table only
// stores them (they are cleared when the flow slot is reused); the detection engine gives them
// meaning, numbering each variable name once at rule-compile time.
type Vars struct {
	// Bits holds flowbits 0..InlineBits-1 by number; MoreBits the rest, allocated the first
	// time such a flowbit is set on the flow.
	Bits     [InlineBits / 64]uint64
	MoreBits map[uint32]struct{}
	// Ints holds flowint values by number, allocated the first time a flowint is set.
	Ints map[uint32]uint32
}

// InlineBits is how many flowbits a flow stores without allocating.
const InlineBits = 512

// IsSet reports whether flowbit id is set.
func (v *Vars) IsSet(id uint32) bool {
	if id < InlineBits {
		return v.Bits[id>>6]&(1<<(id&63)) != 0
	}
	_, ok := v.MoreBits[id]
	return ok
}

// Set sets flowbit id.
func (v *Vars) Set(id uint32) {
	if id < InlineBits {
		v.Bits[id>>6] |= 1 << (id & 63)
		return
	}
	if v.MoreBits == nil {
		v.MoreBits = make(map[uint32]struct{})
	}
	v.MoreBits[id] = struct{}{}
}

// Unset clears flowbit id.
func (v *Vars) Unset(id uint32) {
	if id < InlineBits {
		v.Bits[id>>6] &^= 1 << (id & 63)
		return
	}
	delete(v.MoreBits, id)
}

// Toggle flips flowbit id.
func (v *Vars) Toggle(id uint32) {
	if v.IsSet(id) {
		v.Unset(id)
	} else {
		v.Set(id)
	}
}

// Int returns flowint id and whether it is set.
func (v *Vars) Int(id uint32) (uint32, bool) {
	x, ok := v.Ints[id]
	return x, ok
}

// SetInt sets flowint id to x.
func (v *Vars) SetInt(id uint32, x uint32) {
	if v.Ints == nil {
		v.Ints = make(map[uint32]uint32)
	}
	v.Ints[id] = x
}

// UnsetInt removes flowint id.
func (v *Vars) UnsetInt(id uint32) { delete(v.Ints, id) }
