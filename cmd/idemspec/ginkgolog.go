package main

import (
	"bytes"
	"io"
)

// stackless passes Ginkgo's output on without the goroutine stacks of
// its progress reports. On an interrupt or a timeout Ginkgo reports
// where the check under way was, with the stack of every goroutine:
// that tells the reader of ginkgo.log nothing about the target and reads
// like a crash of idemspec. Each dump becomes one line that says the
// check was interrupted. Call Flush when the stream ends.
type stackless struct {
	w       io.Writer
	partial []byte
	// dump is the indentation of the dump being left out, or -1.
	dump int
}

// dumpHeaders open the goroutine sections of a progress report.
var dumpHeaders = [][]byte{[]byte("Spec Goroutine"), []byte("Goroutines of Interest"), []byte("Other Goroutines")}

// dumpLeftOut replaces a dump.
const dumpLeftOut = "(interrupted: the goroutine stacks of idemspec are left out)\n"

func newStackless(w io.Writer) *stackless { return &stackless{w: w, dump: -1} }

func (s *stackless) Write(p []byte) (int, error) {
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := s.partial[:i+1]
		if err := s.line(line); err != nil {
			return len(p), err
		}
		s.partial = s.partial[i+1:]
	}
}

// line passes one whole line on, or leaves it out as part of a dump: a
// dump runs from its header through every line indented as far or
// further, and blank lines.
func (s *stackless) line(line []byte) error {
	text := bytes.TrimRight(line, "\r\n")
	body := bytes.TrimLeft(text, " \t")
	indent := len(text) - len(body)
	if s.dump >= 0 {
		if len(body) == 0 || indent >= s.dump {
			return nil
		}
		s.dump = -1
	}
	for _, h := range dumpHeaders {
		if bytes.Equal(body, h) {
			s.dump = indent
			_, err := io.WriteString(s.w, string(text[:indent])+dumpLeftOut)
			return err
		}
	}
	_, err := s.w.Write(line)
	return err
}

// Flush passes on the last line if it had no newline.
func (s *stackless) Flush() error {
	if len(s.partial) == 0 || s.dump >= 0 {
		s.partial = nil
		return nil
	}
	_, err := s.w.Write(s.partial)
	s.partial = nil
	return err
}
