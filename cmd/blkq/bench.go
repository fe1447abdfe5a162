package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/blkq-dev/blkq/internal/iobench"
	"github.com/blkq-dev/blkq/workload/fio"
	"github.com/spf13/cobra"
)

// benchCommand is "blkq bench": iobench's comparison of blkq, fio and a
// bare pread loop on a real file.
func benchCommand(f *cliFlags, stdout, stderr io.Writer) *cobra.Command {
	var names []string
	for _, c := range iobench.Cases {
		names = append(names, "  "+c.Name)
	}
	return f.withFlags(&cobra.Command{
		Use: "bench [flags]",
		Long: "Runs each case with fio, with blkq run on a file: device (schedulers none and\n" +
			"mq-deadline) and with a bare pread loop, in turn, --rounds times, on a test file in\n" +
			"--dir, and prints each one's median IOPS and CPU time per I/O and the ratios\n" +
			"blkq/fio (IOPS) and blkq/raw (CPU). Direct cases need a file system that takes\n" +
			"O_DIRECT (not tmpfs). The null case runs fio's null engine and blkq run on its\n" +
			"null device (no raw loop), with the ratio blkq/fio (CPU). Cases:\n" + strings.Join(names, "\n"),
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return f.bench(stdout, stderr) },
	}, benchFlags)
}

func (f *cliFlags) bench(stdout, stderr io.Writer) error {
	size, err := fio.ParseSize(f.benchSize)
	if err != nil || len(f.benchSize) > 64 {
		return usagef("--size %.64q: want a size such as 32m", f.benchSize)
	}
	if f.benchRuntime <= 0 || f.benchRamp < 0 || f.benchRounds < 1 {
		return usagef("--runtime must be positive, --ramp at least 0, --rounds at least 1")
	}
	if f.rawWorker {
		return iobench.RunRaw(iobench.RawArgs{Path: f.rawFile, Size: size, Jobs: max(f.rawJobs, 1),
			Random: f.rawRandom, Direct: f.rawDirect, Ramp: f.benchRamp, Runtime: f.benchRuntime}, stdout)
	}
	cases, err := iobench.Lookup(f.benchCases)
	if err != nil {
		return usagef("--cases: %v", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := iobench.Run(ctx, iobench.Config{Dir: f.dir, Size: size, Ramp: f.benchRamp, Runtime: f.benchRuntime,
		Rounds: f.benchRounds, Cases: cases, Fio: f.fioPath, Progress: stderr})
	if err != nil {
		return err
	}
	iobench.Print(stdout, rep)
	if f.benchJSON != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.benchJSON, append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("--json: %w", err)
		}
	}
	return nil
}
