package detect

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

// describeEntries lists the (first-last) ranges of entries with the sids of their rules with
// a fast pattern, and their score.
func describeEntries(b *groupBuilder, entries []portEntry) string {
	var out string
	for _, en := range entries {
		var sids []uint32
		for d, iid := range b.mpmIIDs {
			if en.rules.has(uint32(d)) {
				sids = append(sids, b.rules[iid].Src.SID)
			}
		}
		out += fmt.Sprintf("%d-%d%v/%d ", en.first, en.last, sids, en.score)
	}
	return out
}

func TestPortEntries(t *testing.T) {
	tests := []struct {
		name  string
		rules []string
		dir   flow.Direction
		want  string
	}{
		{"disjoint ports", []string{
			`alert tcp any any -> any 80 (content:"a"; sid:1;)`,
			`alert tcp any any -> any 443 (content:"b"; sid:2;)`,
		}, flow.ToServer, "80-80[1]/111 443-443[2]/111 "},
		{"any splits around ports", []string{
			`alert tcp any any -> any any (content:"abc"; sid:1;)`,
			`alert tcp any any -> any 1000:2000 (content:"bcd"; sid:2;)`,
		}, flow.ToServer, "0-999[1]/0 1000-2000[1 2]/0 2001-65535[1]/0 "},
		{"to client uses source ports", []string{
			`alert tcp any 80 -> any any (flow:to_client; content:"a"; sid:1;)`,
			`alert tcp any any -> any 80 (flow:to_server; content:"b"; sid:2;)`,
		}, flow.ToClient, "80-80[1]/111 "},
		{"negated port", []string{
			`alert tcp any any -> any ![80,443] (content:"zz"; sid:1;)`,
		}, flow.ToServer, "0-79[1]/0 81-442[1]/0 444-65535[1]/0 "},
		{"scores", []string{
			`alert tcp any any -> any 9000 (pcre:"/x/"; sid:1;)`,
			`alert tcp any any -> any 9001 (content:!"x"; sid:2;)`,
			`alert tcp any any -> any 9002 (content:"x"; sid:3;)`,
			`alert tcp any any -> any 9003 (flags:S; sid:4;)`,
			`alert tcp any any -> any 9004 (content:"xy"; sid:5;)`,
		}, flow.ToServer, "9000-9000[]/99 9001-9001[]/77 9002-9002[3]/55 9003-9003[]/33 9004-9004[5]/0 "}, // [] no fast pattern
		{"overlapping ranges", []string{
			`alert tcp any any -> any 100:300 (content:"abc"; sid:1;)`,
			`alert tcp any any -> any 200:400 (content:"def"; sid:2;)`,
		}, flow.ToServer, "100-199[1]/0 200-300[1 2]/0 301-400[2]/0 "},
		{"one-byte fast pattern", []string{
			`alert tcp any any -> any 7 (content:"a"; sid:1;)`,
			`alert tcp any any -> any any (content:"a"; sid:2;)`,
		}, flow.ToServer, "0-6[2]/0 7-7[1 2]/55 8-65535[2]/0 "},
		{"syn-only without direction stays out of to-client", []string{
			`alert tcp any any -> any 80 (flags:S; sid:1;)`,
			`alert tcp any 80 -> any any (content:"x"; sid:2;)`,
		}, flow.ToClient, "80-80[2]/111 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, errs, err := Build(mustRules(t, tt.rules...), Config{})
			if err != nil || len(errs) > 0 {
				t.Fatalf("build: %v %v", err, errs)
			}
			defer e.Close()
			b := newGroupBuilder(e.rules, &e.cfg, &sigGroups{})
			scores := make([]int, len(e.rules))
			for i, r := range e.rules {
				scores[i] = r.groupScore()
			}
			tcpPrio, _ := defaultPriorityPorts()
			got := describeEntries(b, b.portEntries(6, tt.dir, scores, tcpPrio))
			if got != tt.want {
				t.Errorf("entries %s, want %s", got, tt.want)
			}
		})
	}
}

func TestLimitGroups(t *testing.T) {
	set := func(iids ...uint32) ruleSet {
		s := make(ruleSet, 1)
		for _, i := range iids {
			s.add(i)
		}
		return s
	}
	entries := []portEntry{
		{first: 1, last: 1, rules: set(0), count: 1},
		{first: 2, last: 2, rules: set(1, 2), count: 2},
		{first: 3, last: 3, rules: set(3), count: 1, score: scoreSynOnly},
		{first: 4, last: 4, rules: set(4, 5, 6), count: 3},
		{first: 5, last: 5, rules: set(7), count: 1},
	}
	tests := []struct {
		limit     int
		own, join string
	}{
		{0, "[3 4 2 1 5]", "none"},
		{5, "[3 4 2 1 5]", "none"},
		{2, "[3 4]", "[0 1 2 7]"},
		{1, "[3]", "[0 1 2 4 5 6 7]"},
	}
	for _, tt := range tests {
		own, join := limitGroups(entries, tt.limit)
		var firsts []uint16
		for _, en := range own {
			firsts = append(firsts, en.first)
		}
		gotJoin := "none"
		if join != nil {
			var iids []int
			for i := range 64 {
				if join.rules.has(uint32(i)) {
					iids = append(iids, i)
				}
			}
			gotJoin = fmt.Sprint(iids)
		}
		if fmt.Sprint(firsts) != tt.own || gotJoin != tt.join {
			t.Errorf("limit %d: own %v join %s, want %s %s", tt.limit, firsts, gotJoin, tt.own, tt.join)
		}
	}
}

