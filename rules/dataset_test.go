package rules

import (
	"reflect"
	"strings"
	"testing"
)

// TestDatasetGrammar follows DetectDatasetParse and DetectDatarepParse (Suricata 8.0.6
// detect-dataset.c, detect-datarep.c); the first datarep case is the rule of suricata-verify's
// datarep tests.
func TestDatasetGrammar(t *testing.T) {
	tests := []struct {
		opt  string
		want *Dataset
		err  string
	}{
		{opt: `datarep:dns_rep,>,0,load dns_rep.rep,type string;`,
			want: &Dataset{Rep: true, Cmd: ">", Name: "dns_rep", Type: "string", Load: "dns_rep.rep"}},
		{opt: `datarep:r, ==, 65535;`, want: &Dataset{Rep: true, Cmd: "==", Name: "r", Value: 65535}},
		{opt: `datarep:r,<,10,type md5,memcap 1mb,hashsize 1024;`,
			want: &Dataset{Rep: true, Cmd: "<", Name: "r", Value: 10, Type: "md5", Memcap: 1 << 20, Hashsize: 1024}},
		{opt: `datarep:r,>,1,memcap lots;`, want: &Dataset{Rep: true, Cmd: ">", Name: "r", Value: 1}}, // reset to default
		{opt: `datarep:r,>,65536;`, err: "invalid datarep value"},
		{opt: `datarep:r,>;`, err: "missing values"},
		{opt: `datarep:r,>=,1;`, err: "is not supported"},
		{opt: `datarep:r,>,1,load x;`, err: "type must be set"},
		{opt: `datarep:r,>,1,type bogus;`, err: "bad type"},
		{opt: `datarep:r,>,1,type;`, err: "invalid datarep argument"},
		{opt: `dataset:isset,ua,type string,load ua.lst,memcap 10mb;`,
			want: &Dataset{Cmd: "isset", Name: "ua", Type: "string", Load: "ua.lst", Memcap: 10 << 20}},
		{opt: `dataset:set,ua,type ip,state ua.lst;`, want: &Dataset{Cmd: "set", Name: "ua", Type: "ip", Load: "ua.lst", Save: "ua.lst"}},
		{opt: `dataset:isnotset,ua;`, want: &Dataset{Cmd: "isnotset", Name: "ua"}},
		{opt: `dataset:unset,ua,save a,load b;`, want: &Dataset{Cmd: "unset", Name: "ua", Load: "b", Save: "a"}},
		{opt: `dataset:isset,ua,state a,load b;`, err: "'state' can not be mixed"},
		{opt: `dataset:isset,ua,load a,load b;`, err: "'load' can only appear once"},
		{opt: `dataset:isset,ua,format xml;`, err: "unknown format"},
		{opt: `dataset:isset,ua,type string,format json,value_key v;`,
			want: &Dataset{Cmd: "isset", Name: "ua", Type: "string", Format: "json", JSON: true}},
		{opt: `dataset:isset,ua,bogus;`, err: "invalid dataset argument"},
		{opt: `dataset:isset;`, err: "invalid dataset argument"},
		{opt: `dataset:maybe,ua;`, err: "invalid dataset command"},
	}
	for _, tc := range tests {
		t.Run(tc.opt, func(t *testing.T) {
			r, err := Parse(`alert dns any any -> any any (dns.query; ` + tc.opt + ` sid:1;)`)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := r.Buffer("dns.query")
			if b == nil || len(b.Matches) != 1 {
				t.Fatalf("buffer %+v", b)
			}
			if got := b.Matches[0].Arg; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v want %+v", got, tc.want)
			}
		})
	}
	if _, err := Parse(`alert dns any any -> any any (datarep:r,>,1; sid:1;)`); err == nil || !strings.Contains(err.Error(), "sticky buffer") {
		t.Errorf("no sticky buffer: %v", err)
	}
}
