package openapi

import "github.com/getkin/kin-openapi/openapi3"

// Spec is the document as kin-openapi read it, for the tests that
// validate drafted requests against it.
func (d *Document) Spec() *openapi3.T { return d.t }
