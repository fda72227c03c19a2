package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"
)

// Render prints the goal table, then every other figure read.
func Render(w io.Writer, rows []Row, r Results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tbenchmark\tgoal\tmedian\trange\tn\tverdict")
	for _, row := range rows {
		goal := "-"
		if row.Op != "" {
			goal = row.Op + " " + num(row.Bound)
		}
		median, spread, n := "", "", ""
		if row.Verdict != NoData {
			median, spread, n = num(row.Figure.Median), num(row.Figure.Min)+" .. "+num(row.Figure.Max), strconv.Itoa(row.Figure.N)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", row.Measure, row.Name, goal, median, spread, n, row.Verdict)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nother figures (median over repeats, range)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range r.Names() {
		units := make([]string, 0, len(r[name]))
		for u := range r[name] {
			if !covered(rows, name, u) {
				units = append(units, u)
			}
		}
		slices.Sort(units)
		for _, u := range units {
			f := figureOf(r[name][u])
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, u, num(f.Median), num(f.Min)+" .. "+num(f.Max))
		}
	}
	tw.Flush()
}

// num prints a figure with three significant digits, whole numbers from
// 1000 up, and no exponent for the sizes these figures have.
func num(v float64) string {
	if a := math.Abs(v); a >= 1000 || a == 0 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
