//! Wrong: wakes the task when a racer wins, "so that whoever awaits the loser gets
//! polled". The caller has the output in hand already and goes on in this same poll;
//! the wake-up only makes the executor poll the task once more for nothing.
//! expect-fail: ready_wakes_nobody
//! replaces: select_poll

fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let (a, b) = this
        .racers
        .as_mut()
        .expect("Select polled after it completed");
    if let Poll::Ready(output) = Pin::new(a).poll(cx) {
        let (_, b) = this.racers.take().expect("checked above");
        cx.waker().wake_by_ref();
        return Poll::Ready(Either::Left((output, b)));
    }
    if let Poll::Ready(output) = Pin::new(b).poll(cx) {
        let (a, _) = this.racers.take().expect("checked above");
        cx.waker().wake_by_ref();
        return Poll::Ready(Either::Right((output, a)));
    }
    Poll::Pending
}
