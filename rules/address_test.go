package rules

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/meerkat-ids/meerkat/config"
)

func ranges(rs []IPRange) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return strings.Join(out, " ")
}

func TestParseAddress(t *testing.T) {
	vars := &config.Vars{
		AddressGroups: map[string]string{
			"HOME_NET":     "[192.168.0.0/16,10.0.0.0/8]",
			"EXTERNAL_NET": "!$HOME_NET",
			"DNS":          "10.0.0.53",
			"LIST":         "1.1.1.1,2.2.2.2",
			"EMPTY":        " ",
			"ANYNET":       "any",
			"NOTANY":       "!$ANYNET",
		},
	}
	for _, tc := range []struct {
		in       string
		v4, v6   string
		negated  bool
		errMatch string
	}{
		{in: "any", v4: "0.0.0.0-255.255.255.255", v6: "::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{in: "ANY", v4: "0.0.0.0-255.255.255.255", v6: "::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{in: "1.2.3.4", v4: "1.2.3.4"},
		{in: "1.2.3.4/24", v4: "1.2.3.0-1.2.3.255"},
		{in: "1.2.3.4/255.255.255.0", v4: "1.2.3.0-1.2.3.255"},
		{in: "1.2.3.4/0", v4: "0.0.0.0-255.255.255.255"},
		{in: "1.2.3.4-1.2.3.10", v4: "1.2.3.4-1.2.3.10"},
		{in: "1.2.3.4-1.2.3.4", v4: "1.2.3.4"},
		{in: "2001:db8::1", v6: "2001:db8::1"},
		{in: "2001:db8::/32", v6: "2001:db8::-2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"},
		{in: "[1.1.1.1, 2.2.2.2]", v4: "1.1.1.1 2.2.2.2"},
		{in: "[1.1.1.1,1.1.1.2,1.1.1.3]", v4: "1.1.1.1-1.1.1.3"},
		{in: "[1.1.1.0/24,1.1.1.5]", v4: "1.1.1.0-1.1.1.255"},
		{in: "[10.0.0.0/24,!10.0.0.5]", v4: "10.0.0.0-10.0.0.4 10.0.0.6-10.0.0.255", negated: true},
		{in: "!1.1.1.1", v4: "0.0.0.0-1.1.1.0 1.1.1.2-255.255.255.255", negated: true},
		{in: "![1.1.1.1,1.1.1.2]", v4: "0.0.0.0-1.1.1.0 1.1.1.3-255.255.255.255", negated: true},
		{in: "!2001:db8::/32", v6: "::-2001:db7:ffff:ffff:ffff:ffff:ffff:ffff 2001:db9::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", negated: true},
		{in: "[1.0.0.0/8,![1.2.0.0/16,!1.2.3.4]]", v4: "1.0.0.0-1.1.255.255 1.2.3.4 1.3.0.0-1.255.255.255", negated: true},
		{in: "[1.1.1.1,!!2.2.2.2]", v4: "1.1.1.1", negated: true}, // '!!' counts as one '!', as in Suricata
		{in: "$HOME_NET", v4: "10.0.0.0-10.255.255.255 192.168.0.0-192.168.255.255"},
		{in: "$EXTERNAL_NET", v4: "0.0.0.0-9.255.255.255 11.0.0.0-192.167.255.255 192.169.0.0-255.255.255.255", negated: true},
		{in: "!$HOME_NET", v4: "0.0.0.0-9.255.255.255 11.0.0.0-192.167.255.255 192.169.0.0-255.255.255.255", negated: true},
		{in: "[$HOME_NET,!$DNS]", v4: "10.0.0.0-10.0.0.52 10.0.0.54-10.255.255.255 192.168.0.0-192.168.255.255", negated: true},
		{in: "[$EXTERNAL_NET,!$HOME_NET]", v4: "0.0.0.0-9.255.255.255 11.0.0.0-192.167.255.255 192.169.0.0-255.255.255.255", negated: true},
		{in: "!$LIST", v4: "0.0.0.0-1.1.1.0 1.1.1.2-2.2.2.1 2.2.2.3-255.255.255.255", negated: true},
		{in: "[1.1.1.1,]", v4: "1.1.1.1"},
		// errors
		{in: "![1.2.3.4,!1.2.3.4]", errMatch: "no addresses left"},
		{in: "[1.2.3.4,!1.2.3.4]", errMatch: "no addresses left"},
		{in: "!any", errMatch: "complete IP space negated"},
		{in: "!0.0.0.0/0", errMatch: "complete IP space negated"},
		{in: "$NOTANY", errMatch: "complete IP space negated"},
		{in: "[]", errMatch: "no addresses left"},
		{in: "[1.1.1.1", errMatch: "not every address block was properly closed"},
		{in: "1.1.1.1]", errMatch: "properly opened"},
		{in: "[,1.1.1.1]", errMatch: "failed to parse address"},
		{in: "1.2.3.256", errMatch: "failed to parse address"},
		{in: "1.2.3", errMatch: "failed to parse address"},
		{in: "01.2.3.4", errMatch: "failed to parse address"},
		{in: "1.2.3.4/33", errMatch: "failed to parse address"},
		{in: "1.2.3.4/-1", errMatch: "failed to parse address"},
		{in: "1.2.3.4/255.0.255.0", errMatch: "netmask \"255.0.255.0\" is not usable"},
		{in: "1.2.3.10-1.2.3.4", errMatch: "failed to parse address"},
		{in: "2001:db8::/129", errMatch: "failed to parse address"},
		{in: "fe80::1%eth0", errMatch: "failed to parse address"},
		{in: "1.1.1.1 ", errMatch: "failed to parse address"},
		{in: "$NOPE", errMatch: "undefined address variable"},
		{in: "$EMPTY", errMatch: "no value"},
		{in: "host.example.com", errMatch: "failed to parse address"},
		{in: strings.Repeat("[", 70) + "1.1.1.1" + strings.Repeat("]", 70), errMatch: "recursion limit"},
	} {
		a, err := ParseAddress(tc.in, vars)
		if tc.errMatch != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errMatch) {
				t.Errorf("%q: got %v, want error containing %q", tc.in, err, tc.errMatch)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := ranges(a.V4); got != tc.v4 {
			t.Errorf("%q v4: got %q want %q", tc.in, got, tc.v4)
		}
		if got := ranges(a.V6); got != tc.v6 {
			t.Errorf("%q v6: got %q want %q", tc.in, got, tc.v6)
		}
		if a.Negated != tc.negated {
			t.Errorf("%q negated: got %v", tc.in, a.Negated)
		}
	}
}

func TestAddressHelpers(t *testing.T) {
	a, err := ParseAddress("[10.0.0.0/24,!10.0.0.128/25,2001:db8::/126]", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Contains(netip.MustParseAddr("10.0.0.1")) || a.Contains(netip.MustParseAddr("10.0.0.200")) ||
		!a.Contains(netip.MustParseAddr("::ffff:10.0.0.2")) || !a.Contains(netip.MustParseAddr("2001:db8::3")) ||
		a.Contains(netip.MustParseAddr("2001:db8::4")) {
		t.Fatal("Contains")
	}
	var got []string
	for _, p := range a.Prefixes() {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "10.0.0.0/25 2001:db8::/126" {
		t.Fatalf("prefixes %v", got)
	}
	r := IPRange{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.6")}
	got = got[:0]
	for _, p := range r.Prefixes() {
		got = append(got, p.String())
	}
	if strings.Join(got, " ") != "10.0.0.1/32 10.0.0.2/31 10.0.0.4/31 10.0.0.6/32" {
		t.Fatalf("range prefixes %v", got)
	}
	full, _ := ParseAddress("any", nil)
	if ps := full.Prefixes(); len(ps) != 2 || ps[0].String() != "0.0.0.0/0" || ps[1].String() != "::/0" {
		t.Fatalf("any prefixes %v", ps)
	}
}

func TestParsePort(t *testing.T) {
	vars := &config.Vars{PortGroups: map[string]string{"HTTP_PORTS": "[80,8080]", "NOT_HTTP": "!80", "MANY": "[$HTTP_PORTS,443]"}}
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "any", want: "0-65535"},
		{in: "80", want: "80-80"},
		{in: "1:1024", want: "1-1024"},
		{in: "1024:", want: "1024-65535"},
		{in: ":1024", want: "0-1024"},
		{in: "[80,81,82]", want: "80-80 81-81 82-82"}, // neighbours stay apart, as in Suricata
		{in: "[80:90,85:100,101]", want: "80-100 101-101"},
		{in: "[80: 82]", want: "80-82"},
		{in: "[80:100,!99]", want: "80-98 100-100"},
		{in: "[1:80,![2,4]]", want: "1-1 3-3 5-80"},
		{in: "!80", want: "0-79 81-65535"},
		{in: "![80,443]", want: "0-79 81-442 444-65535"},
		{in: "$HTTP_PORTS", want: "80-80 8080-8080"},
		{in: "!$HTTP_PORTS", want: "0-79 81-8079 8081-65535"},
		{in: "$NOT_HTTP", want: "0-79 81-65535"},
		{in: "$MANY", want: "80-80 443-443 8080-8080"},
		{in: "!any", err: "complete port space is negated"},
		{in: "![0:100,101:]", err: "complete port space is negated"},
		{in: "[80,!80]", err: "no ports left"},
		{in: "80:!90", err: "negated value in a range"},
		{in: "90:80", err: "failed to parse port"},
		{in: "65536", err: "failed to parse port"},
		{in: "http", err: "failed to parse port"},
		{in: "[80", err: "properly closed"},
		{in: "$NOPE", err: "undefined port variable"},
		{in: "-1", err: "failed to parse port"},
	} {
		p, err := ParsePort(tc.in, vars)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		var got []string
		for _, r := range p.Ranges {
			got = append(got, itoa(int(r.First))+"-"+itoa(int(r.Last)))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: got %v want %v", tc.in, got, tc.want)
		}
	}
	p, _ := ParsePort("[80,443]", nil)
	if !p.Contains(443) || p.Contains(444) {
		t.Fatal("Contains")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestAddressContainsMatchesLinearScan(t *testing.T) {
	a, err := ParseAddress("[10.0.0.0/8,!10.1.0.0/16,192.168.1.1,192.168.1.3,172.16.0.0/12,2001:db8::/32,!2001:db8:1::/48,::1]", nil)
	if err != nil {
		t.Fatal(err)
	}
	linear := func(ip netip.Addr) bool {
		ip = ip.Unmap()
		rs := a.V6
		if ip.Is4() {
			rs = a.V4
		}
		for _, r := range rs {
			if r.Contains(ip) {
				return true
			}
		}
		return false
	}
	for _, s := range []string{"10.0.0.0", "10.0.255.255", "10.1.0.0", "10.1.255.255", "10.2.0.0", "9.255.255.255",
		"11.0.0.0", "192.168.1.1", "192.168.1.2", "192.168.1.3", "172.31.255.255", "0.0.0.0", "255.255.255.255",
		"2001:db8::", "2001:db8:1::5", "2001:db8:2::", "::1", "::2", "::ffff:10.0.0.1"} {
		ip := netip.MustParseAddr(s)
		if got, want := a.Contains(ip), linear(ip); got != want {
			t.Errorf("Contains(%s) = %v, linear %v", s, got, want)
		}
	}
}

func TestAddressHoldsAll(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"any", true}, {"[0.0.0.0/0,::/0]", true}, {"0.0.0.0/0", false}, {"::/0", false},
		{"!10.0.0.0/8", false}, {"![1.2.3.4]", false},
	} {
		a, err := ParseAddress(c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got := a.HoldsAll(); got != c.want {
			t.Errorf("%s: HoldsAll %v, want %v", c.text, got, c.want)
		}
	}
}
