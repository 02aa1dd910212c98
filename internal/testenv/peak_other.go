//go:build !unix

package testenv

import "os"

func maxRSS(*os.ProcessState) (int64, bool) { return 0, false }
