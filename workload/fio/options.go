package fio

import (
	"math"
	"strings"
	"time"
)

// The option table: which names blkq models (with a setter into Job), their
// aliases, and which of them fio accepts as bare flags. Names fio knows but
// blkq does not model are listed in knownopts.go.

// optCtx is one option occurrence being applied to a job.
type optCtx struct {
	value     string // after expansion; "1" for a bare flag
	kb        int64  // the job's kb_base
	inherited bool   // from a [global] section
	bare      bool   // written without "=value"
}

// bareRule says whether an option may appear without "=value".
type bareRule int

const (
	bareNo  bareRule = iota // fio: "Option X requires an argument"
	bareYes                 // a flag: bare means 1
	bareAny                 // not checked (engine options of engines Debian's fio lacks)
)

type optSpec struct {
	name   string // canonical name
	bare   bareRule
	scalar bool                          // a single number: keyword arithmetic may be unparenthesised
	set    func(j *Job, c *optCtx) error // nil: known to fio, not modelled
}

// modelled lists the options blkq parses into Job, with their aliases.
var modelled = []struct {
	spec    optSpec
	aliases []string
}{
	{optSpec{name: "name", set: setName}, nil},
	{optSpec{name: "filename", set: func(j *Job, c *optCtx) error {
		j.Filenames = parseFilenames(c.value)
		if len(j.Filenames) == 0 {
			return badValue("bad filename", c.value, "no file names")
		}
		return nil
	}}, nil},
	{optSpec{name: "directory", set: func(j *Job, c *optCtx) error { j.Directory = c.value; return nil }}, nil},
	{optSpec{name: "filename_format", set: func(j *Job, c *optCtx) error { j.FilenameFormat = c.value; return nil }}, nil},
	{optSpec{name: "nrfiles", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.NrFiles, c, 1, math.MaxInt32)
	}}, []string{"nr_files"}},
	{optSpec{name: "size", scalar: true, set: func(j *Job, c *optCtx) error {
		n, pct, err := parseSizeOrPercent(c.value, c.kb)
		j.Size, j.SizePercent = n, pct
		return err
	}}, nil},
	{optSpec{name: "filesize", set: func(j *Job, c *optCtx) error {
		r, err := parseSizeRange(c.value, c.kb)
		j.FileSize = [2]int64{r.Min, r.Max}
		return err
	}}, nil},
	{optSpec{name: "io_size", scalar: true, set: func(j *Job, c *optCtx) error {
		n, pct, err := parseSizeOrPercent(c.value, c.kb)
		j.IOSize, j.IOSizePercent = n, pct
		return err
	}}, []string{"io_limit"}},
	{optSpec{name: "offset", scalar: true, set: func(j *Job, c *optCtx) error {
		n, pct, err := parseSizeOrPercent(c.value, c.kb)
		j.Offset, j.OffsetPercent = n, pct
		return err
	}}, []string{"fileoffset"}},
	{optSpec{name: "offset_increment", scalar: true, set: func(j *Job, c *optCtx) error {
		n, pct, err := parseSizeOrPercent(c.value, c.kb)
		j.OffsetIncrement, j.OffsetIncrementPercent = n, pct
		return err
	}}, nil},
	{optSpec{name: "rw", set: setRW}, []string{"readwrite"}},
	{optSpec{name: "rwmixread", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.RWMixRead, c, 0, 100)
	}}, nil},
	{optSpec{name: "rwmixwrite", scalar: true, set: func(j *Job, c *optCtx) error {
		var w int
		if err := setInt(&w, c, 0, 100); err != nil {
			return err
		}
		j.RWMixRead = 100 - w // complements: the later of the two wins
		return nil
	}}, nil},
	{optSpec{name: "bs", set: setBS}, []string{"blocksize"}},
	{optSpec{name: "bsrange", set: setBSRange}, []string{"blocksize_range"}},
	{optSpec{name: "bssplit", set: setBSSplit}, nil},
	{optSpec{name: "numjobs", scalar: true, set: func(j *Job, c *optCtx) error {
		// fio takes 0 at parse time but then fails to set up the job; more
		// clones than MaxJobs fail there too.
		return setInt(&j.NumJobs, c, 1, MaxJobs)
	}}, nil},
	{optSpec{name: "nice", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Nice, c, -20, 19) // fio 3.33's bounds
	}}, nil},
	{optSpec{name: "iodepth", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.IODepth, c, 1, math.MaxInt32)
	}}, nil},
	{optSpec{name: "iodepth_low", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.IODepthLow, c, 0, math.MaxInt32)
	}}, nil},
	{optSpec{name: "ioengine", set: func(j *Job, c *optCtx) error {
		if strings.ContainsAny(c.value, " \t") {
			return badValue("bad engine", c.value, "blanks in engine name")
		}
		j.IOEngine = c.value
		return nil
	}}, nil},
	{optSpec{name: "direct", set: func(j *Job, c *optCtx) error { return setBool(&j.Direct, c) }}, nil},
	{optSpec{name: "buffered", set: func(j *Job, c *optCtx) error {
		var b bool
		err := setBool(&b, c)
		j.Direct = !b
		return err
	}}, nil},
	{optSpec{name: "runtime", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.Runtime, c, time.Second)
	}}, []string{"timeout"}},
	{optSpec{name: "time_based", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.TimeBased, c) }}, nil},
	{optSpec{name: "ramp_time", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.RampTime, c, time.Second)
	}}, nil},
	{optSpec{name: "loops", scalar: true, set: func(j *Job, c *optCtx) error {
		// fio's loops is an unsigned 32-bit count.
		if err := setInt(&j.Loops, c, 0, math.MaxUint32); err != nil {
			return err
		}
		if j.Loops == 0 {
			j.Loops = 1 // fio runs loops=0 once
		}
		return nil
	}}, nil},
	{optSpec{name: "startdelay", set: func(j *Job, c *optCtx) error {
		r, err := parseDurationRange(c.value, time.Second)
		j.StartDelay = r
		return err
	}}, nil},
	{optSpec{name: "stonewall", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.Stonewall, c) }}, []string{"wait_for_previous"}},
	{optSpec{name: "new_group", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.NewGroup, c) }}, nil},
	{optSpec{name: "wait_for", set: func(j *Job, c *optCtx) error { j.WaitFor = c.value; return nil }}, nil},
	{optSpec{name: "group_reporting", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.GroupReporting, c) }}, nil},
	{optSpec{name: "norandommap", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.NoRandomMap, c) }}, nil},
	{optSpec{name: "randrepeat", set: func(j *Job, c *optCtx) error { return setBool(&j.RandRepeat, c) }}, nil},
	{optSpec{name: "randseed", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseUint64(c.value, c.kb)
		j.RandSeed, j.RandSeedSet = n, err == nil
		return err
	}}, nil},
	{optSpec{name: "thinktime", scalar: true, set: func(j *Job, c *optCtx) error {
		return setDuration(&j.ThinkTime, c, time.Microsecond)
	}}, nil},
	{optSpec{name: "thinktime_blocks", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.ThinkTimeBlocks, c, 0, math.MaxInt32)
	}}, nil},
	{optSpec{name: "rate", set: func(j *Job, c *optCtx) error { return setPerDir(&j.Rate, c) }}, nil},
	{optSpec{name: "rate_min", set: func(j *Job, c *optCtx) error { return setPerDir(&j.RateMin, c) }}, []string{"ratemin"}},
	{optSpec{name: "rate_iops", set: func(j *Job, c *optCtx) error { return setPerDir(&j.RateIOPS, c) }}, nil},
	{optSpec{name: "rate_iops_min", set: func(j *Job, c *optCtx) error { return setPerDir(&j.RateIOPSMin, c) }}, nil},
	{optSpec{name: "rate_cycle", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseInt(c.value, c.kb, 1, math.MaxInt32)
		j.RateCycle = time.Duration(n) * time.Millisecond
		return err
	}}, []string{"ratecycle"}},
	{optSpec{name: "rate_ignore_thinktime", set: func(j *Job, c *optCtx) error { return setBool(&j.RateIgnoreThinktime, c) }}, nil},
	{optSpec{name: "number_ios", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseInt(c.value, c.kb, 0, math.MaxInt64)
		j.NumberIOs = n
		return err
	}}, nil},
	{optSpec{name: "exitall", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.ExitAll, c) }}, nil},
	{optSpec{name: "exit_what", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.ExitWhat, c, "group", "stonewall", "all")
	}}, nil},
	{optSpec{name: "zonemode", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.ZoneMode, c, "none", "strided", "zbd")
	}}, nil},
	{optSpec{name: "zonesize", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseSize(c.value, c.kb)
		j.ZoneSize = n
		return err
	}}, nil},
	{optSpec{name: "zoneskip", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseSize(c.value, c.kb)
		j.ZoneSkip = n
		return err
	}}, nil},
	{optSpec{name: "fsync", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Fsync, c, 0, math.MaxInt32)
	}}, nil},
	{optSpec{name: "fdatasync", scalar: true, set: func(j *Job, c *optCtx) error {
		return setInt(&j.Fdatasync, c, 0, math.MaxInt32)
	}}, nil},
	{optSpec{name: "end_fsync", set: func(j *Job, c *optCtx) error { return setBool(&j.EndFsync, c) }}, nil},
	{optSpec{name: "verify", set: func(j *Job, c *optCtx) error {
		return setChoice(&j.Verify, c, verifyMethods...)
	}}, nil},
	{optSpec{name: "kb_base", set: func(j *Job, c *optCtx) error {
		n, err := kbBaseValue(c.value)
		j.KBBase = int(n)
		return err
	}}, nil},
	{optSpec{name: "uri", set: func(j *Job, c *optCtx) error { j.URI = c.value; return nil }}, nil},
	{optSpec{name: "thread", bare: bareYes, set: func(j *Job, c *optCtx) error { return setBool(&j.Thread, c) }}, nil},
	{optSpec{name: "flow", scalar: true, set: setFlow}, nil},
	{optSpec{name: "flow_id", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseInt(c.value, c.kb, math.MinInt64, math.MaxInt64)
		j.FlowID = int32(n) // fio's int
		return err
	}}, nil},
	{optSpec{name: "flow_sleep", scalar: true, set: func(j *Job, c *optCtx) error {
		n, err := parseInt(c.value, c.kb, math.MinInt64, math.MaxInt64)
		j.FlowSleep = time.Duration(uint32(n)) * time.Microsecond // fio's unsigned int
		return err
	}}, nil},
}

