// Package satmath has saturating int64 arithmetic: sizes and offsets from
// job files and bucket bounds computed from user numbers end at
// math.MaxInt64 instead of wrapping, so an absurd value fails a range check
// with a clear error rather than turning into a small or negative one.
package satmath

import "math"

// Add returns a+b, or math.MaxInt64 if that overflows (for b ≥ 0).
func Add(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Mul returns a×b, or math.MaxInt64 if that overflows (for a, b ≥ 0).
func Mul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
