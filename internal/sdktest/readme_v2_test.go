package sdktest

import (
	"github.com/anthropics/anthropic-sdk-go/v2" // v2: package anthropic too
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
)

import "net/http"

// readmeClaudeV2 is the README's anthropic-sdk-go v2 client over the same retryhttp client:
// the line of readmeWiring, under v2's import paths (TestREADMEGoBlocks).
func readmeClaudeV2(llm *http.Client) anthropic.Client {
	claude := anthropic.NewClient(anthropicoption.WithHTTPClient(llm)) // reads ANTHROPIC_API_KEY
	return claude
}
