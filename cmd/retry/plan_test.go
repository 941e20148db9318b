package main

import (
	"encoding/json"
	"testing"
)

func TestPlanSeed000Schedule(t *testing.T) {
	code, stdout, stderr := runCLI(t, "plan", "--attempts", "6", "--base", "1s", "--backoff", "exponential", "--jitter", "additive")
	want := `policy: exponential base=1s max=30s jitter=additive additive_max=1s, 6 attempts, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        1s            1.567s       2s          yes
3        2s            2.746s       5s          yes
4        4s            4.971s       10s         yes
5        8s            8.444s       19s         yes
6        16s           16.444s      36s         no
Worst case: attempt 6 starts by 36s, after --timeout 30s: from attempt 6 on, the loop may stop with wait_exceeds_deadline.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}
}

func TestPlanExponentialCeilingsCapped(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--base", "500ms", "--max-delay", "8s", "--attempts", "7", "--jitter", "none")
	want := `policy: exponential base=500ms max=8s jitter=none, 7 attempts, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        0.5s          0.5s         0.5s        yes
3        1s            1s           1.5s        yes
4        2s            2s           3.5s        yes
5        4s            4s           7.5s        yes
6        8s            8s           15.5s       yes
7        8s            8s           23.5s       yes
Worst case: attempt 7 starts by 23.5s; all 7 attempts fit --timeout 30s.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}

func TestPlanAttemptTimeoutMaxWaitAndMaybe(t *testing.T) {
	// Full jitter: the best case waits nothing, so an attempt that misses the timeout only
	// in the worst case is "maybe"; waits above --max-wait are shortened to it.
	code, stdout, _ := runCLI(t, "plan", "--attempts", "4", "--base", "2s", "--max-wait", "3s",
		"--attempt-timeout", "1s", "--timeout", "8s", "--seed", "3")
	want := `policy: exponential base=2s max=30s jitter=full, 4 attempts, --timeout 8s, --max-wait 3s, --attempt-timeout 1s, seed 3
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
2        2s            0.227s       3s          yes
3        4s            2.801s       7s          yes
4        8s            3s           11s         maybe
Worst case: attempt 4 starts by 11s, after --timeout 8s: from attempt 4 on, the loop may stop with wait_exceeds_deadline.
A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}

func TestPlanJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--attempts", "3", "--base", "1s", "--jitter", "none", "--timeout", "none", "--json")
	want := `{"policy":"exponential base=1s max=30s jitter=none","attempts":3,"max_wait_ms":30000,"seed":1,"schedule":[` +
		`{"attempt":1,"worst_case_ms":0,"fits":"yes"},` +
		`{"attempt":2,"wait_ceiling_ms":1000,"draw_ms":1000,"wait_min_ms":1000,"wait_max_ms":1000,"worst_case_ms":1000,"fits":"yes"},` +
		`{"attempt":3,"wait_ceiling_ms":2000,"draw_ms":2000,"wait_min_ms":2000,"wait_max_ms":2000,"worst_case_ms":3000,"fits":"yes"}]}` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
	if !json.Valid([]byte(stdout)) {
		t.Error("not JSON")
	}
}

func TestPlanDecorrelatedCeilingIsTheMostAWaitCanBe(t *testing.T) {
	_, stdout, _ := runCLI(t, "plan", "--attempts", "4", "--base", "1s", "--max-delay", "5s", "--jitter", "decorrelated", "--json")
	var pl plan
	if err := json.Unmarshal([]byte(stdout), &pl); err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{3000, 5000, 5000} {
		s := pl.Schedule[i+1]
		if *s.CeilingMS != want || *s.WaitMaxMS != want || *s.DrawMS < 1000 || *s.DrawMS > want {
			t.Errorf("attempt %d: ceiling %v, max %v, draw %v; want ceiling and max %v", s.Attempt, *s.CeilingMS, *s.WaitMaxMS, *s.DrawMS, want)
		}
	}
}

func TestPlanOneAttemptIsSingular(t *testing.T) {
	code, stdout, _ := runCLI(t, "plan", "--attempts", "1", "--jitter", "none")
	want := `policy: exponential base=100ms max=30s jitter=none, 1 attempt, --timeout 30s, --max-wait 30s, seed 1
attempt  wait ceiling  seeded draw  worst case  fits --timeout
1        -             -            0s          yes
Worst case: attempt 1 starts by 0s; it fits --timeout 30s.
Attempts count as instant (set --attempt-timeout to count them). A server's Retry-After can make a wait longer, up to --max-wait.
`
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
	}
}
