package blkq

import (
	"strings"
	"testing"
)

// New refuses what would panic or hang later: a nil device (Attach on
// nil), a nil clock (the first timer), and a device that can never take a
// request (Depth below 1: every bio would wait for ever).
func TestNewRefusesNilDeviceNilClockAndZeroDepth(t *testing.T) {
	clk := &testClock{}
	for _, tc := range []struct {
		name string
		dev  Device
		clk  Clock
		want string
	}{
		{"nil device", nil, clk, "nil Device"},
		{"nil clock", newTestDevice(clk, 1, 0), nil, "nil Clock"},
		{"depth 0", newTestDevice(clk, 0, 0), clk, "queue depth 0"},
		{"depth -2", newTestDevice(clk, -2, 0), clk, "queue depth -2"},
	} {
		q, err := New(tc.dev, tc.clk, Config{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: New = %v, %v; want an error naming %q", tc.name, q, err, tc.want)
		}
	}
	if _, err := New(newTestDevice(clk, 1, 0), clk, Config{}); err != nil {
		t.Errorf("depth 1: %v", err)
	}
}
