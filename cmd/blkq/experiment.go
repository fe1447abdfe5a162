package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/blkq-dev/blkq"
	"github.com/blkq-dev/blkq/experiment"
	"github.com/blkq-dev/blkq/report"
	"github.com/blkq-dev/blkq/trace"
	"github.com/spf13/cobra"
)

// maxScale is the largest --scale.
const maxScale = 10

// experimentCommand is "blkq experiment list" and "blkq experiment NAME".
func experimentCommand(f *cliFlags, stdout, stderr io.Writer) *cobra.Command {
	return f.withFlags(&cobra.Command{
		Use:         "experiment list",
		Annotations: map[string]string{alsoUse: "experiment [flags] NAME"},
		Long:        "Lists the experiments, or runs one: the original Linux measurements beside blkq's.",
		Args:        exactArgs(1, `one experiment name or "list"`),
		RunE:        func(_ *cobra.Command, args []string) error { return f.experiment(args[0], stdout, stderr) },
	}, experimentFlags)
}

// experiment lists the experiments (name "list") or runs one and prints
// its table.
func (f *cliFlags) experiment(name string, stdout, stderr io.Writer) error {
	if err := f.checkOutputFormat(); err != nil {
		return err
	}
	// Up to ten times the published length: the runs' virtual time and
	// wall time grow with the scale, and there is nothing past it to see.
	if !(f.scale > 0 && f.scale <= maxScale) {
		return usagef("--scale=%v: want a number above 0 and at most %v (1 = the published length, 0.1 a tenth of it)", f.scale, maxScale)
	}
	if name == "list" {
		for _, e := range experiment.List() {
			fmt.Fprintf(stdout, "%-12s %s\n", e.Name, e.Title)
		}
		return nil
	}
	e, ok := experiment.Get(name)
	if !ok {
		return usagef("unknown experiment %.40q (blkq experiment list)", name)
	}
	if f.printJobs {
		printExperimentJobs(stdout, e, f.scale)
		return nil
	}
	if f.plotDir != "" {
		// Fail before the run, not after it.
		if err := os.MkdirAll(f.plotDir, 0o755); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	// From here on SIGINT and SIGTERM stop the experiment and print the
	// reports of what ran (signal.go).
	in := notifyInterrupt(stdout)
	defer in.release()
	stdout = in.out
	eo := experiment.Options{Seed: f.seed, Scale: f.scale, Stop: in.Stop()}
	if f.traceFile != "" {
		eo.Tracer = func(config string) (blkq.Tracer, func() error, error) {
			name := fmt.Sprintf("%s-%s.blktrace.0", f.traceFile, traceSafe(config))
			w, err := trace.Create(name, trace.WriterOptions{})
			if err != nil {
				return nil, nil, fmt.Errorf("--trace: %w", err)
			}
			fmt.Fprintf(stderr, "blkq: tracing %s to %s\n", config, name)
			in.onExit(func() { w.Close() }) // a second signal: end it at a record
			return w, w.Close, nil
		}
	}
	outs, tab, err := experiment.Run(e, eo)
	if errors.Is(err, experiment.ErrInterrupted) {
		if err := writeInterruptedExperiment(stdout, e, outs, f.format); err != nil {
			return err
		}
		return in.err(0)
	}
	if err != nil {
		return err
	}
	if f.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"experiment": e.Name, "title": e.Title, "source": e.Source, "seed": f.seed, "scale": f.scale, "columns": tab.Columns, "rows": jsonRows(tab.Rows), "notes": tab.Notes}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s\n(from %s; seed %d, scale %g)\n\n%s", e.Title, e.Source, f.seed, f.scale, tab.Format())
	}
	if f.plotDir != "" {
		// After the table, so that a failed picture does not cost it.
		files, err := experiment.Plot(f.plotDir, e, outs)
		for _, f := range files {
			fmt.Fprintf(stderr, "wrote %s\n", f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeInterruptedExperiment prints, for an experiment a signal cut
// short, the fio report of each configuration that ran (the last one up to
// the stop): there is no comparison table, since it needs them all.
func writeInterruptedExperiment(w io.Writer, e *experiment.Experiment, outs []*experiment.Outcome, format string) error {
	if format == "json" {
		type config struct {
			Name   string          `json:"config"`
			Report json.RawMessage `json:"report"`
		}
		var cs []config
		for _, o := range outs {
			var b bytes.Buffer
			if err := report.WriteJSON(&b, o.Result.Run); err != nil {
				return err
			}
			cs = append(cs, config{o.Config.Name, b.Bytes()})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(map[string]any{"experiment": e.Name, "title": e.Title, "interrupted": true, "configs": cs})
	}
	fmt.Fprintf(w, "%s: interrupted in configuration %d of %d; the reports of what ran (the last up to the stop):\n", e.Title, len(outs), len(e.Configs))
	for _, o := range outs {
		fmt.Fprintf(w, "\n=== %s\n", o.Config.Name)
		if err := report.WriteNormal(w, o.Result.Run); err != nil {
			return err
		}
	}
	return nil
}

// traceSafe turns a configuration name into a file-name part.
func traceSafe(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '=' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-') // one dash for each run of anything else
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// printExperimentJobs prints each distinct job file e runs, headed by the
// configurations that run it.
func printExperimentJobs(w io.Writer, e *experiment.Experiment, scale float64) {
	for i, jf := range e.JobFiles(scale) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "; blkq experiment %s runs this job file under:\n", e.Name)
		for _, c := range jf.Configs {
			fmt.Fprintf(w, ";   %s: %s\n", c.Name, c.Describe())
		}
		fmt.Fprint(w, jf.Source)
	}
}

// jsonRows gives the table's cells to JSON as numbers where they are
// numbers, as text otherwise.
func jsonRows(rows [][]string) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		for _, c := range r {
			if _, err := strconv.ParseFloat(c, 64); err == nil {
				out[i] = append(out[i], json.Number(c))
			} else {
				out[i] = append(out[i], c)
			}
		}
	}
	return out
}
