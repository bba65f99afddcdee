// Command meerkat is Meerkat's engine: it takes Suricata's command line, reads suricata.yaml,
// replays captures through decode, flows and (as it lands) detection, and writes Suricata's EVE
// JSON and fast.log.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/meerkat-ids/meerkat/applayer"
	htp "github.com/meerkat-ids/meerkat/applayer/http"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/meerkat-ids/meerkat/capture"
	"github.com/meerkat-ids/meerkat/config"
	"github.com/meerkat-ids/meerkat/decode"
	"github.com/meerkat-ids/meerkat/defrag"
	"github.com/meerkat-ids/meerkat/detect/dataset"
	"github.com/meerkat-ids/meerkat/detect/match"
	"github.com/meerkat-ids/meerkat/detect/payload"
	"github.com/meerkat-ids/meerkat/firewall"
	"github.com/meerkat-ids/meerkat/flow"
	"github.com/meerkat-ids/meerkat/output"
	"github.com/meerkat-ids/meerkat/pipeline"
	"github.com/meerkat-ids/meerkat/prefilter/hs"
)

// Version is Meerkat's version; SuricataVersion is the Suricata release whose behaviour it
// follows.
const (
	Version         = "0.1.0-dev"
	SuricataVersion = "8.0.6"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// startupError is a start-up or configuration failure: exit status 1 with its message.
type startupError struct{ err error }

func (e *startupError) Error() string { return e.err.Error() }

func fail(format string, a ...any) error { return &startupError{fmt.Errorf(format, a...)} }

// exitError ends a run with a status other than 1 (see run); its message, when not empty,
// is printed as an error.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// run is main without os.Exit, so tests can call it. Exit status: 0 success, 1 a start-up,
// configuration or capture error, 128+n a replay stopped by signal n (SIGINT 130, SIGTERM
// 143) after everything read so far was processed and logged.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// As Suricata does when no run mode is given: the usage, and failure.
		fmt.Fprint(stderr, usageText)
		return 1
	}
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "meerkat: %v\n\n%s", err, usageText)
		return 1
	}
	if o.help {
		fmt.Fprint(stdout, usageText)
		return 0
	}
	var prog *progressLine
	if isTerminal(stderr) {
		prog = newProgressLine(stderr)
		stderr = prog
	}
	if err := execute(o, stdout, stderr, prog); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.msg != "" {
				fmt.Fprintf(stderr, "meerkat: error: %s\n", ee.msg)
			}
			return ee.code
		}
		fmt.Fprintf(stderr, "meerkat: error: %v\n", err)
		return 1
	}
	return 0
}

