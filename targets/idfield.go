package targets

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/idemspec/idemspec/internal/exactjson"
)

// A create.id_field that names the wrong field of the answer (one that
// echoes the caller's input, such as a merchant reference that is the
// marker itself, or an optional field) makes every check compare the
// oracle's ids with values that are no resource's id, and blame the API
// for it. The preflight's first create compares the two once, so the
// file's mistake is reported as the file's.

// IDFieldReading is what the first create showed about create.id_field:
// its answer, the marker it carried, and what the oracle found.
type IDFieldReading struct {
	Field   string // create.id_field
	Read    string // the id it reads from the answer ("" when absent)
	Request string // "POST /resources", for the message
	Status  int
	Answer  []byte
	Marker  string
	Oracle  string // the oracle's kind
	// Seen is what the oracle found: for a list oracle, the resources
	// carrying the marker; for one that confirms ids (ByID), those of
	// the ids it was asked about that exist.
	Seen Observation
	ByID bool
}

// Problem says what is wrong with create.id_field, or nil: the field is
// absent from the answer, holds the marker the harness sent, or holds
// another id than the one resource the oracle lists (a by-id oracle:
// finds no resource at it). The error names the field, what it read,
// what the oracle listed, and the answer's field that holds the listed
// id when one does.
func (r IDFieldReading) Problem() error {
	read := r.Read
	listed := r.listedOne(read)
	var what string
	switch {
	case read == "":
		what = fmt.Sprintf("create.id_field %q is not in the target's answer to the harness's first create, a %d", r.Field, r.Status)
	case read == r.Marker:
		what = fmt.Sprintf("create.id_field %q reads %q from the target's answer to the harness's first create: that is the marker the harness sent, an echo of the request, not the resource's id", r.Field, read)
	case r.ByID && !slices.Contains(r.Seen.IDs, read):
		what = fmt.Sprintf("create.id_field %q reads %q from the target's answer to the harness's first create, but the oracle (%s) finds no resource carrying its marker at that id", r.Field, read, r.Oracle)
	case !r.ByID && listed != "" && listed != read:
		what = fmt.Sprintf("create.id_field %q reads %q from the target's answer to the harness's first create, but the oracle (%s) lists one resource for its marker, %q", r.Field, read, r.Oracle, listed)
	default:
		return nil
	}
	return fmt.Errorf("%s%s: check create.id_field%s (%s answered%s)", what, r.whatListed(read, listed), r.suggestion(listed), r.Request, or(QuoteStart(string(r.Answer)), " with no body"))
}

// listedOne is the one id the oracle names for the marker, if it names
// exactly one (a by-id oracle: one it found other than read), or "".
func (r IDFieldReading) listedOne(read string) string {
	ids := r.Seen.IDs
	if r.ByID {
		ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == read })
	}
	if len(ids) != 1 || (!r.ByID && r.Seen.Count != 1) {
		return ""
	}
	return ids[0]
}

// whatListed says what the oracle listed, where the message has not.
func (r IDFieldReading) whatListed(read, listed string) string {
	switch {
	case listed == "" || listed == read && read != r.Marker:
		return ""
	case listed == r.Marker:
		return fmt.Sprintf("; the oracle (%s) lists %q for the marker too: its id_field reads the marker as well", r.Oracle, listed)
	case read == "" || read == r.Marker:
		return fmt.Sprintf("; the oracle (%s) lists one resource for the marker, %q", r.Oracle, listed)
	}
	return ""
}

// suggestion names the answer's field that holds the listed id, or, when
// the oracle's ids are no help (it listed the marker, or nothing), the
// answer's field that looks most like an id.
func (r IDFieldReading) suggestion(listed string) string {
	field := ""
	if listed != "" && listed != r.Marker {
		field = FieldHolding(r.Answer, listed)
		if field == "" {
			return fmt.Sprintf(" or the oracle's id_field: no field of the answer holds %q", listed)
		}
	} else {
		field = idLikeField(r.Answer, r.Marker)
	}
	if field == "" || field == r.Field {
		return ""
	}
	return fmt.Sprintf(", did you mean %q?", field)
}

// MaxIDFieldCandidates bounds the values of the first create's answer
// a by-id oracle is asked about.
const MaxIDFieldCandidates = 8

// IDFieldCandidates are the answer's scalar values a by-id oracle may be
// asked about, to find the field that holds the resource's id: read
// first, then the others, bounded, never the marker.
func IDFieldCandidates(answer []byte, read, marker string) []string {
	out := []string{}
	if read != "" && read != marker {
		out = append(out, read)
	}
	for _, f := range scalarFields(answer) {
		if len(out) == MaxIDFieldCandidates {
			break
		}
		if f.value != marker && !slices.Contains(out, f.value) {
			out = append(out, f.value)
		}
	}
	return out
}

// ResourceIDOf reads the id at field in a JSON answer ("" when absent
// or not a string or number).
func ResourceIDOf(answer []byte, field string) string {
	v, err := exactjson.Decode(answer)
	if err != nil {
		return ""
	}
	return idText(dig(v, field))
}

// FieldHolding is the path of the answer's shallowest field that holds
// value, or "".
func FieldHolding(answer []byte, value string) string {
	for _, f := range scalarFields(answer) {
		if f.value == value {
			return f.path
		}
	}
	return ""
}

// idLike matches the names answers give their resource's id.
var idLike = regexp.MustCompile(`(^(?i:id|uuid|reference)$)|(_(?i:id|uuid)$)|([a-z](Id|ID|Uuid|Reference)$)`)

// idLikeField is the shallowest field named like an id that holds
// something other than the marker: "id" before "order_id".
func idLikeField(answer []byte, marker string) string {
	var best scalarField
	for _, f := range scalarFields(answer) {
		name := f.path[strings.LastIndexAny(f.path, ".]")+1:]
		if f.value == marker || !idLike.MatchString(name) {
			continue
		}
		if strings.EqualFold(name, "id") {
			return f.path
		}
		if best.path == "" {
			best = f
		}
	}
	return best.path
}

type scalarField struct{ path, value string }

// scalarFields are the answer's string and number fields, shallowest
// first and in key order, with the paths id_field would name them by.
func scalarFields(answer []byte) []scalarField {
	v, err := exactjson.Decode(answer)
	if err != nil {
		return nil
	}
	var out []scalarField
	level := []scalarField{{}}
	values := []any{v}
	// Bounded: an answer is at most 1 MiB, and three levels find the id
	// of every API tried (data.id, data.attributes.id).
	for depth := 0; depth < 4 && len(values) > 0; depth++ {
		var nextLevel []scalarField
		var nextValues []any
		for i, x := range values {
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				path := joinPath(level[i].path, k)
				if s := idText(obj[k]); s != "" {
					out = append(out, scalarField{path, s})
				} else {
					nextLevel, nextValues = append(nextLevel, scalarField{path: path}), append(nextValues, obj[k])
				}
			}
		}
		level, values = nextLevel, nextValues
	}
	return out
}

// plainKey is a key a dotted path can name as it is.
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

func joinPath(parent, key string) string {
	if !plainKey.MatchString(key) {
		return parent + fmt.Sprintf("[%q]", key)
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// idText is a JSON string or number as text, or "".
func idText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	return ""
}

// QuoteStart quotes the start of an answer for an error message.
func QuoteStart(body string) string {
	s := strings.TrimSpace(body)
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf(": %q", s)
}
