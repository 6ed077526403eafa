//! Wrong: a `JoinSet` that owns the tasks, and `join_all` once the channel closes, as for
//! a batch of requests. A server's channel closes at shutdown, days later: until then,
//! every finished task stays in the set, one more for each request ever served, and a
//! request's panic waits there unseen. The test serves 5,200 requests one after another
//! and counts the memory that stays allocated, and it keeps the channel open while a
//! request panics (with no request coming, and with a flood of them).
//! expect-fail: a_panic_comes_out_at_once_even_under_a_flood_of_requests, a_panic_while_serving_comes_out_of_serve_at_once, memory_stays_flat_however_many_requests_are_served
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
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
