// Package match is the matching core that every transport of package comm
// shares: MPI's envelope matching of messages to receives (communicator
// context, source, tag, with wildcards for source and tag), in posting
// order for receives and arrival order for messages, so that messages
// between a pair of ranks never overtake each other; and the argument
// checks of ranks and tags.
//
// A Queue holds one rank's unmatched receives and unmatched messages. The
// transport decides what a message and a receive are (type parameters M
// and R) and what happens when they meet; the Queue only decides which
// meet. It is not safe for concurrent use: the transport guards it.
package match

import "fmt"

// Wildcards of a receive's source and tag (MPI_ANY_SOURCE, MPI_ANY_TAG).
const (
	AnySource = -1
	AnyTag    = -1
)

// Envelope is what a message is matched by: the context of its
// communicator, its source rank in that communicator and its tag.
type Envelope struct {
	Context uint32
	Source  int
	Tag     int
}

// Matches reports whether a receive for (source, tag) in context ctx,
// with wildcards, takes a message with envelope e.
func (e Envelope) Matches(ctx uint32, source, tag int) bool {
	return e.Context == ctx && (source == AnySource || source == e.Source) && (tag == AnyTag || tag == e.Tag)
}

type posted[R any] struct {
	ctx         uint32
	source, tag int
	r           R
}

type arrived[M any] struct {
	env Envelope
	m   M
}

// Queue is the matching state of one rank: receives posted and not yet
// matched, in posting order, and messages arrived and not yet matched, in
// arrival order.
type Queue[M, R comparable] struct {
	posted     []posted[R]
	unexpected []arrived[M]
}

// Arrive matches a message with envelope env to the oldest posted receive
// that takes it and removes that receive; if none does, it keeps the
// message as unexpected and returns ok == false.
func (q *Queue[M, R]) Arrive(env Envelope, m M) (r R, ok bool) {
	if r, ok := q.Match(env); ok {
		return r, true
	}
	q.unexpected = append(q.unexpected, arrived[M]{env, m})
	return r, false
}

// Match matches a message with envelope env to the oldest posted receive
// that takes it and removes that receive, as Arrive does, but keeps
// nothing when no receive takes it (ok == false): a transport that
// delivers a matched message at once calls Match first and makes the
// message it keeps (Arrive) only when it must.
func (q *Queue[M, R]) Match(env Envelope) (r R, ok bool) {
	for i, p := range q.posted {
		if env.Matches(p.ctx, p.source, p.tag) {
			q.posted = append(q.posted[:i], q.posted[i+1:]...)
			return p.r, true
		}
	}
	return r, false
}

// Post matches a receive for (source, tag) in context ctx to the oldest
// unexpected message it takes and removes that message; if there is none,
// it keeps the receive as posted and returns ok == false.
func (q *Queue[M, R]) Post(ctx uint32, source, tag int, r R) (env Envelope, m M, ok bool) {
	for i, a := range q.unexpected {
		if a.env.Matches(ctx, source, tag) {
			q.unexpected = append(q.unexpected[:i], q.unexpected[i+1:]...)
			return a.env, a.m, true
		}
	}
	q.posted = append(q.posted, posted[R]{ctx, source, tag, r})
	return env, m, false
}

// Probe returns the oldest unexpected message a receive for (source, tag)
// in context ctx would take, without removing it.
func (q *Queue[M, R]) Probe(ctx uint32, source, tag int) (env Envelope, m M, ok bool) {
	for _, a := range q.unexpected {
		if a.env.Matches(ctx, source, tag) {
			return a.env, a.m, true
		}
	}
	return env, m, false
}

// Withdraw removes the posted receive r and reports whether it was still
// posted (not matched).
func (q *Queue[M, R]) Withdraw(r R) bool {
	for i, p := range q.posted {
		if p.r == r {
			q.posted = append(q.posted[:i], q.posted[i+1:]...)
			return true
		}
	}
	return false
}

// Remove removes the unexpected message m and reports whether it was
// still unexpected (not matched).
func (q *Queue[M, R]) Remove(m M) bool {
	for i, a := range q.unexpected {
		if a.m == m {
			q.unexpected = append(q.unexpected[:i], q.unexpected[i+1:]...)
			return true
		}
	}
	return false
}

// Unexpected calls fn for every unexpected message, oldest first.
func (q *Queue[M, R]) Unexpected(fn func(Envelope, M)) {
	for _, a := range q.unexpected {
		fn(a.env, a.m)
	}
}

// Posted calls fn for every posted receive, oldest first.
func (q *Queue[M, R]) Posted(fn func(ctx uint32, source, tag int, r R)) {
	for _, p := range q.posted {
		fn(p.ctx, p.source, p.tag, p.r)
	}
}

// Len is the number of unexpected messages and of posted receives.
func (q *Queue[M, R]) Len() (unexpected, posted int) {
	return len(q.unexpected), len(q.posted)
}

// CheckPeer checks the rank and tag of operation op in a communicator of
// size ranks whose largest tag is tagUB; wild allows AnySource and AnyTag
// (receives and probes).
func CheckPeer(op string, rank, size, tag, tagUB int, wild bool) error {
	if !(wild && rank == AnySource) && (rank < 0 || rank >= size) {
		return fmt.Errorf("%s: rank %d is outside [0, %d)", op, rank, size)
	}
	if !(wild && tag == AnyTag) && (tag < 0 || tag > tagUB) {
		if tag < 0 {
			return fmt.Errorf("%s: negative tag %d", op, tag)
		}
		return fmt.Errorf("%s: tag %d is above the largest tag %d", op, tag, tagUB)
	}
	return nil
}

// CheckCount checks the type and count of a buffer of operation op.
func CheckCount(op string, nilType bool, count int64) error {
	if nilType {
		return fmt.Errorf("%s: nil type", op)
	}
	if count < 0 {
		return fmt.Errorf("%s: negative count %d", op, count)
	}
	return nil
}
