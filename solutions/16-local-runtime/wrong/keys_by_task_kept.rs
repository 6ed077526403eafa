//! Wrong: the right loop, plus a map from each task's id to its key, so that a panic can
//! say which request it was. Only a panic ever reads it, and nothing takes an entry out
//! when a task ends well: the map gains one entry per request for as long as `serve`
//! runs. A `HashMap` is one block of memory however large it grows, so the test counts
//! the bytes that stay allocated over 5,200 requests, not only the blocks. (Remove the
//! entry when `join_next_with_id` hands the task back, or keep the key inside the task.)
//! expect-fail: memory_stays_flat_however_many_requests_are_served
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    let mut keys: HashMap<tokio::task::Id, u32> = HashMap::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let key = request.key;
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                let task = tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
                    let _ = request.reply.send(value);
                });
                keys.insert(task.id(), key);
            }
            Some(done) = tasks.join_next_with_id() => {
                if let Err(error) = done {
                    eprintln!("the request for key {:?} panicked", keys.get(&error.id()));
                    std::panic::resume_unwind(error.into_panic());
                }
            }
        }
    }
    tasks.join_all().await;
}
