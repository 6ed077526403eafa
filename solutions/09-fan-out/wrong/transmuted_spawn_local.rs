//! Wrong in its lesson, right in its tests: keeps the spawning shape by running the
//! requests as `spawn_local` tasks in a `LocalSet` of its own, and gets the `'static`
//! that `spawn_local` asks for from a `transmute` (a boxed `dyn Future` without a
//! lifetime is `'static` by default). The set is dropped when `fan_out` returns, so the
//! tests pass; but the borrow is only sound as long as nobody leaks `fan_out`'s future,
//! which is the promise `'static` exists to refuse. The lab's `forbid` list has `unsafe`.
//! expect-lesson: unsafe, mem::transmute
//! replaces: fan_out

use std::pin::Pin;

type Request = Pin<Box<dyn Future<Output = Result<Profile, FetchError>>>>;

pub async fn fan_out<B: Backend>(backend: &B, ids: &[u32]) -> Result<Vec<Profile>, FetchError> {
    let tasks = tokio::task::LocalSet::new();
    tasks
        .run_until(async {
            let handles = ids.iter().map(|&id| {
                let request: Pin<Box<dyn Future<Output = _> + '_>> = Box::pin(backend.fetch(id));
                // SAFETY (claimed): the LocalSet, and so every task, is dropped before
                // `fan_out` returns. Not true if the caller leaks this future.
                let request: Request = unsafe { std::mem::transmute(request) };
                let handle = tokio::task::spawn_local(request);
                async move { handle.await.expect("a request panicked") }
            });
            futures::future::try_join_all(handles).await
        })
        .await
}
