//! Wrong: `serve` hands the work to one driver task and awaits it; the driver tries the
//! channel (`try_recv`) and the tasks (`try_join_next`) in turn, and sleeps a moment
//! between rounds while the channel is open. `serve`'s own future is woken only when the
//! driver ends, so a poll budget on it sees nothing; but the driver wakes the thread a
//! thousand times a second while nothing happens. The test leaves `serve` idle for ten
//! minutes of virtual time and counts how often the runtime's thread wakes up, whichever
//! task wakes it.
//! expect-fail: an_idle_serve_waits_quietly_for_the_next_request
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let mut driver = JoinSet::new();
    driver.spawn_local(async move {
        let backend = Rc::new(backend);
        let mut tasks = JoinSet::new();
        let mut open = true;
        while open {
            loop {
                match requests.try_recv() {
                    Ok(request) => {
                        let backend = Rc::clone(&backend);
                        let cache = Rc::clone(&cache);
                        tasks.spawn_local(async move {
                            let value = lookup(&*backend, &cache, request.key).await;
                            let _ = request.reply.send(value);
                        });
                    }
                    Err(mpsc::error::TryRecvError::Empty) => break,
                    Err(mpsc::error::TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            while let Some(done) = tasks.try_join_next() {
                if let Err(error) = done {
                    std::panic::resume_unwind(error.into_panic());
                }
            }
            if open {
                tokio::time::sleep(std::time::Duration::from_micros(100)).await;
            }
        }
        while let Some(done) = tasks.join_next().await {
            if let Err(error) = done {
                std::panic::resume_unwind(error.into_panic());
            }
        }
    });
    if let Some(Err(error)) = driver.join_next().await {
        std::panic::resume_unwind(error.into_panic());
    }
}
