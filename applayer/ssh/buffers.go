package ssh

import (
	"github.com/meerkat-ids/meerkat/applayer"
	"github.com/meerkat-ids/meerkat/flow"
)

// useHassh is the hassh buffers' Setup calling SCSshEnableHassh: a rule using one turns
// HASSH on (whatever app-layer.protocols.ssh.hassh says, in 8.0.6).
func useHassh() error {
	EnableHassh()
	return nil
}

// registerBuffers registers the SSH sticky buffers (rust/src/ssh/detect.rs,
// src/detect-ssh-proto.c, src/detect-ssh-software.c, src/detect-ssh-hassh*.c): ssh.proto and
// ssh.software in both directions, the HASSH buffers of the client (to server) and of the
// server (to client), all inspected from banner done (progress 2).
func registerBuffers() {
	both := [2]bool{true, true}
	ts := [2]bool{flow.ToServer: true}
	tc := [2]bool{flow.ToClient: true}
	at := [2]uint8{StateBannerDone, StateBannerDone}
	field := func(pick func(h *Header) []byte, only int) func(applayer.Tx, applayer.Dir, int, *applayer.GetCtx) ([]byte, bool) {
		return func(tx applayer.Tx, dir applayer.Dir, i int, _ *applayer.GetCtx) ([]byte, bool) {
			t, ok := tx.(*Tx)
			if !ok || i != 0 || only >= 0 && int(dir) != only {
				return nil, false
			}
			b := pick(t.Side(dir))
			return b, len(b) > 0
		}
	}
	applayer.RegisterBuffer(applayer.Buffer{Name: "ssh.proto", Proto: applayer.ProtoSSH, Dirs: both, Progress: at,
		Get: field(func(h *Header) []byte { return h.Proto }, -1)})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ssh.software", Proto: applayer.ProtoSSH, Dirs: both, Progress: at,
		Get: field(func(h *Header) []byte { return h.Software }, -1)})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ssh.hassh", Proto: applayer.ProtoSSH, Use: useHassh, Dirs: ts, Progress: at,
		Get: field(func(h *Header) []byte { return h.Hassh }, int(flow.ToServer))})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ssh.hassh.string", Proto: applayer.ProtoSSH, Use: useHassh, Dirs: ts, Progress: at,
		Get: field(func(h *Header) []byte { return h.HasshString }, int(flow.ToServer))})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ssh.hassh.server", Proto: applayer.ProtoSSH, Use: useHassh, Dirs: tc, Progress: at,
		Get: field(func(h *Header) []byte { return h.Hassh }, int(flow.ToClient))})
	applayer.RegisterBuffer(applayer.Buffer{Name: "ssh.hassh.server.string", Proto: applayer.ProtoSSH, Use: useHassh, Dirs: tc, Progress: at,
		Get: field(func(h *Header) []byte { return h.HasshString }, int(flow.ToClient))})
}
