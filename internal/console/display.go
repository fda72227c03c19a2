package console

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/idemspec/idemspec/harness/check"
)

// Options say how a Display renders.
type Options struct {
	// Live redraws a status line in place: for a terminal only.
	Live bool
	// Color colours the verdicts.
	Color bool
	// InOrder holds each finished check's line until every check before
	// it in the catalogue has finished; otherwise lines are printed as
	// checks finish.
	InOrder bool
	// Columns is the terminal's width, read at each redraw so that a
	// resized window is followed (nil, or 0: 80).
	Columns func() int
	// Redraws paces the status line (nil: a redraw every 150 ms). The
	// redraws stop at Close.
	Redraws <-chan time.Time
	// ProgressEvery, when not Live, prints a line saying which check is
	// under way, for how long and how far, at this interval while one
	// runs (0: none): a piped run is never silent for longer through a
	// long check (P1 ran 26 s without a line). Progress paces it instead
	// (tests).
	ProgressEvery time.Duration
	Progress      <-chan time.Time
}

// ProgressEvery is how often a piped run says which check is under way.
const ProgressEvery = 10 * time.Second

// redrawEvery throttles the status line: often enough for a clock that
// reads in tenths of a second, rarely enough to cost nothing.
const redrawEvery = 150 * time.Millisecond

// The ANSI sequences a live display writes: clearLine returns to the
// start of the line and erases it; eraseRest erases what an older,
// longer status line left to the right.
const (
	clearLine = "\r\x1b[2K"
	eraseRest = "\x1b[K"
)

// Display follows one run. Its methods may be called from any goroutine.
type Display struct {
	w    io.Writer
	opts Options

	mu sync.Mutex
	// order is the run's checks in the catalogue's order; next is the
	// first of them whose line is not printed yet, and held the lines
	// finished out of order, by check.
	order []string
	next  int
	held  map[string]string
	// selected is how many checks the run will run, started how many
	// have started.
	selected, started int
	// current is the check under way (ID "": none), since when, and what
	// it last said of its progress.
	current check.Entry
	since   time.Time
	detail  string
	shown   bool // a status line is on the screen

	// stop ends the redraws (once), done says they have ended.
	stop     chan struct{}
	stopOnce sync.Once
	done     chan struct{}
}

// New makes a Display that writes to w.
func New(w io.Writer, o Options) *Display {
	d := &Display{w: w, opts: o, held: map[string]string{}}
	ticks, every := o.Redraws, redrawEvery
	if !o.Live {
		ticks, every = o.Progress, o.ProgressEvery
	}
	if o.Live || ticks != nil || every > 0 {
		var ticker *time.Ticker
		if ticks == nil {
			ticker = time.NewTicker(every)
			ticks = ticker.C
		}
		d.stop, d.done = make(chan struct{}), make(chan struct{})
		go d.redraw(ticks, ticker)
	}
	return d
}

// Begin says which checks the run reports, in the catalogue's order,
// and which of them it will run (the others are skipped, unselected).
func (d *Display) Begin(checks []check.Entry, selected func(id string) bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.order, d.next, d.selected = nil, 0, 0
	for _, c := range checks {
		d.order = append(d.order, c.ID)
		if selected(c.ID) {
			d.selected++
		}
	}
}

// Start says that check c is under way.
func (d *Display) Start(c check.Entry) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.started++
	d.current, d.since, d.detail = c, time.Now(), ""
}

// Searching says how far the check under way has got, in its own words
// (the property search: sequences tried, shrinking).
func (d *Display) Searching(detail string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.detail = detail
}

