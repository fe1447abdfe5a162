package bcache

import (
	"sync"
	"testing"
)

// TestPartialDiscardWaitsForHits: a discard of part of a cached page
// zeroes that part under the buffer lock, after the hits copying from the
// page are gone (pin.go): readers hitting the page meanwhile see it whole
// before the discard or with the part zeroed, never half zeroed.
func TestPartialDiscardWaitsForHits(t *testing.T) {
	c := hitCache(t, 16)
	old := make([]byte, PageSize)
	fillPage(old, 5, 0)
	for round := 0; round < 50; round++ {
		// Page 5 whole again (version 0), cached and clean.
		if _, err := c.WriteAt(old, 5*PageSize); err != nil {
			t.Fatal(err)
		}
		after := append([]byte(nil), old...)
		lo, hi := 512*(1+round%6), 512*(2+round%6)
		clear(after[lo:hi])
		var wg sync.WaitGroup
		var mu sync.Mutex
		bad := 0
		stop := make(chan struct{})
		for r := 0; r < 3; r++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, PageSize)
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := c.ReadAt(buf, 5*PageSize); err != nil {
						t.Error(err)
						return
					}
					if s := string(buf); s != string(old) && s != string(after) {
						mu.Lock()
						bad++
						mu.Unlock()
					}
				}
			}()
		}
		if err := c.Discard(5*PageSize+int64(lo), int64(hi-lo)); err != nil {
			t.Fatal(err)
		}
		close(stop)
		wg.Wait()
		if bad != 0 {
			t.Fatalf("round %d: %d reads saw page 5 neither whole nor with bytes %d-%d zeroed", round, bad, lo, hi)
		}
		got := make([]byte, PageSize)
		if _, err := c.ReadAt(got, 5*PageSize); err != nil {
			t.Fatal(err)
		}
		if string(got) != string(after) {
			t.Fatalf("round %d: page 5 after the discard of bytes %d-%d is not the old page with them zeroed", round, lo, hi)
		}
	}
	if st := c.Stats(); st.ReadHits == 0 {
		t.Errorf("no read hits")
	}
}