func TestGroupStatsAndProfiles(t *testing.T) {
	var texts []string
	for i := range 30 {
		texts = append(texts, fmt.Sprintf(`alert tcp any any -> any %d (content:"port-%d"; sid:%d;)`, 1000+2*i, i, i+1))
	}
	texts = append(texts,
		`alert tcp any any -> any any (content:"everywhere"; sid:100;)`,
		`alert udp any any -> any 53 (content:"dns"; sid:101;)`,
		`alert icmp any any -> any any (content:"ping"; sid:102;)`,
		`alert ip any any -> any any (content:"any-proto"; sid:103;)`)
	tests := []struct {
		grouping Grouping
		// tcp to-server port groups, groups and databases
		tcpServer [3]int
		other     [2]int
	}{
		// 30 single ports (3 rules each, with the any-port tcp and ip rules) and the 31
		// stretches around them (2 rules, the same in each). Medium keeps the 30 ports and 10
		// stretches; the other 21 stretches join into a group with the stretches' rules,
		// which is the one the 10 have: 31 groups. Low keeps 25 ports apart; the 5 others
		// join the stretches: 26. Whatever the groups, a protocol class and direction has one
		// database, which its groups share (issue #19).
		{Grouping{}, [3]int{61, 31, 1}, [2]int{2, 1}},
		{Grouping{Profile: "low"}, [3]int{61, 26, 1}, [2]int{2, 1}},
		{Grouping{Profile: "high"}, [3]int{61, 31, 1}, [2]int{2, 1}},
		{Grouping{Profile: "custom", CustomToServer: 1}, [3]int{61, 2, 1}, [2]int{2, 1}},
		{Grouping{Profile: "custom"}, [3]int{61, 31, 1}, [2]int{2, 1}},
		{Grouping{SharedMPM: true}, [3]int{61, 1, 1}, [2]int{1, 1}},
		// sgh-mpm-context: full: a database per group.
		{Grouping{PerGroupMPM: true}, [3]int{61, 31, 31}, [2]int{2, 2}},
		{Grouping{Profile: "low", PerGroupMPM: true}, [3]int{61, 26, 26}, [2]int{2, 2}},
	}
	for _, tt := range tests {
		e, errs, err := Build(mustRules(t, texts...), Config{Grouping: tt.grouping})
		if err != nil || len(errs) > 0 {
			t.Fatalf("build: %v %v", err, errs)
		}
		var tcp, other GroupStats
		for _, st := range e.GroupStats() {
			if st.Proto == "tcp" && st.ToServer {
				tcp = st
			}
			if st.Proto == "other" && st.ToServer {
				other = st
			}
		}
		if got := [3]int{tcp.PortGroups, tcp.Groups, tcp.Databases}; got != tt.tcpServer {
			t.Errorf("%+v: tcp to server %v, want %v", tt.grouping, got, tt.tcpServer)
		}
		if got := [2]int{other.Groups, other.Databases}; got != tt.other {
			t.Errorf("%+v: other %v, want %v", tt.grouping, got, tt.other)
		}
		e.Close()
	}
}

func TestGroupLimits(t *testing.T) {
	tests := []struct {
		g                  Grouping
		toClient, toServer int
	}{
		{Grouping{}, 20, 40},
		{Grouping{Profile: "medium"}, 20, 40},
		{Grouping{Profile: "low"}, 15, 25},
		{Grouping{Profile: "high"}, 75, 75},
		{Grouping{Profile: "custom", CustomToClient: 3, CustomToServer: 25}, 3, 25},
		{Grouping{Profile: "custom"}, 0, 0},
	}
	for _, tt := range tests {
		if c, s := tt.g.groupLimits(); c != tt.toClient || s != tt.toServer {
			t.Errorf("%+v: limits %d/%d, want %d/%d", tt.g, c, s, tt.toClient, tt.toServer)
		}
	}
}

func TestSynNoToClient(t *testing.T) {
	tests := []struct {
		rule string
		want bool
	}{
		{`alert tcp any any -> any 80 (flags:S; sid:1;)`, true},
		{`alert tcp any any -> any 80 (flags:S,12; sid:1;)`, true},
		{`alert tcp any any -> any [80,443] (flags:S+; sid:1;)`, true}, // only "!" is left out
		{`alert tcp any any -> any 80 (flags:S; flow:to_server; sid:1;)`, false},
		{`alert tcp any any -> any any (flags:S; sid:1;)`, false},
		{`alert tcp any any -> any 80 (flags:!S; sid:1;)`, false},
		{`alert tcp any any -> any 80 (flags:SA; sid:1;)`, false},
		{`alert tcp any any -> any 80 (content:"x"; sid:1;)`, false},
	}
	for _, tt := range tests {
		e, errs, err := Build(mustRules(t, tt.rule), Config{})
		if err != nil || len(errs) > 0 {
			t.Fatalf("%s: %v %v", tt.rule, err, errs)
		}
		if got := e.rules[0].synNoToClient; got != tt.want {
			t.Errorf("%s: synNoToClient %v, want %v", tt.rule, got, tt.want)
		}
		e.Close()
	}
}
