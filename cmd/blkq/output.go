package main

// What run and replay share after the run: the --trace file and the
// report in --output-format to --output.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"

	"github.com/blkq-dev/blkq/engine"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/trace"
	"golang.org/x/sys/unix"
)

// openTrace creates --trace's file, if one is asked for, as a tracer of
// opt, and returns the function that closes it after the run, whose error
// is the trace's (ENOSPC; nil without --trace). A second signal (in) ends
// the trace at a record.
func (f *cliFlags) openTrace(opt *engine.Options, in *interrupter) (closeTrace func() error, err error) {
	if f.traceFile == "" {
		return func() error { return nil }, nil
	}
	tw, err := trace.Create(f.traceFile, trace.WriterOptions{})
	if err != nil {
		return nil, fmt.Errorf("--trace: %w", err)
	}
	opt.Tracers = append(opt.Tracers, tw)
	in.onExit(func() { tw.Close() })
	return func() error {
		if err := tw.Close(); err != nil {
			return fmt.Errorf("--trace %s: %w", f.traceFile, err)
		}
		return nil
	}, nil
}

// checkOutputFormat checks --output-format (experiment: normal or json).
func (f *cliFlags) checkOutputFormat() error {
	if f.format != "normal" && f.format != "json" {
		return usagef("--output-format=%.40s: want normal or json", f.format)
	}
	return nil
}

// checkReportFormats checks --output-format, --minimal and --terse-version
// of run and replay, and sets f.formats.
func (f *cliFlags) checkReportFormats() error {
	formats, err := report.ParseFormats(f.format)
	if err != nil {
		return usagef("--output-format=%.40s: %v", f.format, err)
	}
	if f.minimal {
		formats = report.FormatTerse
	}
	if !slices.Contains(report.TerseVersions, f.terseVersion) {
		return usagef("--terse-version=%d: want 2, 3 (fio's default), 4 or 5", f.terseVersion)
	}
	f.formats = formats
	return nil
}

// writeReport writes r in --output-format to --output or stdout. It is
// called only once a run succeeded, so a failed run never truncates an
// earlier report.
func (f *cliFlags) writeReport(stdout io.Writer, r *report.Run) error {
	return (&reports{f: f, stdout: stdout}).write(r, true)
}

// reports writes the reports of one run: with --status-interval one every
// interval, then the final one (fio prints them all, each cumulative, in
// the chosen formats, the normal output's job lines only before the
// first). The first report to --output creates the file; the ones after
// it are appended.
type reports struct {
	f      *cliFlags
	stdout io.Writer
	file   *os.File // --output, once a status report has opened it
	n      int      // reports written
	err    error    // the first error writing a status report
}

// write writes r; last says it is the final report, which closes
// --output's file.
func (w *reports) write(r *report.Run, last bool) error {
	f := w.f
	if r.Version == "" {
		// Where fio prints its version: the one blkq version prints.
		info, _ := debug.ReadBuildInfo()
		r.Version = "blkq-" + moduleVersion(info) + " (fio-3.33 compatible)"
	}
	r.TerseVersion = f.terseVersion
	var out bytes.Buffer
	write := report.Write
	if w.n > 0 {
		write = report.WriteNext
	}
	if err := write(&out, r, f.formats); err != nil {
		return err
	}
	w.n++
	switch {
	case f.output == "":
		_, err := w.stdout.Write(out.Bytes())
		return err
	case w.file == nil && last:
		return os.WriteFile(f.output, out.Bytes(), 0o644)
	case w.file == nil:
		file, err := os.Create(f.output)
		if err != nil {
			return err
		}
		w.file = file
	}
	_, err := w.file.Write(out.Bytes())
	if last {
		if e := w.file.Close(); err == nil {
			err = e
		}
	}
	return err
}

// status writes a status report of the run (Options.OnStatus); the first
// error is kept for the end of the run, and no more are written after it.
func (w *reports) status(r *report.Run) {
	if w.err == nil {
		w.err = w.write(r, false)
	}
}

// statusWriter reports whether fio's status line goes to stdout, as fio
// decides: never with --eta=never; with --eta=always, or when stdout is a
// terminal; and only when the report on stdout is the normal output (a
// JSON or terse report there must stay parseable).
func (f *cliFlags) statusWriter(stdout io.Writer) (bool, error) {
	switch f.eta {
	case "never":
		return false, nil
	case "always", "auto":
	default:
		return false, usagef("--eta=%.40s: want auto, always or never", f.eta)
	}
	if f.output == "" && f.formats&report.FormatNormal == 0 {
		return false, nil
	}
	return f.eta == "always" || isTerminal(stdout), nil
}

// isTerminal reports whether w is a terminal (isatty).
func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(file.Fd()), unix.TCGETS)
	return err == nil
}
