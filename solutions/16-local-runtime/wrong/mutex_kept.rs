//! Wrong: `Arc` became `Rc` and `tokio::spawn` became `spawn_local`, but the cache keeps
//! its `Mutex`. On one thread the lock only costs, and it is not the type the tests hand
//! over: they pass an `Rc<RefCell<Cache>>`.
//! expect-error: E0308
//! replaces: service

pub async fn serve<B>(
    backend: B,
    cache: Rc<std::sync::Mutex<Cache>>,
    mut requests: mpsc::Receiver<Request>,
) where
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
    tasks.join_all().await;
}

async fn lookup<B: Backend>(backend: &B, cache: &std::sync::Mutex<Cache>, key: u32) -> String {
    {
        let mut cache = cache.lock().unwrap();
        if let Some(value) = cache.entries.get(&key).cloned() {
            cache.hits += 1;
            return value;
        }
        cache.misses += 1;
    }
    let value = backend.load(key).await;
    cache.lock().unwrap().entries.insert(key, value.clone());
    value
}
