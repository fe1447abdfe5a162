package fio

// fio's job options on its command line (fio --name=a --rw=randread
// --bs=4k): the options before the first --name are defaults, as a
// [global] section, for every job after them (the first job file's too);
// each --name starts a job that takes the options after it; --name=global
// starts a [global] section. CommandLineText writes them as job text, to
// be parsed as Config.Prelude, two lines per option so that an error's
// line names the option (CommandLineOption).

import (
	"fmt"
	"strings"
)

// CommandLinePath names fio's command line in parse errors: Config's
// PreludePath for CommandLineText's output.
const CommandLinePath = "command line"

// CmdOption is one job option from the command line, --Name=Value; Bare
// is true for --Name without a value.
type CmdOption struct {
	Name, Value string
	Bare        bool
	// Skipped marks a --name that no --section before it names: fio
	// skips the job, and the options after it become defaults.
	Skipped bool
}

// CommandLineText returns the job text of opts. A --name whose value
// cannot be a section name (empty, with ']' or a line break) and a value
// with a line break are errors naming the option.
func CommandLineText(opts []CmdOption) ([]byte, error) {
	var b strings.Builder
	b.WriteString("[global]\n")
	for _, o := range opts {
		if strings.ContainsAny(o.Value, "\r\n") {
			return nil, fmt.Errorf("%s: --%s: a value cannot hold a line break", CommandLinePath, o.Name)
		}
		if o.Name != "name" {
			if o.Bare {
				fmt.Fprintf(&b, "%s\n\n", o.Name)
			} else {
				fmt.Fprintf(&b, "%s=%s\n\n", o.Name, o.Value)
			}
			continue
		}
		if o.Skipped {
			b.WriteString("[global]\n\n")
			continue
		}
		if o.Bare || o.Value == "" || strings.Contains(o.Value, "]") {
			return nil, fmt.Errorf("%s: --name=%.80q: want a job name (not empty, no ']')", CommandLinePath, o.Value)
		}
		// fio lists name= in the job's (or the global) options, as given.
		fmt.Fprintf(&b, "[%s]\nname=%s\n", o.Value, o.Value)
	}
	return []byte(b.String()), nil
}

// CommandLineOption returns the index into CommandLineText's opts of the
// option at line of its text, -1 for the leading [global] line.
func CommandLineOption(line int) int {
	if line < 2 {
		return -1
	}
	return (line - 2) / 2
}

// LookupCommandLineOption reports whether fio 3.33 takes name as a job
// option, and whether it needs a value: a flag (bare allowed) takes its
// value only as --name=value on fio's command line, any other option also
// as the next argument.
func LookupCommandLineOption(name string) (known, needsValue bool) {
	s, ok := lookupOption(name)
	if !ok {
		return false, false
	}
	return true, s.bare == bareNo
}
