package fio

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// More options that change which I/O a job issues, and how, as fio 3.33
// parses them: percentage_random, rw_sequencer, bs_is_seq_rand,
// bs_unaligned, file_service_type, openfiles, ioscheduler, sync, atomic,
// fsync_on_close, unlink, unlink_each_loop, create_only, pre_read,
// exitall_on_error, max_latency and zonerange. The engine gives them
// their meaning (engine/gen.go, engine/fileservice.go, engine/close.go,
// ...); here they are values.

// FileService is file_service_type=: how a job with several files picks
// the file of its next I/O.
type FileService struct {
	// Kind is "roundrobin" (fio's default), "sequential" (all of one file
	// before the next), "random" (uniform), "zipf", "pareto" or "normal"
	// ("gauss" is stored as "normal").
	Kind string
	// N is the ":N" of roundrobin, sequential and random: how many I/Os
	// go to a file before the next is picked (fio default 1; 0 keeps the
	// file until its pass ends, as fio's unsigned count does).
	N int
	// Param is zipf's θ, pareto's h or normal's deviation, with fio's
	// defaults (1.1, 0.2 and 0) when not given; Center is where the hot
	// spot sits as a fraction of the files, -1 when not given.
	Param, Center float64
}

// fio 3.33's default parameters of the skewed file service types
// (FIO_DEF_ZIPF, FIO_DEF_PARETO; normal's deviation defaults to 0).
const (
	defZipfTheta = 1.1
	defParetoH   = 0.2
)

// Nonuniform reports whether files are drawn from zipf, pareto or normal:
// fio then never retires a file whose pass ends, it starts it again.
func (fs FileService) Nonuniform() bool {
	return fs.Kind == "zipf" || fs.Kind == "pareto" || fs.Kind == "normal"
}

// parseFileService parses "roundrobin[:N]", "sequential[:N]",
// "random[:N]", "zipf[:θ[:center]]", "pareto[:h[:center]]" and
// "normal|gauss[:σ[:center]]", with fio's bounds.
func parseFileService(s string) (FileService, error) {
	kind, rest, hasRest := strings.Cut(strings.TrimSpace(s), ":")
	fs := FileService{Kind: kind, N: 1, Center: -1}
	switch kind {
	case "roundrobin", "sequential", "random":
		if hasRest {
			n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 32)
			if err != nil {
				return fs, badValue("bad file_service_type", s, "%s:N takes a count of I/Os per file", kind)
			}
			fs.N = int(n)
		}
		return fs, nil
	case "zipf", "pareto", "normal", "gauss":
	default:
		return fs, badValue("bad file_service_type", s, "want roundrobin, sequential, random, zipf, pareto, normal or gauss")
	}
	fs.Param = map[string]float64{"zipf": defZipfTheta, "pareto": defParetoH}[kind]
	if kind == "gauss" {
		fs.Kind = "normal"
	}
	if hasRest {
		ps, cs, hasCenter := strings.Cut(rest, ":")
		p, err := strconv.ParseFloat(strings.TrimSpace(ps), 64)
		if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
			return fs, badValue("bad file_service_type", s, "%s needs a number after the colon (fio: postfix parsing failed)", kind)
		}
		fs.Param = p
		if hasCenter {
			c, err := strconv.ParseFloat(strings.TrimSpace(cs), 64)
			if err != nil || !(c >= 0 && c <= 1) {
				return fs, badValue("bad file_service_type", s, "the center must be between 0 and 1")
			}
			fs.Center = c
		}
	}
	switch p := fs.Param; fs.Kind {
	case "zipf":
		if p == 1 {
			return fs, badValue("bad file_service_type", s, "zipf's θ must be different from 1 (fio)")
		}
	case "pareto":
		if p <= 0 || p >= 1 {
			return fs, badValue("bad file_service_type", s, "pareto's h must be above 0 and below 1 (fio)")
		}
	case "normal":
		if p < 0 || p >= 100 {
			return fs, badValue("bad file_service_type", s, "normal's deviation must be at least 0 and below 100 (fio)")
		}
	}
	return fs, nil
}

// TrimVerify are the options of fio's verify trims: of the blocks a
// verifying job writes, trim_percentage percent are trimmed, in batches
// of trim_backlog_batch once every trim_backlog blocks are written, and
// their verify reads expect zeros when trim_verify_zero is set.
type TrimVerify struct {
	// Percentage is trim_percentage= (0..100, fio default 0).
	Percentage int
	// VerifyZero is trim_verify_zero= (fio default 1).
	VerifyZero bool
	// Backlog is trim_backlog=: a batch is trimmed each time the job's
	// verify history has grown by this many blocks (0: never, fio's
	// default; the chosen blocks are then never trimmed).
	Backlog int64
	// BacklogBatch is trim_backlog_batch=: the trims of a batch (0: as
	// many as Backlog).
	BacklogBatch int
}

