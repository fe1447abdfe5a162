package main

// The jobs of blkq run, read as fio 3.33 reads its command line: the job
// options given as flags make a job text parsed before the first job file
// (its defaults are that file's too; its jobs come first), "-" is a job
// file on standard input, --section keeps only the named jobs and
// --readonly refuses a job that writes or trims.

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/blkq-dev/blkq/workload/fio"
)

// parseJobs parses the job files and the command line's jobs, checked.
func (f *cliFlags) parseJobs(files []string, jobOpts []fio.CmdOption, stdin io.Reader) ([]*fio.JobFile, error) {
	if slices.Contains(f.sections, "global") {
		return nil, usagef("--section=global: a [global] section makes no job; name a job section")
	}
	cfg := fio.Config{Env: os.Getenv, Sections: f.sections}
	if len(jobOpts) > 0 {
		text, err := fio.CommandLineText(jobOpts)
		if err != nil {
			return nil, usagef("run: %v", err)
		}
		cfg.Prelude, cfg.PreludePath = text, fio.CommandLinePath
	}
	hasJob := slices.ContainsFunc(jobOpts, func(o fio.CmdOption) bool { return o.Name == "name" })
	var out []*fio.JobFile
	parse := func(jf *fio.JobFile, err error) error {
		if err != nil {
			return commandLineError(err, jobOpts)
		}
		if err := fio.Validate(jf); err != nil {
			return commandLineError(err, jobOpts)
		}
		out = append(out, jf)
		// fio's command-line defaults are the first job file's only.
		cfg.Prelude, cfg.PreludePath = nil, ""
		return nil
	}
	switch {
	case len(files) == 0 && hasJob:
		if err := parse(fio.ParseConfig(fio.CommandLinePath, nil, cfg)); err != nil {
			return nil, err
		}
	case len(files) == 0:
		if err := parse(fio.ParseConfig("default.fio (embedded)", defaultJob, cfg)); err != nil {
			return nil, err
		}
	}
	stdinUsed := false
	for _, name := range files {
		var jf *fio.JobFile
		var err error
		if name == "-" {
			if stdinUsed {
				return nil, usagef("run: - (standard input) is given twice; it holds one job file")
			}
			stdinUsed = true
			jf, err = fio.ParseReaderConfig(fio.StdinPath, stdin, cfg)
		} else {
			jf, err = fio.ParseFileConfig(name, cfg)
		}
		if err := parse(jf, err); err != nil {
			return nil, err
		}
	}
	if f.readonly {
		for _, jf := range out {
			for _, j := range jf.Jobs {
				if j.RW.Writes() || j.RW.Trims() {
					return nil, fmt.Errorf("job %q (rw=%s) writes or trims, and --readonly allows neither", j.Name, j.RW)
				}
			}
		}
	}
	return out, nil
}

// commandLineError names the option of the command line an error in its
// job text came from: "command line: --bs=4x: bad size ...".
func commandLineError(err error, jobOpts []fio.CmdOption) error {
	pe, ok := err.(*fio.ParseError)
	if !ok || pe.File != fio.CommandLinePath {
		return err
	}
	i := fio.CommandLineOption(pe.Line)
	if i < 0 || i >= len(jobOpts) {
		return err
	}
	o := jobOpts[i]
	arg := "--" + o.Name
	if !o.Bare {
		arg += "=" + o.Value
	}
	return fmt.Errorf("%s: %.80s: %s", fio.CommandLinePath, arg, pe.Msg)
}

// ignoredPlace is where an ignored option was given: FILE:LINE, or
// "command line" for a job option given as a flag.
func ignoredPlace(ig fio.Ignored) string {
	if ig.File == fio.CommandLinePath {
		return ig.File
	}
	return fmt.Sprintf("%s:%d", ig.File, ig.Line)
}
