package openapi

import (
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// An action on a parent (POST /orders/{order_id}/refunds) needs a parent
// that exists. When the document has the POST that creates it (POST
// /orders), init drafts a setup: request of it, which idemspec sends once
// per marker, and writes {{.Setup.order.ID_FIELD}} where the path
// parameter stood. A parameter whose parent cannot be drafted keeps its
// place in the path, with a TODO.

// setupPlan is a drafted item of setup:.
type setupPlan struct {
	name   string
	param  string    // the path parameter it stands for
	parent operation // the POST that makes the parent
	path   string    // the collection's path, earlier parameters replaced, a query key added
	body   body      // text "": no body
	header string    // the header that takes {{.Key}}, "" for none
	id     string    // the JSON path of the parent's id in the answer
	inBody bool      // param is a property of the body, not a path parameter
	ready  bool      // its body makes a parent the action can act on at once (a confirmed payment for a refund)
	// currency is the currency its body pays in, "" for none: an action
	// on it (a capture, a refund) must take the same.
	currency string
}

// currencyNames are the names of a currency code in a body.
var currencyNames = []string{"currency", "currency_code", "currencyCode"}

// currencyIn finds the first currency code a body's fields hold, and
// sets each to to when to is not "" (an action's amount in its parent's
// currency).
func currencyIn(v any, to string) string {
	found := ""
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if c, ok := v[k].(string); ok && slices.Contains(currencyNames, k) {
				if found == "" {
					found = c
				}
				if to != "" {
					v[k] = to
				}
				continue
			}
			if c := currencyIn(v[k], to); found == "" {
				found = c
			}
		}
	case []any:
		for _, e := range v {
			if c := currencyIn(e, to); found == "" {
				found = c
			}
		}
	}
	return found
}

// setupName is what a setup request may be called (targets' rule): a
// template field.
var setupName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// templateField is a name {{.Setup.NAME.FIELD}} can hold as FIELD.
var templateField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parents drafts a setup request for each of p's path parameters, the
// outermost first, and returns the create path with each parameter whose
// parent was drafted replaced by the parent's id. A parameter whose
// parent cannot be drafted gets a TODO saying why, and so does every
// parameter after it, whose parent's path holds it.
func (d *Document) parents(p *Plan) string {
	path := p.Path
	taken := map[string]bool{}
	blocked := ""
	for _, m := range pathParam.FindAllStringSubmatchIndex(p.Path, -1) {
		param := p.Path[m[2]:m[3]]
		why := "its parent's path holds {" + blocked + "}, whose parent could not be drafted"
		if blocked == "" {
			// The collection is the path before the parameter's segment.
			collection := p.Path[:strings.LastIndex(p.Path[:m[0]], "/")]
			var s *setupPlan
			if s, why = d.parentOf(param, collection, resourceName(p.Path), taken); s != nil {
				// The parent's path is the action's up to the collection,
				// with the parameters before it already replaced: only
				// the part before it has changed.
				s.path = path[:len(path)-len(p.Path)+len(collection)] + s.path
				p.setup = append(p.setup, *s)
				notReady(p, s)
				path = strings.Replace(path, "{"+param+"}", "{{.Setup."+s.name+"."+s.id+"}}", 1)
				continue
			}
			blocked = param
		}
		p.todo("create.path", "{%s} is a path parameter, and %s: put the id of a resource that exists in its place (the oracle's path too), "+
			"or add a setup: request that makes one and write its id as {{.Setup.NAME.FIELD}} (docs/TARGET-FILE.md#actions-on-a-parent)", param, why)
	}
	return path
}

