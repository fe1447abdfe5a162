// Command blkq runs the Linux block request layer in user space.
//
//	blkq run [flags] [JOBFILE...]   run fio job files (default: an embedded demo)
//	blkq trace print FILE           print a blktrace binary trace as blkparse does
//
// See README.md.
package main

import (
	"errors"
	"fmt"
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

'blkq <command> -h' lists a command's flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = cmdRun(os.Args[2:], os.Stdout, os.Stderr)
	case "replay":
		err = cmdReplay(os.Args[2:], os.Stdout, os.Stderr)
	case "latency":
		err = cmdLatency(os.Args[2:], os.Stdout, os.Stderr)
	case "experiment":
		err = cmdExperiment(os.Args[2:], os.Stdout, os.Stderr)
	case "trace":
		err = cmdTrace(os.Args[2:], os.Stdin, os.Stdout, os.Stderr)
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "blkq: unknown command %q\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	var ie *interruptedError
	if errors.As(err, &ie) {
		os.Exit(ie.exitCode()) // fio's line and the report are out
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "blkq: %s\n", strings.TrimPrefix(err.Error(), "blkq: "))
		os.Exit(1)
	}
}
