package http

import (
	"fmt"
	"testing"

	"github.com/meerkat-ids/meerkat/flow"
)

func TestSimpleGet(t *testing.T) {
	for _, split := range []int{0, 1, 2, 3, 7} {
		t.Run(fmt.Sprint(split), func(t *testing.T) {
			s := testState(t, nil)
			r := feed(t, s, flow.ToServer, []byte("GET /index.html HTTP/1.1\r\nHost: www.Example.com:8080\r\nUser-Agent: x\r\n\r\n"), split, false)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			r = feed(t, s, flow.ToClient, []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/html; charset=utf8\r\n\r\nhello"), split, false)
			if r.Err != nil {
				t.Fatal(r.Err)
			}
			if s.TxCount() != 1 {
				t.Fatalf("txs %d", s.TxCount())
			}
			tx := s.Tx(0)
			if string(tx.Method) != "GET" || string(tx.URIRaw) != "/index.html" || string(tx.Protocol) != "HTTP/1.1" {
				t.Fatalf("line %q %q %q", tx.Method, tx.URIRaw, tx.Protocol)
			}
			if string(tx.Hostname) != "www.example.com" || tx.Port != 8080 {
				t.Fatalf("host %q %d", tx.Hostname, tx.Port)
			}
			if tx.Status != 200 || string(tx.StatusMsg) != "OK" || string(tx.ResponseBody.Data) != "hello" || tx.ResponseLength != 5 {
				t.Fatalf("resp %d %q %q %d", tx.Status, tx.StatusMsg, tx.ResponseBody.Data, tx.ResponseLength)
			}
			if tx.data.Progress != [2]uint8{5, 5} {
				t.Fatalf("progress %v", tx.data.Progress)
			}
			if ct, _ := tx.ResponseContentType(); string(ct) != "text/html" {
				t.Fatalf("ct %q", ct)
			}
			if len(eventList(tx)) != 0 {
				t.Fatalf("events %v", eventList(tx))
			}
		})
	}
}
