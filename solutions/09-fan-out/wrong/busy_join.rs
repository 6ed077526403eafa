//! Wrong: a join written by hand that asks to be polled again after every poll, "so
//! that nothing is missed". The requests' timers never get a chance: a task that
//! wakes itself keeps tokio's paused clock still, so without a poll budget the tests
//! would hang forever.
//! expect-fail: requests_run_concurrently, thousands_of_requests_are_all_in_flight_at_once, profiles_come_back_in_request_order, every_id_is_asked_once, an_error_comes_back_to_the_caller, an_error_stops_the_other_requests
//! replaces: fan_out

use std::pin::Pin;
use std::task::Poll;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let mut requests: Vec<Pin<Box<_>>> =
        ids.iter().map(|&id| Box::pin(backend.fetch(id))).collect();
    let mut profiles: Vec<Option<Profile>> = vec![None; ids.len()];
    std::future::poll_fn(|cx| {
        for (request, slot) in requests.iter_mut().zip(profiles.iter_mut()) {
            if slot.is_none()
                && let Poll::Ready(result) = request.as_mut().poll(cx)
            {
                *slot = Some(result?);
            }
        }
        if profiles.iter().all(Option::is_some) {
            return Poll::Ready(Ok(profiles.iter_mut().map(|p| p.take().unwrap()).collect()));
        }
        cx.waker().wake_by_ref(); // "poll me again soon"
        Poll::Pending
    })
    .await
}
