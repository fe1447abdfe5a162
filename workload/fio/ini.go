package fio

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Lexical layer of a job file: lines, comments, section headers,
// ${VAR} expansion and fio's $keywords. Nothing here knows about options.

type lineKind int

const (
	lineBlank   lineKind = iota // empty or comment
	lineSection                 // [name]
	lineOption                  // name[=value]
)

// splitLines splits src at '\n', dropping a '\r' before it and a leading
// UTF-8 byte order mark. A last line without a newline still counts.
func splitLines(src []byte) []string {
	s := strings.TrimPrefix(string(src), "\ufeff")
	lines := strings.Split(s, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// classifyLine says what a raw line is. For a section it returns the name
// between the brackets (kept as written, blanks included, as fio does); for
// an option the text with any trailing comment removed. msg is non-empty for
// a malformed section header.
func classifyLine(raw string) (kind lineKind, text, msg string) {
	s := strings.TrimSpace(raw)
	if s == "" || s[0] == ';' || s[0] == '#' {
		return lineBlank, "", ""
	}
	// fio cuts a line at the first ';' or '#', so "numjobs=4 ; four" is 4.
	s = strings.TrimSpace(stripComment(s))
	if s[0] != '[' {
		return lineOption, s, ""
	}
	end := strings.IndexByte(s, ']')
	switch {
	case end < 0:
		return lineSection, "", "unterminated section header " + quote(s)
	case end != len(s)-1:
		return lineSection, "", "text after section header " + quote(s)
	}
	name := s[1:end]
	if strings.TrimSpace(name) == "" {
		return lineSection, "", "empty section name"
	}
	if strings.ContainsRune(name, '[') {
		return lineSection, "", "bad section name " + quote(name)
	}
	return lineSection, name, ""
}

// stripComment drops everything from the first ';' or '#'.
func stripComment(s string) string {
	if i := strings.IndexAny(s, ";#"); i >= 0 {
		return s[:i]
	}
	return s
}

// splitOption splits "name=value" at the first '='. A line without '=' is
// a bare flag.
func splitOption(s string) (name, value string, bare bool) {
	name, value, found := strings.Cut(s, "=")
	return strings.TrimSpace(name), strings.TrimSpace(value), !found
}

// validOptionName reports whether s can be an option name at all; anything
// else on a line is garbage rather than an unknown option.
func validOptionName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// expandEnv replaces each ${NAME} with env(NAME); an unset variable (or a nil
// env) gives "". An unterminated "${" is left as written. Expanded text is
// not rescanned, so a variable cannot expand itself forever.
func expandEnv(s string, env func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+2:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		if env != nil {
			b.WriteString(env(s[i+2 : i+2+j]))
		}
		s = s[i+2+j+1:]
		if b.Len() > MaxFileSize {
			// A long value repeated ${X} times: stop before it costs
			// all of memory; the caller reports the line.
			return b.String()[:MaxFileSize+1]
		}
	}
	b.WriteString(s)
	return b.String()
}

// Keywords are the values fio substitutes for $pagesize, $mb_memory and
// $ncpus in option values.
type Keywords struct {
	PageSize int64 // bytes
	MBMemory int64 // total memory in MiB
	NCPUs    int64 // online CPUs
}

var (
	hostOnce sync.Once
	hostKW   Keywords
)

// HostKeywords returns this machine's page size, memory in MiB and CPU
// count, as fio would substitute them.
func HostKeywords() Keywords {
	hostOnce.Do(func() {
		hostKW = Keywords{
			PageSize: int64(os.Getpagesize()),
			MBMemory: memTotalMiB(),
			NCPUs:    int64(runtime.NumCPU()),
		}
	})
	return hostKW
}

// memTotalMiB reads MemTotal from /proc/meminfo; 0 where there is none.
func memTotalMiB() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb / 1024
		}
	}
	return 0
}

// replaceKeywords substitutes fio's $keywords; replaced says whether any
// was found (fio then allows bare arithmetic such as 8*$mb_memory).
func replaceKeywords(s string, kw Keywords) (out string, replaced bool) {
	if !strings.Contains(s, "$") {
		return s, false
	}
	out = strings.NewReplacer(
		"$pagesize", strconv.FormatInt(kw.PageSize, 10),
		"$mb_memory", strconv.FormatInt(kw.MBMemory, 10),
		"$ncpus", strconv.FormatInt(kw.NCPUs, 10),
	).Replace(s)
	return out, out != s
}
