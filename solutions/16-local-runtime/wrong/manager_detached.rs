//! Wrong: a "manager" task owns the cache, and the requests ask it over a channel, so no
//! request ever borrows the cache. The manager is started with `spawn_local` and its
//! handle dropped: it ends on its own once every sender has gone, but nobody waits for
//! that. When `serve` returns without having waited for anything (its channel closed
//! before any request came), the manager has not even run yet, and it still holds the
//! cache after `serve` has returned. Everything `serve` starts must end before it
//! returns. The test calls `serve` with no request and counts the handles on its cache.
//! expect-fail: serve_lets_go_of_the_backend_and_the_cache
//! replaces: service

/// What the request tasks ask the manager.
enum Ask {
    Get(u32, oneshot::Sender<Option<String>>),
    Put(u32, String),
}

/// The only one that touches the cache.
async fn manager(cache: Rc<RefCell<Cache>>, mut asks: mpsc::UnboundedReceiver<Ask>) {
    while let Some(ask) = asks.recv().await {
        let mut cache = cache.borrow_mut();
        match ask {
            Ask::Get(key, back) => {
                let value = cache.entries.get(&key).cloned();
                match value {
                    Some(_) => cache.hits += 1,
                    None => cache.misses += 1,
                }
                let _ = back.send(value);
            }
            Ask::Put(key, value) => {
                cache.entries.insert(key, value);
            }
        }
    }
}

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let (ask, asks) = mpsc::unbounded_channel();
    tokio::task::spawn_local(manager(cache, asks)); // detached: nobody waits for it
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            request = requests.recv() => {
                let Some(request) = request else { break };
                let backend = Rc::clone(&backend);
                let ask = ask.clone();
                tasks.spawn_local(async move {
                    let (back, found) = oneshot::channel();
                    let _ = ask.send(Ask::Get(request.key, back));
                    let value = match found.await.ok().flatten() {
                        Some(value) => value,
                        None => {
                            let value = backend.load(request.key).await;
                            let _ = ask.send(Ask::Put(request.key, value.clone()));
                            value
                        }
                    };
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
