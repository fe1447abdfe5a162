package main

// blkq run's command line is fio's: besides blkq's own flags it takes
// fio's job options (blkq run --name=a --rw=randread --bs=4k --size=16m),
// so run parses its flags itself (cobra's DisableFlagParsing): an
// argument naming one of run's flags goes to pflag, one naming a fio job
// option becomes a line of a job made from the command line
// (fio.CommandLineText), anything else is an unknown flag. As with fio's
// getopt_long_only, a job option may be written with one dash or two; a
// job option that needs a value takes the next argument when written
// without '='.
//
// fio reads its arguments in order, so a --section applies to the
// command line's jobs only after it: fio skips a later --name=JOB that
// no --section before it names, and the options after that --name, which
// then belong to no job, become defaults (a [global] section), as in fio.

import (
	"errors"
	"slices"
	"strings"

	"github.com/blkq-dev/blkq/workload/fio"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// splitRunArgs separates args into run's own flags and positional
// arguments (own, for pflag) and fio's job options (jobs), in order.
func splitRunArgs(c *cobra.Command, args []string) (own []string, jobs []fio.CmdOption, err error) {
	var sections []string // the --section values so far
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			own = append(own, args[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			own = append(own, a) // a job file, or "-" for standard input
			continue
		}
		body := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, value, hasValue := strings.Cut(body, "=")
		if fl := runFlag(c, a, name); fl != nil {
			own = append(own, a)
			if !hasValue && fl.NoOptDefVal == "" && i+1 < len(args) {
				i++
				own = append(own, args[i])
				value = args[i]
			}
			if fl.Name == "section" {
				sections = append(sections, value)
			}
			continue
		}
		known, needsValue := fio.LookupCommandLineOption(name)
		if !known {
			own = append(own, a) // pflag names it: "unknown flag: --bogus"
			continue
		}
		o := fio.CmdOption{Name: name, Value: value}
		switch {
		case hasValue:
		case needsValue && i+1 < len(args):
			i++
			o.Value = args[i]
		case needsValue:
			return nil, nil, usagef("run: option --%s needs a value (--%s=...)", name, name)
		default:
			o.Bare = true
		}
		if o.Name == "name" && len(sections) > 0 && !slices.Contains(sections, o.Value) {
			o.Skipped = true
		}
		jobs = append(jobs, o)
	}
	return own, jobs, nil
}

// runFlag returns run's flag that argument a (name without dashes and
// value) names, nil if none: a long flag with two dashes, a shorthand
// (-h) with one.
func runFlag(c *cobra.Command, a, name string) *pflag.Flag {
	if strings.HasPrefix(a, "--") {
		return c.Flags().Lookup(name)
	}
	if len(name) == 1 {
		return c.Flags().ShorthandLookup(name)
	}
	return nil
}

// parseRunFlags parses run's own flags; it reports help when -h or
// --help was given (the help is printed).
func parseRunFlags(c *cobra.Command, own []string) (files []string, help bool, err error) {
	c.InitDefaultHelpFlag()
	if err := c.Flags().Parse(own); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, true, nil
		}
		return nil, false, flagError(c, err)
	}
	if h, _ := c.Flags().GetBool("help"); h {
		return nil, true, nil
	}
	return c.Flags().Args(), false, nil
}
