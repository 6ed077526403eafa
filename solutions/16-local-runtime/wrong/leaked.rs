//! Wrong: the backend and the cache are leaked with `Box::leak`, to get the `&'static`
//! references that `spawn_local` accepts without an `Rc`. Every answer comes on time, but
//! a leaked value is never dropped: each call of `serve` loses a backend and a handle on
//! the cache for ever. The fake backend reports its drop, and the test counts the handles
//! on its cache after `serve` returns; the lab's default `forbid` set names `Box::leak` too.
//! expect-fail: serve_lets_go_of_the_backend_and_the_cache
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend: &'static B = Box::leak(Box::new(backend));
    let cache: &'static RefCell<Cache> = Box::leak(Box::new(cache));
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                tasks.spawn_local(async move {
                    let value = lookup(backend, cache, request.key).await;
                    let _ = request.reply.send(value);
                });
            }
            Some(done) = tasks.join_next() => {
                if let Err(error) = done {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
        }
    }
    tasks.join_all().await;
}
