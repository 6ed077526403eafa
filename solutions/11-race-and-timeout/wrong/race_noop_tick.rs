//! Wrong: a race written by hand that polls both lookups with a waker of its own
//! (`Waker::noop()`) and looks again every millisecond. The lookups' timers wake nobody;
//! the interval wakes the task instead, so the first answer is seen within a
//! millisecond and every timing test passes. The tests count the polls: 30 ms of
//! waiting cost about 30 of them, where a race polled with the task's context needs 2.
//! expect-fail: first_answer_is_the_faster_replica, first_answer_asks_both_and_drops_the_loser, first_answer_an_error_is_an_answer_too, first_answer_a_backup_error_is_an_answer_too
//! replaces: first_answer

use std::task::{Context, Poll, Waker};

pub async fn first_answer<S: Store>(primary: &S, backup: &S, key: &str) -> Result<String, Missing> {
    let mut primary = pin!(primary.get(key));
    let mut backup = pin!(backup.get(key));
    let mut quiet = Context::from_waker(Waker::noop());
    let mut tick = tokio::time::interval(Duration::from_millis(1));
    loop {
        tick.tick().await; // "look again in a millisecond"
        if let Poll::Ready(answer) = primary.as_mut().poll(&mut quiet) {
            return answer;
        }
        if let Poll::Ready(answer) = backup.as_mut().poll(&mut quiet) {
            return answer;
        }
    }
}
