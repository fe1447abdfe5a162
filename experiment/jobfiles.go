package experiment

import (
	"fmt"
	"strings"
)

// JobFile is one distinct fio job file an experiment runs, with the
// configurations that run it.
type JobFile struct {
	Source  string
	Configs []Config
}

// JobFiles returns the distinct job files e runs at scale, each once, in
// the order of the first configuration that runs it.
func (e *Experiment) JobFiles(scale float64) []JobFile {
	var out []JobFile
	index := map[string]int{}
	for _, c := range e.Configs {
		src := e.Jobs(scale)
		if c.Jobs != nil {
			src = c.Jobs(scale)
		}
		i, ok := index[src]
		if !ok {
			i = len(out)
			index[src] = i
			out = append(out, JobFile{Source: src})
		}
		out[i].Configs = append(out[i].Configs, c)
	}
	return out
}

// Describe names the queue and run settings c sets, as NAME=VALUE words
// ("alloc=legacy nr_requests=1024"), or "defaults" when it sets none.
func (c Config) Describe() string {
	o := c.Options
	var parts []string
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s=%v", k, v)) }
	if o.Scheduler != "" {
		add("scheduler", o.Scheduler)
	}
	if o.Alloc != "" {
		add("alloc", o.Alloc)
	}
	if o.NrRequests != 0 {
		add("nr_requests", o.NrRequests)
	}
	if o.BatchRequests != 0 {
		add("batch_requests", o.BatchRequests)
	}
	if o.NoMerges != 0 {
		add("nomerges", o.NoMerges)
	}
	for _, a := range o.Attrs {
		add(a[0], a[1])
	}
	if o.CachePages != 0 {
		add("page_cache_pages", o.CachePages)
	}
	if o.WakeJitter != 0 {
		add("wake_jitter", o.WakeJitter)
	}
	if c := o.CPU.String(); c != "" {
		parts = append(parts, c) // the CPU model's settings, blkq run --cpus N --cpu NAME=VALUE
	}
	if len(parts) == 0 {
		return "defaults"
	}
	return strings.Join(parts, " ")
}
