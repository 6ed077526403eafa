//! Wrong: finished tasks are collected by a sweep every 2 ms (`try_join_next` on an
//! `interval` tick) instead of by awaiting `join_next`. Every answer comes on time, and
//! a panic comes out at 10 ms, on a tick. But the sweep never stops: with nothing to do,
//! the channel open and no request coming, the thread still wakes 500 times a second, all
//! day. And between two ticks finished tasks pile up: hits answered one after another in
//! the same millisecond all wait in the set. The test leaves `serve` idle for ten minutes
//! of virtual time and counts how often the runtime's thread wakes up (`serve`'s poll
//! budget runs out too), and serves thousands of hits in a row, counting the memory.
//! expect-fail: an_idle_serve_waits_quietly_for_the_next_request, memory_stays_flat_however_many_requests_are_served
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    let mut sweep = tokio::time::interval(std::time::Duration::from_millis(2));
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
                    let _ = request.reply.send(value);
                });
            }
            _ = sweep.tick() => {
                while let Some(done) = tasks.try_join_next() {
                    if let Err(error) = done {
                        std::panic::resume_unwind(error.into_panic());
                    }
                }
            }
        }
    }
    tasks.join_all().await;
}
