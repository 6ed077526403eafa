//! Wrong: takes every request from the channel first, then serves them all at once.
//! Concurrent, but no request is served before the channel closes, so an early client
//! waits for the last one to ask.
//! expect-fail: an_answer_does_not_wait_for_later_requests, a_miss_loads_then_a_hit_comes_from_the_cache, no_borrow_of_the_cache_is_held_across_an_await, dropping_serve_stops_its_requests
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let mut waiting = Vec::new();
    while let Some(request) = requests.recv().await {
        waiting.push(request);
    }
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    for request in waiting {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        });
    }
    tasks.join_all().await;
}
