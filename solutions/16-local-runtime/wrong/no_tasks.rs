//! Wrong for this lab: serves the requests concurrently without a task each, as futures
//! polled inside `serve`'s own future (Part III's way: no `spawn_local`, no `'static`,
//! and dropping `serve` drops them all). Every answer comes on time, but this lab is
//! about tasks on a local runtime: here the runtime cannot schedule, abort or report the
//! requests one by one, and a panic in one of them unwinds through `serve` at once,
//! where a task's panic waits in its `JoinHandle` for `serve` to decide. The tests look
//! at the task each load runs in.
//! expect-fail: every_request_is_a_task_of_its_own
//! replaces: serve

use std::pin::Pin;
use std::task::Poll;

pub async fn serve<B: Backend>(
    backend: B,
    cache: Rc<RefCell<Cache>>,
    mut requests: mpsc::Receiver<Request>,
) {
    let (backend, cache) = (&backend, &*cache);
    let mut open = true;
    let mut serving: Vec<Pin<Box<dyn Future<Output = ()> + '_>>> = Vec::new();
    std::future::poll_fn(|cx| {
        while open {
            match requests.poll_recv(cx) {
                Poll::Ready(Some(request)) => serving.push(Box::pin(async move {
                    let value = lookup(backend, cache, request.key).await;
                    let _ = request.reply.send(value);
                })),
                Poll::Ready(None) => open = false,
                Poll::Pending => break,
            }
        }
        serving.retain_mut(|request| request.as_mut().poll(cx).is_pending());
        if !open && serving.is_empty() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}
