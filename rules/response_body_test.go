package rules

import "testing"

// TestResponseBodyDirectionForms: the sticky http.response_body makes a rule to_client, as
// DetectHttpServerBodySetupSticky sets SIG_FLAG_TOCLIENT and clears SIG_FLAG_TOSERVER; the
// same file.data buffer under its own name (file.data, file_data) and the http_server_body
// modifier (DetectEngineContentModifierBufferSetup, no direction) stay in both directions.
func TestResponseBodyDirectionForms(t *testing.T) {
	for _, tc := range []struct {
		rule               string
		toServer, toClient bool
	}{
		{`alert http any any -> any any (http.response_body; content:"x"; sid:1;)`, false, true},
		{`alert http any any -> any any (file.data; content:"x"; sid:1;)`, true, true},
		{`alert http any any -> any any (file_data; content:"x"; sid:1;)`, true, true},
		{`alert http any any -> any any (content:"x"; http_server_body; sid:1;)`, true, true},
		{`alert http any any -> any any (http.uri; content:"y"; sid:1;)`, true, false},
	} {
		r, err := Parse(tc.rule)
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		if r.ToServer != tc.toServer || r.ToClient != tc.toClient {
			t.Errorf("%s: to_server %v to_client %v, want %v %v", tc.rule, r.ToServer, r.ToClient, tc.toServer, tc.toClient)
		}
	}
}
