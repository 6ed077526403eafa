//! Wrong: `Select` polls both racers with `Waker::noop()` instead of the task's `cx`,
//! so neither racer's wake-up reaches the task.
//! expect-fail: select_hands_back_the_unfinished_future, select_passes_the_tasks_waker_to_both_sides, they_pass_the_waker_of_the_latest_poll
//! replaces: select_poll

fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let (a, b) = this
        .racers
        .as_mut()
        .expect("Select polled after it completed");
    if let Poll::Ready(output) = Pin::new(a).poll(&mut cx) {
        let (_, b) = this.racers.take().expect("checked above");
        return Poll::Ready(Either::Left((output, b)));
    }
    if let Poll::Ready(output) = Pin::new(b).poll(&mut cx) {
        let (a, _) = this.racers.take().expect("checked above");
        return Poll::Ready(Either::Right((output, a)));
    }
    Poll::Pending
}
