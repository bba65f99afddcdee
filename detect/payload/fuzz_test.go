package payload

import (
	"testing"
)

var fuzzPrograms = []string{
	`content:"a"; content:"b"; distance:0; within:1; content:!"c"; distance:0; within:3;`,
	`content:"GET"; nocase; depth:3; content:"host"; nocase; distance:0; isdataat:2,relative; content:"x"; endswith;`,
	`byte_extract:2,0,len,little; byte_jump:1,len,relative,multiplier 2,align,post_offset -1; byte_test:2,>,len,0,relative;`,
	`byte_jump:0,0,from_end,post_offset -8; byte_math:bytes 2,offset 0,oper <<,rvalue 3,result r,relative; content:"Z"; distance:r; within:4;`,
	`byte_test:4,=,123,0,string,dec; byte_extract:3,1,v,string,hex; isdataat:v,relative; content:"q"; offset:v; depth:5;`,
	`content:"a"; pcre:"/^b.{2}/R"; content:"c"; within:2; pcre:!"/[\x80-\xff]{3}$/";`,
	`pcre:"/(a|b)\1+(?=c)/i"; content:"c"; distance:0; within:1;`,
}

func FuzzInspect(f *testing.F) {
	f.Add([]byte("axxab"))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n"))
	f.Add([]byte("\x05\x00\x02abcdefghijZ"))
	f.Add([]byte("123abcdef\xff\xfe\x80c"))
	f.Add([]byte(""))
	progs := make([]*Program, len(fuzzPrograms))
	for i, o := range fuzzPrograms {
		progs[i] = mustProgram(f, o)
	}
	f.Fuzz(func(t *testing.T, buf []byte) {
		st := NewState()
		for _, p := range progs {
			p.Inspect(buf, st)
		}
	})
}
