package fio

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// MaxFileSize bounds a job file, in bytes: ParseFile reads at most this
// much and refuses a longer file, so that /dev/zero, a FIFO that never ends
// or a runaway generator costs 16 MiB, not all of memory. fio has no such
// limit; the largest job files in fio's examples are a few KiB, and 16 MiB
// holds hundreds of thousands of option lines.
const MaxFileSize = 16 << 20

// MaxJobs is fio 3.33's limit on jobs, clones of numjobs= included: fio
// keeps jobs in shared-memory segments of 8 (JOBS_PER_SEG) and refuses to
// add the 512th segment (REAL_MAX_SEG = REAL_MAX_JOBS 4096 / 8), so the
// 4089th job fails with "error: maximum number of jobs reached".
const MaxJobs = 4088

// maxOptionEntries bounds the total of Job.Options over a file's jobs.
// Each job lists every [global] option above it, so a long [global]
// section followed by thousands of jobs would cost their product; fio
// applies [global] once and copies a fixed-size structure instead. No
// real job file comes near: 4088 jobs under 256 [global] options is
// 1,046,528 entries.
const maxOptionEntries = 1 << 20

// Config is what Parse needs besides the job text.
type Config struct {
	// Env looks up ${VAR}; nil means every variable is unset ("").
	Env func(string) string
	// Keywords are substituted for $pagesize, $mb_memory and $ncpus; nil
	// means this machine's (HostKeywords). Tests set them for determinism.
	Keywords *Keywords
	// Prelude is job text parsed before the file, as if it came first:
	// fio's job options from its command line (see CommandLine), whose
	// [global] options are defaults for the file's jobs too and whose jobs
	// come before the file's. Errors in it name PreludePath.
	Prelude     []byte
	PreludePath string
	// Sections, when not empty, are the only job sections of src that
	// make jobs (fio's --section, repeatable); the others are skipped
	// unread, as fio skips them. [global] sections always count. They do
	// not apply to Prelude: fio applies a --section only to the command
	// line's jobs after it (the command line's own business).
	Sections []string
}

// Parse reads a fio job file as fio 3.33 does. path names the file in
// errors and in JobFile.Path; env looks up ${VAR} (nil: all unset). The
// error, if any, is a *ParseError naming file and line.
func Parse(path string, src []byte, env func(string) string) (*JobFile, error) {
	return ParseConfig(path, src, Config{Env: env})
}

// ParseFile reads and parses the job file at path, expanding ${VAR} from
// the process environment.
// A file longer than MaxFileSize is an error naming the file and the limit.
func ParseFile(path string) (*JobFile, error) {
	return ParseFileConfig(path, Config{Env: os.Getenv})
}

// ParseFileConfig is ParseFile with cfg.
func ParseFileConfig(path string, cfg Config) (*JobFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseReaderConfig(path, f, cfg)
}

// StdinPath names a job file read from standard input (fio's "-") in
// errors and JobFile.Path.
const StdinPath = "(standard input)"

// ParseReaderConfig reads a job file of at most MaxFileSize bytes from r
// and parses it; path names it.
func ParseReaderConfig(path string, r io.Reader, cfg Config) (*JobFile, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(src) > MaxFileSize {
		return nil, &ParseError{File: path, Msg: fmt.Sprintf("job file is longer than %d bytes (16 MiB), blkq's limit for a job file", MaxFileSize)}
	}
	return ParseConfig(path, src, cfg)
}

// ParseConfig is Parse with every input spelled out.
func ParseConfig(path string, src []byte, cfg Config) (*JobFile, error) {
	p := &parser{
		path:    path,
		env:     cfg.Env,
		jf:      &JobFile{Path: path},
		ignored: map[string]bool{},
	}
	if cfg.Keywords != nil {
		p.kw = *cfg.Keywords
	} else {
		p.kw = HostKeywords()
	}
	if len(cfg.Prelude) > 0 {
		if err := p.parseText(cfg.PreludePath, cfg.Prelude); err != nil {
			return nil, err
		}
	}
	p.sections = cfg.Sections
	if err := p.parseText(path, src); err != nil {
		return nil, err
	}
	return p.jf, nil
}

