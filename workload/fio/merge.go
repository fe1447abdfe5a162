package fio

import "strings"

// Merge joins job files given together on one command line into one run,
// as fio does: the jobs of each file follow those of the previous one, and
// each file's reporting groups are numbered after the previous file's.
// Ignored-option notes are kept, each once per option name.
func Merge(files ...*JobFile) *JobFile {
	out := &JobFile{}
	var paths []string
	seen := map[string]bool{}
	base := 0
	for _, f := range files {
		paths = append(paths, f.Path)
		next := base
		for _, j := range f.Jobs {
			c := *j
			if c.File == "" {
				c.File = f.Path // warnings name the file the job came from
			}
			c.GroupID += base
			next = max(next, c.GroupID+1)
			out.Jobs = append(out.Jobs, &c)
		}
		base = next
		for _, ig := range f.Ignored {
			if !seen[ig.Option] {
				seen[ig.Option] = true
				out.Ignored = append(out.Ignored, ig)
			}
		}
	}
	out.Path = strings.Join(paths, " ")
	return out
}
