package fleet

import "time"

// memoryRate is a rate group key's data in a MemoryStore.
type memoryRate struct {
	Quotas  map[string]memoryQuota  // the fleet's view of each quota
	Hold    time.Time               // the fleet's longest hold; zero: none
	Demands map[string]memoryDemand // by replica
	Since   time.Time               // the demands have been kept without a gap since then
}

// memoryQuota is a quota's view, with its reset on the store's clock.
type memoryQuota struct {
	Limit     int64
	Window    time.Duration
	Remaining int64     // negative: no current window
	Reset     time.Time // zero: none
	Until     time.Time // forgotten after
}

// memoryDemand is a replica's demand, counted until then.
type memoryDemand struct {
	Own   int64
	Until time.Time
}

// exchangeRate is Exchange for a rate group (x.Rate set): each key's views merged by
// MergeQuota, the holds by the latest, the replica's demand recorded (or, Final, ended), and
// its part by RatePart. It returns how many replicas' demands the parts count.
func (s *memoryKey) exchangeRate(x *Exchange, k *Key, now time.Time) int {
	r := &s.Rate
	if r.Quotas == nil {
		r.Quotas, r.Demands = make(map[string]memoryQuota), make(map[string]memoryDemand)
	}
	r.forget(now)
	for _, in := range k.Quotas {
		q := MergeQuota(r.Quotas[in.Name].at(in.Name, now), in)
		r.Quotas[in.Name] = memoryQuotaOf(q, now)
	}
	if k.Hold > 0 {
		r.Hold = later(r.Hold, now.Add(k.Hold))
	}
	if len(r.Demands) == 0 {
		r.Since = now
	}
	if x.Final {
		delete(r.Demands, x.Replica)
	} else {
		r.Demands[x.Replica] = memoryDemand{Own: k.Own, Until: now.Add(x.Rate.ShareFor)}
	}
	own := make(map[string]int64, len(r.Demands)+1)
	for name, d := range r.Demands {
		own[name] = d.Own
	}
	k.Part = RatePart(x.Replica, own, x.Rate.MinReplicas)
	k.Shared = now.Sub(r.Since)
	k.Quotas = k.Quotas[:0]
	for name, q := range r.Quotas {
		k.Quotas = append(k.Quotas, q.at(name, now))
	}
	k.Hold = 0
	if r.Hold.After(now) {
		k.Hold = r.Hold.Sub(now)
	}
	return len(r.Demands)
}

// forget drops what is past its end at now: views, the hold, and demands.
func (r *memoryRate) forget(now time.Time) {
	for name, q := range r.Quotas {
		if now.After(q.Until) {
			delete(r.Quotas, name)
		}
	}
	if !r.Hold.After(now) {
		r.Hold = time.Time{}
	}
	for name, d := range r.Demands {
		if now.After(d.Until) {
			delete(r.Demands, name)
		}
	}
}

// empty reports whether r keeps nothing.
func (r *memoryRate) empty() bool {
	return len(r.Quotas) == 0 && len(r.Demands) == 0 && r.Hold.IsZero()
}

// at returns q as a Quota counted from now; the zero Quota when q is the zero memoryQuota.
func (q memoryQuota) at(name string, now time.Time) Quota {
	if q.Until.IsZero() {
		return Quota{}
	}
	v := Quota{Name: name, Limit: q.Limit, Window: q.Window, Remaining: -1}
	if q.Remaining >= 0 && q.Reset.After(now) {
		v.Remaining, v.ResetIn = q.Remaining, q.Reset.Sub(now)
	}
	return v
}

// memoryQuotaOf keeps the view q, counted from now, on the store's clock: until a window
// after its reset, or after now when it has none.
func memoryQuotaOf(q Quota, now time.Time) memoryQuota {
	m := memoryQuota{Limit: q.Limit, Window: q.Window, Remaining: -1, Until: now.Add(q.Window)}
	if q.current() {
		m.Remaining, m.Reset = q.Remaining, now.Add(q.ResetIn)
		m.Until = m.Reset.Add(q.Window)
	}
	return m
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
