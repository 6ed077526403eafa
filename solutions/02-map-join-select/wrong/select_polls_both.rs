//! Wrong: polls both futures, then looks at the results. When both are ready in the
//! same poll, `a` wins and `b`'s output is thrown away; the `b` handed back has already
//! finished, and awaiting it again breaks the `Future` contract.
//! expect-fail: select_prefers_the_first_when_both_are_ready
//! replaces: select_poll

fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
    let this = self.get_mut();
    let (a, b) = this
        .racers
        .as_mut()
        .expect("Select polled after it completed");
    let polled = (Pin::new(a).poll(cx), Pin::new(b).poll(cx));
    match polled {
        (Poll::Ready(output), _) => {
            let (_, b) = this.racers.take().expect("checked above");
            Poll::Ready(Either::Left((output, b)))
        }
        (_, Poll::Ready(output)) => {
            let (a, _) = this.racers.take().expect("checked above");
            Poll::Ready(Either::Right((output, a)))
        }
        _ => Poll::Pending,
    }
}
