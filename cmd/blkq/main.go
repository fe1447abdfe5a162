// Command blkq runs the Linux block request layer in user space.
//
//	blkq run [flags] [JOBFILE...]   run fio job files (default: an embedded demo)
//	blkq replay [flags] TRACE       replay a block trace
//	blkq experiment list|NAME       the original Linux measurements
//	blkq latency [flags]            wake-up latency under a write load
//	blkq trace print FILE           print a blktrace binary trace as blkparse does
//	blkq bench [flags]              blkq's cost per I/O next to fio's and pread's
//	blkq version                    the version of blkq and of Go
//
// Flags are GNU-style (--name=value or --name value), before or after the
// arguments. Exit status: 0 on success (and for -h, --help, blkq help), 1
// when a run or its input failed, 2 for a usage mistake (a bad flag, a
// missing or stray argument), as fio does. See README.md.
//
// This package is wiring only: flags (flags.go) become options of the
// packages that do the work (engine, experiment, workload/iotrace,
// trace, report), whose results it prints. The commands are cobra
// commands on pflag's GNU-style flags, rather than five hand-rolled
// parsers on Go's flag package: cobra gives the subcommands (trace
// print), interspersed arguments and the help command, and pflag lets one
// *pflag.Flag be shared by every command that takes it. blkq keeps its
// own help text and error lines (writeHelp, exitStatus): one line per
// usage error, naming the flag, and exit status 2, as before.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
  bench [flags]              blkq's cost per I/O on a real file, beside fio's
                             and a bare pread loop's
  version                    print blkq's version (also blkq --version)

'blkq help <command>' or 'blkq <command> -h' lists a command's flags.
`

func main() {
	stop := startProfile() // profile.go
	code := blkqMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// blkqMain runs the command line args and returns the exit status.
func blkqMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	root := newCLI(stdin, stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err != nil && cmd == root && strings.HasPrefix(err.Error(), "unknown command ") {
		err = unknownCommand(root, args[0])
	}
	return exitStatus(err, helpTopic(cmd), stderr)
}

// unknownCommand is the usage error for blkq NAME with no command NAME, in
// one line, with the commands whose names are close to it.
func unknownCommand(root *cobra.Command, name string) error {
	if close := root.SuggestionsFor(name); len(close) > 0 {
		return usagef("unknown command %q (did you mean %s?)", name, strings.Join(close, " or "))
	}
	return usagef("unknown command %q", name)
}

// newCLI builds the command tree, every command's flags taken from one
// cliFlags made for this command line.
func newCLI(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	f := newCLIFlags()
	root := &cobra.Command{
		Use:           "blkq",
		SilenceErrors: true, // exitStatus prints the error, once
		SilenceUsage:  true,
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	// Help asked for with -h or --help goes to stderr (the flag package's
	// habit, kept); blkq help CMD writes it to stdout (blkq help run | less).
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(stderr, c) })
	cmds := []*cobra.Command{
		runCommand(f, stdin, stdout, stderr),
		replayCommand(f, stdout, stderr),
		experimentCommand(f, stdout, stderr),
		latencyCommand(f, stdout),
		traceCommand(f, stdin, stdout),
		benchCommand(f, stdout, stderr),
		versionCommand(stdout),
	}
	root.AddCommand(cmds...)
	root.SetHelpCommand(helpCommand(root, stdout))
	return root
}

// helpCommand is "blkq help [CMD]": the usage of blkq or of CMD, on stdout.
func helpCommand(root *cobra.Command, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "print blkq's usage or a command's",
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				fmt.Fprint(stdout, usage)
				return nil
			}
			c, rest, err := root.Find(args[:1])
			if err != nil || c == root || len(rest) > 0 || len(args) > 1 || c.Name() == "help" {
				return usagef("help: want one command name, got %q", strings.Join(args, " "))
			}
			writeHelp(stdout, c)
			return nil
		},
	}
}

// alsoUse is the annotation of a second synopsis line in a command's help.
const alsoUse = "also"

// writeHelp prints c's usage: its synopsis, what it does, its flags.
func writeHelp(w io.Writer, c *cobra.Command) {
	if !c.HasParent() {
		fmt.Fprint(w, usage)
		return
	}
	if c.HasAvailableSubCommands() {
		// blkq trace has one subcommand: its help is print's.
		c = c.Commands()[0]
	}
	parent := c.Parent().CommandPath() // "blkq", "blkq trace"
	fmt.Fprintf(w, "usage: %s %s\n", parent, c.Use)
	if also := c.Annotations[alsoUse]; also != "" {
		fmt.Fprintf(w, "       %s %s\n", parent, also)
	}
	if c.Long != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.Long, "\n"))
	}
	c.InitDefaultHelpFlag() // as -h finds it
	if c.HasAvailableLocalFlags() {
		fmt.Fprintf(w, "\nflags:\n%s", c.LocalFlags().FlagUsages())
	}
}

// helpTopic is what "blkq help" takes for the command c ran: its first
// word after blkq ("trace" for blkq trace print), "" for blkq itself.
func helpTopic(c *cobra.Command) string {
	if c == nil || !c.HasParent() || c.Name() == "help" {
		return ""
	}
	for c.Parent().HasParent() {
		c = c.Parent()
	}
	return c.Name()
}

// exitStatus reports err, if any, once, and gives its exit status. A usage
// error is one line and a pointer to the command's help.
func exitStatus(err error, topic string, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		hint := "see 'blkq help'"
		if topic != "" {
			hint = "see 'blkq help " + topic + "'"
		}
		fmt.Fprintf(stderr, "blkq: %s; %s\n", strings.TrimPrefix(err.Error(), "blkq: "), hint)
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
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error for main to print.
func usagef(format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...)}
}

// flagError turns a flag the command line got wrong into a usage error of
// one line naming the flag, the command first ("run: unknown flag:
// --bogus").
func flagError(c *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) {
		cause := iv.Unwrap()
		if u := errors.Unwrap(cause); u != nil {
			cause = u // strconv's "invalid syntax", without the function
		}
		err = fmt.Errorf("invalid value %q for flag --%s: %v", iv.GetValue(), iv.GetFlag().Name, cause)
	}
	if !c.HasParent() {
		return usagef("%v", err)
	}
	return usagef("%s: %v", cmdName(c), err)
}

// cmdName is c's name after blkq: "run", "trace print".
func cmdName(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), "blkq ")
}

// exactArgs is cobra's argument check with blkq's message: want n args
// (what), or a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s: want %s, got %d arguments", cmdName(c), what, len(args))
		}
		return nil
	}
}

// noArgs is cobra.NoArgs with blkq's message.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s: no arguments wanted, got %q", cmdName(c), args[0])
	}
	return nil
}
