package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemspec/idemspec/harness/agent"
	"github.com/idemspec/idemspec/harness/retry/state"
)

// A program's result comes on the last line of its stdout, or in a file
// (agent.EnvResultFile): frameworks log to stdout (retry warnings, a
// worker that redirects stdout into its log), and the file keeps the
// result apart from them.

// resultFileLimit bounds what is read of a result file.
const resultFileLimit = 1 << 20

// resultFile is one run's result file, in a directory of its own that
// nothing else writes.
type resultFile struct{ dir string }

func newResultFile() (resultFile, error) {
	dir, err := os.MkdirTemp("", "idemspec-result-")
	if err != nil {
		return resultFile{}, fmt.Errorf("a result file for the client: %w", err)
	}
	return resultFile{dir: dir}, nil
}

func (r resultFile) path() string { return filepath.Join(r.dir, "result.json") }

func (r resultFile) environ() string { return agent.EnvResultFile + "=" + r.path() }

func (r resultFile) remove() { os.RemoveAll(r.dir) }

// read is the run's result: the file's when the program wrote one, else
// stdout's last line; the file is gone afterwards.
func (r resultFile) read(stdout string) (end, resourceID string, ids map[string]string, problem string) {
	defer r.remove()
	f, problem := openResult(r.path())
	if f == nil {
		if problem == "" {
			return readResult(stdout)
		}
		return "", "", nil, problem
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, resultFileLimit+1))
	switch {
	case err != nil:
		return "", "", nil, fmt.Sprintf("the result file %s: %v", agent.EnvResultFile, err)
	case len(b) > resultFileLimit:
		return "", "", nil, fmt.Sprintf("the result file %s is over %d bytes", agent.EnvResultFile, resultFileLimit)
	case strings.TrimSpace(string(b)) == "":
		return readResult(stdout) // created, never written: stdout speaks
	}
	return parseResult(string(b), "the result file "+agent.EnvResultFile)
}

// openResult opens the result file the program wrote: nil and no
// problem when it wrote none. Anything but a regular file is refused,
// without waiting: a named pipe (or a link to one, or to idemspec's own
// standard input) would hold a plain open until the run's --timeout.
func openResult(path string) (*os.File, string) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err == nil && !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	// Opened without waiting and without following a link, and looked
	// at again once open: the program may have swapped the path meanwhile.
	f, err := os.OpenFile(path, os.O_RDONLY|resultOpenFlags, 0)
	if err == nil {
		if fi, err = f.Stat(); err == nil && !fi.Mode().IsRegular() {
			f.Close()
			return nil, notRegular(fi.Mode())
		}
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ""
		}
		return nil, fmt.Sprintf("the result file %s: %v", agent.EnvResultFile, err)
	}
	return f, ""
}

// notRegular says why a result file of mode m is not read.
func notRegular(m fs.FileMode) string {
	kind := "not a regular file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSymlink != 0:
		kind = "a symbolic link"
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Sprintf("the result file %s is %s, not read: write the result into a regular file at that path", agent.EnvResultFile, kind)
}

// readResult parses the result the contract asks for on the last
// non-empty stdout line: a create's resource id, or a job's ids by step.
func readResult(stdout string) (end, resourceID string, ids map[string]string, problem string) {
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return "", "", nil, "no output on stdout"
	}
	return parseResult(last, "the last stdout line")
}

// parseResult parses one JSON result, from where.
func parseResult(text, where string) (end, resourceID string, ids map[string]string, problem string) {
	var r struct {
		State      string         `json:"state"`
		ResourceID any            `json:"resource_id"`
		IDs        map[string]any `json:"ids"`
	}
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return "", "", nil, fmt.Sprintf("%s is not a JSON result: %v", where, err)
	}
	switch state.State(r.State) {
	case state.Succeeded, state.UnknownResult, state.Failed:
	default:
		return "", "", nil, fmt.Sprintf("state %q is not %s, %s or %s", r.State, state.Succeeded, state.UnknownResult, state.Failed)
	}
	if r.ResourceID != nil {
		resourceID = fmt.Sprint(r.ResourceID)
	}
	for step, id := range r.IDs {
		if id == nil {
			continue
		}
		if ids == nil {
			ids = map[string]string{}
		}
		ids[step] = fmt.Sprint(id)
	}
	return r.State, resourceID, ids, ""
}
