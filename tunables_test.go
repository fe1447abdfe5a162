package blkq

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated tunables table in docs/linux-block-layer.md")

const (
	tunablesDoc   = "docs/linux-block-layer.md"
	tunablesBegin = "<!-- tunables: generated from the tunable tables (tunables_test.go; go test -run TestTunablesDocumented -update . rewrites it) -->\n"
	tunablesEnd   = "<!-- end of tunables -->\n"
)

// documentedTunable is a table entry as the docs list it: its path
// under /sys/block/<dev>/queue/ and, for a scheduler's, which one.
type documentedTunable struct {
	path, scheduler string
	tunableInfo
}

func allTunables() []documentedTunable {
	var all []documentedTunable
	for _, t := range queueTunables {
		all = append(all, documentedTunable{t.name, "", t.tunableInfo})
	}
	for _, t := range mqDeadlineTunables {
		all = append(all, documentedTunable{"iosched/" + t.name, "mq-deadline", t.tunableInfo})
	}
	for _, t := range deadlineTunables {
		all = append(all, documentedTunable{"iosched/" + t.name, deadlineNoprioName, t.tunableInfo})
	}
	for _, t := range linusTunables {
		all = append(all, documentedTunable{"iosched/" + t.name, linusName, t.tunableInfo})
	}
	return all
}

func bound(n int64) string {
	switch n {
	case math.MaxInt32:
		return "2147483647"
	case math.MinInt32:
		return "-2147483648"
	}
	return fmt.Sprint(n)
}

// tunablesTable renders every tunable as a markdown table.
func tunablesTable() string {
	var b strings.Builder
	b.WriteString(tunablesBegin)
	b.WriteString("| tunable | scheduler | unit | bounds | default | source of the default | meaning |\n|---|---|---|---|---|---|---|\n")
	for _, t := range allTunables() {
		bounds := "—"
		if t.lo != 0 || t.hi != 0 {
			bounds = bound(t.lo) + ".." + bound(t.hi)
		}
		sched := t.scheduler
		if sched == "" {
			sched = "(queue)"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s |\n", t.path, sched, t.unit, bounds, t.def, t.source, t.doc)
	}
	b.WriteString(tunablesEnd)
	return b.String()
}

// TestTunablesDocumented: docs/linux-block-layer.md lists every tunable of
// the queue and of each scheduler with its unit, bounds, default and the
// default's source, exactly as the tables have them.
func TestTunablesDocumented(t *testing.T) {
	doc, err := os.ReadFile(tunablesDoc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, tunablesBegin), strings.Index(s, tunablesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated tunables table (markers %q ... %q)", tunablesDoc, tunablesBegin, tunablesEnd)
	}
	want := tunablesTable()
	got := s[i : j+len(tunablesEnd)]
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(tunablesDoc, []byte(s[:i]+want+s[j+len(tunablesEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("%s's tunables table is out of date (go test -run TestTunablesDocumented -update .); want:\n%s", tunablesDoc, want)
}

// TestTunableDefaultsAreTheDefaults: a new queue with each scheduler reads
// back every tunable's documented default.
func TestTunableDefaultsAreTheDefaults(t *testing.T) {
	for _, sched := range []string{"none", "mq-deadline", deadlineNoprioName, linusName} {
		h := newHarness(t, 1, Config{Scheduler: sched})
		for _, tu := range allTunables() {
			if tu.scheduler != "" && tu.scheduler != sched {
				continue
			}
			got, err := h.q.Attr(tu.path)
			want := tu.def
			if tu.path == "scheduler" {
				want = strings.Replace(strings.ReplaceAll(want, "[", ""), "]", "", 1)
				want = strings.Replace(want, sched, "["+sched+"]", 1)
			}
			if err != nil || got != want {
				t.Errorf("%s: %s = %q, %v; the table says %q", sched, tu.path, got, err, want)
			}
		}
	}
}
