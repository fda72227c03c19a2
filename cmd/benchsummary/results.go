package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Results holds every figure read: benchmark name (without the
// -GOMAXPROCS suffix) to metric unit to the values of each repeat.
type Results map[string]map[string][]float64

// benchLine is one result line: name, iterations, then value-unit pairs.
var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// Read adds the result lines of go test -bench output; other lines
// (goos, PASS, logs) are skipped.
func (r Results) Read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		if len(fields)%2 != 0 {
			return fmt.Errorf("Benchmark%s: odd value-unit list %q", m[1], m[3])
		}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return fmt.Errorf("Benchmark%s: %s: %w", m[1], fields[i+1], err)
			}
			r.add(m[1], fields[i+1], v)
		}
	}
	return sc.Err()
}

func (r Results) add(name, unit string, v float64) {
	if r[name] == nil {
		r[name] = map[string][]float64{}
	}
	r[name][unit] = append(r[name][unit], v)
}

// Names lists the benchmarks read, sorted.
func (r Results) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Figure is one metric over its repeats.
type Figure struct {
	Median, Min, Max float64
	N                int
}

// figureOf summarises the values of one metric.
func figureOf(vs []float64) Figure {
	s := slices.Clone(vs)
	slices.Sort(s)
	f := Figure{Min: s[0], Max: s[len(s)-1], N: len(s)}
	if len(s)%2 == 1 {
		f.Median = s[len(s)/2]
	} else {
		f.Median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return f
}