// parentOf drafts the setup request of the parameter param, whose
// collection is the document's path collection: the collection's POST,
// its body built as a create's (the marker in a free string when there
// is one, the key where the POST declares it), and the id in its answer.
// Its path is only the query a key adds; why says what is missing when
// there is no setup.
func (d *Document) parentOf(param, collection, action string, taken map[string]bool) (*setupPlan, string) {
	if collection == "" || strings.HasSuffix(collection, "}") {
		return nil, "no collection precedes it whose POST would make its parent"
	}
	post, ok := d.postOn(collection)
	if !ok {
		return nil, "the document has no POST " + collection + " to make its parent"
	}
	what := "POST " + collection + ", which would make its parent,"
	resource := resourceName(collection)
	id := idField(success(post.op), resource)
	if id == "" {
		return nil, what + " declares no id in its 2xx answer"
	}
	for _, f := range strings.Split(id, ".") {
		if !templateField.MatchString(f) {
			return nil, what + " answers its id in " + id + ", which a template cannot name"
		}
	}
	s := &setupPlan{param: param, parent: post, id: id}
	contentType, mt := mediaType(post.op.RequestBody)
	var fields map[string]any
	if mt != nil {
		var why string
		if s.body, fields, _, why = startBody(contentType, mt, func(string) bool { return false }); why != "" {
			return nil, what + " has a body init cannot draft (" + why + ")"
		}
		if s.body.stopped != "" {
			return nil, what + " has a body init drafts only in part (" + s.body.stopped + ")"
		}
	}
	key, _ := declaredKey(parameters(post.item, post.op), s.body.schema)
	switch key.in {
	case openapi3.ParameterInHeader:
		s.header = key.name
	case openapi3.ParameterInQuery:
		s.path = "?" + url.QueryEscape(key.name) + "={{.Key}}"
	case "body":
		fields[key.name] = keySlot
	}
	if mt != nil {
		d.useTestValues(fields)
		s.ready = d.readyFor(action, s.body.schema, fields)
		l, _ := readListing(post.item.Get, post.item, resource)
		s.body.marker = placeMarker(s.body.schema, fields, key, l.filters)
		s.currency = currencyIn(fields, "")
		s.body.text = render(contentType, fields)
	}
	s.name = uniqueSetupName(param, resource, taken)
	return s, ""
}

// postOn is the POST on the document's path that matches path, whatever
// the names of their parameters.
func (d *Document) postOn(path string) (operation, bool) {
	shape := func(p string) string { return pathParam.ReplaceAllString(strings.TrimSuffix(p, "/"), "{}") }
	for _, op := range d.operations() {
		if op.method == "POST" && shape(op.path) == shape(path) {
			return op, true
		}
	}
	return operation{}, false
}

// uniqueSetupName names the setup of a path parameter: the parameter
// without its id suffix (order_id, orderId: order), else the
// collection's singular name, else "parent"; _2, _3 added when taken.
func uniqueSetupName(param, resource string, taken map[string]bool) string {
	name := ""
	for _, suffix := range []string{"_id", "Id", "ID"} {
		if n, ok := strings.CutSuffix(param, suffix); ok && setupName.MatchString(n) {
			name = n
			break
		}
	}
	if name == "" && setupName.MatchString(resource) {
		name = resource
	}
	return uniqueName(or(name, "parent"), "_", taken)
}

// writeSetup writes setup:, each request with a comment naming the
// operation it drafts.
func writeSetup(w *writer, setup []setupPlan) {
	if len(setup) == 0 {
		return
	}
	w.line("", "setup:")
	for _, s := range setup {
		param := "{" + s.param + "}"
		if s.inBody {
			param = "The body's " + s.param
		}
		w.comment("  ", "%s is the id of a parent made for each marker by %s (POST %s): its answer's %s.",
			param, operationID(s.parent.method, s.parent.path, s.parent.op), s.parent.path, s.id)
		w.field("  - ", "name", s.name)
		w.field("    ", "method", "POST")
		w.field("    ", "path", s.path)
		if s.body.text != "" {
			w.field("    ", "content_type", s.body.contentType)
			w.line("    ", "body: "+quote(s.body.text))
		}
		if s.header != "" {
			w.line("    ", "headers:")
			w.field("      ", s.header, "{{.Key}}")
		}
	}
	w.blank()
}

// parentNoun is the resource a body property names by its id
// (payment_id, orderId: payment, order), false for another property.
func parentNoun(name string) (string, bool) {
	if slices.Contains(actedOn, name) {
		return name, true // Stripe's refund's payment_intent
	}
	for _, suffix := range []string{"_id", "Id", "ID"} {
		if n, ok := strings.CutSuffix(name, suffix); ok && n != "" && setupName.MatchString(n) {
			return strings.ToLower(n), true
		}
	}
	return "", false
}

// collectionOf is the shortest path of a POST on a collection (no
// path parameter) of noun: /v2/payments for payment.
func (d *Document) collectionOf(noun string) (string, bool) {
	found := ""
	for _, op := range d.operations() {
		if op.method == "POST" && !strings.Contains(op.path, "{") && resourceName(op.path) == noun && (found == "" || len(op.path) < len(found)) {
			found = op.path
		}
	}
	return found, found != ""
}

// actedOn are the parents an operation acts on when its body names
// one (a refund's payment_id): a body drafted from an example keeps
// them, though the schema may not require them. A customer_id or a
// location_id is context the example made up, and is left out.
var actedOn = []string{"payment", "payment_intent", "order", "charge", "capture", "authorization", "invoice", "subscription", "transfer"}

