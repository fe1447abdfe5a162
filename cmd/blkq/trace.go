package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/blkq-dev/blkq/trace"
)

const traceUsage = `usage: blkq trace print [flags] FILE|NAME|-

Prints a blktrace binary trace as blkparse's default output does (the lines,
then the per-CPU summary). FILE is one trace file (such as the one
'blkq run --trace' writes); NAME reads NAME.blktrace.0, NAME.blktrace.1, ...
as 'blkparse -i NAME' does; - reads standard input.

flags:
`

// cmdTrace runs "blkq trace print".
func cmdTrace(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("blkq trace print", flag.ContinueOnError)
	fs.SetOutput(stderr)
	noSummary := fs.Bool("no-summary", false, "print the records only, without the closing summary (as blkparse -q)")
	fs.Usage = func() {
		fmt.Fprint(stderr, traceUsage)
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] != "print" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
			fs.Usage()
			return nil
		}
		if len(args) == 0 {
			return usagef("trace: want a subcommand (print; blkq trace -h)")
		}
		return usagef("trace: unknown subcommand %.40q (want print; blkq trace -h)", args[0])
	}
	rest, ok, err := parseFlags(fs, args[1:])
	if !ok {
		return err
	}
	if len(rest) != 1 {
		return usagef("trace print: want one trace file, got %d arguments (blkq trace print -h)", len(rest))
	}
	// A trace cut mid-record (a blktrace killed, a copy cut short) still
	// prints the records before the cut, as blkparse does; the error then
	// says where the cut is.
	recs, name, rerr := readTraceArg(rest[0], stdin)
	if rerr != nil && len(recs) == 0 {
		return rerr
	}
	if err := trace.Print(stdout, recs); err != nil {
		return err
	}
	if !*noSummary {
		if err := trace.PrintSummary(stdout, recs, name); err != nil {
			return err
		}
	}
	if rerr != nil {
		return fmt.Errorf("%w (printed the %d records before it)", rerr, len(recs))
	}
	return nil
}

// readTraceArg reads the records arg names, as blkparse -i does: "-" is
// standard input (the device is then named by its numbers), an existing
// file is read alone, and otherwise NAME.blktrace.0, .1, ... are read
// until one is missing. It returns the device name blkparse would show.
func readTraceArg(arg string, stdin io.Reader) ([]trace.Record, string, error) {
	if arg == "-" {
		recs, err := trace.ReadAll(stdin)
		if err != nil {
			return recs, "", fmt.Errorf("standard input: %w", err)
		}
		return recs, "", nil
	}
	name := filepath.Base(arg)
	if i := strings.Index(name, ".blktrace."); i >= 0 {
		name = name[:i]
	}
	if _, err := os.Stat(arg); err == nil {
		recs, err := trace.ReadFile(arg)
		return recs, name, err
	}
	base := arg
	if i := strings.Index(base, ".blktrace."); i >= 0 {
		base = base[:i]
	}
	// A cut per-CPU file keeps its records before the cut, and the other
	// CPUs' files are still read; the first cut is reported.
	var all []trace.Record
	var first error
	for cpu := 0; ; cpu++ {
		file := fmt.Sprintf("%s.blktrace.%d", base, cpu)
		if _, err := os.Stat(file); err != nil {
			if cpu == 0 {
				return nil, "", fmt.Errorf("%s: no such file, and no %s", arg, file)
			}
			return all, name, first
		}
		recs, err := trace.ReadFile(file)
		all = append(all, recs...)
		if err != nil && first == nil {
			first = err
		}
	}
}
