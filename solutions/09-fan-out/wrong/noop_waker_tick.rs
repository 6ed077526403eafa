//! Wrong: a join written by hand that polls the requests with a waker of its own
//! (`Waker::noop()`), and looks at them again every millisecond, on an interval. Their
//! timers fire and wake nobody; the interval wakes the task instead. Every answer comes
//! at most a millisecond late, but 10 requests that wait 100 ms cost 100 polls instead
//! of 2 (the tests count them), and a real service pays that in CPU for every request
//! it waits on. Poll the children with the task's own context.
//! expect-fail: requests_run_concurrently, thousands_of_requests_are_all_in_flight_at_once, profiles_come_back_in_request_order, an_error_comes_back_to_the_caller
//! replaces: fan_out

use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let mut requests: Vec<Pin<Box<_>>> =
        ids.iter().map(|&id| Box::pin(backend.fetch(id))).collect();
    let mut profiles: Vec<Option<Profile>> = vec![None; ids.len()];
    let mut quiet = Context::from_waker(Waker::noop());
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    loop {
        tick.tick().await; // "look again in a millisecond"
        for (request, slot) in requests.iter_mut().zip(profiles.iter_mut()) {
            if slot.is_none()
                && let Poll::Ready(result) = request.as_mut().poll(&mut quiet)
            {
                *slot = Some(result?);
            }
        }
        if profiles.iter().all(Option::is_some) {
            return Ok(profiles.into_iter().map(Option::unwrap).collect());
        }
    }
}