// flowMaxWeight is the largest flow= fio 3.33 takes (its FLOW_MAX_WEIGHT).
const flowMaxWeight = 1000

// setFlow parses flow= as fio 3.33 does: a C int, checked against
// flowMaxWeight only when it is not negative; of "-N" fio's parser checks
// N as well (it reads the '-' as a range), so -1000..1000 pass. The value
// is stored unsigned, as fio stores it.
func setFlow(j *Job, c *optCtx) error {
	n, err := parseInt(c.value, c.kb, math.MinInt64, math.MaxInt64)
	if err != nil {
		return err
	}
	tooLarge := func(v int64) bool { return int32(v) > flowMaxWeight }
	checked := n
	if n < 0 && !tooLarge(n) {
		checked = -n
	}
	if tooLarge(checked) {
		return badValue("bad number", c.value, "max value out of range: %d (%d max)", checked, flowMaxWeight)
	}
	j.Flow = uint32(n)
	return nil
}

// verifyMethods are the values fio 3.33 accepts for verify=.
var verifyMethods = []string{
	"0", "md5", "crc64", "crc32", "crc32c-intel", "crc32c", "crc16", "crc7",
	"sha1", "sha256", "sha512", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
	"xxhash", "meta", "pattern", "null",
}

// kbBaseValue parses kb_base=, which only takes 1024 or 1000.
func kbBaseValue(s string) (int64, error) {
	switch strings.TrimSpace(s) {
	case "1024":
		return 1024, nil
	case "1000":
		return 1000, nil
	}
	return 0, badValue("bad kb_base", s, "must be 1024 or 1000")
}

