// Package aws is a stub of github.com/aws/aws-sdk-go-v2/aws.
package aws

type Retryer interface{ MaxAttempts() int }

type NopRetryer struct{}

func (NopRetryer) MaxAttempts() int { return 1 }
