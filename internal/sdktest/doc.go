// Package sdktest measures our retryhttp.Transport under the official LLM SDKs (issue 32):
// openai-go, anthropic-sdk-go v1 and v2 call local servers that behave as OpenAI's and
// Anthropic's APIs do under trouble (package fakeapi), each scenario once with the SDK
// alone and once with the SDK over our Transport, inside testing/synctest bubbles, so that
// seconds of rate-limit windows and a 30 s outage run on a fake clock, in well under a
// second each.
//
// It is a module of its own, never published (RELEASING.md), so that the SDKs are
// requirements of this test module only. Its tests, all in _test.go files:
//
//   - TestReport prints issue 32's table for each SDK, the SDK alone beside ours, as
//     markdown rows: go test -v -run TestReport ./internal/sdktest
//   - the TestTarget tests assert the targets; they skip until targetsMet
//     (targets_test.go) is set to true;
//   - TestSDKRetries and TestSDKErrors pin what each SDK alone does with each answer, as
//     SDKS.md states it from their code;
//   - the TestREADME tests (readme_*_test.go) keep the root README's "Calling LLM APIs"
//     true: its Go blocks are code of readme_wiring_test.go and readme_v2_test.go, its log
//     lines what stdobs.SlogObserver prints, and its table of what each SDK does with each
//     of our answers what the SDKs do over its wiring.
//
// ours (ours_test.go) is the one place that builds our Transport for the scenarios.
package sdktest