func setName(j *Job, c *optCtx) error {
	if c.value == "" {
		return badValue("bad name", c.value, "empty")
	}
	// fio names a job after its section; only the job's own name= renames
	// it, a name= in [global] does not.
	if !c.inherited {
		j.Name = c.value
	}
	return nil
}

func setInt(dst *int, c *optCtx, lo, hi int64) error {
	n, err := parseInt(c.value, c.kb, lo, hi)
	if err == nil {
		*dst = int(n)
	}
	return err
}

func setBool(dst *bool, c *optCtx) error {
	b, err := parseBool(c.value)
	if err == nil {
		*dst = b
	}
	return err
}

func setDuration(dst *time.Duration, c *optCtx, def time.Duration) error {
	d, err := parseDuration(c.value, def)
	if err == nil {
		*dst = d
	}
	return err
}

func setChoice(dst *string, c *optCtx, choices ...string) error {
	for _, ch := range choices {
		if c.value == ch {
			*dst = ch
			return nil
		}
	}
	return badValue("bad value", c.value, "want one of %s", strings.Join(choices, ", "))
}

// setRW parses "pattern[:N]".
func setRW(j *Job, c *optCtx) error {
	name, mod, hasMod := strings.Cut(c.value, ":")
	rw, ok := parseRWName(strings.TrimSpace(name))
	if !ok {
		return badValue("bad rw", c.value, "want one of read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw, trimwrite, randtrimwrite")
	}
	var n int64
	if hasMod {
		var err error
		if rw.Random() {
			// I/Os per new random offset: a count, not bytes.
			n, err = parseInt(mod, c.kb, 0, math.MaxInt64)
		} else {
			// Bytes skipped after each I/O; negative goes backwards.
			n, err = parseSignedSize(mod, c.kb)
		}
		if err != nil {
			return badValue("bad rw", c.value, "modifier: %v", err)
		}
	}
	j.RW, j.RWModifier = rw, n
	return nil
}

