package awswire_test

import (
	"testing"

	"github.com/insightedge/insightedge/shared/errtest"
	"github.com/insightedge/insightedge/shared/wire/awswire"
)

// env is a getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestConfigFromEnv(t *testing.T) {
	cases := []struct {
		name    string
		vars    map[string]string
		wantErr string
		want    awswire.Config
	}{
		{name: "table only", vars: map[string]string{"TABLE_NAME": "t"},
			want: awswire.Config{Table: "t", ConversationExpress: true}},
		{name: "standard machine, dev auth", vars: map[string]string{"TABLE_NAME": "t", "CONVERSATION_STATE_MACHINE_TYPE": "standard", "AUTH_ALLOW_DEV": "true", "BUCKET_NAME": " b "},
			want: awswire.Config{Table: "t", Bucket: "b", AllowDevAuth: true}},
		{name: "the seed's data service setting", vars: map[string]string{"TABLE_NAME": "t", "SPRING_BOOT_BASE_URL": "https://java.example"},
			want: awswire.Config{Table: "t", ConversationExpress: true, Data: true}},
		{name: "table missing", vars: map[string]string{}, wantErr: "TABLE_NAME"},
		{name: "machine type unknown", vars: map[string]string{"TABLE_NAME": "t", "CONVERSATION_STATE_MACHINE_TYPE": "fast"}, wantErr: "CONVERSATION_STATE_MACHINE_TYPE"},
		{name: "dev auth not a boolean", vars: map[string]string{"TABLE_NAME": "t", "AUTH_ALLOW_DEV": "yes"}, wantErr: "AUTH_ALLOW_DEV"},
		{name: "log level unknown", vars: map[string]string{"TABLE_NAME": "t", "LOG_LEVEL": "loud"}, wantErr: "LOG_LEVEL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := awswire.ConfigFromEnv(env(c.vars))
			if errtest.Expect(t, err, c.wantErr) {
				return
			}
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
