package scenarios

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idemspec/idemspec/harness/wire"
)

// A program that sends 10,000 requests in a trial made a row of each in
// two tables of its check (a 5.3 MB report.json): a table lists the
// first and the last of them and says how many it leaves out, and a
// note lists a bounded number of ids.
func TestExchangeTableOfAFloodIsBounded(t *testing.T) {
	const n = 10_000
	xs := make([]wire.Exchange, n)
	ids := make([]string, n)
	for i := range xs {
		xs[i] = wire.Exchange{Seq: i + 1, Kind: wire.Create, Method: "POST", Path: "/resources", Key: fmt.Sprintf("key-%d", i), Status: 201, AnsweredBy: wire.AnsweredByAPI, ResourceID: fmt.Sprintf("r_%d", i)}
		ids[i] = xs[i].ResourceID
	}
	tb := exchangeTable("the trial's exchanges", xs)
	if len(tb.Rows) != maxTableRows+1 {
		t.Fatalf("%d rows for %d exchanges, want %d and one that says what is left out", len(tb.Rows), n, maxTableRows)
	}
	gap := tb.Rows[maxTableRows/2]
	if gap[1] != "9900 exchanges not listed (#51 to #9950): counted in the verdict" {
		t.Errorf("the row between says %q", gap[1])
	}
	if tb.Rows[0][0] != "1" || tb.Rows[len(tb.Rows)-1][0] != "10000" {
		t.Errorf("the table does not list the first and the last exchange: %v ... %v", tb.Rows[0], tb.Rows[len(tb.Rows)-1])
	}
	if b, _ := json.Marshal(tb); len(b) > 32<<10 {
		t.Errorf("the table is %d bytes of JSON", len(b))
	}
	if s := someIDs(ids); !strings.HasSuffix(s, "r_19 and 9980 more") {
		t.Errorf("someIDs lists %.200q", s)
	}
	if small := exchangeTable("t", xs[:3]); len(small.Rows) != 3 {
		t.Errorf("a table of 3 exchanges has %d rows", len(small.Rows))
	}
}

// Requests the file does not describe are listed; one that carries a
// create's key, or the JSON body of the program's creates with a
// method that can create, makes the trial an ERROR.
func TestUndescribedRequests(t *testing.T) {
	create := wire.Exchange{Seq: 1, Kind: wire.Create, Operation: "", Method: "POST", Path: "/resources", Shape: "amount,marker", Forwarded: true}
	health := wire.Exchange{Seq: 2, Method: "GET", Path: "/healthz", Forwarded: true}
	for _, c := range []struct {
		name       string
		xs         []wire.Exchange
		listed     string
		looksAlike bool
	}{
		{"a health check", []wire.Exchange{health, health}, "GET /healthz (2)", false},
		{"a keyed POST elsewhere", []wire.Exchange{{Seq: 3, Method: "POST", Path: "/v2/resources", Resembles: "", Forwarded: true}, {Seq: 4, Method: "POST", Path: "/v2/resources", Resembles: "charge", Forwarded: true}}, "POST /v2/resources (2)", true},
		{"the creates' body elsewhere", []wire.Exchange{{Seq: 3, Method: "POST", Path: "/legacy/resources", Shape: "amount,marker", Forwarded: true}}, "POST /legacy/resources (1)", true},
		{"the creates' body in a GET", []wire.Exchange{{Seq: 3, Method: "GET", Path: "/search", Shape: "amount,marker", Forwarded: true}}, "GET /search (1)", false},
		{"another body", []wire.Exchange{{Seq: 3, Method: "POST", Path: "/events", Shape: "kind", Forwarded: true}}, "POST /events (1)", false},
		{"answered by idemspec, never forwarded", []wire.Exchange{{Seq: 3, Method: "POST", Path: "/v2/resources", Resembles: "charge"}}, "", false},
		{"only described requests", nil, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			listed, creates := undescribed([]wire.Exchange{create}, c.xs)
			if got := strings.Join(listed, ", "); got != c.listed {
				t.Errorf("listed %q, want %q", got, c.listed)
			}
			if (len(creates) > 0) != c.looksAlike {
				t.Errorf("looks like a create: %v, want %v", creates, c.looksAlike)
			}
		})
	}
}

// A resource the oracle lists that no answer on the wire carried was
// made around the interposer: an ERROR. A forwarded create that got no
// answer may account for one; an oracle with no ids is held to the
// creates the API answered.
func TestResourcesMadeAroundTheInterposer(t *testing.T) {
	answered := func(seq int, id string) wire.Exchange {
		return wire.Exchange{Seq: seq, Kind: wire.Create, Method: "POST", Forwarded: true, AnsweredBy: wire.AnsweredByAPI, Status: 201, ResourceID: id}
	}
	refused := wire.Exchange{Seq: 2, Kind: wire.Create, Method: "POST", AnsweredBy: wire.AnsweredByIdemspec, Status: 503}
	unanswered := wire.Exchange{Seq: 3, Kind: wire.Create, Method: "POST", Forwarded: true}
	for _, c := range []struct {
		name   string
		xs     []wire.Exchange
		fresh  []string
		n      int
		around bool
	}{
		{"every id on the wire", []wire.Exchange{answered(2, "r2")}, []string{"r2"}, 1, false},
		{"a retry sent to the API itself", []wire.Exchange{refused}, []string{"r2"}, 1, true},
		{"one id on the wire, one not", []wire.Exchange{answered(2, "r2")}, []string{"r2", "r3"}, 2, true},
		{"an answer that never came", []wire.Exchange{unanswered}, []string{"r3"}, 1, false},
		{"a count within the answered creates", []wire.Exchange{answered(2, "r2"), answered(3, "r2")}, nil, 2, false},
		{"a count over them", []wire.Exchange{answered(2, "r2")}, nil, 2, true},
		{"ids not read from the answers: counted", []wire.Exchange{answered(2, "")}, []string{"r9"}, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := &trial{wt: &wireTrial{baseline: []wire.Exchange{answered(1, "r1")}}}
			err := tr.onTheWire(c.xs, c.fresh, c.n)
			var around errAroundTheInterposer
			if errors.As(err, &around) != c.around {
				t.Errorf("error %v, want one: %v", err, c.around)
			}
		})
	}
}
