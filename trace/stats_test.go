package trace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/blkq-dev/blkq/trace"
)

// TestStatsScenario checks the metrics of the hand-worked scenario. Times
// in ns; btt counts an interval of 0 as 1 ns.
//
//	writer, t=0: Q a(0+8) G P Q b(8+8) M Q c(100+8) G U I(a,b) I(c) D(a,b)
//	reader, t=0.5ms: Q r(200+8) G I
//	t=1ms C(a,b) D(c); t=2ms C(c) D(r); t=3ms C(r)
func TestStatsScenario(t *testing.T) {
	st := trace.NewStats()
	scenario(t, nil, st)
	m := st.Metrics()
	const ms = 1_000_000
	for _, tc := range []struct {
		name string
		l    trace.Latency
		n    int64
		sum  int64
		min  int64
		max  int64
	}{
		{"Q2Q", m.Q2Q, 3, 2 + ms/2, 1, ms / 2},
		{"Q2G", m.Q2G, 3, 3, 1, 1},
		{"S2G", m.S2G, 0, 0, 0, 0},
		{"G2I", m.G2I, 3, 3, 1, 1},
		{"Q2M", m.Q2M, 1, 1, 1, 1},
		{"I2D", m.I2D, 3, 1 + ms + ms*3/2, 1, ms * 3 / 2},
		{"M2D", m.M2D, 1, 1, 1, 1},
		{"D2C", m.D2C, 4, 4 * ms, ms, ms},
		{"Q2C", m.Q2C, 4, ms + ms + 2*ms + ms*5/2, ms, ms * 5 / 2},
	} {
		if tc.l.N != tc.n || int64(tc.l.Sum) != tc.sum || int64(tc.l.Min) != tc.min || int64(tc.l.Max) != tc.max {
			t.Errorf("%s = %+v, want N=%d Sum=%d Min=%d Max=%d", tc.name, tc.l, tc.n, tc.sum, tc.min, tc.max)
		}
	}
	if got := m.Q2C.Avg(); got != 0.001625 {
		t.Errorf("Q2C avg %v s", got)
	}
	if (trace.Latency{}).Avg() != 0 {
		t.Error("empty average")
	}
	var b bytes.Buffer
	if err := m.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"==================== All Devices ====================\n\n            ALL           MIN           AVG           MAX           N\n",
		"\nQ2Q               0.000000001   0.000166667   0.000500000           3\n",
		"\nI2D               0.000000001   0.000833334   0.001500000           3\n",
		"\nQ2C               0.001000000   0.001625000   0.002500000           4\n\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "S2G") {
		t.Errorf("table shows an empty metric:\n%s", b.String())
	}
}
