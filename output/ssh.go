package output

import (
	"strconv"

	"github.com/meerkat-ids/meerkat/applayer/ssh"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// SSHRecord writes the EVE ssh record of tx (JsonGenericDirFlowLogger with SCSshLogJson):
// the flow-direction header, no tx_id, and the ssh object. ok is false when neither side
// has a banner yet (SCSshLogJson returns false: nothing is written).
func SSHRecord(j *JSON, p *decode.Packet, f *flow.Flow, dir flow.Direction, tx *ssh.Tx) bool {
	if len(tx.Client.Proto) == 0 && len(tx.Server.Proto) == 0 {
		return false
	}
	j.Reset()
	j.Begin()
	flowHeader(j, p, f, dir, flow.ToServer, "ssh", nil, nil)
	SSHObject(j, tx)
	j.End()
	return true
}

// SSHObject writes the "ssh" object (rust/src/ssh/logger.rs log_ssh): client and server
// with proto_version and software_version (each at most ssh.MaxBannerLen bytes, with a
// truncation note) and the hassh hash and string when computed. Nothing is written when
// neither side has a banner (the alert then has no ssh object).
func SSHObject(j *JSON, tx *ssh.Tx) {
	if tx == nil || len(tx.Client.Proto) == 0 && len(tx.Server.Proto) == 0 {
		return
	}
	j.Object("ssh")
	sshSide(j, "client", &tx.Client)
	sshSide(j, "server", &tx.Server)
	j.Close('}')
}

func sshSide(j *JSON, k string, h *ssh.Header) {
	if len(h.Proto) == 0 {
		return
	}
	j.Object(k)
	bytesLimited(j, "proto_version", h.Proto, ssh.MaxBannerLen)
	if len(h.Software) > 0 {
		bytesLimited(j, "software_version", h.Software, ssh.MaxBannerLen)
	}
	if len(h.Hassh) > 0 || len(h.HasshString) > 0 {
		j.Object("hassh")
		if len(h.Hassh) > 0 {
			j.Bytes("hash", h.Hassh)
		}
		if len(h.HasshString) > 0 {
			j.Bytes("string", h.HasshString)
		}
		j.Close('}')
	}
	j.Close('}')
}

// bytesLimited is set_string_from_bytes_limited: v cut at limit bytes, followed by
// "[truncated N additional bytes]".
func bytesLimited(j *JSON, k string, v []byte, limit int) {
	if len(v) <= limit {
		j.Bytes(k, v)
		return
	}
	extra := len(v) - limit
	var buf [ssh.MaxBannerLen + 48]byte
	b := append(buf[:0], v[:limit]...)
	b = append(b, "[truncated "...)
	b = strconv.AppendInt(b, int64(extra), 10)
	b = append(b, " additional byte"...)
	if extra != 1 {
		b = append(b, 's')
	}
	b = append(b, ']')
	j.Bytes(k, b)
}