// parseText parses one job text named path; its last section ends with it.
func (p *parser) parseText(path string, src []byte) error {
	p.path, p.inSection = path, false
	for i, raw := range splitLines(src) {
		line := i + 1
		kind, text, msg := classifyLine(raw)
		switch kind {
		case lineSection:
			if msg != "" {
				return &ParseError{File: path, Line: line, Msg: msg}
			}
			if err := p.endSection(); err != nil {
				return err
			}
			p.startSection(text, line)
		case lineOption:
			if p.skip {
				continue
			}
			if err := p.option(text, line); err != nil {
				return err
			}
		}
	}
	return p.endSection()
}

// rawOpt is one option line after expansion.
type rawOpt struct {
	name    string // as written
	spec    *optSpec
	value   string // "" for a bare flag
	bare    bool
	keyword bool // a $keyword was substituted into it
	line    int
	file    string // the included job file it came from; "" for the parser's own text
}

type parser struct {
	path string
	env  func(string) string
	kw   Keywords
	jf   *JobFile

	globals []rawOpt        // every [global] option so far: defaults for jobs below
	ignored map[string]bool // names already in jf.Ignored
	groupID int
	njobs   int // jobs so far, numjobs clones included
	nopts   int // Options entries so far, over all jobs

	including int // depth of include directives being read

	sections []string // Config.Sections
	skip     bool     // the current section is not in sections

	inSection bool
	isGlobal  bool
	secName   string
	secLine   int
	own       []rawOpt // the current job section's options
	secGlobal int      // a [global] section's first option in globals
}

func (p *parser) startSection(name string, line int) {
	p.inSection = true
	// fio compares the name case-sensitively: [Global] is a job.
	p.isGlobal = name == "global"
	p.secName, p.secLine = name, line
	p.own = nil
	p.secGlobal = len(p.globals)
	p.skip = !p.isGlobal && len(p.sections) > 0 && !slices.Contains(p.sections, name)
}

func (p *parser) endSection() error {
	if !p.inSection || p.skip {
		return nil
	}
	if p.isGlobal {
		return p.checkEngineOptions(p.globals[p.secGlobal:], lastEngine(defaultEngine, p.globals))
	}
	if err := p.checkEngineOptions(p.own, lastEngine(lastEngine(defaultEngine, p.globals), p.own)); err != nil {
		return err
	}
	// Checked before building: the job would cost as much as it lists.
	p.nopts += len(p.globals) + len(p.own)
	if p.nopts > maxOptionEntries {
		return &ParseError{File: p.path, Line: p.secLine, Msg: fmt.Sprintf("job %s: too many options: the jobs so far list %d options, each job repeating the %d [global] options above it; blkq's limit is %d", quote(p.secName), p.nopts, len(p.globals), maxOptionEntries)}
	}
	j, err := p.buildJob()
	if err != nil {
		return err
	}
	if p.path != p.jf.Path {
		j.File = p.path // a job of Config.Prelude
	}
	p.njobs += j.NumJobs
	if p.njobs > MaxJobs {
		return &ParseError{File: p.path, Line: p.secLine, Msg: fmt.Sprintf("job %s: maximum number of jobs reached: %d jobs (numjobs clones included) are more than fio's limit of %d", quote(j.Name), p.njobs, MaxJobs)}
	}
	p.jf.Jobs = append(p.jf.Jobs, j)
	return nil
}

func (p *parser) errorf(line int, opt, val, format string, args ...any) *ParseError {
	return &ParseError{File: p.path, Line: line, Option: opt, Value: val, Msg: fmt.Sprintf(format, args...)}
}

