// Package openapi drafts a target file from an OpenAPI 3.0 or 3.1
// document: for each chosen idempotent operation, the create request
// (method, path, a body holding {{.Marker}} and {{.Variant}}), where the
// key goes, the id in the answer and a list oracle from the collection's
// GET, and for an action on a parent (POST /orders/{order_id}/refunds)
// the setup: request that makes the parent, from the POST on its
// collection. One operation is the file's create:; several share its
// base_url and headers, each an item of operations:.
//
// What the document does not say is written as a "# TODO:" comment next
// to the field, and a field that cannot be filled at all is left out, so
// that `idemspec validate` names it. The package only reads the document
// (through kin-openapi, with references to other files and URLs refused):
// it never contacts the API it describes.
package openapi
