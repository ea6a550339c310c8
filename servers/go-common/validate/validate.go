// Package validate is validate_document (CONTRACT.md section 4) as every Go server runs it: the
// contract's schema and formats on santhosh-tekuri/jsonschema v6, failing locations as JSON Pointers.
package validate

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// documentSchemaJSON is a copy of servers/contract/document.schema.json, since go:embed reads only
// inside its module; a test keeps the two byte-identical.
//
//go:embed document.schema.json
var documentSchemaJSON []byte

// contractFormats are the format definitions of CONTRACT.md. They replace the
// library's own so every runtime asserts exactly the same rules.
var contractFormats = map[string]*regexp.Regexp{
	"uuid":  regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`),
	"date":  regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$`),
	"email": regexp.MustCompile(`^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$`),
}

// Result is validate_document's answer.
type Result struct {
	Valid      bool     `json:"valid"`
	ErrorCount int      `json:"error_count"`
	ErrorPaths []string `json:"error_paths"`
}

// Validator holds the schema, compiled once at start.
type Validator struct{ schema *jsonschema.Schema }

// New compiles the contract's document schema.
func New() (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(documentSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for name, re := range contractFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			if s, ok := v.(string); ok && !re.MatchString(s) {
				return fmt.Errorf("not a valid %s", name)
			}
			return nil
		}})
	}
	if err := c.AddResource("document.schema.json", doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile("document.schema.json")
	if err != nil {
		return nil, err
	}
	return &Validator{schema: sch}, nil
}

// Validate reports the distinct instance locations (JSON Pointers, sorted by
// byte order) where at least one leaf keyword failed.
func (v *Validator) Validate(raw []byte) (Result, error) {
	instance, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Result{}, err
	}
	err = v.schema.Validate(instance)
	if err == nil {
		return Result{Valid: true, ErrorPaths: []string{}}, nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return Result{}, err
	}
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			seen[jsonPointer(e.InstanceLocation)] = true
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(verr)
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return Result{Valid: false, ErrorCount: len(paths), ErrorPaths: paths}, nil
}

func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
