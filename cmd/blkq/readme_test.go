package main

// The README's examples are a promise to a new user with a plain clone:
// this test keeps it. It reads the commands from README.md's fenced
// blocks, builds blkq once, and runs each from the repository root. Where
// a block shows a command's output ("$ go run ./cmd/blkq ..." followed by
// what it prints), every line shown must be in what the command prints
// now, apart from fio's wall-clock dates and "..." where lines are left
// out: the README's figures are the model's, not a memory of them.

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeCommand is one blkq command in a README block, with the output
// lines the README shows for it.
type readmeCommand struct {
	line int    // in README.md
	args string // after "go run ./cmd/blkq", as a shell would read them
	want []string
}

const goRunBlkq = "go run ./cmd/blkq"

// readmeCommands finds the blkq commands in the fenced blocks of a README
// that are shell (```sh) or plain (```): lines "go run ./cmd/blkq ..." and
// "$ go run ./cmd/blkq ...". Lines after a "$" command, up to the next
// command or the end of the block, are its output.
func readmeCommands(text string) []readmeCommand {
	var cmds []readmeCommand
	in, runnable := false, false
	var cur *readmeCommand
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if fence, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			if in {
				in, cur = false, nil
				continue
			}
			in, runnable = true, fence == "" || fence == "sh" || fence == "console"
			continue
		}
		if !in || !runnable {
			continue
		}
		prompt := strings.HasPrefix(line, "$ ")
		if rest, ok := strings.CutPrefix(strings.TrimPrefix(line, "$ "), goRunBlkq); ok && (rest == "" || rest[0] == ' ') {
			cmds = append(cmds, readmeCommand{line: n, args: rest})
			cur = nil
			if prompt {
				cur = &cmds[len(cmds)-1]
			}
			continue
		}
		if cur != nil && strings.TrimSpace(line) != "" {
			cur.want = append(cur.want, line)
		}
	}
	return cmds
}

// fioDate matches the wall-clock date fio prints in a job's header.
var fioDate = regexp.MustCompile(`(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d+ \d\d:\d\d:\d\d \d{4}`)

// TestReadmeCommandsSucceed runs every blkq command the README shows, from
// the repository root, with nothing but the repository, and checks each
// exits 0 and prints the lines the README shows for it.
func TestReadmeCommandsSucceed(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	cmds := readmeCommands(string(text))
	found := false
	for _, c := range cmds {
		found = found || strings.HasPrefix(strings.TrimSpace(c.args), "run")
	}
	if len(cmds) < 3 || !found {
		t.Fatalf("found %d blkq commands in README.md (want the main job and the examples): %+v", len(cmds), cmds)
	}
	bin := filepath.Join(t.TempDir(), "blkq")
	build := exec.Command("go", "build", "-o", bin, "./cmd/blkq")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/blkq: %v\n%s", err, out)
	}
	// One scratch directory for all the commands, as a user's $TMPDIR
	// would be: one command may write a file the next reads.
	tmp := t.TempDir()
	for _, c := range cmds {
		name, _, _ := strings.Cut(c.args, "#")
		t.Run(strings.Join(strings.Fields(name), "_"), func(t *testing.T) {
			// A guard against a hang, not a timing: the examples take
			// well under a second each.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			// bash for pipefail: a failing blkq piped into tail fails.
			cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", shellQuote(bin)+c.args)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("README.md:%d: %s%s: %v\n%s", c.line, goRunBlkq, c.args, err, stderr.String())
			}
			got := fioDate.ReplaceAllString(stdout.String(), "DATE")
			for _, w := range c.want {
				if strings.TrimSpace(w) == "..." {
					continue
				}
				if !strings.Contains(got, fioDate.ReplaceAllString(w, "DATE")) {
					t.Errorf("README.md:%d: %s%s: the README shows\n%s\nwhich the command no longer prints", c.line, goRunBlkq, c.args, w)
				}
			}
		})
	}
}

// TestReadmeCommandsFound: the block parser finds commands with and
// without a prompt, their output, and nothing outside sh/plain blocks.
func TestReadmeCommandsFound(t *testing.T) {
	text := "```sh\ngo run ./cmd/blkq run   # a comment\n./test.sh\n```\n" +
		"```\n$ go run ./cmd/blkq replay x\nline 1\n...\nline 2\n```\n" +
		"```go\ngo run ./cmd/blkq nope\n```\n" +
		"`go run ./cmd/blkq inline`\n" +
		"```\ngo run ./cmd/blkqx\nblkq run [flags]\n```\n"
	got := readmeCommands(text)
	if len(got) != 2 || got[0].args != " run   # a comment" || got[0].line != 2 || len(got[0].want) != 0 ||
		got[1].args != " replay x" || strings.Join(got[1].want, "|") != "line 1|...|line 2" {
		t.Errorf("readmeCommands: %+v", got)
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
