//! Wrong: a `JoinSet` that owns the tasks, but a final loop over `join_next` that prints
//! a failed task's error and goes on. When a request panics (a bug in a handler), `serve`
//! returns as if all had gone well, and its client only sees its request dropped. The
//! starter's `.expect("a request panicked")` passed the panic on; so does `join_all`,
//! and so must a `join_next` loop (`std::panic::resume_unwind(error.into_panic())`).
//! Run only once the channel has closed, that loop also lets the finished tasks pile up.
//! expect-fail: a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, memory_stays_flat_however_many_requests_are_served
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
    }
    while let Some(done) = tasks.join_next().await {
        if let Err(error) = done {
            eprintln!("a request failed: {error}"); // printed, and lost
        }
    }
}
