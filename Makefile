# Meerkat build and test entry points. `make run` and `make test` set up a fresh machine on their
# own (Debian packages through apt-get, Go modules through the module proxy).

GO        ?= go
BIN       := bin
MEERKAT   := $(BIN)/meerkat
VERIFY    := $(BIN)/meerkat-verify
SHARED    ?= ../shared
PCAP      ?= pcaps/sample.pcap
RULES     ?= rules/meerkat.rules
FUZZTIME  ?= 10s
FUZZMINIMIZETIME ?= 5s
DEB_PKGS  := libhyperscan-dev pkg-config
BENCH_PKGS := hyperfine time python3
# The JA3/JA3S reference of `make reference-check` (tshark has no JA4: FoxIO's ja4.py is that).
REF_PKGS  := tshark python3
# The conformance corpus: suricata-verify tests in two folders (tests-next: stream and
# app-layer). meerkat-verify skips, with a message, a folder that is not there.
CONFORMANCE_TESTS := $(SHARED)/conformance/tests,$(SHARED)/conformance/tests-next

# Hyperscan's literal API (hs_compile_lit_multi) compiles and scans faster than hex-escaped
# regexes; gohs enables it with this tag (prefilter/hs builds either way).
export GOFLAGS := $(GOFLAGS) -tags=hyperscan_v54

.PHONY: all deps build test run bench bench-deps bench-go fuzz lint conformance clean reference-check

all: build

# deps installs only what is missing and says nothing when everything is there.
deps:
	@missing=""; \
	for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "deps: installing$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@command -v $(GO) >/dev/null || { echo "deps: Go 1.26 is required (https://go.dev/dl/)"; exit 1; }
	@$(GO) mod download

build: deps
	@mkdir -p $(BIN)
	$(GO) build -o $(MEERKAT) ./cmd/meerkat
	$(GO) build -o $(VERIFY) ./cmd/meerkat-verify

# run: the main job on the bundled default: replay the bundled capture with the bundled rules.
run: build
	@mkdir -p logs
	./$(MEERKAT) -c suricata.yaml -S $(RULES) -r $(PCAP) -l logs/
	@echo "logs: logs/eve.json logs/fast.log"

# test: lint, the conformance ratchet (tests listed in conformance/passing.txt must still pass;
# both corpus folders run), then every Go test. The Go tests run last so their summary closes the output.
test: build
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	@if [ -d $(SHARED)/conformance/tests ] || [ -d $(SHARED)/conformance/tests-next ]; then \
		./$(VERIFY) --meerkat ./$(MEERKAT) --tests $(CONFORMANCE_TESTS) --ratchet conformance/passing.txt > conformance-run.log 2>&1 \
			|| { cat conformance-run.log; echo "conformance ratchet: FAILED"; exit 1; }; \
		grep -E '^(ratchet|add these|meerkat-verify: test folder)' conformance-run.log || true; tail -1 conformance-run.log; \
	else echo "conformance: neither $(SHARED)/conformance/tests nor tests-next found, ratchet skipped"; fi
	$(GO) test -count=1 ./...

conformance: build
	./$(VERIFY) --meerkat ./$(MEERKAT) --tests $(CONFORMANCE_TESTS) --report

bench: build bench-deps
	./bench/replay.sh
	./bench/corpus.sh
	ROUNDS=5 INPROCESS=5 ./bench/stream.sh
	ROUNDS=5 ./bench/http.sh
	ROUNDS=5 ./bench/etopen.sh
	ROUNDS=3 INPROCESS=3 ./bench/groups.sh
	./bench/broad.sh
	INPROCESS=8 ./bench/modes.sh
	ROUNDS=5 INPROCESS=8 ./bench/firewall.sh
	MIXES=scan FW_KIND=header ROUNDS=5 INPROCESS=8 ./bench/firewall.sh
	./bench/scaling.sh
	./bench/cores.sh
	RUNS=15 ./bench/ordering.sh
	./bench/rules_load.sh
	./bench/peer.sh
	COUNT=1 ./bench/go.sh
	$(GO) run ./bench/plot -o bench/results/latest.png

# bench-deps installs what the bench scripts use besides Go: hyperfine (ordering.sh), GNU time
# (peak memory in groups.sh) and python3 (paired-ratio statistics, ordering.sh).
bench-deps:
	@for p in $(BENCH_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "bench-deps: installing$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

# reference-check compares Meerkat's JA3, JA3S and JA4 on every corpus TLS hello with
# tshark's JA3/JA3S and, when MEERKAT_JA4_PY names FoxIO's python/ja4.py (github.com/FoxIO-LLC/
# ja4, BSD-3-Clause, not vendored), its JA4 (applayer/tls/ja/reference_test.go). `make test`
# runs a short version when tshark is installed.
reference-check: deps
	@for p in $(REF_PKGS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "reference-check: installing$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	MEERKAT_REF_FULL=1 $(GO) test -count=1 -timeout 90m -run TestReferenceFingerprints -v ./applayer/tls/ja/

bench-go: deps
	./bench/go.sh

# fuzz runs every fuzz target for FUZZTIME each and prints, per target, the execs and new
# interesting inputs of the last progress line, so that a stalled target shows. An input that
# finds new coverage is minimized by one worker for up to FUZZMINIMIZETIME, and its execs are
# only counted when that ends: Go's 60 s default left the counter flat for a minute at a time
# (with one worker, fuzzing stopped meanwhile). FUZZFLAGS adds flags (e.g. -parallel=1).
# Go 1.26's fuzz coordinator can end a run with a bare "context deadline exceeded" at the
# -fuzztime boundary (golang/go#75804, fixed in Go 1.27): such a run, which wrote no failing
# input, is reported as a flake; any other failure stops the target.
fuzz: deps
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for pkg in $$($(GO) list ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$t"; \
			if ! $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) \
				-fuzzminimizetime $(FUZZMINIMIZETIME) $(FUZZFLAGS) $$pkg > $$log 2>&1; then \
				cat $$log; \
				if grep -q 'context deadline exceeded' $$log && ! grep -q 'Failing input written' $$log; then \
					echo "fuzz: $$t: flake at the -fuzztime boundary (golang/go#75804), no failing input"; \
				else \
					exit 1; \
				fi; \
			else \
				tail -1 $$log; \
			fi; \
			last=$$(grep 'execs: ' $$log | tail -1); \
			echo "fuzz: $$t: $$(echo "$$last" | sed -n 's/.*elapsed: \([^,]*\), execs: \([0-9]*\).*new interesting: \([0-9]*\).*/\2 execs in \1, \3 new interesting/p')"; \
		done; \
	done

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf $(BIN) logs
