package llm

import (
	"fmt"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// The schema types used for tool arguments.
const (
	TypeObject  = "object"
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeArray   = "array"
	TypeNull    = "null"
)

// Schema is the JSON schema of a tool's arguments: the subset function calling
// uses. It encodes to the same JSON as go-openai's jsonschema.Definition, whose
// generator and validator it is converted to inside this package.
type Schema struct {
	Type        string   `json:"type,omitempty"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	// Properties of an object.
	Properties map[string]Schema `json:"properties,omitempty"`
	// Required properties of an object.
	Required []string `json:"required,omitempty"`
	// Items is the schema of an array's elements.
	Items *Schema `json:"items,omitempty"`
	// AdditionalProperties is a bool or a Schema.
	AdditionalProperties any               `json:"additionalProperties,omitempty"`
	Nullable             bool              `json:"nullable,omitempty"`
	Ref                  string            `json:"$ref,omitempty"`
	Defs                 map[string]Schema `json:"$defs,omitempty"`
	AnyOf                []Schema          `json:"anyOf,omitempty"`
}

// SchemaFor derives the schema of v's type from its fields: the json tag
// names a property (",omitempty" makes it optional), the description and enum
// (comma-separated) tags describe it, required and nullable override.
func SchemaFor(v any) (Schema, error) {
	d, err := jsonschema.GenerateSchemaForType(v)
	if err != nil {
		return Schema{}, fmt.Errorf("llm: schema for %T: %w", v, err)
	}
	return fromDefinition(*d), nil
}

// Decode checks the JSON arguments data against s and decodes them into v.
func (s Schema) Decode(data []byte, v any) error {
	return jsonschema.VerifySchemaAndUnmarshal(s.definition(), data, v)
}

func (s Schema) definition() jsonschema.Definition {
	d := jsonschema.Definition{
		Type:                 jsonschema.DataType(s.Type),
		Description:          s.Description,
		Enum:                 s.Enum,
		Required:             s.Required,
		AdditionalProperties: s.AdditionalProperties,
		Nullable:             s.Nullable,
		Ref:                  s.Ref,
		Properties:           mapValues(s.Properties, Schema.definition),
		Defs:                 mapValues(s.Defs, Schema.definition),
	}
	switch ap := s.AdditionalProperties.(type) {
	case Schema:
		d.AdditionalProperties = ap.definition()
	case *Schema:
		if ap != nil {
			d.AdditionalProperties = ap.definition()
		}
	}
	if s.Items != nil {
		it := s.Items.definition()
		d.Items = &it
	}
	for _, a := range s.AnyOf {
		d.AnyOf = append(d.AnyOf, a.definition())
	}
	return d
}

func fromDefinition(d jsonschema.Definition) Schema {
	s := Schema{
		Type:                 string(d.Type),
		Description:          d.Description,
		Enum:                 d.Enum,
		Required:             d.Required,
		AdditionalProperties: d.AdditionalProperties,
		Nullable:             d.Nullable,
		Ref:                  d.Ref,
		Properties:           mapValues(d.Properties, fromDefinition),
		Defs:                 mapValues(d.Defs, fromDefinition),
	}
	switch ap := d.AdditionalProperties.(type) {
	case jsonschema.Definition:
		s.AdditionalProperties = fromDefinition(ap)
	case *jsonschema.Definition:
		if ap != nil {
			s.AdditionalProperties = fromDefinition(*ap)
		}
	}
	if d.Items != nil {
		it := fromDefinition(*d.Items)
		s.Items = &it
	}
	for _, a := range d.AnyOf {
		s.AnyOf = append(s.AnyOf, fromDefinition(a))
	}
	return s
}

// mapValues converts the values of m, keeping nil as nil and empty as empty.
func mapValues[A, B any](m map[string]A, f func(A) B) map[string]B {
	if m == nil {
		return nil
	}
	out := make(map[string]B, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}