// actions are the resources made by acting on a parent named in the
// body: a refund of a payment, a capture of an authorization.
var actions = []string{"refund", "capture", "reversal", "void", "cancellation", "dispute"}

// isParent says whether a body property names a parent an action acts
// on that a POST of the document makes: an action's draft keeps it,
// and bodyParents makes it. (A payment's order_id is context, not a
// parent it acts on: only an action, a refund, has one.)
func (d *Document) isParent(name string) bool {
	noun, ok := parentNoun(name)
	if !ok || !slices.Contains(actedOn, noun) {
		return false
	}
	_, ok = d.collectionOf(noun)
	return ok
}

// bodyParents drafts a setup request for each property of the body
// that names a parent a POST on a collection makes (Square's refund's
// payment_id, made by POST /v2/payments), and puts the parent's id in
// it, as a path parameter's parent gets.
func (d *Document) bodyParents(p *Plan, schema *openapi3.Schema, fields map[string]any) {
	if !slices.Contains(actions, resourceName(p.Path)) {
		return
	}
	taken := map[string]bool{}
	for _, s := range p.setup {
		taken[s.name] = true
	}
	// A body that names no parent it acts on, though its schema takes
	// one (Stripe's refund: charge or payment_intent), gets the first
	// the document can make.
	if !slices.ContainsFunc(slices.Collect(maps.Keys(fields)), d.isParent) {
		for _, noun := range actedOn {
			for _, name := range []string{noun, noun + "_id"} {
				if property(schema, name) != nil && d.isParent(name) && len(p.setup) == 0 {
					fields[name] = "" // made below
				}
			}
			if len(fields) > 0 && slices.ContainsFunc(slices.Collect(maps.Keys(fields)), d.isParent) {
				break
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		noun, ok := parentNoun(name)
		if !ok || p.key.in == "body" && name == p.key.name {
			continue
		}
		collection, ok := d.collectionOf(noun)
		if !ok || collection == p.Path {
			continue
		}
		s, why := d.parentOf(name, collection, resourceName(p.Path), taken)
		if s == nil {
			p.todo("create.body", "%s names a parent, and %s: put the id of one that exists", name, why)
			continue
		}
		s.path, s.inBody = collection+s.path, true
		p.setup = append(p.setup, *s)
		notReady(p, s)
		ref := "{{.Setup." + s.name + "." + s.id + "}}"
		if k := kind(property(schema, name)); k == openapi3.TypeInteger || k == openapi3.TypeNumber {
			fields[name] = slot{ref, ref}
		} else {
			fields[name] = slot{`"` + ref + `"`, ref}
		}
	}
}

// readyFor makes a parent's body what the action on it needs, where
// its schema says how: a payment made to be captured waits for it
// (capture_method=manual), and a payment to capture or refund is
// confirmed at once (confirm=true, with the API's test payment method),
// for an amount above any the action sends (each variant up to a few
// hundred, in cents where the amount is in the smallest unit).
func (d *Document) readyFor(action string, schema *openapi3.Schema, fields map[string]any) bool {
	if action != "capture" && action != "refund" {
		return true
	}
	if p := property(schema, "capture_method"); action == "capture" && p != nil && slices.Contains(p.Enum, any("manual")) {
		fields["capture_method"] = "manual"
	}
	ready := false
	if kind(property(schema, "confirm")) == openapi3.TypeBoolean {
		fields["confirm"] = true
		if v, ok := d.testValue("payment_method"); ok && property(schema, "payment_method") != nil {
			fields["payment_method"] = v
			ready = true
		}
	}
	big := func(name string, p *openapi3.Schema) bool {
		return kind(p) == openapi3.TypeInteger && strings.Contains(strings.ToLower(name), "amount") && minorUnits(p)
	}
	place(schema, fields, big, variantNames, slot{"100000", "100000"})
	return ready
}

// notReady notes a parent a capture acts on whose POST alone may not
// make one to capture (PayPal's order waits for a payer's approval),
// when readyFor found nothing in its schema to make it so. (A payment
// made as its POST makes it can be refunded: a refund gets no TODO.)
func notReady(p *Plan, s *setupPlan) {
	if !s.ready && resourceName(p.Path) == "capture" {
		p.todo("create.path", "a capture acts on what %s makes, and its document does not say how to make one ready to capture (authorized, approved by a payer): check that the setup's %s can be captured, or make it so in its body", operationID(s.parent.method, s.parent.path, s.parent.op), s.name)
	}
}
