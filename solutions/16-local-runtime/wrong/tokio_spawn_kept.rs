//! Wrong: the types and bounds are right, but the tasks are still started with
//! `tokio::spawn`. The tests run on a local runtime, where every task stays on one
//! thread, yet `tokio::spawn` asks for `Send` all the same: the bound is on the function,
//! which cannot know what runtime it will find.
//! expect-error: future cannot be sent between threads safely
//! replaces: serve

pub async fn serve<B>(backend: B, cache: Rc<RefCell<Cache>>, mut requests: mpsc::Receiver<Request>)
where
    B: Backend + 'static,
{
    let backend = Rc::new(backend);
    let mut tasks = Vec::new();
    while let Some(request) = requests.recv().await {
        let backend = Rc::clone(&backend);
        let cache = Rc::clone(&cache);
        tasks.push(tokio::spawn(async move {
            let value = lookup(&*backend, &cache, request.key).await;
            let _ = request.reply.send(value);
        }));
    }
    for task in tasks {
        task.await.expect("a request panicked");
    }
}
