//! Wrong: the right loop, plus a `Vec` of every task's `AbortHandle`, "to stop them all at
//! shutdown". The `JoinSet` does that already, and an `AbortHandle` keeps its task's
//! memory alive after the task has ended and left the set: one more for each request ever
//! served. The test serves 5,200 requests one after another and counts the memory that
//! stays allocated.
//! expect-fail: memory_stays_flat_however_many_requests_are_served
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    let mut started = Vec::new(); // every request started, to abort them at shutdown
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                started.push(tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
                    let _ = request.reply.send(value);
                }));
            }
            Some(done) = tasks.join_next() => {
                if let Err(error) = done {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
        }
    }
    tasks.join_all().await;
    for task in started {
        task.abort(); // all done by now: this stops nothing
    }
}
