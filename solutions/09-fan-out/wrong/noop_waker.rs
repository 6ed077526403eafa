//! Wrong: a join written by hand that polls the requests with a waker that does nothing
//! (`Waker::noop()`), "since the loop looks at them all anyway". Their timers fire and
//! wake nobody, and nothing else will ever poll `fan_out` again: under a real executor
//! it hangs for good. The tests catch the first `Pending` that came with no way to be
//! woken, and fail at once.
//! expect-fail: requests_run_concurrently, thousands_of_requests_are_all_in_flight_at_once, profiles_come_back_in_request_order, every_id_is_asked_once, an_error_comes_back_to_the_caller, an_error_stops_the_other_requests
//! replaces: fan_out

use std::pin::Pin;
use std::task::{Context, Poll, Waker};

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let mut requests: Vec<Pin<Box<_>>> =
        ids.iter().map(|&id| Box::pin(backend.fetch(id))).collect();
    let mut profiles: Vec<Option<Profile>> = vec![None; ids.len()];
    std::future::poll_fn(|_cx| {
        let mut quiet = Context::from_waker(Waker::noop());
        for (request, slot) in requests.iter_mut().zip(profiles.iter_mut()) {
            if slot.is_none()
                && let Poll::Ready(result) = request.as_mut().poll(&mut quiet)
            {
                *slot = Some(result?);
            }
        }
        if profiles.iter().all(Option::is_some) {
            return Poll::Ready(Ok(profiles.iter_mut().map(|p| p.take().unwrap()).collect()));
        }
        Poll::Pending
    })
    .await
}
