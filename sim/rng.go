package sim

import "math/rand/v2"

// RNG is a seeded, deterministic random stream (a PCG generator from
// math/rand/v2). The same seed gives the same sequence on every run and
// platform.
//
// Split derives independent child streams by name, from the stream's seed
// rather than from its current state, so a child (one per job, say) draws
// the same numbers however much its parent or siblings have been used and
// in whatever order the children were made.
//
// An RNG is not safe for concurrent use; give each goroutine its own Split.
type RNG struct {
	k0, k1 uint64 // the stream's key: PCG seed, and the root of Split
	src    rand.PCG
	r      *rand.Rand
}

// NewRNG returns the stream for seed.
func NewRNG(seed uint64) *RNG {
	return newRNG(mix64(seed), mix64(seed^0x9e3779b97f4a7c15))
}

func newRNG(k0, k1 uint64) *RNG {
	g := &RNG{k0: k0, k1: k1}
	g.src.Seed(k0, k1)
	g.r = rand.New(&g.src)
	return g
}

// Split returns the child stream called name. It depends only on this
// stream's seed and on name: calling Split twice with one name gives two
// generators that produce the same sequence, and drawing from g does not
// change its children.
func (g *RNG) Split(name string) *RNG {
	h := fnv1a(name)
	return newRNG(mix64(g.k0^mix64(h)), mix64(g.k1+mix64(h^0xd1b54a32d192ed03)))
}

// Uint64 returns a uniformly distributed 64-bit value.
func (g *RNG) Uint64() uint64 { return g.src.Uint64() }

// Uint64N returns a uniform value in [0, n). It panics if n == 0.
func (g *RNG) Uint64N(n uint64) uint64 { return g.r.Uint64N(n) }

// Int64N returns a uniform value in [0, n). It panics if n <= 0.
func (g *RNG) Int64N(n int64) int64 { return g.r.Int64N(n) }

// IntN returns a uniform value in [0, n). It panics if n <= 0.
func (g *RNG) IntN(n int) int { return g.r.IntN(n) }

// Float64 returns a uniform value in [0.0, 1.0).
func (g *RNG) Float64() float64 { return g.r.Float64() }

// ExpFloat64 returns an exponentially distributed value with rate 1
// (mean 1): scale it by a mean inter-arrival time for Poisson arrivals.
func (g *RNG) ExpFloat64() float64 { return g.r.ExpFloat64() }

// NormFloat64 returns a normally distributed value with mean 0 and
// standard deviation 1.
func (g *RNG) NormFloat64() float64 { return g.r.NormFloat64() }

// Rand returns the *rand.Rand drawing from this stream, for the
// distributions math/rand/v2 offers beyond the helpers (rand.NewZipf,
// Perm, Shuffle). Draws through it advance this stream.
func (g *RNG) Rand() *rand.Rand { return g.r }

// mix64 is the SplitMix64 finalizer (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", 2014): a bijection on uint64
// that spreads every input bit over the whole output.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// fnv1a is the 64-bit FNV-1a hash of s.
func fnv1a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