// option handles one option line: expansion, lookup, an immediate check of
// the value (so errors come in file order), and recording.
func (p *parser) option(text string, line int) error {
	text = expandEnv(text, p.env)
	if len(text) > MaxFileSize {
		return p.errorf(line, "", "", "the line expands to more than %d bytes (16 MiB), the limit of a job file", MaxFileSize)
	}
	text, kw := replaceKeywords(text, p.kw)
	name, value, bare := splitOption(text)
	if f := strings.Fields(name); len(f) > 0 && f[0] == "include" {
		return p.include(strings.TrimSpace(strings.TrimPrefix(text, "include")), line)
	}
	if !p.inSection {
		// fio: "option <...> outside of [] job section".
		if validOptionName(name) {
			return p.errorf(line, name, value, "appears before any [section]")
		}
		return p.errorf(line, "", "", "%s appears before any [section]", quote(text))
	}
	if !validOptionName(name) {
		return p.errorf(line, "", "", "malformed line %s: expected [section], name=value or a comment", quote(text))
	}
	spec, ok := lookupOption(name)
	if !ok {
		msg := "unknown option"
		if s := suggestOption(name); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return p.errorf(line, name, value, "%s", msg)
	}
	if bare && spec.bare == bareNo {
		return p.errorf(line, name, "", "needs a value (%s=...)", name)
	}
	r := rawOpt{name: name, spec: spec, value: value, bare: bare, keyword: kw, line: line}
	if p.including > 0 {
		r.file = p.path
	}
	if spec.set == nil {
		if !p.ignored[name] {
			p.ignored[name] = true
			p.jf.Ignored = append(p.jf.Ignored, Ignored{Option: name, File: p.path, Line: line})
		}
	} else {
		if !bare && value == "" {
			return p.errorf(line, name, "", "empty value")
		}
		if err := p.apply(newJob("", 0), r, 1024, false); err != nil {
			return err
		}
	}
	if p.isGlobal {
		p.globals = append(p.globals, r)
	} else {
		p.own = append(p.own, r)
	}
	return nil
}

// apply sets one modelled option on j.
func (p *parser) apply(j *Job, r rawOpt, kb int64, inherited bool) error {
	v := r.value
	if r.bare {
		v = "1"
	}
	// fio lets a substituted keyword take part in unparenthesised
	// arithmetic, as in size=8*$mb_memory.
	if r.keyword && r.spec.scalar && needsParens(v) {
		v = "(" + v + ")"
	}
	if err := r.spec.set(j, &optCtx{value: v, kb: kb, inherited: inherited, bare: r.bare}); err != nil {
		return p.errorf(r.line, r.name, r.value, "%v", err)
	}
	if j.lines == nil {
		j.lines = map[string]int{}
	}
	j.lines[r.spec.name] = r.line
	if r.file != "" {
		if j.files == nil {
			j.files = map[string]string{}
		}
		j.files[r.spec.name] = r.file
	} else {
		delete(j.files, r.spec.name)
	}
	return nil
}

// needsParens reports whether v is arithmetic without the parentheses fio
// would add around a substituted keyword.
func needsParens(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || v[0] == '(' || strings.HasSuffix(v, "%") {
		return false
	}
	return strings.ContainsAny(v[1:], "+-*/%^")
}

// buildJob applies the [global] options above the current section, then the
// section's own, to a job with fio's defaults.
func (p *parser) buildJob() (*Job, error) {
	j := newJob(p.secName, p.secLine)
	all := make([]rawOpt, 0, len(p.globals)+len(p.own))
	all = append(all, p.globals...)
	all = append(all, p.own...)

	// fio applies kb_base before other options wherever it appears.
	kb := int64(1024)
	for _, r := range all {
		if r.spec.name == "kb_base" {
			if n, err := kbBaseValue(r.value); err == nil {
				kb = n
			}
		}
	}
	j.Options = make([][2]string, 0, len(all))
	for i, r := range all {
		if r.spec.set != nil {
			if err := p.apply(j, r, kb, i < len(p.globals)); err != nil {
				return nil, err
			}
		}
		j.Options = append(j.Options, [2]string{r.spec.name, r.value})
	}
	j.NumInherited = len(p.globals)

	// atomic implies O_DIRECT (fio's fix-up, whatever direct= says).
	if j.Files.Atomic {
		j.Direct = true
	}

	// As in fio, bssplit also sets each direction's block size range.
	for d, sp := range j.BSSplit {
		if len(sp) == 0 {
			continue
		}
		r := Range{Min: sp[0].BS, Max: sp[0].BS}
		for _, s := range sp[1:] {
			r.Min, r.Max = min(r.Min, s.BS), max(r.Max, s.BS)
		}
		j.BS[d] = r
	}

	// The first job never starts a group of its own.
	if len(p.jf.Jobs) > 0 && (j.Stonewall || j.NewGroup) {
		p.groupID++
	}
	j.GroupID = p.groupID
	return j, nil
}
