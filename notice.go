package stream

// NoticeKey returns the key under which repeated notices coalesce: a
// preflight_warning by its code and message, a runner_error by its message.
// ok is false for every other line. Front-ends show a notice once, with the
// number of times it came; the command's cat and the serve page share this
// rule.
func NoticeKey(dto any) (key string, ok bool) {
	switch d := dto.(type) {
	case PreflightWarningDTO:
		return TypePreflightWarning + "\x00" + d.Code + "\x00" + d.Message, true
	case RunnerErrorDTO:
		return TypeRunnerError + "\x00" + d.Message, true
	}
	return "", false
}

// Notices counts repeated notices by [NoticeKey]. The zero Notices is
// ready. It is not safe for concurrent use.
type Notices struct{ seen map[string]int }

// Add counts dto and returns how many times its notice has come, this time
// included; ok is false, and nothing is counted, for a line that is not a
// notice.
func (n *Notices) Add(dto any) (count int, ok bool) {
	key, ok := NoticeKey(dto)
	if !ok {
		return 0, false
	}
	if n.seen == nil {
		n.seen = map[string]int{}
	}
	n.seen[key]++
	return n.seen[key], true
}
