//! Wrong: `request.reply.send(value).expect(…)`, where the starter had `let _ =`. A client
//! may stop waiting (it timed out, its connection closed), and `send` then hands the
//! value back in an `Err`: no bug of the server's, yet here the request's task panics, and
//! the panic takes `serve` down with every other request. The test's clients give up.
//! expect-fail: a_load_whose_client_left_still_counts_and_is_cached
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
                    request.reply.send(value).expect("the client waits for its value");
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
