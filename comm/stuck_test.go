package comm

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCommOutOfRange(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	for _, r := range []int{-1, 2, 1 << 40} {
		if c, err := w.Comm(r); err == nil || c != nil {
			t.Errorf("Comm(%d) = %v, %v; want an error", r, c, err)
		}
	}
	if c, err := w.Comm(1); err != nil || c.Rank() != 1 {
		t.Errorf("Comm(1): %v", err)
	}
}

func TestPanicIsAnError(t *testing.T) {
	w, _ := NewWorld(3, Options{})
	err := w.Run(func(c *Comm) error {
		switch c.Rank() {
		case 1:
			var m map[string]int
			m["x"] = 1 // panics
		case 0:
			_, err := c.Recv(ints(1), 1, 0) // never comes: deadlock once rank 1 is gone
			return err
		}
		return nil
	})
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Rank != 1 || len(pe.Stack) == 0 {
		t.Fatalf("err = %v, want a *PanicError of rank 1", err)
	}
	if !errors.Is(err, ErrDeadlock) || !strings.Contains(err.Error(), "rank 0 waits in recv from rank 1, tag 0") {
		t.Errorf("err = %v, want rank 0's receive named as deadlocked", err)
	}
	// the world runs again
	if err := w.Run(func(c *Comm) error { return nil }); err != nil {
		t.Errorf("second run: %v", err)
	}
}

func TestUnreceivedMessagesAreReported(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 1 {
			return c.Send(ints(3), 0, 42) // eager: completes, never received
		}
		_, err := c.Irecv(ints(1), 1, 7) // posted, never matched
		return err
	})
	var se *StuckError
	if !errors.As(err, &se) || !errors.Is(err, ErrUnreceived) {
		t.Fatalf("err = %v, want a *StuckError wrapping ErrUnreceived", err)
	}
	for _, want := range []string{"message from rank 1 to rank 0, tag 42, 12 bytes, never received", "recv from rank 1, tag 7 posted by rank 0, never matched"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to name %q", err, want)
		}
	}
	// discarded: the next run does not see them
	err = w.Run(func(c *Comm) error {
		if _, ok, _ := c.Iprobe(AnySource, AnyTag); ok {
			return errors.New("message of the previous run")
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

func TestDeadlocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(c *Comm) error
		want string
	}{
		{"recv-recv", func(c *Comm) error {
			_, err := c.Recv(ints(1), 1-c.Rank(), 5)
			return err
		}, "rank 1 waits in recv from rank 0, tag 5"},
		{"rendezvous-send-unreceived", func(c *Comm) error {
			if c.Rank() == 0 {
				return c.Send(ints(100), 1, 9) // above the eager limit
			}
			return nil
		}, "rank 0 waits in send to rank 1, tag 9, 400 bytes"},
		{"probe", func(c *Comm) error {
			if c.Rank() == 0 {
				_, err := c.Probe(AnySource, 3)
				return err
			}
			return nil
		}, "rank 0 waits in probe from any rank, tag 3"},
		{"wrong-tag", func(c *Comm) error {
			if c.Rank() == 0 {
				return c.Send(ints(1), 1, 1)
			}
			_, err := c.Recv(ints(1), 0, 2)
			return err
		}, "message from rank 0 to rank 1, tag 1, 4 bytes, never received"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := NewWorld(2, Options{EagerLimit: 16})
			done := make(chan error)
			go func() { done <- w.Run(tc.fn) }()
			select {
			case err := <-done:
				if !errors.Is(err, ErrDeadlock) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want ErrDeadlock naming %q", err, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Run hangs")
			}
		})
	}
}

// A long computation on one rank while the other waits is no deadlock.
func TestSlowRankIsNoDeadlock(t *testing.T) {
	w, _ := NewWorld(2, Options{EagerLimit: 16})
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 0 {
			time.Sleep(50 * time.Millisecond)
			return c.Send(ints(100), 1, 0)
		}
		_, err := c.Recv(ints(100), 0, 0)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRunContext(t *testing.T) {
	w, _ := NewWorld(2, Options{NoDeadlockCheck: true})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := w.RunContext(ctx, func(c *Comm) error {
		_, err := c.Recv(ints(1), 1-c.Rank(), 0)
		return err
	})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "rank 0 waits in recv from rank 1, tag 0") {
		t.Fatalf("err = %v, want DeadlineExceeded naming the waits", err)
	}
}

// RecvContext withdraws a receive that times out: a later message goes to
// the next receive.
func TestRecvContextWithdraws(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			if _, err := c.RecvContext(ctx, ints(1), 1, 0); !errors.Is(err, context.DeadlineExceeded) {
				return errors.New("RecvContext did not time out")
			}
			if err := c.Send(ints(1), 1, 1); err != nil { // now rank 1 sends
				return err
			}
			b := ints(1)
			if _, err := c.Recv(b, 1, 0); err != nil || b.Data[0] != 9 {
				return errors.New("the message after the timeout went astray")
			}
			return nil
		}
		if _, err := c.Recv(ints(1), 0, 1); err != nil {
			return err
		}
		b := ints(1)
		b.Data[0] = 9
		return c.Send(b, 0, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSendContextWithdraws(t *testing.T) {
	w, _ := NewWorld(2, Options{EagerLimit: 4})
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			if err := c.SendContext(ctx, ints(10), 1, 0); !errors.Is(err, context.DeadlineExceeded) {
				return errors.New("SendContext did not time out")
			}
			return c.Send(ints(1), 1, 1)
		}
		_, err := c.Recv(ints(1), 0, 1)
		if _, ok, _ := c.Iprobe(0, 0); ok {
			return errors.New("the withdrawn send is still there")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTestOrder(t *testing.T) {
	w, _ := NewWorld(2, Options{})
	err := w.Run(func(c *Comm) error {
		if c.Rank() == 0 {
			return c.Send(ints(2), 1, 0)
		}
		r, _ := c.Irecv(ints(2), 0, 0)
		for {
			st, ok, err := r.Test()
			if ok {
				if err != nil || st.Source != 0 || st.Bytes() != 8 {
					return errors.New("bad status")
				}
				return nil
			}
			time.Sleep(time.Millisecond)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
