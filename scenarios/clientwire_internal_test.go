package scenarios

import (
	"encoding/json"
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
