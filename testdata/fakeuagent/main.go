// Command fakeuagent stands in for `uagent --stream` in the tests of the
// stream package: it replays a recording with delays, exits with a chosen
// code, writes to stderr, hangs until signalled, spawns a grandchild, writes
// a huge line, or dies in the middle of a line.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

func main() {
	replay := flag.String("replay", "", "JSONL file to write to stdout, line by line")
	delay := flag.Duration("delay", 0, "pause before each line")
	lines := flag.Int("lines", -1, "write only the first N lines of -replay")
	exit := flag.Int("exit", 0, "exit code")
	stderr := flag.String("stderr", "", "text to write to stderr first")
	stderrBytes := flag.Int("stderr-bytes", 0, "write this many bytes of numbered filler to stderr")
	hang := flag.Bool("hang", false, "after writing, wait for a signal")
	onInt := flag.String("on-int", "die", "on SIGINT with -hang: die (exit 130), finish (write -finish-line, exit 130), exit0, or ignore")
	finishLine := flag.String("finish-line", "", "the line -on-int=finish writes")
	grandchild := flag.String("grandchild", "", "start `sleep 1000` in the background and write its pid to this file")
	grandchildHolds := flag.String("grandchild-holds", "stdout", "the stream the grandchild keeps open: stdout or stderr")
	bigLine := flag.Int("big", 0, "after half of -replay, write a tool_called line with arguments of this many bytes")
	cut := flag.Bool("cut", false, "end by writing half a line and exiting")
	stdinTo := flag.String("stdin-to", "", "copy standard input to this `file` first")
	prompt := flag.Bool("prompt", false, "after the first line of -replay, read a line from stdin and write it as a user_message")
	setsid := flag.String("setsid-grandchild", "", "start `sleep 1000` in a session of its own and write its pid to this file")
	setsidHolds := flag.Bool("setsid-holds", false, "the setsid grandchild keeps stdout open")
	session := flag.String("session", "", "the session to continue, as uagent's --session")
	effort := flag.String("e", "", "the effort, as uagent's -e")
	model := flag.String("m", "", "the model, as uagent's -m")
	argsTo := flag.String("args-to", "", "append the command line to this `file`, one line per run")
	sigintTo := flag.String("sigint-to", "", "with -state and -hang: write SIGINT to this `file` when the signal comes")
	state := flag.Bool("state", false, "be uagent with a state directory ($UAGENT_STATE_DIR): save the run under it (runs/<run-id>/, runner records) and write its stream; fail as uagent does when the session is locked")
	flag.Parse()
	if *argsTo != "" {
		f, err := os.OpenFile(*argsTo, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fatal(err)
		}
		fmt.Fprintln(f, strings.Join(os.Args[1:], " "))
		f.Close()
	}
	if *state && *hang { // a run that works until it is interrupted
		b, _ := io.ReadAll(os.Stdin)
		if err := hangRun(os.Getenv("UAGENT_STATE_DIR"), *session, strings.TrimSpace(string(b)), *sigintTo, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "uagent:", err)
			os.Exit(1)
		}
		os.Exit(130)
	}
	if *state {
		b, _ := io.ReadAll(os.Stdin)
		if err := saveRun(os.Getenv("UAGENT_STATE_DIR"), *session, *effort, *model, strings.TrimSpace(string(b)), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "uagent:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if *stdinTo != "" {
		b, _ := io.ReadAll(os.Stdin)
		if err := os.WriteFile(*stdinTo, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	if *onInt == "ignore" {
		signal.Ignore(syscall.SIGINT)
	}

	if *stderr != "" {
		fmt.Fprint(os.Stderr, *stderr)
	}
	if *stderrBytes > 0 {
		w := bufio.NewWriter(os.Stderr)
		for i := 0; i < *stderrBytes; {
			n, _ := fmt.Fprintf(w, "stderr line %08d\n", i)
			i += n
		}
		w.Flush()
	}
	if *grandchild != "" {
		sleep := exec.Command("sleep", "1000")
		if *grandchildHolds == "stderr" {
			sleep.Stderr = os.Stderr
		} else {
			sleep.Stdout = os.Stdout // holds the stream open, as a careless tool would
		}
		if err := sleep.Start(); err != nil {
			fatal(err)
		}
		if err := os.WriteFile(*grandchild, []byte(fmt.Sprint(sleep.Process.Pid)), 0o644); err != nil {
			fatal(err)
		}
	}

	if *setsid != "" {
		sleep := exec.Command("sleep", "1000")
		sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if *setsidHolds {
			sleep.Stdout = os.Stdout
		}
		if err := sleep.Start(); err != nil {
			fatal(err)
		}
		if err := os.WriteFile(*setsid, []byte(fmt.Sprint(sleep.Process.Pid)), 0o644); err != nil {
			fatal(err)
		}
	}

	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *replay != "" {
		data, err := os.ReadFile(*replay)
		if err != nil {
			fatal(err)
		}
		all := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
		if *lines >= 0 && *lines < len(all) {
			all = all[:*lines]
		}
		for i, l := range all {
			if *bigLine > 0 && i == len(all)/2 {
				fmt.Fprintf(out, `{"v":1,"type":"tool_called","at":"2026-09-23T12:39:21.7Z","call_id":"big","name":"Write","label":"write big","arguments":"%s"}`+"\n",
					strings.Repeat("x", *bigLine))
			}
			time.Sleep(*delay)
			if !strings.HasSuffix(l, "\n") {
				l += "\n"
			}
			out.WriteString(l)
			out.Flush()
			if *prompt && i == 0 {
				line, err := bufio.NewReader(os.Stdin).ReadString('\n')
				if err != nil {
					fatal(err)
				}
				text, _ := json.Marshal(strings.TrimRight(line, "\r\n"))
				fmt.Fprintf(out, `{"v":1,"type":"user_message","at":"2026-09-23T12:39:18.97Z","id":"typed","text":%s}`+"\n", text)
				out.Flush()
			}
		}
	}
	if *cut {
		out.WriteString(`{"v":1,"type":"tool_finished","at":"2026-09-23T12:39:21.8Z","call_id":"call_cat","na`)
		out.Flush()
		os.Exit(*exit)
	}
	out.Flush()
	if *hang {
		for sig := range sigs {
			switch {
			case sig == syscall.SIGINT && *onInt == "finish":
				fmt.Println(*finishLine)
				os.Exit(130)
			case sig == syscall.SIGINT && *onInt == "ignore":
				continue
			case sig == syscall.SIGINT && *onInt == "exit0":
				os.Exit(0)
			default:
				os.Exit(130)
			}
		}
	}
	os.Exit(*exit)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "fakeuagent:", err)
	os.Exit(99)
}
