package stream

// noticeKey returns the key under which repeated notices coalesce: a
// preflight_warning by its code and message, a runner_error by its message.
// ok is false for every other line.
func noticeKey(dto any) (key string, ok bool) {
	switch d := dto.(type) {
	case PreflightWarningDTO:
		return TypePreflightWarning + "\x00" + d.Code + "\x00" + d.Message, true
	case RunnerErrorDTO:
		return TypeRunnerError + "\x00" + d.Message, true
	}
	return "", false
}

// Notices coalesces repeated notices, the package's one rule for them: a
// preflight_warning is the same notice as another with its code and
// message, a runner_error as another with its message; no other line is a
// notice. Front-ends show a notice once, with the number of times it came:
// the command's cat, the serve page and the ACP agent all use this. The
// zero Notices is ready. It is not safe for concurrent use.
type Notices struct {
	index  map[string]int // key → index
	counts []int
}

// Add counts dto and returns its notice's index (0 for the first notice
// that came, 1 for the second other one, …) and how many times it has
// come, this time included; ok is false, and nothing is counted, for a line
// that is not a notice.
func (n *Notices) Add(dto any) (index, count int, ok bool) {
	key, ok := noticeKey(dto)
	if !ok {
		return 0, 0, false
	}
	i, seen := n.index[key]
	if !seen {
		if n.index == nil {
			n.index = map[string]int{}
		}
		i = len(n.counts)
		n.index[key] = i
		n.counts = append(n.counts, 0)
	}
	n.counts[i]++
	return i, n.counts[i], true
}
