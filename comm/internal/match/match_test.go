package match

import (
	"strings"
	"testing"
)

type msg struct{ id int }
type rcv struct{ id int }

func TestArrivalAndPostingOrder(t *testing.T) {
	var q Queue[*msg, *rcv]
	m := make([]*msg, 6)
	for i := range m {
		m[i] = &msg{i}
		// sources 1, 2, 1, 2, ...; tags 0, 0, 1, 1, 2, 2
		if _, ok := q.Arrive(Envelope{Source: 1 + i%2, Tag: i / 2}, m[i]); ok {
			t.Fatal("matched with nothing posted")
		}
	}
	// a message of another context is never taken
	q.Arrive(Envelope{Context: 2, Source: 1, Tag: 0}, &msg{99})
	for _, tc := range []struct {
		src, tag int
		want     int
	}{
		{2, AnyTag, 1}, {AnySource, 2, 4}, {AnySource, AnyTag, 0}, {1, AnyTag, 2}, {AnySource, AnyTag, 3},
	} {
		env, got, ok := q.Post(0, tc.src, tc.tag, &rcv{})
		if !ok || got != m[tc.want] || env.Source != 1+tc.want%2 || env.Tag != tc.want/2 {
			t.Fatalf("Post(%d, %d) = %v %v, want message %d", tc.src, tc.tag, got, ok, tc.want)
		}
	}
	if _, got, ok := q.Probe(0, AnySource, AnyTag); !ok || got != m[5] {
		t.Fatal("probe does not see the last message")
	}
	if u, p := q.Len(); u != 2 || p != 0 {
		t.Fatalf("Len = %d, %d", u, p)
	}
	// posted receives are matched in posting order
	r1, r2 := &rcv{1}, &rcv{2}
	q.Post(0, 3, AnyTag, r1)
	q.Post(0, AnySource, 7, r2)
	if r, ok := q.Arrive(Envelope{Source: 3, Tag: 7}, &msg{}); !ok || r != r1 {
		t.Fatal("the older receive must match first")
	}
	if !q.Withdraw(r2) || q.Withdraw(r2) {
		t.Fatal("Withdraw must remove a posted receive once")
	}
	if !q.Remove(m[5]) || q.Remove(m[5]) {
		t.Fatal("Remove must remove an unexpected message once")
	}
}

func TestChecks(t *testing.T) {
	for _, tc := range []struct {
		rank, tag int
		wild      bool
		want      string
	}{
		{4, 0, false, "rank 4 is outside [0, 4)"},
		{-1, 0, false, "rank -1 is outside"},
		{AnySource, 0, true, ""},
		{0, -5, false, "negative tag -5"},
		{0, AnyTag, false, "negative tag -1"},
		{0, AnyTag, true, ""},
		{0, 101, true, "tag 101 is above the largest tag 100"},
	} {
		err := CheckPeer("op", tc.rank, 4, tc.tag, 100, tc.wild)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckPeer(%d, %d, %v) = %v, want %q", tc.rank, tc.tag, tc.wild, err, tc.want)
		}
	}
	if CheckCount("send", true, 1) == nil || CheckCount("send", false, -1) == nil || CheckCount("send", false, 0) != nil {
		t.Error("CheckCount")
	}
}