// eachDir calls set for each direction a per-direction value ("8k,32k")
// gives, with that direction's part.
func eachDir(c *optCtx, set func(d int, part string) error) error {
	parts, given, err := dirParts(c.value)
	if err != nil {
		return err
	}
	for d := range parts {
		if given[d] {
			if err := set(d, parts[d]); err != nil {
				return err
			}
		}
	}
	return nil
}

// setBS sets bs=, one size per direction. As in fio, a range there is
// its first size (bs=4k-8k is 4k: fio reads the number and its unit and
// ignores the rest; bsrange= takes a range).
func setBS(j *Job, c *optCtx) error {
	return eachDir(c, func(d int, part string) error {
		n, err := parseSize(part, c.kb)
		if err != nil {
			return err
		}
		if n == 0 {
			return badValue("bad size", part, "block size must be at least 1")
		}
		if err := fractionCut(part, n); err != nil {
			return err
		}
		j.BS[d] = Range{Min: n, Max: n}
		return nil
	})
}

// fractionCut refuses a block size whose text has a fraction that fio
// cuts to a size blkq cannot issue (bs=1.5k is one byte to fio, which
// reads a number up to its '.'), saying so; blkq's I/Os are whole
// 512-byte sectors.
func fractionCut(part string, n ...int64) error {
	if !strings.Contains(part, ".") {
		return nil
	}
	for _, x := range n {
		if x%512 != 0 {
			unit := "bytes"
			if x == 1 {
				unit = "byte"
			}
			return badValue("bad size", part, "fio reads it as %d %s (a number ends at its '.'), and blkq's I/Os are whole 512-byte sectors", x, unit)
		}
	}
	return nil
}

func setBSRange(j *Job, c *optCtx) error {
	return eachDir(c, func(d int, part string) error {
		r, err := parseSizeRange(part, c.kb)
		if err != nil {
			return err
		}
		if err := fractionCut(part, r.Min, r.Max); err != nil {
			return err
		}
		if r.Min == 0 {
			return badValue("bad size", part, "block size must be at least 1")
		}
		j.BS[d] = r
		return nil
	})
}

func setBSSplit(j *Job, c *optCtx) error {
	return eachDir(c, func(d int, part string) error {
		sp, err := parseBSSplit(part, c.kb)
		if err != nil {
			return err
		}
		for _, x := range sp {
			if err := fractionCut(part, x.BS); err != nil {
				return err
			}
		}
		j.BSSplit[d] = sp
		return nil
	})
}

func setPerDir(dst *[3]int64, c *optCtx) error {
	return eachDir(c, func(d int, part string) error {
		n, err := parseSize(part, c.kb)
		if err != nil {
			return err
		}
		dst[d] = n
		return nil
	})
}

// optionTable maps every name fio 3.33 accepts (canonical names and
// aliases) to its spec.
var optionTable = buildOptionTable()

func buildOptionTable() map[string]*optSpec {
	t := make(map[string]*optSpec, 512)
	for _, table := range [][]struct {
		spec    optSpec
		aliases []string
	}{modelled, distributionOptions, statModelled, fileOptions, queueModelled} {
		for i := range table {
			s := &table[i].spec
			t[s.name] = s
			for _, a := range table[i].aliases {
				t[a] = s
			}
		}
	}
	for _, table := range [][]optSpec{verifyOptions, bufferOptions} {
		for i := range table {
			t[table[i].name] = &table[i]
		}
	}
	add := func(names []string, bare bareRule) {
		for _, n := range names {
			if _, dup := t[n]; dup {
				continue // modelled, or listed twice on purpose (aliases)
			}
			t[n] = &optSpec{name: n, bare: bare}
		}
	}
	add(knownBareFlags, bareYes)
	add(knownOptions, bareNo)
	add(knownEngineFlags, bareYes)
	add(knownEngineOptions, bareNo)
	add(knownUncheckedEngineOptions, bareAny)
	return t
}

// lookupOption finds the spec for a name as written (exact, case-sensitive,
// as fio matches).
func lookupOption(name string) (*optSpec, bool) {
	s, ok := optionTable[name]
	return s, ok
}

// suggestOption returns the known option closest to an unknown name, for a
// "did you mean" hint, or "". Ties go to the alphabetically first name so the
// hint is stable.
func suggestOption(name string) string {
	const limit = 3
	best, bestD := "", limit
	lname := strings.ToLower(name)
	for n := range optionTable {
		if n == lname {
			return n // wrong case: fio's names are lower case
		}
		d := editDistance(lname, n, limit)
		if d < bestD || d == bestD && d < limit && n < best {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance, giving up (returning limit) once
// it must exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
