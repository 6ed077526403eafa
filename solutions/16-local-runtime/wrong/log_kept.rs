//! Wrong: the right loop, plus a `Vec` of every key served, "for statistics", kept for
//! as long as `serve` runs. It is one block of memory however long it gets, so counting
//! blocks does not see it; but a server runs for days, and this one keeps four bytes for
//! every request it ever took. The test serves 5,200 requests one after another and
//! counts the bytes that stay allocated, not only the blocks.
//! expect-fail: memory_stays_flat_however_many_requests_are_served
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    let mut served: Vec<u32> = Vec::new(); // every key ever asked for
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                served.push(request.key);
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
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
