package main

// The app-layer protocols the binary parses: each package registers its parser, buffers and
// keywords with package applayer from init.
import (
	_ "github.com/meerkat-ids/meerkat/applayer/dcerpc"
	_ "github.com/meerkat-ids/meerkat/applayer/ftp"
	_ "github.com/meerkat-ids/meerkat/applayer/http"
	_ "github.com/meerkat-ids/meerkat/applayer/http2"
	_ "github.com/meerkat-ids/meerkat/applayer/smtp"
	_ "github.com/meerkat-ids/meerkat/applayer/ssh"
	_ "github.com/meerkat-ids/meerkat/applayer/telnet"
)
