//! Right too: the same loop written another way. `biased;` collects finished tasks before
//! taking a new request (biased the other way, a flood of requests would starve them); a
//! guard (`if !tasks.is_empty()`) rather than a `Some(..)` pattern keeps the `join_next`
//! branch off while the set is empty; and the rest are joined one by one with
//! `join_next`, not `join_all`, each panic passed on as it was.
//! expect-pass
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        tokio::select! {
            biased;
            done = tasks.join_next(), if !tasks.is_empty() => {
                if let Some(Err(error)) = done {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
            request = requests.recv() => match request {
                Some(Request { key, reply }) => {
                    let backend = Rc::clone(&backend);
                    let cache = Rc::clone(&cache);
                    tasks.spawn_local(async move {
                        let value = lookup(&*backend, &cache, key).await;
                        let _ = reply.send(value);
                    });
                }
                None => break,
            },
        }
    }
    while let Some(done) = tasks.join_next().await {
        if let Err(error) = done {
            std::panic::resume_unwind(error.into_panic());
        }
    }
}
