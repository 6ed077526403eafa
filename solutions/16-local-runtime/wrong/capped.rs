//! Wrong: the right loop, with a limit of 1,024 requests in flight, "to bound memory":
//! past it, `serve` takes no request until a task ends. The requests beyond the limit
//! wait in the channel, a hit among them, for loads of other keys. A hit is answered from
//! the cache at once, however many loads are in flight: the test puts 5,000 loads in
//! flight, then asks for a key that is in the cache; any limit below that is caught.
//! (Memory is bounded by collecting finished tasks; limiting the load on a server is
//! another job, with a rule of its own.)
//! expect-fail: a_hit_never_waits_for_loads_in_flight
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    const IN_FLIGHT: usize = 1_024;
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            request = requests.recv(), if tasks.len() < IN_FLIGHT => {
                let Some(request) = request else { break };
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