// Finish prints check id's line: its status, then line (the ID, the
// title, the time it took, and the reason on lines of their own).
func (d *Display) Finish(id string, status check.Status, line string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.current.ID == id {
		d.current = check.Entry{}
	}
	text := d.verdict(status) + " " + Text(line) + "\n"
	if !d.opts.InOrder || !slices.Contains(d.order[d.next:], id) {
		d.print(text)
		return
	}
	d.held[id] = text
	for d.next < len(d.order) {
		text, ok := d.held[d.order[d.next]]
		if !ok {
			break
		}
		delete(d.held, d.order[d.next])
		d.print(text)
		d.next++
	}
}

// Close prints the lines still held, in the catalogue's order (checks
// before them never finished: an interrupted run), stops redrawing the
// status line and clears it. A line finished after Close is printed at
// once. Close may be called more than once.
func (d *Display) Close() {
	if d.stop != nil {
		d.stopOnce.Do(func() { close(d.stop) })
		<-d.done
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range d.order[d.next:] {
		if text, ok := d.held[id]; ok {
			d.print(text)
		}
	}
	d.held, d.next = map[string]string{}, len(d.order)
	d.clear()
}

// print writes a finished check's line, first erasing the status line
// it would otherwise land on; the next redraw puts that back below.
func (d *Display) print(text string) {
	d.clear()
	io.WriteString(d.w, text)
}

func (d *Display) clear() {
	if d.shown {
		io.WriteString(d.w, clearLine)
		d.shown = false
	}
}

// redraw repaints the status line at each tick until Close, or, when
// not Live, prints it as a line of its own while a check is under way.
func (d *Display) redraw(ticks <-chan time.Time, ticker *time.Ticker) {
	defer close(d.done)
	if ticker != nil {
		defer ticker.Stop()
	}
	for {
		select {
		case <-d.stop:
			return
		case <-ticks:
			d.mu.Lock()
			if !d.opts.Live {
				if d.current.ID != "" {
					io.WriteString(d.w, "...   "+d.progress()+"\n")
				}
				d.mu.Unlock()
				continue
			}
			if d.current.ID != "" {
				io.WriteString(d.w, "\r"+d.status()+eraseRest)
				d.shown = true
			} else {
				d.clear()
			}
			d.mu.Unlock()
		}
	}
}

// status is the status line: where the run is, the check under way and
// how long it has run, what it said last, its title; cut to the
// terminal's width, so that it never wraps onto a second line that "\r"
// could not return to.
func (d *Display) status() string {
	s := d.progress()
	width := 80
	if d.opts.Columns != nil && d.opts.Columns() > 0 {
		width = d.opts.Columns()
	}
	if r := []rune(s); len(r) > width-1 {
		s = string(r[:max(width-2, 0)]) + "…"
	}
	return s
}

// progress says where the run is, the check under way and how long it
// has run, what it said last, and its title.
func (d *Display) progress() string {
	s := fmt.Sprintf("[%d/%d] %s %s", d.started, max(d.selected, d.started), d.current.ID, elapsed(time.Since(d.since)))
	if d.detail != "" {
		s += " · " + d.detail
	}
	return Line(s + " · " + d.current.Title)
}

// elapsed reads in tenths of a second, then minutes and seconds.
func elapsed(t time.Duration) string {
	if t < time.Minute {
		return fmt.Sprintf("%.1fs", t.Seconds())
	}
	return t.Truncate(time.Second).String()
}

// verdict is the status word, padded to the longest (ERROR), in colour
// when the display has it.
func (d *Display) verdict(s check.Status) string {
	word := fmt.Sprintf("%-5s", s)
	if !d.opts.Color {
		return word
	}
	pad := word[len(s):]
	return colours[s] + string(s) + reset + pad
}

// colours of the verdicts: green passes, red failures, yellow warnings,
// magenta errors (the harness, not the target, went wrong), dim skips.
var colours = map[check.Status]string{
	check.PASS:  "\x1b[32m",
	check.FAIL:  "\x1b[1;31m",
	check.WARN:  "\x1b[33m",
	check.ERROR: "\x1b[1;35m",
	check.SKIP:  "\x1b[2m",
}

const reset = "\x1b[0m"
