package scenarios

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/harness/wire"
)

// A request the interposer forwards but cannot match to the target
// file's operations is not judged: a program that sends its retries on
// a path the API routes and the file does not describe (another base
// path, an alias) would pass unseen. Such requests are listed in the
// evidence, and one that looks like a create (it carries an
// operation's key where the file places it, or the JSON body shape of
// the program's own creates) makes the trial an ERROR.

// maxListed bounds the distinct requests a note lists.
const maxListed = 10

// undescribed lists the forwarded requests of xs that matched no
// operation, as "METHOD PATH (n)", and, of them, those that look like
// creates, with why. The shapes of creates are the program's own, from
// the baseline and the trial.
func undescribed(baseline, xs []wire.Exchange) (listed, creates []string) {
	shapes := map[string]bool{}
	for _, x := range slices.Concat(baseline, xs) {
		if x.Kind == wire.Create && x.Shape != "" {
			shapes[x.Shape] = true
		}
	}
	counts := map[string]int{}
	var order []string
	for _, x := range slices.Concat(baseline, xs) {
		if x.Kind != "" || !x.Forwarded {
			continue
		}
		r := x.Method + " " + x.Path
		if counts[r] == 0 {
			order = append(order, r)
		}
		counts[r]++
		var why string
		switch {
		case x.Resembles != "":
			why = "carried the key where " + describeOp(x.Resembles) + " places it"
		case x.Shape != "" && shapes[x.Shape] && x.Method != http.MethodGet && x.Method != http.MethodHead:
			why = "had the JSON body of the program's creates"
		default:
			continue
		}
		if len(creates) < maxListed {
			creates = append(creates, fmt.Sprintf("#%d %s %s", x.Seq, r, why))
		}
	}
	for i, r := range order {
		if i == maxListed {
			listed = append(listed, fmt.Sprintf("and %d more", len(order)-maxListed))
			break
		}
		listed = append(listed, fmt.Sprintf("%s (%d)", r, counts[r]))
	}
	return listed, creates
}

// judgeUndescribed notes the trial's requests the file does not
// describe, and is an error when one of them looks like a create.
func (t *trial) judgeUndescribed(xs []wire.Exchange) error {
	listed, creates := undescribed(t.wt.baseline, xs)
	if len(listed) == 0 {
		return nil
	}
	t.ev.Notes = append(t.ev.Notes, "requests the target file does not describe (forwarded to the API, not judged): "+strings.Join(listed, ", "))
	if len(creates) == 0 {
		return nil
	}
	return fmt.Errorf("requests the target file does not describe look like creates: %s; the program may have created through them, so its requests cannot be judged: describe that call in the target file, or hand the program a base URL under which the file's paths are its paths", strings.Join(creates, "; "))
}
