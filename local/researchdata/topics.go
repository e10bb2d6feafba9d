package researchdata

import (
	_ "embed"
	"encoding/json"
)

// topicsJSON is the corpus, as data: a list of Topic. Dates and facts
// follow the standard histories; the URLs are the pages' real addresses.
//
//go:embed topics.json
var topicsJSON []byte

var topics = decodeTopics(topicsJSON)

// decodeTopics reads the embedded corpus; it cannot fail once a test has
// run (TestCorpus reads every topic).
func decodeTopics(b []byte) []Topic {
	var ts []Topic
	if err := json.Unmarshal(b, &ts); err != nil {
		panic("researchdata: topics.json: " + err.Error())
	}
	return ts
}
