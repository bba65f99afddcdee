package main

import (
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/output"
)

// The app-layer protocols the binary parses: each package registers its parser, buffers and
// keywords with package applayer from init.
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

// dnsOptions turns the eve-log dns type's settings into the dns logger's options; an rrtype
// name it does not know is left out (the type list then filters on the others).
func dnsOptions(c *config.DNSOptions) output.DNSOptions {
	o := output.DNSOptions{Requests: c.Requests, Responses: c.Responses, Detailed: c.Detailed, Grouped: c.Grouped, Version2: c.Version == 2}
	for _, name := range c.Types {
		if t, ok := output.ParseDNSType(name); ok {
			o.AddType(t)
		}
	}
	if len(c.Types) > 0 && o.Types == nil {
		o.Types = new([1024]uint64) // only unknown names: nothing is logged
	}
	return o
}
