package tls

// Handshake12 exposes the test handshake to the external tests (eve_test.go).
var Handshake12 = handshake12

// EnableJA3ForTest turns JA3 on and returns the function that turns it off again.
func EnableJA3ForTest() func() {
	EnableJA3()
	return func() { ja3On.Store(false) }
}
