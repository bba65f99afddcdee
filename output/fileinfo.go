package output

import (
	"github.com/meerkat-ids/meerkat/applayer"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/flow"
)

// FileHashes are the digests Suricata is told to compute for logged files (force-hash: [md5,
// sha1, sha256] and the legacy force-md5 of the eve-log files type or a file-store output:
// FileForceHashParseCfg); a file's record shows those it has.
type FileHashes struct {
	MD5, SHA1, SHA256 bool
}

// Any reports whether any digest is asked for.
func (h FileHashes) Any() bool { return h.MD5 || h.SHA1 || h.SHA256 }

// FileOptions are the eve-log files type's options that change the record.
type FileOptions struct {
	Hashes FileHashes
	// XFF is the type's xff section, else eve-log's.
	XFF XFFConfig
}

// FileInfoMembers writes the members of a fileinfo object (EveFileInfo) for file f of
// transaction txID, with state st (the file's own, or TRUNCATED where the logger closes an
// open file): filename, gaps, state with md5 and sha1 for a closed file, sha256, stored
// (always false: Meerkat stores no files), size and tx_id.
func FileInfoMembers(j *JSON, f *htp.File, st htp.FileState, txID uint64, h *FileHashes) {
	setBytes(j, "filename", f.Name)
	j.Bool("gaps", f.Gaps)
	switch st {
	case htp.FileClosed:
		j.String("state", "CLOSED")
		if f.Hashed && h.MD5 {
			hexMember(j, "md5", f.MD5[:])
		}
		if f.Hashed && h.SHA1 {
			hexMember(j, "sha1", f.SHA1[:])
		}
	case htp.FileTruncated:
		j.String("state", "TRUNCATED")
	case htp.FileError:
		j.String("state", "ERROR")
	default:
		j.String("state", "UNKNOWN")
	}
	if f.Hashed && h.SHA256 {
		hexMember(j, "sha256", f.SHA256[:])
	}
	j.Bool("stored", false)
	j.Uint("size", f.Size)
	j.Uint("tx_id", txID)
}

func hexMember(j *JSON, k string, v []byte) {
	j.key(k)
	b := append(j.B, '"')
	for _, c := range v {
		b = append(b, hexDigits[c>>4], hexDigits[c&15])
	}
	j.B = append(b, '"')
}

// FileInfoRecord writes a complete EVE `fileinfo` record for file f of HTTP transaction tx,
// logged on packet p (direction pktDir) of flow f (JsonBuildFileInfoRecord): the header in
// the file's direction fileDir (a response file has the server as src), with the XFF address
// in place of the client's in overwrite mode; the http object (basic and extended fields);
// app_proto; the fileinfo object; the XFF address as xff in extra-data mode.
func FileInfoRecord(j *JSON, p *decode.Packet, fl *flow.Flow, pktDir, fileDir flow.Direction, app *applayer.FlowApp,
	tx *htp.Tx, f *htp.File, st htp.FileState, opt *FileOptions) {
	j.Reset()
	j.Begin()
	var xff, src, dst []byte
	if app != nil && app.Proto == applayer.ProtoHTTP1 {
		if ip, ok := XFFIP(&opt.XFF, tx); ok {
			xff, src, dst = xffPlace(ip, opt.XFF.Overwrite, pktDir)
		}
	}
	flowHeader(j, p, fl, pktDir, fileDir, "fileinfo", src, dst)
	proto := applayer.ProtoUnknown
	if app != nil {
		proto = app.Proto
	}
	if proto == applayer.ProtoHTTP1 {
		HTTPObject(j, tx, false, false)
	}
	j.String("app_proto", proto.String())
	j.Object("fileinfo")
	FileInfoMembers(j, f, st, tx.TxData().ID, &opt.Hashes)
	j.Close('}')
	if xff != nil {
		j.Bytes("xff", xff)
	}
	j.End()
}
