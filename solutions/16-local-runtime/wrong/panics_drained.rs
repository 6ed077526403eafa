//! Wrong: collects the finished tasks as requests arrive, so that they do not pile up,
//! with `while tasks.try_join_next().is_some() {}`, and throws their results away. A
//! request that panicked before the next one arrived is collected there, and its panic
//! with it: `serve` goes on as if all had gone well. (When every request is taken before
//! any task ends, `join_all` at the end still sees the panic, so only a panic while
//! `serve` runs shows the mistake: with no request coming, or in a flood of them.)
//! expect-fail: a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_while_serving_comes_out_of_serve_at_once
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    while let Some(request) = requests.recv().await {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.spawn_local(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        });
        while tasks.try_join_next().is_some() {} // the finished ones, and their panics
    }
    tasks.join_all().await;
}
