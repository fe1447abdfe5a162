package main

import (
	"fmt"
	"io"

	"github.com/blkq-dev/blkq/trace"
	"github.com/spf13/cobra"
)

// traceCommand is "blkq trace print [flags] FILE|NAME|-".
func traceCommand(f *cliFlags, stdin io.Reader, stdout io.Writer) *cobra.Command {
	print := f.withFlags(&cobra.Command{
		Use: "print [flags] FILE|NAME|-",
		Long: `Prints a blktrace binary trace as blkparse's default output does (the lines,
then the per-CPU summary). FILE is one trace file (such as the one
'blkq run --trace' writes); NAME reads NAME.blktrace.0, NAME.blktrace.1, ...
as 'blkparse -i NAME' does; - reads standard input.`,
		Args: exactArgs(1, "one trace file"),
		RunE: func(_ *cobra.Command, args []string) error { return f.tracePrint(args[0], stdin, stdout) },
	}, tracePrintFlags)
	c := &cobra.Command{
		Use:  "trace",
		Args: cobra.ArbitraryArgs,
		RunE: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("trace: want a subcommand (print)")
			}
			return usagef("trace: unknown subcommand %.40q (want print)", args[0])
		},
	}
	c.AddCommand(print)
	return c
}

// tracePrint prints the trace arg names (readTraceArg) and its summary.
func (f *cliFlags) tracePrint(arg string, stdin io.Reader, stdout io.Writer) error {
	// A trace cut mid-record (a blktrace killed, a copy cut short) still
	// prints the records before the cut, as blkparse does; the error then
	// says where the cut is.
	recs, name, rerr := readTraceArg(arg, stdin)
	if rerr != nil && len(recs) == 0 {
		return rerr
	}
	if err := trace.Print(stdout, recs); err != nil {
		return err
	}
	if !f.noSummary {
		if err := trace.PrintSummary(stdout, recs, name); err != nil {
			return err
		}
	}
	if rerr != nil {
		return fmt.Errorf("%w (printed the %d records before it)", rerr, len(recs))
	}
	return nil
}

// readTraceArg reads the records arg names: "-" is standard input (the
// device is then named by its numbers), anything else a file or a set of
// per-CPU files (trace.ReadSet). It returns the device name blkparse would
// show.
func readTraceArg(arg string, stdin io.Reader) ([]trace.Record, string, error) {
	if arg == "-" {
		recs, err := trace.ReadAll(stdin)
		if err != nil {
			return recs, "", fmt.Errorf("standard input: %w", err)
		}
		return recs, "", nil
	}
	return trace.ReadSet(arg)
}
