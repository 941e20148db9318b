// Package retrygrpc retries gRPC calls with client interceptors that run every call through
// package retry's loop: the same [retry.Policy], Decide, decision records, metrics, circuit
// breaker and retry budget as HTTP calls through package retryhttp, with nothing
// re-implemented. It is a module of its own, so that the retry library itself stays on the
// standard library.
//
// # Setup
//
//	ic, err := retrygrpc.New(retrygrpc.WithPolicy(&retry.Policy{MaxAttempts: 4}))
//	if err != nil {
//		return err
//	}
//	conn, err := grpc.NewClient(target, append(ic.DialOptions(),
//		grpc.WithTransportCredentials(creds))...)
//
// [Interceptor.DialOptions] adds the unary and stream interceptors and
// grpc.WithDisableRetry(). To chain them yourself use grpc.WithChainUnaryInterceptor(ic.Unary)
// and grpc.WithChainStreamInterceptor(ic.Stream), and dial with grpc.WithDisableRetry() too
// (then say so with [WithGRPCRetryDisabled]).
//
// # What is retried
//
// By default UNAVAILABLE, and RESOURCE_EXHAUSTED when the server asks for a wait (AIP-194);
// [WithCodes] and [WithPushbackCodes] change the sets, for the client or, given as call
// options, for one call. Never retried: OK, CANCELLED, a DEADLINE_EXCEEDED of the caller's
// deadline or of the policy's Timeout (the loop stops with deadline_exceeded), and by
// default INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
// FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, DATA_LOSS,
// UNAUTHENTICATED and UNKNOWN: those come back at once, as the server sent them. A
// DEADLINE_EXCEEDED of the policy's AttemptTimeout, with time left, is retried: ending a
// hung attempt early is what that timeout is for.
//
// # Writes and unknown outcomes
//
// gRPC has no safe methods, so every call counts as a write unless declared idempotent: by
// [WithIdempotentMethods], by the per-call option [Idempotent], by its proto's
// idempotency_level (NO_SIDE_EFFECTS or IDEMPOTENT, read from the descriptor that generated
// code registers), or by an idempotency key in its outgoing metadata ([WithIdempotencyKey],
// default "idempotency-key"; the server's key contract makes a repeat safe;
// [WithAutoIdempotencyKey] gives every other call one). A call that is
// none of these is retried only when the failure guarantees that the server did not process
// it:
//   - the attempt never reached a server: grpc-go found no connection and opened no stream
//     (typically UNAVAILABLE while the server is down), as the attempt's peer shows;
//   - the server declined the call: a retried code (UNAVAILABLE, RESOURCE_EXHAUSTED) with a
//     server-requested wait (pushback trailer or RetryInfo), as HTTP's 503 or 429 with
//     Retry-After. Without the wait RESOURCE_EXHAUSTED may be grpc-go's own, given after the
//     server processed the call (a reply larger than grpc.MaxCallRecvMsgSize), and
//     UNAVAILABLE may follow a call the server applied, so they count as any other failure
//     below.
//
// Any other retryable failure (UNAVAILABLE from a server, a DEADLINE_EXCEEDED of the
// attempt's timeout, or a code added with WithCodes) may have been applied: the loop stops
// with unknown_outcome (errors.Is(err, retry.ErrUnknownOutcome)) instead of sending the
// write again, as for HTTP, and the error's text says how to declare the method idempotent.
// So with no options an undeclared method answered UNAVAILABLE by a server makes one call.
//
// # Server-requested waits (pushback)
//
// The grpc-retry-pushback-ms trailer (gRFC A6) and a google.rpc.RetryInfo status detail (its
// retry_delay) are treated exactly as HTTP's Retry-After: the next attempt comes no sooner
// (plus the policy's RetryAfterSpread); a wait that does not fit before the deadline stops
// the loop at once with retry_after_exceeds_deadline, one above MaxWait with
// retry_after_exceeds_max_wait, the server's status kept in the error. When both ask, the
// longer wait counts. The trailer is read as A6 writes it, a signed 32-bit count of
// milliseconds without unnecessary leading zeros ("250"; not "007", "+5" or "2147483648").
//
// A negative or malformed pushback, or more than one trailer value, asks not to retry,
// whatever the code, and so does a negative or invalid RetryInfo delay on a code the call
// retries: the loop stops with non_retryable_error, and the status is returned as it came. As A6 says, the attempt counts as a failure
// for the retry budget (a TokenBucket loses a token), and for the circuit breaker too,
// although its class is a decisive answer, unless it is a throttle (below); the record names it: "grpc_retry_pushback_ms"
// holds the trailer's value ("-1"; several joined by ","; "malformed" when it is not made of
// digits, signs and dots), "retry_info_delay" says "negative" or "invalid".
//
// # Deadlines
//
// Each attempt's context has the deadline min(attempt start + AttemptTimeout, loop
// deadline), the loop deadline being the earlier of the caller's context deadline and the
// policy's Timeout (default 30 s); grpc-go sends it to the server as grpc-timeout. No wait
// starts that leaves no useful attempt (MinAttemptTime) before the deadline: the call
// returns at once with the last status (wait_exceeds_deadline).
//
// # Streams
//
// A server-streaming call is retried until its first header arrives (a server sends its
// header with, or before, its first message): the loop runs on the stream's first Header or
// RecvMsg call; each attempt opens the stream, sends the request and waits for the header.
// From then on the stream is committed: it belongs to the caller and its failures come back
// as they are, never retried, since messages were delivered. The policy's deadlines bound the
// attempts only until the header; the committed stream lives as long as the caller's
// context.
//
// The committing attempt ends when the stream does: when RecvMsg returns io.EOF (a success)
// or an error, or when the caller's context ends. Only then does the loop make its last
// decision, so that the record, the metrics, the breaker and the budget see how the stream
// ended: a failure is recorded with reason non_retryable_error and "committed":true, and
// counts as a failure for the breaker and the budget when its code is one the call retries.
// The loop waits for that end in a coroutine (iter.Pull) that holds no more than the
// stream's own state; as grpc-go asks, read a stream to its end or end its context.
//
// Client-streaming and bidirectional calls pass through untouched: one attempt, the caller's
// context, no deadline, breaker or budget of the policy's. When the policy has an OnDecision
// observer, the stream's opening gets a record with "passthrough":true.
//
// # Double retries
//
// A service config with a retryPolicy makes grpc-go retry by itself, under the
// interceptors, which would multiply attempts (4 of grpc-go's under each of 3 of ours make
// 12). When a call's method has such a policy and the connection was not dialed with
// grpc.WithDisableRetry() (as DialOptions does, or as WithGRPCRetryDisabled declares), the
// interceptor makes a single attempt and leaves retrying to grpc-go, marks its records
// "inner_retries":true and logs a warning once, on slog's default logger (slog.Default).
// Dial with grpc.WithDisableRetry() to retry under the policy instead: it knows deadlines,
// budgets and pushback for writes.
//
// # Per attempt
//
// Every attempt carries the metadata "retry-attempt: N" (AttemptMetadataKey), 1 for the
// first; passthrough streams are left untouched. grpc-go reserves grpc-previous-rpc-attempts
// for its own retries; this package never sets it.
//
// # Hedging
//
// grpc-go has no hedging of its own (gRPC's hedgingPolicy, gRFC A6, exists in Java and
// .NET). With a Hedger, from the policy's Hedge or one per target and method from
// [WithHedging] (a hedge.Group), a unary call that has had no answer for the Hedger's delay
// gets a hedge: the same call sent again while the first is in flight, carrying
// "retry-attempt: N" and "retry-hedge: 1" ([HedgeMetadataKey]), whose reply is used if it
// comes first; the other is canceled, and the call returns once both have. Only a call that
// may be sent twice is hedged (an idempotent method, or an idempotency key, the same on the
// hedge), whose reply is a proto.Message (each hedge reads into a message of its own; the
// winner's is merged into the caller's reply), and whose options read back no header,
// trailer or peer (grpc.Header, grpc.Trailer, grpc.Peer: attempts running at once would
// write them together). Streams are not hedged. A hedge goes through the same connection
// and balancer as the call: with round_robin it may reach another backend, with pick_first
// it reaches the same one. It counts against the retry budget as a retry and is refused
// while the breaker is OPEN, after a pushback, or when the deadline leaves less than the
// delay.
//
// # Breakers, budgets, records
//
// [WithBreakers] and [WithBudgets] keep one circuit breaker and one retry budget per
// connection target (grpc.ClientConn.Target), not per backend. Without WithBudgets, a policy
// whose Budget is nil gives every target the default retry budget (a budget.Quota: 20
// retries, one back per success), shared by the interceptor's calls to that target;
// retry.NoBudget turns it off. RESOURCE_EXHAUSTED from the service is a throttle
// (retry.Outcome.Throttled, the record's "throttled": a quota or rate limit of the caller's
// is spent, the service works): no breaker counts it as a failure, and no budget as a failure
// or a success (see packages breaker and budget); grpc-go's own RESOURCE_EXHAUSTED for a
// message over a size limit is none. A server's wait (pushback, RetryInfo) on the attempt
// that opens a breaker sets its open time (breaker.Breaker.DoneRetryAfter). An interceptor runs before
// the balancer picks a backend, so for a target such as "dns:///orders" one sick backend
// counts against the breaker of every backend behind it, and enough failures open it for all.
// To take one backend out of rotation, use grpc-go's outlier detection (gRFC A50), which
// works without an xDS control plane: import google.golang.org/grpc/xds (it registers the
// outlier_detection_experimental balancer) and give the channel a service config such as
//
//	{"loadBalancingConfig": [{"outlier_detection_experimental": {"interval": "10s",
//	  "failurePercentageEjection": {"threshold": 50, "enforcementPercentage": 100, "minimumHosts": 2},
//	  "childPolicy": [{"round_robin": {}}]}}]}
//
// The two work together (a test shows it): while the sick backend still gets calls, each
// one's retry goes to another backend, and once ejected it gets none; the breaker opens only
// when the target as a whole fails.
//
// Every decision record of a call names it by method, the full gRPC method
// ("/pkg.Service/Method"), right after attempt, also a stop decided before any attempt (an
// open breaker's refusal). After the record's own fields an attempt's record adds
// grpc_code, the code's name ("UNAVAILABLE"); grpc_retry_pushback_ms or retry_info_delay
// for a server that asked not to retry; and, when true, passthrough, committed and
// inner_retries. A server's wait is named in retry_after_from: "grpc-retry-pushback-ms" or
// "retry-info". The rest of the record is the same as for HTTP.
//
// # Errors
//
// A call returns nil on success and the server's status as it came for a code that is not
// retried. When the policy stops the loop otherwise, the error's text is the loop's summary
// ("retry: attempts_exhausted after 3 attempts in 1.2s: rpc error: ..."), errors.As reaches
// a *retry.Error, errors.Is matches retry.ErrAttemptsExhausted and the other sentinels, and
// its gRPC status (GRPCStatus, which status.Code and status.FromError read) is the last
// attempt's, code, message and details unchanged, so that a server may return the error to
// its own caller as it is. Two kinds of stop report a status of their own instead:
//   - the caller's context ended the loop, during an attempt or during a wait between
//     attempts: CANCELLED "context canceled" when it was canceled (reason canceled),
//     DEADLINE_EXCEEDED "context deadline exceeded" when the caller's deadline passed
//     (reason deadline_exceeded), whatever the last attempt's code, as grpc-go and
//     go-grpc-middleware report it;
//   - no attempt ran: UNAVAILABLE for an open circuit breaker or an exhausted retry budget,
//     UNKNOWN otherwise, with the loop's summary as the message.
//
// A stop that the policy foresaw before the deadline came (wait_exceeds_deadline,
// retry_after_exceeds_deadline: the next wait does not fit) returns at once with the last
// attempt's status, since the caller's context has not ended. In every case errors.As
// reaches the *retry.Error, and its Err field the last attempt's status.
//
// # Tracing with otelgrpc
//
// otelgrpc traces through a stats handler (grpc.WithStatsHandler(otelgrpc.NewClientHandler())),
// which sees every stream grpc-go opens: with these interceptors that is one span per
// attempt, whatever the option order (a test checks it). An
// interceptor-based tracer or logger sees every attempt when chained after (inside) the
// retry interceptors, and the whole call when chained before them: grpc-go runs chained
// interceptors in the order given, the first outermost.
package retrygrpc
