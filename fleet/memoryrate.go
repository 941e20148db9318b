package fleet

import "time"

// memoryRate is a rate group key's data in a MemoryStore.
type memoryRate struct {
	quotas  map[string]memoryQuota  // the fleet's view of each quota
	hold    time.Time               // the fleet's longest hold; zero: none
	demands map[string]memoryDemand // by replica
	since   time.Time               // the demands have been kept without a gap since then
}

// memoryQuota is a quota's view, with its reset on the store's clock.
type memoryQuota struct {
	limit     int64
	window    time.Duration
	remaining int64     // negative: no current window
	reset     time.Time // zero: none
	until     time.Time // forgotten after
}

// memoryDemand is a replica's demand, counted until then.
type memoryDemand struct {
	own   int64
	until time.Time
}

// exchangeRate is Exchange for a rate group (x.Rate set): each key's views merged by
// MergeQuota, the holds by the latest, the replica's demand recorded (or, Final, ended), and
// its part by RatePart. It returns how many replicas' demands the parts count.
func (s *memoryKey) exchangeRate(x *Exchange, k *Key, now time.Time) int {
	r := &s.rate
	if r.quotas == nil {
		r.quotas, r.demands = make(map[string]memoryQuota), make(map[string]memoryDemand)
	}
	r.forget(now)
	for _, in := range k.Quotas {
		q := MergeQuota(r.quotas[in.Name].at(in.Name, now), in)
		r.quotas[in.Name] = memoryQuotaOf(q, now)
	}
	if k.Hold > 0 {
		r.hold = later(r.hold, now.Add(k.Hold))
	}
	if len(r.demands) == 0 {
		r.since = now
	}
	if x.Final {
		delete(r.demands, x.Replica)
	} else {
		r.demands[x.Replica] = memoryDemand{own: k.Own, until: now.Add(x.Rate.ShareFor)}
	}
	own := make(map[string]int64, len(r.demands)+1)
	for name, d := range r.demands {
		own[name] = d.own
	}
	k.Part = RatePart(x.Replica, own, x.Rate.MinReplicas)
	k.Shared = now.Sub(r.since)
	k.Quotas = k.Quotas[:0]
	for name, q := range r.quotas {
		k.Quotas = append(k.Quotas, q.at(name, now))
	}
	k.Hold = 0
	if r.hold.After(now) {
		k.Hold = r.hold.Sub(now)
	}
	return len(r.demands)
}

// forget drops what is past its end at now: views, the hold, and demands.
func (r *memoryRate) forget(now time.Time) {
	for name, q := range r.quotas {
		if now.After(q.until) {
			delete(r.quotas, name)
		}
	}
	if !r.hold.After(now) {
		r.hold = time.Time{}
	}
	for name, d := range r.demands {
		if now.After(d.until) {
			delete(r.demands, name)
		}
	}
}

// empty reports whether r keeps nothing.
func (r *memoryRate) empty() bool {
	return len(r.quotas) == 0 && len(r.demands) == 0 && r.hold.IsZero()
}

// at returns q as a Quota counted from now; the zero Quota when q is the zero memoryQuota.
func (q memoryQuota) at(name string, now time.Time) Quota {
	if q.until.IsZero() {
		return Quota{}
	}
	v := Quota{Name: name, Limit: q.limit, Window: q.window, Remaining: -1}
	if q.remaining >= 0 && q.reset.After(now) {
		v.Remaining, v.ResetIn = q.remaining, q.reset.Sub(now)
	}
	return v
}

// memoryQuotaOf keeps the view q, counted from now, on the store's clock: until a window
// after its reset, or after now when it has none.
func memoryQuotaOf(q Quota, now time.Time) memoryQuota {
	m := memoryQuota{limit: q.Limit, window: q.Window, remaining: -1, until: now.Add(q.Window)}
	if q.current() {
		m.remaining, m.reset = q.Remaining, now.Add(q.ResetIn)
		m.until = m.reset.Add(q.Window)
	}
	return m
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
