//! Wrong, though close: collects the finished tasks with `try_join_next` each time a
//! request arrives, and re-raises a panic it finds there. Nothing piles up, and no panic
//! is lost, but a panic comes out only when the next request arrives or the channel
//! closes. A server whose channel stays open may wait hours for its next request, with a
//! bug nobody sees. The test keeps the channel open and sends nothing after the panic.
//! expect-fail: a_panic_while_serving_comes_out_of_serve_at_once
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
        while let Some(done) = tasks.try_join_next() {
            done.unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic()));
        }
    }
    tasks.join_all().await;
}
