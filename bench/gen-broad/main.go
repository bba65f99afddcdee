// Command gen-broad writes N broad rules (no fast pattern) shaped like real IP-only and
// header-only rules, deterministically from a seed: /32 blocklists and /24s towards $HOME_NET,
// address lists with negations (in ranges real captures seldom use) towards $EXTERNAL_NET,
// port-restricted TCP/UDP rules with flags, and IPv6 prefixes. Like real blocklists they
// rarely fire, so a benchmark measures the lookups rather than alert logging. Sids start at
// 3000000.
//
//	go run ./bench/gen-broad -n 50000 -seed 1 > broad.rules
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
)

func main() {
	n := flag.Int("n", 1000, "number of rules")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 0x6d65657266))
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	ip := func() string {
		return fmt.Sprintf("%d.%d.%d.%d", 1+rng.IntN(223), rng.IntN(256), rng.IntN(256), 1+rng.IntN(254))
	}
	for i := 0; i < *n; i++ {
		sid := 3000000 + i
		switch k := rng.IntN(100); {
		case k < 40: // blocklist of 1-4 hosts
			list := ip()
			for j := rng.IntN(4); j > 0; j-- {
				list += "," + ip()
			}
			fmt.Fprintf(w, "alert ip [%s] any -> $HOME_NET any (msg:\"BENCH blocklisted host %d\"; classtype:misc-attack; sid:%d; rev:1;)\n", list, i, sid)
		case k < 60: // a /24 out
			fmt.Fprintf(w, "alert ip $HOME_NET any -> %d.%d.%d.0/24 any (msg:\"BENCH net %d\"; sid:%d; rev:1;)\n",
				1+rng.IntN(223), rng.IntN(256), rng.IntN(256), i, sid)
		case k < 75: // lists with negations
			a := rng.IntN(64)
			fmt.Fprintf(w, "alert ip [100.%d.0.0/16,!100.%d.%d.0/24,198.18.%d.0/24] any -> $EXTERNAL_NET any (msg:\"BENCH internal %d\"; sid:%d; rev:1;)\n",
				64+a, 64+a, rng.IntN(256), rng.IntN(256), i, sid)
		case k < 90: // header rules with ports
			proto := []string{"tcp", "udp"}[rng.IntN(2)]
			opt := ""
			if proto == "tcp" {
				opt = "flags:S; "
			}
			fmt.Fprintf(w, "alert %s $EXTERNAL_NET any -> %s [%d,%d:%d,!%d] (msg:\"BENCH port %d\"; %ssid:%d; rev:1;)\n",
				proto, ip(), 1+rng.IntN(1023), 1024+rng.IntN(1000), 3000+rng.IntN(1000), 3500, i, opt, sid)
		default: // IPv6
			fmt.Fprintf(w, "alert ip 2001:db8:%x::/48 any -> any any (msg:\"BENCH v6 %d\"; sid:%d; rev:1;)\n", rng.IntN(65536), i, sid)
		}
	}
}
