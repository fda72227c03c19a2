package targets_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemspec/idemspec/targets"
)

// A program's own payload is counted by the oracle through the field
// where the file's body puts {{.Marker}}.
func TestMarkerOfAProgramsBody(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.yaml")
	os.WriteFile(file, []byte(`name: shop
base_url: http://127.0.0.1:1
create:
  path: /orders
  body: '{"order":{"ref":"ord-{{.Marker}}"},"amount":{{.Variant}}}'
  id_field: id
oracle:
  list:
    path: /orders?ref=ord-{{.Marker}}
    items: items
`), 0o600)
	tg, err := targets.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for body, want := range map[string]string{
		`{"order":{"ref":"ord-42"},"amount":5}`: "42",
		`{"order":{"ref":"other"}}`:             "",
		`{"amount":5}`:                          "",
		`not json`:                              "",
	} {
		got, found := tg.MarkerOf([]byte(body))
		if got != want || found != (want != "") {
			t.Errorf("MarkerOf(%s) = %q, %v; want %q", body, got, found, want)
		}
	}
}
