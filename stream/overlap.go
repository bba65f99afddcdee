package stream

// newDataWins decides, for one stored segment [lStart, lEnd) that a new segment [sStart,
// sEnd) overlaps, whether the new bytes replace the stored ones in the overlap (IDS mode).
// It follows the decision of Suricata's DoHandleDataOverlap (src/stream-tcp-list.c), which
// is taken per stored segment:
//
//   - last: the new data always wins; first and vista: the stored data always wins.
//   - bsd, hpux10, irix, macos, windows, windows2k3: new wins only when it starts before.
//   - linux: new wins when it starts before, or starts at the same place and ends after.
//   - old-linux: new wins when it starts before, or starts at the same place and ends at or
//     after the stored end.
//   - solaris, hpux11: new wins when it starts before and ends at or after the stored end,
//     when it starts at the same place and ends at or after the stored end, or when it
//     starts after and ends after the stored end.
//
// This agrees with the reference (suricata-stream-http.md §1.10) for every policy.
func newDataWins(p Policy, sStart, sEnd, lStart, lEnd int64) bool {
	switch p {
	case PolicyLast:
		return true
	case PolicyFirst, PolicyVista:
		return false
	}
	switch {
	case sStart == lStart:
		switch p {
		case PolicyLinux:
			return sEnd > lEnd
		case PolicyOldLinux, PolicySolaris, PolicyHPUX11:
			return sEnd >= lEnd
		}
		return false
	case sStart < lStart:
		switch p {
		case PolicySolaris, PolicyHPUX11:
			return sEnd >= lEnd
		case PolicyBSD, PolicyHPUX10, PolicyIRIX, PolicyWindows, PolicyWindows2k3,
			PolicyOldLinux, PolicyLinux, PolicyMacOS:
			return true
		}
		return false
	default: // starts after the stored segment
		switch p {
		case PolicySolaris, PolicyHPUX11:
			return sEnd > lEnd
		}
		return false
	}
}
