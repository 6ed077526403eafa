//! Wrong: a `try_join` written by hand that polls both lookups with a waker that does
//! nothing (`Waker::noop()`), "since the loop polls them both anyway". Their timers fire
//! and wake nobody, and nothing else will poll `both` again: under a real executor it
//! hangs for good. The tests catch the first `Pending` that came with no way to be
//! woken, and fail at once.
//! expect-fail: both_runs_the_lookups_concurrently, both_stops_at_the_first_error, both_stops_at_the_first_error_of_either_lookup
//! replaces: both

use std::task::{Context, Poll, Waker};

pub async fn both<S: Store>(store: &S, a: &str, b: &str) -> Result<(String, String), Missing> {
    let mut lookup_a = pin!(store.get(a));
    let mut lookup_b = pin!(store.get(b));
    let (mut value_a, mut value_b) = (None, None);
    std::future::poll_fn(|_cx| {
        let mut quiet = Context::from_waker(Waker::noop());
        if value_a.is_none()
            && let Poll::Ready(result) = lookup_a.as_mut().poll(&mut quiet)
        {
            value_a = Some(result?);
        }
        if value_b.is_none()
            && let Poll::Ready(result) = lookup_b.as_mut().poll(&mut quiet)
        {
            value_b = Some(result?);
        }
        match (&value_a, &value_b) {
            (Some(_), Some(_)) => {
                Poll::Ready(Ok((value_a.take().unwrap(), value_b.take().unwrap())))
            }
            _ => Poll::Pending,
        }
    })
    .await
}
