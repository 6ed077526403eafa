//! Wrong for this lab: a hit is looked up and answered in `serve`'s own loop, and only a
//! miss gets a task. Every answer comes on time, but the lab asks for each request in a
//! task of its own: `serve`'s loop only takes requests and collects tasks, and whatever
//! a request does (the lookup, the counting, the answer) happens in its task, where the
//! runtime schedules it, a panic in it is caught and reported, and dropping the set stops
//! it. The test polls `serve` once with a hit waiting, and looks whether it was answered
//! before any task ran.
//! expect-fail: every_request_is_a_task_of_its_own
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
                if let Some(value) = cached(&cache, request.key) {
                    let _ = request.reply.send(value); // a hit needs no task
                    continue;
                }
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                tasks.spawn_local(async move {
                    let value = backend.load(request.key).await;
                    cache.borrow_mut().entries.insert(request.key, value.clone());
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
