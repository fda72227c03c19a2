package property

import (
	"flag"
	"fmt"
	"io"
	"sync"
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

// Searches with other seeds at once each draw the sequences of their
// own seed: the seed rapid reads as it starts is the search's, though
// the next search sets its own as soon as rapid has read it.
func TestDriveHoldsEachSearchsSeed(t *testing.T) {
	draws := func(name string, seed uint64) ([]uint64, error) {
		var got []uint64
		err := Drive(NewTB(name, io.Discard), Knobs{Checks: 10, Seed: seed, ShrinkTime: time.Second}, func(rt *rapid.T) {
			got = append(got, rapid.Uint64().Draw(rt, "n"))
		})
		return got, err
	}
	alone := map[uint64][]uint64{}
	for _, seed := range []uint64{1, 2} {
		got, err := draws(fmt.Sprintf("drive-alone-%d", seed), seed)
		if err != nil || len(got) == 0 {
			t.Fatalf("seed %d alone: %v, %d sequences", seed, err, len(got))
		}
		alone[seed] = got
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 4 {
		seed := uint64(i%2 + 1) // two searches share each seed
		wg.Go(func() {
			got, err := draws(fmt.Sprintf("drive-seed-%d", i), seed)
			if err != nil {
				errs <- err.Error()
			} else if fmt.Sprint(got) != fmt.Sprint(alone[seed]) {
				errs <- fmt.Sprintf("a search of seed %d drew %v, alone it draws %v", seed, got, alone[seed])
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
