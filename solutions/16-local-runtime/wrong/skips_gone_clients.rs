//! Wrong: takes a request whose client has already gone (`reply.is_closed()`) and drops it
//! without a lookup, "nobody would read the answer". But the request was made: the cache
//! counts every request `serve` takes, hit or miss, and a miss's load is worth finishing
//! for the next request for the key. The test's clients leave, some before `serve` takes
//! their requests.
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
                if request.reply.is_closed() {
                    continue; // nobody waits for this one
                }
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
