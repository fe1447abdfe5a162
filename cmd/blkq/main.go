// Command blkq runs the Linux block request layer in user space.
//
//	blkq run [flags] [JOBFILE...]   run fio job files (default: an embedded demo)
//	blkq replay [flags] TRACE       replay a block trace
//	blkq experiment list|NAME       the original Linux measurements
//	blkq latency [flags]            wake-up latency under a write load
//	blkq trace print FILE           print a blktrace binary trace as blkparse does
//	blkq version                    the version of blkq and of Go
//
// Exit status: 0 on success (and for -h, --help, blkq help), 1 when a run
// or its input failed, 2 for a usage mistake (a bad flag, a missing or
// stray argument), as Go's flag package and fio do. See README.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage: blkq <command> [flags] [args]

commands:
  run [flags] [JOBFILE...]   run fio job files through the request layer
                             (no file: an embedded demo on sim:hdd)
  replay [flags] TRACE       replay a block trace through the request layer
  experiment list|NAME       the original Linux measurements, side by side
  latency [flags]            cyclictest-like wake-up latency under a write load
  trace print FILE           print a blktrace binary trace (blkq run --trace)
                             as blkparse does
  version                    print blkq's version (also blkq --version)

'blkq help <command>' or 'blkq <command> -h' lists a command's flags.
`

// command runs one subcommand with its arguments.
type command func(args []string, stdin io.Reader, stdout, stderr io.Writer) error

var commands = map[string]command{
	"run":        func(a []string, _ io.Reader, o, e io.Writer) error { return cmdRun(a, o, e) },
	"replay":     func(a []string, _ io.Reader, o, e io.Writer) error { return cmdReplay(a, o, e) },
	"latency":    func(a []string, _ io.Reader, o, e io.Writer) error { return cmdLatency(a, o, e) },
	"experiment": func(a []string, _ io.Reader, o, e io.Writer) error { return cmdExperiment(a, o, e) },
	"trace":      cmdTrace,
	"version":    cmdVersion,
}

func main() {
	os.Exit(blkqMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// blkqMain runs the command line args and returns the exit status.
func blkqMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "-version", "--version":
		name = "version"
	case "help":
		// Help that was asked for goes to stdout (blkq help run | less).
		if len(rest) == 0 {
			fmt.Fprint(stdout, usage)
			return 0
		}
		cmd, ok := commands[rest[0]]
		if !ok || len(rest) > 1 {
			fmt.Fprintf(stderr, "blkq help: want one command name, got %q\n%s", strings.Join(rest, " "), usage)
			return 2
		}
		return exitStatus(cmd([]string{"-h"}, stdin, stdout, stdout), stderr)
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "blkq: unknown command %q\n%s", name, usage)
		return 2
	}
	return exitStatus(cmd(rest, stdin, stdout, stderr), stderr)
}

// exitStatus reports err, if any, once, and gives its exit status.
func exitStatus(err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintf(stderr, "blkq: %s\n", strings.TrimPrefix(ue.Error(), "blkq: "))
		}
		return 2
	default:
		var ie *interruptedError
		if errors.As(err, &ie) {
			return ie.exitCode() // fio's line and the report are out
		}
		fmt.Fprintf(stderr, "blkq: %s\n", strings.TrimPrefix(err.Error(), "blkq: "))
		return 1
	}
}

// usageError is a mistake in how a command was called (exit status 2).
// printed says the flag package has already printed it, with the usage.
type usageError struct {
	err     error
	printed bool
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error for main to print.
func usagef(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// parseFlags parses a command's flags, which may come before or after its
// arguments, and returns the arguments. ok is false when the command is to
// return err at once: nil after -h or --help (the usage is printed), or a
// usage error of one line for a bad flag, naming it as the README writes
// flags (--name) and pointing at the command's help, instead of the flag
// package's error followed by every flag.
func parseFlags(fs *flag.FlagSet, args []string) (rest []string, ok bool, err error) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	rest, err = parseInterleaved(fs, args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return nil, false, nil
	case err != nil:
		msg := strings.NewReplacer("defined: -", "defined: --", "flag -", "flag --").Replace(err.Error())
		cmd := strings.TrimPrefix(fs.Name(), "blkq ")
		top, _, _ := strings.Cut(cmd, " ") // blkq help takes the command: trace, not trace print
		return nil, false, usagef("%s: %s (blkq help %s lists the flags)", cmd, msg, top)
	}
	return rest, true, nil
}
