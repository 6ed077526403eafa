//! Wrong: to watch both the channel and the tasks without `select!`, a loop that tries
//! each in turn (`try_join_next`, `try_recv`) and yields when neither has anything. It
//! never waits: it is polled again and again while nothing happens, and on a paused
//! test clock, time stops moving. The tests poll `serve` under a budget of a few polls
//! per request, which it blows as soon as it has to wait for a request (two tests close
//! the channel before `serve` ever waits, and do not see it).
//! expect-fail: a_hit_never_waits_for_loads_in_flight, a_load_whose_client_left_still_counts_and_is_cached, a_miss_loads_then_a_hit_comes_from_the_cache, a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_in_a_request_reaches_whoever_awaits_serve, a_panic_while_serving_comes_out_of_serve_at_once, a_stopped_load_was_a_miss_and_caches_nothing, an_answer_does_not_wait_for_later_requests, an_idle_serve_waits_quietly_for_the_next_request, dropping_serve_stops_its_requests, every_request_is_a_task_of_its_own, memory_stays_flat_however_many_requests_are_served, no_borrow_of_the_cache_is_held_across_an_await, serve_lets_go_of_the_backend_and_the_cache
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    use tokio::sync::mpsc::error::TryRecvError;

    let backend = Rc::new(backend);
    let mut tasks = JoinSet::new();
    loop {
        while let Some(done) = tasks.try_join_next() {
            done.unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic()));
        }
        match requests.try_recv() {
            Ok(request) => {
                let backend = Rc::clone(&backend);
                let cache = Rc::clone(&cache);
                tasks.spawn_local(async move {
                    let value = lookup(&*backend, &cache, request.key).await;
                    let _ = request.reply.send(value);
                });
            }
            Err(TryRecvError::Empty) => tokio::task::yield_now().await,
            Err(TryRecvError::Disconnected) => break,
        }
    }
    tasks.join_all().await;
}
