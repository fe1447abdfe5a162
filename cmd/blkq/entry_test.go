package main

import (
	"io"
	"strings"
)

// The commands' entry points for the tests, which call them in process as
// the command line would: cmdRun(args, ...) is "blkq run args".

// cmdLine runs "blkq NAME ARGS..." in process.
func cmdLine(name string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	root := newCLI(stdin, stdout, stderr)
	root.SetArgs(append(strings.Fields(name), args...))
	_, err := root.ExecuteC()
	return err
}

// cmdRun runs "blkq run args" in process.
func cmdRun(args []string, stdout, stderr io.Writer) error {
	return cmdLine("run", args, nil, stdout, stderr)
}

// cmdReplay runs "blkq replay args" in process.
func cmdReplay(args []string, stdout, stderr io.Writer) error {
	return cmdLine("replay", args, nil, stdout, stderr)
}

// cmdExperiment runs "blkq experiment args" in process.
func cmdExperiment(args []string, stdout, stderr io.Writer) error {
	return cmdLine("experiment", args, nil, stdout, stderr)
}

// cmdLatency runs "blkq latency args" in process.
func cmdLatency(args []string, stdout, stderr io.Writer) error {
	return cmdLine("latency", args, nil, stdout, stderr)
}

// cmdTrace runs "blkq trace args" in process.
func cmdTrace(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return cmdLine("trace", args, stdin, stdout, stderr)
}
