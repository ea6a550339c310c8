package validate

import (
	"bytes"
	"os"
	"slices"
	"testing"
)

func TestDocumentSchemaIsTheContractCopy(t *testing.T) {
	contract, err := os.ReadFile("../../contract/document.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(contract, documentSchemaJSON) {
		t.Fatal("document.schema.json differs from servers/contract/document.schema.json: copy it again")
	}
}

func TestValidatorCountsDistinctFailingLocations(t *testing.T) {
	dv, err := New()
	if err != nil {
		t.Fatal(err)
	}
	got, err := dv.Validate([]byte(`{"id":"x","createdAt":"2024-01-01","status":"paid","customer":{"name":"A","email":"a@b.co"},"items":[{"sku":"ABC-1234","quantity":1,"unitPriceCents":-1.5}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/id", "/items/0/unitPriceCents"} // type and minimum fail at one place: counted once
	if got.Valid || got.ErrorCount != 2 || !slices.Equal(got.ErrorPaths, want) {
		t.Fatalf("got %+v", got)
	}
}
