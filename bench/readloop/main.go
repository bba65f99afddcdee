// Command readloop is the baseline of `make bench`: it reads a capture (file or directory)
// with Meerkat's zero-copy capture reader and does nothing else, then prints packets, bytes,
// elapsed seconds and packets/s. Meerkat's own replay is measured against it.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/meerkat-ids/meerkat/capture"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readloop <capture file or directory>")
		os.Exit(1)
	}
	start := time.Now()
	src, err := capture.OpenPath(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer src.Close()
	var fr capture.Frame
	var pkts, bytes uint64
	var sum byte
	for {
		if err := src.Next(&fr); err != nil {
			if errors.Is(err, capture.ErrTruncated) {
				continue // a directory goes on with its next capture, as meerkat does
			}
			if errors.Is(err, io.EOF) {
				break
			}
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pkts++
		bytes += uint64(len(fr.Data))
		if len(fr.Data) > 0 {
			sum ^= fr.Data[0] // touch the data so the loop reads it
		}
	}
	el := time.Since(start).Seconds()
	fmt.Printf("packets: %d\nbytes: %d\nelapsed_s: %.6f\npackets_per_s: %.0f\nchecksum: %d\n", pkts, bytes, el, float64(pkts)/el, sum)
}