// execute runs what the options ask for. prog, when not nil, is the progress line on a
// terminal stderr (stderr then writes through it).
func execute(o *options, stdout, stderr io.Writer, prog *progressLine) error {
	// MEERKAT_CPUPROFILE=<file> writes a CPU profile of everything after argument parsing, start-up included (for `go tool pprof`).
	if path := os.Getenv("MEERKAT_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return fail("cpu profile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return fail("cpu profile: %v", err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	switch {
	case o.version:
		fmt.Fprintf(stdout, "This is Meerkat version %s (follows Suricata %s)\n", Version, SuricataVersion)
		return nil
	case o.buildInfo:
		printBuildInfo(stdout)
		return nil
	case o.listKeywordsSet:
		return listKeywords(stdout, o.listKeywords)
	}

	// Arguments that need no configuration are checked before anything slow starts (rule
	// loading takes seconds with a large ruleset), as Suricata checks them while parsing the
	// command line.
	if len(o.nfqueues) > 0 {
		return fail("NFQUEUE capture (-q %s) is not implemented yet: replay a capture with -r and --simulate-ips for IPS verdicts", strings.Join(o.nfqueues, ","))
	}
	if o.logDir != "" {
		if err := checkLogDir(o.logDir, "supplied with -l"); err != nil {
			return err
		}
	}
	if o.readPath != "" {
		if _, err := os.Stat(o.readPath); err != nil {
			return &startupError{fmt.Errorf("-r: %w", err)}
		}
	}
	if o.runmode != "" {
		if _, err := chooseRunmode(o.runmode, ""); err != nil {
			return err
		}
	}

	cfg, err := loadConfig(o, stderr)
	if err != nil {
		return err
	}
	if o.dumpConfig {
		for _, line := range cfg.Dump() {
			fmt.Fprintln(stdout, line)
		}
		return nil
	}
	st, err := cfg.Settings()
	if err != nil {
		return &startupError{err}
	}
	for _, w := range st.Warnings {
		warn(stderr, w)
	}
	// Datasets (DatasetsInit) exist before the rules that name them are compiled.
	payload.DefaultRulePath = st.DefaultRulePath
	dataDir, _ := cfg.String("default-data-dir")
	if err := dataset.Default.Configure(cfg.Root(), dataDir); err != nil {
		return &startupError{err}
	}
	if o.disableDetection && (len(o.exclusiveRules) > 0 || len(o.extraRules) > 0 || o.firewallExclusive != "") {
		return fail("can't use -s/-S or --firewall-rules-exclusive when detection is disabled")
	}
	fw, err := firewallMode(o, st, stderr)
	if err != nil {
		return err
	}
	ruleFiles, err := ruleFileList(o, st, stderr)
	if err != nil {
		return err
	}
	if fw != nil && o.firewallExclusive != "" && len(o.exclusiveRules) == 0 {
		// An exclusive firewall rule file replaces the configured threat-detection rule files
		// unless -S gives one (SigLoadSignatures).
		ruleFiles = nil
	}
	logDir := st.DefaultLogDir
	if o.logDir != "" {
		logDir = o.logDir
	}
	replay := !o.engineAnalysis && !o.testConfig
	var runmode pipeline.Runmode
	var src capture.Source
	if replay {
		// Everything a replay needs besides the rules is checked before they load.
		if o.readPath == "" {
			return fail("no packet source: use -r <file|dir> (live capture is not implemented yet)")
		}
		if o.logDir == "" {
			if err := checkLogDir(logDir, "set by default-log-dir in "+configName(o)); err != nil {
				return err
			}
		}
		if runmode, err = chooseRunmode(o.runmode, st.Runmode); err != nil {
			return err
		}
		if src, err = capture.OpenPath(o.readPath); err != nil {
			return &startupError{err}
		}
		defer src.Close()
	} else if o.engineAnalysis && o.logDir == "" {
		if err := checkLogDir(logDir, "set by default-log-dir in "+configName(o)); err != nil {
			return err
		}
	}
	rs := &ruleSet{}
	if err := preconfigureApp(cfg); err != nil {
		return &startupError{err}
	}
	if !o.disableDetection {
		stopStartup := prog.startup()
		rs, err = loadRules(o, st, fw, ruleFiles, stderr)
		stopStartup()
		if err != nil {
			return err
		}
	}
	if o.engineAnalysis {
		path, err := writeEngineAnalysis(rs, logDir)
		if err != nil {
			return &startupError{err}
		}
		fmt.Fprintf(stderr, "meerkat: engine analysis of %d rules written to %s\n", len(rs.rules), path)
		return nil
	}
	if o.testConfig {
		// -T checks the stream and app-layer sections too, as a run would read them.
		ips := o.simulateIPS || fw != nil
		sc, err := streamConfig(st, ips, false)
		if err != nil {
			return &startupError{err}
		}
		if _, _, err := appLayerConfig(cfg, st, sc, ips); err != nil {
			return &startupError{err}
		}
		fmt.Fprintln(stderr, "Configuration provided was successfully loaded. Exiting.")
		return nil
	}
	if rs.engine != nil {
		defer rs.engine.Close()
	}

	if d, ok := src.(*capture.DirSource); ok {
		for _, w := range d.Warnings() {
			warn(stderr, w)
		}
	}

	outs, closeOutputs, err := openOutputs(st, logDir)
	if err != nil {
		return err
	}
	if outs.TLSStore != nil {
		outs.TLSStore.Warn = func(msg string) { warn(stderr, msg) }
	}
	pc := pipelineConfig(st, runmode, o, outs, stderr)
	pc.RulesLoaded, pc.RulesFailed, pc.RulesSkipped = uint64(rs.stats.Loaded), uint64(rs.stats.Failed), uint64(rs.stats.Skipped)
	pc.IPS = o.simulateIPS || fw != nil
	pc.Firewall = fw != nil
	sc, err := streamConfig(st, pc.IPS, rs.engine != nil && rs.engine.HasStreamRules())
	if err != nil {
		return err
	}
	if pc.AppLayer, pc.AppErrorPolicy, err = appLayerConfig(cfg, st, sc, pc.IPS); err != nil {
		return &startupError{err}
	}
	forceFileHashes(pc.AppLayer, pc.Outputs.Files.Hashes)
	pc.Stream = sc
	pc.StreamDropInvalid = sc != nil && sc.Inline && sc.DropInvalid
	pc.StatsStreamEvents = st.Stats.StreamEvents
	if rs.engine != nil && (rs.engine.Len() > 0 || fw != nil) {
		pc.Engine = rs.engine
		pc.RuleAlerts = output.RuleAlertConfig{Classifications: rs.classifications, References: rs.references}
		pc.Hosts = match.NewHostTable(st.Host.HashSize * 4)
	}
	if o.verbose > 0 {
		info := func(format string, a ...any) { fmt.Fprintf(stderr, "meerkat: info: "+format+"\n", a...) }
		info("configuration: %s", configName(o))
		workers := 1
		if runmode != pipeline.RunmodeSingle {
			workers = runtime.GOMAXPROCS(0)
		}
		info("reading %s; runmode %s (%d worker(s)); log directory %s", o.readPath, runmode, workers, logDir)
		info("eve-log: %v (flow %v, stats %v); fast.log: %v", outs.EVE != nil, outs.EVEFlow, outs.EVEStats, outs.Fast != nil)
		if rs.engine != nil {
			info("prefilter: detect.prefilter.default %s; rules without a fast pattern are indexed by a header witness where they have one, in either mode (the alerts are the same), and the prefilter keyword chooses the witness",
				st.Detect.PrefilterDefault)
			for _, g := range rs.engine.GroupStats() {
				dir := "toclient"
				if g.ToServer {
					dir = "toserver"
				}
				if g.Proto == "other" {
					info("rule groups: %s %s: %d protocol groups, %d pattern databases, %d rules evaluated on every packet (no fast pattern, no header witness)",
						g.Proto, dir, g.Groups, g.Databases, g.PerPacket)
				} else {
					info("rule groups: %s %s: %d port groups, %d groups after detect.profile, %d pattern databases, %d rules evaluated on every packet (no fast pattern, no header witness)",
						g.Proto, dir, g.PortGroups, g.Groups, g.Databases, g.PerPacket)
				}
			}
		}
		info("flow: at most %d flows, hash size %d, prealloc %d; checksums: %v",
			pc.Flow.MaxFlows, pc.FlowHashSize, pc.FlowPrealloc, map[decode.ChecksumMode]string{
				decode.ChecksumTCP: "TCP (-k all)", decode.ChecksumNone: "none (-k none)", decode.ChecksumAll: "all"}[pc.Checksums])
		if sc := pc.Stream; sc == nil {
			info("stream: off (stream.enabled: no); TCP packets are inspected one by one")
		} else {
			info("stream: inline %v, midstream %v (policy %v), async-oneside %v, depth %d, chunk sizes %d/%d, raw inspection %v, memcaps %d/%d",
				sc.Inline, sc.Midstream, sc.MidstreamPolicy, sc.AsyncOneside, sc.Depth, sc.ToServerChunk, sc.ToClientChunk, sc.Raw, sc.Memcap, sc.ReassemblyMemcap)
		}
	}

	// MEERKAT_MEMPROFILE=<file> records every allocation and writes an allocation profile at
	// the end (for `go tool pprof -sample_index=alloc_objects`).
	if path := os.Getenv("MEERKAT_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 1
		defer func() {
			if f, err := os.Create(path); err == nil {
				runtime.GC() // the profile holds the allocations up to the last completed GC
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var stopSig atomic.Value // the signal that stopped the replay
	go func() {
		select {
		case s := <-sigs:
			stopSig.Store(s)
			cancel()
		case <-ctx.Done():
		}
	}()
	// Start-up (parsing and compiling tens of thousands of rules) leaves garbage behind:
	// collect it now rather than in the packet loop.
	runtime.GC()
	pc.Progress = &pipeline.Progress{}
	stopReplay := prog.replay(pc.Progress, src)
	res, runErr := pipeline.Run(ctx, src, pc)
	stopReplay()
	closeErr := closeOutputs()
	if res != nil {
		printSummary(stderr, res)
	}
	if runErr != nil {
		return runErr
	}
	if closeErr != nil {
		return closeErr
	}
	if res != nil && res.Interrupted {
		// Suricata exits 0 after a signal; Meerkat says with the shell's convention that the
		// replay did not reach the end of the capture.
		code := 128 + 2
		if s, ok := stopSig.Load().(syscall.Signal); ok {
			code = 128 + int(s)
		}
		return &exitError{code: code}
	}
	return nil
}

// checkLogDir checks that dir, named by how (for the message), is a writable directory, as
// Suricata checks -l and default-log-dir before it starts; it does not create it.
func checkLogDir(dir, how string) error {
	fi, err := os.Stat(dir)
	switch {
	case err != nil && errors.Is(err, os.ErrNotExist):
		return fail("the log directory %q %s does not exist (create it first, as for Suricata)", dir, how)
	case err != nil:
		return fail("the log directory %q %s: %v", dir, how, err)
	case !fi.IsDir():
		return fail("the log directory %q %s is not a directory", dir, how)
	}
	if unix.Access(dir, unix.W_OK) != nil {
		return fail("the log directory %q %s is not writable", dir, how)
	}
	return nil
}

func warn(w io.Writer, msg string) { fmt.Fprintf(w, "meerkat: warning: %s\n", msg) }

// firewallMode decides whether Meerkat runs as a firewall (--firewall,
// --firewall-rules-exclusive or firewall.enabled) and prepares its rule files and policies; nil
// when it does not. Enabling it on the command line while the configuration says
// `enabled: no` is an error, as in Suricata.
func firewallMode(o *options, st *config.Settings, stderr io.Writer) (*firewallSetup, error) {
	cli := o.firewall || o.firewallExclusive != ""
	if !cli && !st.Firewall.Enabled {
		return nil, nil
	}
	if cli && st.Firewall.EnabledSet && !st.Firewall.Enabled {
		return nil, fail("firewall mode enabled through commandline, but disabled in config")
	}
	warn(stderr, "firewall mode is EXPERIMENTAL and subject to change")
	pol, err := firewall.LoadPolicies(&st.Firewall)
	if err != nil {
		return nil, &startupError{err}
	}
	fw := &firewallSetup{policies: pol}
	switch {
	case o.firewallExclusive != "":
		fw.files = []string{o.firewallExclusive}
	case st.Firewall.RulePath == "" || len(st.Firewall.RuleFiles) == 0:
		fmt.Fprintln(stderr, "meerkat: notice: firewall: firewall.rule-path or firewall.rule-files not set, no firewall rules loaded")
	default:
		fw.files = st.Firewall.RuleFilePaths()
	}
	// App-layer tables need app-layer state, which Meerkat does not build yet: like Suricata
	// for a flow whose protocol is unknown, every packet that passes the packet tables gets
	// the app tables' default accept; app-layer policies are parsed but not applied.
	if len(pol.App) > 0 {
		warn(stderr, "firewall: app-layer policies are parsed but not applied yet (no app-layer parsing)")
	}
	return fw, nil
}

// configName says which configuration a run uses, for -v.
func configName(o *options) string {
	switch {
	case o.configFile != "":
		return o.configFile
	case fileExists(DefaultConfigFile):
		return DefaultConfigFile
	}
	return "built-in defaults"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// DefaultConfigFile is read when -c is not given, as Suricata reads
// /etc/suricata/suricata.yaml. When it does not exist either, Meerkat runs on its built-in
// defaults, which (like Suricata's defaults for an empty file) have no outputs.
const DefaultConfigFile = "/etc/meerkat/suricata.yaml"

// loadConfig reads -c (or DefaultConfigFile, or the built-in defaults), then --include files,
// then --set values.
func loadConfig(o *options, stderr io.Writer) (*config.Config, error) {
	path := o.configFile
	if path == "" {
		if _, err := os.Stat(DefaultConfigFile); err == nil {
			path = DefaultConfigFile
		}
	}
	var cfg *config.Config
	if path != "" {
		c, err := config.Load(path)
		if err != nil {
			return nil, &startupError{err}
		}
		cfg = c
	} else {
		warn(stderr, "no configuration file (-c, or "+DefaultConfigFile+"): using built-in defaults, which write no logs")
		cfg = config.LoadDefault()
	}
	for _, inc := range o.includes {
		if err := cfg.Include(inc); err != nil {
			return nil, &startupError{err}
		}
	}
	for _, kv := range o.sets {
		if err := cfg.Set(kv); err != nil {
			return nil, &startupError{fmt.Errorf("--set %s: %w", kv, err)}
		}
	}
	return cfg, nil
}

// ruleFileList resolves the rule files as Suricata does: -S replaces the config's rule-files,
// -s adds to them; names from the config are joined with default-rule-path and may be globs.
// A file that is missing, or a directory, is a warning (an error with --init-errors-fatal or
// -T, which Suricata makes fatal too).
func ruleFileList(o *options, st *config.Settings, stderr io.Writer) ([]string, error) {
	var patterns []string
	if len(o.exclusiveRules) > 0 {
		patterns = append(patterns, o.exclusiveRules...)
	} else {
		for _, f := range st.RuleFiles {
			patterns = append(patterns, st.RulePath(f))
		}
	}
	patterns = append(patterns, o.extraRules...)
	if o.disableDetection {
		return nil, nil
	}
	strict := o.initErrorsFatal || o.testConfig
	var files []string
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil || len(matches) == 0 {
			msg := fmt.Sprintf("no rule files match the pattern %q", p)
			if !filepath.IsAbs(p) {
				// As in Suricata, default-rule-path and rule file names are not read relative
				// to the configuration file.
				if wd, err := os.Getwd(); err == nil {
					msg += fmt.Sprintf(" (relative paths are read from the working directory, %s)", wd)
				}
			}
			if strict {
				return nil, fail("%s", msg)
			}
			warn(stderr, msg)
			continue
		}
		sort.Strings(matches)
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				msg := fmt.Sprintf("rule file %s is a directory: name the rule files in it (a glob such as %q works)", m, filepath.Join(m, "*.rules"))
				if strict {
					return nil, fail("%s", msg)
				}
				warn(stderr, msg+"; nothing loaded from it")
				continue
			}
			files = append(files, m)
		}
	}
	return files, nil
}

func chooseRunmode(flagValue, yamlValue string) (pipeline.Runmode, error) {
	v := flagValue
	if v == "" {
		v = yamlValue
	}
	switch strings.ToLower(v) {
	case "", "autofp":
		return pipeline.RunmodeAutoFP, nil
	case "single":
		return pipeline.RunmodeSingle, nil
	case "workers":
		return pipeline.RunmodeWorkers, nil
	}
	return "", fail("unknown runmode %q (use single, workers or autofp)", v)
}

// openOutputs opens the enabled log files in logDir. The returned function closes them,
// flushing everything written.
func openOutputs(st *config.Settings, logDir string) (pipeline.Outputs, func() error, error) {
	var outs pipeline.Outputs
	var opened []*output.Writer
	closeAll := func() error {
		var first error
		for _, w := range opened {
			if err := w.Close(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	open := func(name string, appendMode bool) (*output.Writer, error) {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(logDir, name)
		}
		w, err := output.OpenWriter(path, appendMode)
		if err != nil {
			closeAll()
			return nil, &startupError{err}
		}
		opened = append(opened, w)
		return w, nil
	}
	eve := &st.Outputs.EVE
	if eve.Present && eve.Enabled {
		if eve.Filetype != "" && eve.Filetype != "regular" && eve.Filetype != "file" {
			return outs, nil, fail("outputs: eve-log filetype %q is not supported yet (only regular files)", eve.Filetype)
		}
		w, err := open(eve.Filename, true)
		if err != nil {
			return outs, nil, err
		}
		outs.EVE = w
		outs.EVEFlow = eve.Has("flow")
		outs.EVEStats = eve.Has("stats") && eve.Stats.Totals
		outs.StatsOmitZero = !eve.Stats.NullValues
		outs.EVEAlert = eve.Has("alert")
		outs.EVEDrop = eve.Has("drop")
		outs.DropAlerts = eve.Drop.Alerts
		outs.DropAllFlows = eve.Drop.Flows == "all"
		outs.Alert = output.AlertOptions{Metadata: eve.Alert.RuleMetadata, Flow: eve.Alert.Flow, Verdict: eve.Alert.Verdict,
			References: eve.Alert.RuleReference, TaggedPackets: eve.Alert.TaggedPackets,
			Payload: eve.Alert.Payload, PayloadPrintable: eve.Alert.PayloadPrintable, PayloadLength: eve.Alert.PayloadLength,
			Packet: eve.Alert.Packet, PayloadBufferSize: int(eve.Alert.PayloadBufferSize),
			AppLayer: eve.Alert.AppLayer, HTTPBody: eve.Alert.HTTPBody && eve.Alert.AppLayer,
			HTTPBodyPrintable: eve.Alert.HTTPBodyPrintable && eve.Alert.AppLayer,
			XFF:               xffConfig(eve.Alert.XFF, eve.XFF)}
		hashes := output.FileHashes{MD5: eve.Files.ForceMD5 || st.Outputs.FileStoreMD5,
			SHA1: eve.Files.ForceSHA1 || st.Outputs.FileStoreSHA1, SHA256: eve.Files.ForceSHA256 || st.Outputs.FileStoreSHA256}
		outs.Alert.FileHashes = hashes
		outs.EVEHTTP = eve.HTTP.Enabled
		outs.EVEDNS, outs.DNS = eve.DNS.Enabled, dnsOptions(&eve.DNS)
		outs.HTTP = output.HTTPOptions{Extended: eve.HTTP.Extended, XFF: xffConfig(eve.HTTP.XFF, eve.XFF)}
		outs.HTTP.RequestHeaders, outs.HTTP.ResponseHeaders = output.ParseDumpAllHeaders(eve.HTTP.DumpAllHeaders)
		for _, c := range eve.HTTP.Custom {
			if bit, ok := output.HTTPCustomField(c); ok {
				outs.HTTP.Custom |= bit
			}
		}
		outs.EVETLS = eve.TLS.Enabled
		outs.TLS, _ = output.TLSOptionsFrom(eve.TLS.HasNode, eve.TLS.Extended, eve.TLS.Custom, eve.TLS.SessionResumption)
		outs.EVEFiles = eve.Files.Enabled
		outs.EVESMTP = eve.SMTP.Enabled
		outs.SMTP = smtpOptions(eve.SMTP)
		if t, ok := eve.Type("ssh"); ok && t.Enabled {
			outs.EVESSH = true
		}
		if t, ok := eve.Type("ftp"); ok && t.Enabled {
			outs.EVEFTP = true
		}
		outs.Files = output.FileOptions{Hashes: hashes, XFF: xffConfig(eve.Files.XFF, eve.XFF)}
		if an := eve.Anomaly; an.Enabled {
			outs.Anomaly = output.AnomalyOptions{Decode: an.Decode, Stream: an.Stream, AppLayer: an.AppLayer, PacketHeader: an.PacketHeader}
		}
	}
	if ts := st.Outputs.TLSStore; ts.Enabled {
		cs, err := output.NewCertStore(output.CertStoreDir(logDir, ts.CertsLogDir))
		if err != nil {
			closeAll()
			return outs, nil, &startupError{err}
		}
		outs.TLSStore = cs
	}
	fast := &st.Outputs.Fast
	if fast.Present && fast.Enabled {
		w, err := open(fast.Filename, fast.Append)
		if err != nil {
			return outs, nil, err
		}
		outs.Fast = w
	}
	return outs, closeAll, nil
}

func toFlowTimeouts(t config.Timeouts) flow.Timeouts {
	return flow.Timeouts{New: t.New, Established: t.Established, Closed: t.Closed,
		EmergencyNew: t.EmergencyNew, EmergencyEstablished: t.EmergencyEstablished, EmergencyClosed: t.EmergencyClosed}
}

func pipelineConfig(st *config.Settings, rm pipeline.Runmode, o *options, outs pipeline.Outputs, stderr io.Writer) pipeline.Config {
	maxFlows := int(st.Flow.Memcap / uint64(flow.FlowSize))
	pc := pipeline.Config{
		Runmode:   rm,
		Checksums: decode.ChecksumTCP, // what Suricata validates per packet (its stream engine)
		Flow: flow.Config{
			MaxFlows:     max(maxFlows, 1),
			TCP:          toFlowTimeouts(st.FlowTimeouts.TCP),
			UDP:          toFlowTimeouts(st.FlowTimeouts.UDP),
			ICMP:         toFlowTimeouts(st.FlowTimeouts.ICMP),
			Default:      toFlowTimeouts(st.FlowTimeouts.Default),
			VLANTracking: st.VLANUseForTracking,
			Midstream:    st.Stream.Midstream, // without the stream engine
		},
		FlowHashSize: st.Flow.HashSize,
		FlowPrealloc: st.Flow.Prealloc,
		Defrag:       defragConfig(st),
		Outputs:      outs,
		Warn:         func(msg string) { warn(stderr, msg) },
	}
	// -k (or, without it, capture.checksum-validation: none|all) overrides
	// stream.checksum-validation, as Suricata's does: it sets that key.
	k := o.checksums
	if k == "" && (st.CaptureChecksumValidation == "none" || st.CaptureChecksumValidation == "all") {
		k = st.CaptureChecksumValidation
	}
	if k == "none" || k != "all" && !st.Stream.ChecksumValidation {
		pc.Checksums = decode.ChecksumNone
	}
	pc.PcapChecksumChecks = st.PcapFileChecksumChecks
	return pc
}

func defragConfig(st *config.Settings) defrag.Config {
	dc := defrag.DefaultConfig()
	if st.Defrag.Memcap > 0 {
		dc.Memcap = st.Defrag.Memcap
	}
	if st.Defrag.Trackers > 0 {
		dc.Trackers = st.Defrag.Trackers
	}
	if st.Defrag.MaxFrags > 0 {
		dc.MaxFrags = st.Defrag.MaxFrags
	}
	if st.Defrag.Timeout > 0 {
		dc.Timeout = st.Defrag.Timeout
	}
	return dc
}

func printSummary(w io.Writer, r *pipeline.Result) {
	secs := r.Elapsed.Seconds()
	pps := 0.0
	if secs > 0 {
		pps = float64(r.Packets) / secs
	}
	if r.Interrupted {
		fmt.Fprintln(w, "meerkat: stopped by signal; everything logged so far was flushed")
	}
	fmt.Fprintf(w, "packets: %d\n", r.Packets)
	fmt.Fprintf(w, "bytes: %d\n", r.Bytes)
	fmt.Fprintf(w, "elapsed: %s\n", r.Elapsed.Round(time.Microsecond))
	fmt.Fprintf(w, "packets/s: %.0f\n", pps)
	if r.CPU > 0 {
		fmt.Fprintf(w, "cpu: %s (%.0f packets per CPU second)\n", r.CPU.Round(time.Microsecond), float64(r.Packets)/r.CPU.Seconds())
	}
	fmt.Fprintf(w, "flows: %d\n", r.Flows)
	fmt.Fprintf(w, "alerts: %d\n", r.Alerts)
	fmt.Fprintf(w, "drops: %d\n", r.Drops)
	fmt.Fprintf(w, "heap allocations per packet: %.4f (%d allocations in the packet loop)\n", r.AllocsPerPacket, r.Allocs)
	if r.CandidatesMax > 0 {
		fmt.Fprintf(w, "candidate rules per inspected packet: mean %.2f, max %d\n", r.CandidatesMean, r.CandidatesMax)
	}
}

func printBuildInfo(w io.Writer) {
	fmt.Fprintf(w, "This is Meerkat version %s\n", Version)
	fmt.Fprintf(w, "Suricata compatibility: %s\n", SuricataVersion)
	// Suricata lists its optional build features on this line, and says "none" when it has
	// none of them (PrintBuildInfo); the conformance runner reads it. Meerkat claims those it
	// implements (JA3/JA3S and JA4 of applayer/tls); what it is built with follows on lines
	// of its own.
	fmt.Fprintln(w, "Features: HAVE_JA3 HAVE_JA4")
	fmt.Fprintf(w, "Hyperscan version: %s\n", hs.Version())
	fmt.Fprintf(w, "Go version: %s\n", runtime.Version())
	fmt.Fprintf(w, "Platform: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "CGO_ENABLED" {
				fmt.Fprintf(w, "%s: %s\n", s.Key, s.Value)
			}
		}
	}
}

// xffConfig is a type's xff section, or eve-log's when the type has none
// (JsonAlertLogGetXffCfg, OutputHttpLogInitSub: parent_xff_cfg).
func xffConfig(own, parent config.XFFOptions) output.XFFConfig {
	x := own
	if !x.Present {
		x = parent
	}
	return output.ParseXFFConfig(x.Enabled, x.Mode, x.Deployment, x.Header)
}

// forceFileHashes makes the HTTP parser compute the digests of the files it tracks when the
// files type or a file-store output forces a hash (FileForceHashParseCfg sets Suricata's
// global g_file_force_md5/sha1/sha256, which the HTTP file code reads).
func forceFileHashes(ac *applayer.Config, h output.FileHashes) {
	if ac == nil || !h.Any() {
		return
	}
	s, ok := ac.Protocols[applayer.ProtoHTTP1].Conf.(*htp.Settings)
	if !ok || s == nil {
		return
	}
	if s.Default != nil {
		s.Default.ForceHash = true
	}
	for _, c := range s.Servers {
		c.ForceHash = true
	}
}

// smtpOptions turns the eve-log smtp type's settings into the logger's (OutputEmailInitConf):
// custom fields by config or header name, md5 of body and subject.
func smtpOptions(c config.SMTPOptions) output.SMTPOptions {
	var o output.SMTPOptions
	for _, f := range c.Custom {
		if bit, ok := output.EmailCustomField(f); ok {
			o.Custom |= bit
		}
	}
	for _, m := range c.MD5 {
		switch m {
		case "body":
			o.BodyMD5 = true
		case "subject":
			o.SubjectMD5 = true
		}
	}
	return o
}
