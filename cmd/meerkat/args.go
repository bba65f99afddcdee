package main

import (
	"errors"
	"fmt"
	"strings"
)

// options holds the parsed command line. Flags mean what Suricata's mean.
type options struct {
	configFile        string   // -c
	exclusiveRules    []string // -S
	extraRules        []string // -s
	readPath          string   // -r
	nfqueues          []string // -q (NFQUEUE ids; inline capture is not implemented yet)
	logDir            string   // -l
	testConfig        bool     // -T
	verbose           int      // -v, repeatable
	version           bool     // -V
	checksums         string   // -k none|all
	runmode           string   // --runmode
	sets              []string // --set key=value
	includes          []string // --include
	disableDetection  bool
	initErrorsFatal   bool
	simulateIPS       bool
	firewall          bool
	firewallExclusive string
	buildInfo         bool
	dumpConfig        bool
	engineAnalysis    bool
	listKeywords      string
	listKeywordsSet   bool
	help              bool
}

// errUsage marks command-line mistakes: the caller prints the usage text and exits 1.
var errUsage = errors.New("usage")

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Unwrap() error { return errUsage }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// flagSpec describes one option: whether it takes a value and where it goes.
type flagSpec struct {
	value bool
	// optional: a long option whose value may only be given with '=' (--list-keywords[=kw]).
	optional bool
	set      func(o *options, v string) error
}

func longFlags() map[string]flagSpec {
	return map[string]flagSpec{
		"runmode":                  {value: true, set: func(o *options, v string) error { o.runmode = v; return nil }},
		"set":                      {value: true, set: func(o *options, v string) error { o.sets = append(o.sets, v); return nil }},
		"include":                  {value: true, set: func(o *options, v string) error { o.includes = append(o.includes, v); return nil }},
		"disable-detection":        {set: func(o *options, _ string) error { o.disableDetection = true; return nil }},
		"init-errors-fatal":        {set: func(o *options, _ string) error { o.initErrorsFatal = true; return nil }},
		"simulate-ips":             {set: func(o *options, _ string) error { o.simulateIPS = true; return nil }},
		"firewall":                 {set: func(o *options, _ string) error { o.firewall = true; return nil }},
		"firewall-rules-exclusive": {value: true, set: func(o *options, v string) error { o.firewallExclusive = v; return nil }},
		"build-info":               {set: func(o *options, _ string) error { o.buildInfo = true; return nil }},
		"dump-config":              {set: func(o *options, _ string) error { o.dumpConfig = true; return nil }},
		"engine-analysis":          {set: func(o *options, _ string) error { o.engineAnalysis = true; return nil }},
		"list-keywords":            {optional: true, set: func(o *options, v string) error { o.listKeywordsSet = true; o.listKeywords = v; return nil }},
		"help":                     {set: func(o *options, _ string) error { o.help = true; return nil }},
		"pcap-file":                {value: true, set: func(o *options, v string) error { o.readPath = v; return nil }},
	}
}

func shortFlags() map[byte]flagSpec {
	return map[byte]flagSpec{
		'c': {value: true, set: func(o *options, v string) error { o.configFile = v; return nil }},
		'S': {value: true, set: func(o *options, v string) error { o.exclusiveRules = append(o.exclusiveRules, v); return nil }},
		's': {value: true, set: func(o *options, v string) error { o.extraRules = append(o.extraRules, v); return nil }},
		'r': {value: true, set: func(o *options, v string) error { o.readPath = v; return nil }},
		'l': {value: true, set: func(o *options, v string) error { o.logDir = v; return nil }},
		'q': {value: true, set: func(o *options, v string) error { o.nfqueues = append(o.nfqueues, v); return nil }},
		'k': {value: true, set: func(o *options, v string) error {
			if v != "none" && v != "all" {
				return usagef("-k takes 'none' or 'all', not %q", v)
			}
			o.checksums = v
			return nil
		}},
		'T': {set: func(o *options, _ string) error { o.testConfig = true; return nil }},
		'v': {set: func(o *options, _ string) error { o.verbose++; return nil }},
		'V': {set: func(o *options, _ string) error { o.version = true; return nil }},
		'h': {set: func(o *options, _ string) error { o.help = true; return nil }},
	}
}

// parseArgs reads Suricata-style arguments: short options may be grouped (-vvv) and take their
// value attached (-cfile) or as the next argument; long options take --name=value or
// --name value. Anything left over is an error (Meerkat takes no BPF filter yet).
func parseArgs(args []string) (*options, error) {
	o := &options{}
	longs, shorts := longFlags(), shortFlags()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "--") && len(a) > 2:
			name, val, hasVal := strings.Cut(a[2:], "=")
			spec, ok := longs[name]
			if !ok {
				return nil, usagef("unknown option --%s", name)
			}
			switch {
			case spec.optional:
			case spec.value && !hasVal:
				if i+1 >= len(args) {
					return nil, usagef("option --%s needs a value", name)
				}
				i++
				val = args[i]
			case !spec.value && hasVal:
				return nil, usagef("option --%s takes no value", name)
			}
			if err := spec.set(o, val); err != nil {
				return nil, err
			}
		case strings.HasPrefix(a, "-") && len(a) > 1 && a != "--":
			for k := 1; k < len(a); k++ {
				spec, ok := shorts[a[k]]
				if !ok {
					return nil, usagef("unknown option -%c", a[k])
				}
				if !spec.value {
					if err := spec.set(o, ""); err != nil {
						return nil, err
					}
					continue
				}
				val := a[k+1:]
				if val == "" {
					if i+1 >= len(args) {
						return nil, usagef("option -%c needs a value", a[k])
					}
					i++
					val = args[i]
				}
				if err := spec.set(o, val); err != nil {
					return nil, err
				}
				break
			}
		default:
			return nil, usagef("unexpected argument %q (BPF filters are not supported yet)", a)
		}
	}
	if len(o.nfqueues) > 0 && o.readPath != "" {
		return nil, usagef("more than one run mode has been specified")
	}
	return o, nil
}

const usageText = `Usage: meerkat [options]

Meerkat reads Suricata's rules, suricata.yaml and command line, and writes Suricata's EVE JSON.

  -c <path>                            path to the configuration file (default: /etc/meerkat/suricata.yaml,
                                       else built-in defaults that write no logs)
  -T                                   test the configuration and rules, then exit
  -r <path>                            read a pcap/pcapng file, or every capture in a directory (not its subdirectories)
  -l <dir>                             default log directory (must exist, as for Suricata)
  -S <file>                            load rules from this file only (repeatable)
  -s <file>                            load rules from this file in addition to the config's (repeatable)
  -k <none|all>                        checksum checks (default: all)
  -v                                   more verbose output (repeatable)
  -V                                   print the version and exit
  --runmode <single|workers|autofp>    how packets are spread over threads
  --set <key>=<value>                  set a configuration value (repeatable)
  --include <file>                     load an extra configuration file (repeatable)
  --disable-detection                  run without rules: decode, flows and logs only
  --init-errors-fatal                  any rule that fails to load stops start-up
  -q <qid>                             inline IPS on NFQUEUE queue <qid> (not implemented yet)
  --simulate-ips                       run a capture as an inline IPS would (drop rules drop)
  --firewall                           firewall mode
  --firewall-rules-exclusive=<file>    firewall mode with this firewall rule file only
  --build-info                         print build information and exit
  --dump-config                        print the configuration and exit
  --engine-analysis                    analyse the rules and exit
  --list-keywords[=<keyword>]          list the rule keywords and exit
`
