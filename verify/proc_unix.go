//go:build unix

package verify

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup starts cmd in its own process group and makes context
// cancellation kill the whole group, so that a shell and everything it
// started die together on timeout.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Do not wait for output pipes held open by orphaned grandchildren.
	cmd.WaitDelay = time.Second
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		// Kill the group; fall back to the process itself.
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}

// exitInfo returns the exit code, or -1 and the signal name when the process
// was killed by a signal.
func exitInfo(ps *os.ProcessState) (int, string) {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return ps.ExitCode(), ""
}