// model gives the known option name its setter, and its aliases the same
// spec.
func model(name string, set func(*Job, *optCtx) error, aliases ...string) {
	s, ok := optionTable[name]
	if !ok || s.set != nil {
		panic("fio: modelled option " + name + " is not a known, unmodelled option")
	}
	s.set = set
	for _, a := range aliases {
		optionTable[a] = s
	}
}

func init() {
	model("percentage_random", func(j *Job, c *optCtx) error {
		return eachDir(c, func(d int, part string) error {
			n, err := parseInt(part, c.kb, 0, 100)
			j.PercentageRandom[d] = int(n)
			return err
		})
	})
	model("ba", func(j *Job, c *optCtx) error {
		return eachDir(c, func(d int, part string) error {
			n, err := parseSize(part, c.kb)
			if err == nil && n == 0 {
				err = badValue("bad size", part, "the alignment must be at least 1")
			}
			j.BlockAlign[d] = n
			return err
		})
	}, "blockalign")
	model("rw_sequencer", func(j *Job, c *optCtx) error {
		return setChoice(&j.RWSequencer, c, "sequential", "identical")
	})
	model("bs_is_seq_rand", func(j *Job, c *optCtx) error { return setBool(&j.BSIsSeqRand, c) })
	model("bs_unaligned", func(j *Job, c *optCtx) error { return setBool(&j.BSUnaligned, c) }, "blocksize_unaligned")
	model("file_service_type", func(j *Job, c *optCtx) error {
		fs, err := parseFileService(c.value)
		if err == nil {
			j.Files.Service = fs
		}
		return err
	})
	model("openfiles", func(j *Job, c *optCtx) error { return setInt(&j.Files.OpenFiles, c, 0, math.MaxInt32) })
	model("ioscheduler", func(j *Job, c *optCtx) error {
		v := strings.TrimSpace(c.value)
		if v == "" || strings.ContainsAny(v, " \t") {
			return badValue("bad ioscheduler", c.value, "want one scheduler name")
		}
		j.IOScheduler = v
		return nil
	})
	model("sync", func(j *Job, c *optCtx) error {
		var v string
		if err := setChoice(&v, c, "none", "0", "sync", "1", "dsync"); err != nil {
			return err
		}
		j.Files.Sync = map[string]string{"none": "", "0": "", "sync": "sync", "1": "sync", "dsync": "dsync"}[v]
		return nil
	})
	model("atomic", func(j *Job, c *optCtx) error { return setBool(&j.Files.Atomic, c) })
	model("fsync_on_close", func(j *Job, c *optCtx) error { return setBool(&j.Files.FsyncOnClose, c) })
	model("unlink", func(j *Job, c *optCtx) error { return setBool(&j.Files.Unlink, c) })
	model("unlink_each_loop", func(j *Job, c *optCtx) error { return setBool(&j.Files.UnlinkEachLoop, c) })
	model("create_only", func(j *Job, c *optCtx) error { return setBool(&j.Files.CreateOnly, c) })
	model("pre_read", func(j *Job, c *optCtx) error { return setBool(&j.Files.PreRead, c) })
	model("exitall_on_error", func(j *Job, c *optCtx) error { return setBool(&j.ExitAllOnError, c) })
	model("max_latency", func(j *Job, c *optCtx) error {
		return eachDir(c, func(d int, part string) error {
			v, err := parseDuration(part, time.Microsecond)
			j.Queue.MaxLatency[d] = v
			return err
		})
	})
	model("trim_percentage", func(j *Job, c *optCtx) error { return setInt(&j.Trim.Percentage, c, 0, 100) })
	model("trim_verify_zero", func(j *Job, c *optCtx) error { return setBool(&j.Trim.VerifyZero, c) })
	model("trim_backlog", func(j *Job, c *optCtx) error {
		n, err := parseSize(c.value, c.kb)
		j.Trim.Backlog = n
		return err
	})
	model("trim_backlog_batch", func(j *Job, c *optCtx) error { return setInt(&j.Trim.BacklogBatch, c, 0, math.MaxInt32) })
	model("zonerange", func(j *Job, c *optCtx) error {
		n, err := parseSize(c.value, c.kb)
		j.ZoneRange = n
		return err
	})
}
