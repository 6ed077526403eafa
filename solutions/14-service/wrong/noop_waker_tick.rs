//! Wrong: joins the requests by hand, polling them with a waker of its own
//! (`Waker::noop()`) and looking again every millisecond, on an interval. The calls'
//! timers wake nobody; the interval wakes `serve` instead, so each answer is seen within
//! a millisecond and the timing tests pass. The tests count the polls: a batch of 50 ms
//! costs about 50 of them, where a join woken by its calls needs about 5.
//! expect-fail: an_audit_error_comes_back_while_other_requests_run, an_error_from_the_audit_stops_everything, nothing_outlives_the_call, requests_run_concurrently, responses_come_back_in_the_order_asked, the_two_sub_calls_of_a_request_overlap, thousands_of_requests_run_at_once
//! replaces: serve

use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let mut requests: Vec<_> = ids.iter().map(|&id| Box::pin(handle(ctx, id))).collect();
    let mut responses: Vec<Option<Response>> = vec![None; ids.len()];
    let mut quiet = TaskContext::from_waker(Waker::noop());
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    loop {
        tick.tick().await; // "look again in a millisecond"
        for (request, slot) in requests.iter_mut().zip(responses.iter_mut()) {
            if slot.is_none()
                && let Poll::Ready(result) = request.as_mut().poll(&mut quiet)
            {
                *slot = Some(result?);
            }
        }
        if responses.iter().all(Option::is_some) {
            return Ok(responses.into_iter().map(Option::unwrap).collect());
        }
    }
}
