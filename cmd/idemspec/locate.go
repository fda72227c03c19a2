package main

import (
	"github.com/idemspec/idemspec/reports"
	"github.com/idemspec/idemspec/targets"
)

// locate sets each check's Location: the line of the target file its
// finding is about, so code scanning annotates that line. A check is
// about the field its rule lives in: the key checks about key:, the
// restart checks about process: (or restart:), T1 about the second
// tenant's headers, the replay checks about the create's id_field, K6
// about fail_trigger, and the rest about the create's path; each falls
// back to the create's path when its own field is not in the file (a
// default). Nothing is set without a file.
func locate(r *reports.Report, file string) {
	if file == "" {
		return
	}
	for i := range r.Checks {
		c := &r.Checks[i]
		for _, field := range aboutFields(c.ID) {
			if line := targets.FieldLine(file, c.Operation, field); line > 0 {
				c.Location = &reports.Location{File: file, Line: line, Field: field}
				break
			}
		}
	}
}

// aboutFields are the fields of the target file a check's finding is
// about, the first that the file holds winning.
func aboutFields(id string) []string {
	switch id {
	case "K1", "K1a", "K2", "K2a":
		return []string{"key", "create.path", "operations"}
	case "S2", "K4":
		return []string{"create.id_field", "create.path", "operations"}
	case "S5a", "S5b":
		return []string{"process", "restart", "create.path", "operations"}
	case "T1":
		return []string{"tenants[1].headers", "tenants", "create.path", "operations"}
	case "K6":
		return []string{"fail_trigger", "create.path", "operations"}
	}
	return []string{"create.path", "operations"}
}
