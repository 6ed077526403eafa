//! Wrong: the right loop, but a task's `JoinError` is passed on with `.expect(..)`, as
//! the starter did. That is a new panic, with a text of its own (the message and the
//! `JoinError`'s `Debug`), not the request's own panic: whoever catches it, to log it
//! or to tell one failure from another, gets a `String` instead of the value the code
//! panicked with. The tests' backend panics with a value of the tests' own type, and
//! `serve` must panic with that very value (`resume_unwind(error.into_panic())`).
//! expect-fail: a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_panic_comes_out_at_once_even_under_a_flood_of_requests
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
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
            Some(done) = tasks.join_next() => {
                done.expect("a request panicked");
            }
        }
    }
    while let Some(done) = tasks.join_next().await {
        done.expect("a request panicked");
    }
}
