//go:build !unix

package verify

import (
	"os"
	"os/exec"
	"time"
)

// setProcessGroup is a no-op where process groups do not exist; context
// cancellation kills the process itself.
func setProcessGroup(cmd *exec.Cmd) { cmd.WaitDelay = time.Second }

// exitInfo returns the exit code; signals are not reported on this platform.
func exitInfo(ps *os.ProcessState) (int, string) {
	return ps.ExitCode(), ""
}
