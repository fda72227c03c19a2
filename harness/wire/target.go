package wire

import (
	"net/http"

	"github.com/idemspec/idemspec/targets"
)

// OperationsOf are the calls a target file describes: each operation's
// create (method, path, key placement, id_field) and, where it has one,
// its look-up of a key.
func OperationsOf(t *targets.Target) []Operation {
	var ops []Operation
	for _, op := range t.Each() {
		ops = append(ops, Operation{Name: op.Operation, Kind: Create, Method: op.Create.Method, Path: op.Create.Path, KeyOf: op.KeyOf, IDOf: op.ResourceID})
		if op.LookupPath != "" {
			ops = append(ops, Operation{Name: op.Operation, Kind: Lookup, Method: http.MethodGet, Path: op.LookupPath})
		}
	}
	return ops
}
