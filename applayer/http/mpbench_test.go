package http

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkMultipartBody parses one multipart file of 64 KiB to 1 MiB arriving in
// 1460-byte pieces: the time grows with the body, not its square (the MIME parser is fed
// only what it has not consumed).
func BenchmarkMultipartBody(b *testing.B) {
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
		content := strings.Repeat("0123456789abcdef", size/16)
		body := "--XyZ\r\nContent-Disposition: form-data; filename=\"big\"\r\n\r\n" + content + "\r\n--XyZ--\r\n"
		head := fmt.Sprintf("POST /u HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: %d\r\n\r\n", len(body))
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := testState(b, func(c *Config) { c.RequestBodyLimit = 2 << 20 })
				req(b, s, head)
				for off := 0; off < len(body); off += 1460 {
					req(b, s, body[off:min(off+1460, len(body))])
				}
			}
		})
	}
}
