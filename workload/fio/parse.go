package fio

import (
	"fmt"
	"os"
	"strings"
)

// Config is what Parse needs besides the job text.
type Config struct {
	// Env looks up ${VAR}; nil means every variable is unset ("").
	Env func(string) string
	// Keywords are substituted for $pagesize, $mb_memory and $ncpus; nil
	// means this machine's (HostKeywords). Tests set them for determinism.
	Keywords *Keywords
}

// Parse reads a fio job file as fio 3.33 does. path names the file in
// errors and in JobFile.Path; env looks up ${VAR} (nil: all unset). The
// error, if any, is a *ParseError naming file and line.
func Parse(path string, src []byte, env func(string) string) (*JobFile, error) {
	return ParseConfig(path, src, Config{Env: env})
}

// ParseFile reads and parses the job file at path, expanding ${VAR} from
// the process environment.
func ParseFile(path string) (*JobFile, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src, os.Getenv)
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
	for i, raw := range splitLines(src) {
		line := i + 1
		kind, text, msg := classifyLine(raw)
		switch kind {
		case lineSection:
			if msg != "" {
				return nil, &ParseError{File: path, Line: line, Msg: msg}
			}
			if err := p.endSection(); err != nil {
				return nil, err
			}
			p.startSection(text, line)
		case lineOption:
			if err := p.option(text, line); err != nil {
				return nil, err
			}
		}
	}
	if err := p.endSection(); err != nil {
		return nil, err
	}
	return p.jf, nil
}

// rawOpt is one option line after expansion.
type rawOpt struct {
	name    string // as written
	spec    *optSpec
	value   string // "" for a bare flag
	bare    bool
	keyword bool // a $keyword was substituted into it
	line    int
}

type parser struct {
	path string
	env  func(string) string
	kw   Keywords
	jf   *JobFile

	globals []rawOpt        // every [global] option so far: defaults for jobs below
	ignored map[string]bool // names already in jf.Ignored
	groupID int

	inSection bool
	isGlobal  bool
	secName   string
	secLine   int
	own       []rawOpt // the current job section's options
}

func (p *parser) startSection(name string, line int) {
	p.inSection = true
	// fio compares the name case-sensitively: [Global] is a job.
	p.isGlobal = name == "global"
	p.secName, p.secLine = name, line
	p.own = nil
}

func (p *parser) endSection() error {
	if !p.inSection || p.isGlobal {
		return nil
	}
	j, err := p.buildJob()
	if err != nil {
		return err
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
	text, kw := replaceKeywords(text, p.kw)
	name, value, bare := splitOption(text)
	if f := strings.Fields(name); len(f) > 0 && f[0] == "include" {
		return p.errorf(line, "", "", "include directives are not supported")
	}
	if !p.inSection {
		// fio: "option <...> outside of [] job section".
		if validOptionName(name) {
			return p.errorf(line, name, value, "appears before any [section]")
		}
		return p.errorf(line, "", "", "%q appears before any [section]", text)
	}
	if !validOptionName(name) {
		return p.errorf(line, "", "", "malformed line %q: expected [section], name=value or a comment", text)
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
	if err := r.spec.set(j, &optCtx{value: v, kb: kb, inherited: inherited}); err != nil {
		return p.errorf(r.line, r.name, r.value, "%v", err)
	}
	if j.lines == nil {
		j.lines = map[string]int{}
	}
	j.lines[r.spec.name] = r.line
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
