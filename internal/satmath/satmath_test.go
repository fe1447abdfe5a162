package satmath

import (
	"math"
	"testing"
)

func TestSaturatesInsteadOfWrapping(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int64
	}{
		{"add", Add(2, 3), 5},
		{"add at the edge", Add(math.MaxInt64-1, 1), math.MaxInt64},
		{"add past the edge", Add(math.MaxInt64-1, 2), math.MaxInt64},
		{"add negative", Add(5, -7), -2},
		{"mul", Mul(6, 7), 42},
		{"mul by zero", Mul(0, math.MaxInt64), 0},
		{"mul at the edge", Mul(math.MaxInt64/2, 2), math.MaxInt64 - 1},
		{"mul past the edge", Mul(1<<32, 1<<32), math.MaxInt64},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}
