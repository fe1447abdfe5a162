package experiment

import (
	"regexp"
	"testing"
)

// TestExperimentsCiteDiscussionsByPublicTitle: every experiment names the
// discussion it reproduces as a reader can find it (list, month and year,
// subject line), never by a file the user does not have.
func TestExperimentsCiteDiscussionsByPublicTitle(t *testing.T) {
	public := regexp.MustCompile(`^linux-kernel, (January|February|March|April|May|June|July|August|September|October|November|December) (19|20)\d\d: "[^"]+"$`)
	for _, e := range List() {
		if !public.MatchString(e.Source) {
			t.Errorf("experiment %s cites %q: want `list, Month YYYY: \"subject\"`", e.Name, e.Source)
		}
	}
}
