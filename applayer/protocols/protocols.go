// Package protocols registers every app-layer protocol Meerkat parses or detects: a binary
// (or a test that must see what the binary sees) imports it for its side effect, and each
// protocol package registers its parser, buffers and keywords with package applayer from
// init.
package protocols

import (
	_ "github.com/meerkat-ids/meerkat/applayer/dcerpc"
	_ "github.com/meerkat-ids/meerkat/applayer/dns"
	_ "github.com/meerkat-ids/meerkat/applayer/ftp"
	_ "github.com/meerkat-ids/meerkat/applayer/http"
	_ "github.com/meerkat-ids/meerkat/applayer/http2"
	_ "github.com/meerkat-ids/meerkat/applayer/smtp"
	_ "github.com/meerkat-ids/meerkat/applayer/ssh"
	_ "github.com/meerkat-ids/meerkat/applayer/telnet"
	_ "github.com/meerkat-ids/meerkat/applayer/tls"
)
