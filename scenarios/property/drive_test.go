package property

import (
	"flag"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A search's knobs are all its own: one that leaves Steps to rapid does
// not inherit the steps of the search before it in the same process.
func TestDriveSetsEveryKnob(t *testing.T) {
	if err := Drive(NewTB("drive-1", io.Discard), Knobs{Checks: 1, Steps: 3, Seed: 7, ShrinkTime: time.Second}, func(*rapid.T) {}); err != nil {
		t.Fatal(err)
	}
	var steps string
	// 10 sequences: rapid draws a fifth of them under go test -short.
	if err := Drive(NewTB("drive-2", io.Discard), Knobs{Checks: 10, ShrinkTime: time.Second}, func(*rapid.T) {
		steps = flag.Lookup("rapid.steps").Value.String()
	}); err != nil {
		t.Fatal(err)
	}
	if def := flag.Lookup("rapid.steps").DefValue; steps != def {
		t.Errorf("rapid.steps %s in a search that set none, want rapid's default %s", steps, def)
	}
}

// Searches with other seeds at once each run under their own seed, the
// whole run long.
func TestDriveHoldsEachSearchsSeed(t *testing.T) {
	var (
		wg  sync.WaitGroup
		ran atomic.Int32
	)
	errs := make(chan string, 40)
	for i := range 4 {
		seed := uint64(i%2 + 1) // two searches share each seed
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Drive(NewTB(fmt.Sprintf("drive-seed-%d", i), io.Discard), Knobs{Checks: 10, Seed: seed, ShrinkTime: time.Second}, func(*rapid.T) {
				ran.Add(1)
				if got := flag.Lookup("rapid.seed").Value.String(); got != fmt.Sprint(seed) {
					errs <- fmt.Sprintf("a search of seed %d ran under seed %s", seed, got)
				}
			})
			if err != nil {
				errs <- err.Error()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if ran.Load() == 0 {
		t.Error("no search drew a sequence")
	}
}
