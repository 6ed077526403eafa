// `drop(guard)` ends the guard before the `.await`, yet the future is still not `Send`.
use std::sync::{Arc, Mutex};

async fn save(_visits: u64) {}

fn main() {
    let visits = Arc::new(Mutex::new(0));
    tokio::spawn(async move {
        let mut guard = visits.lock().unwrap();
        *guard += 1;
        let now = *guard;
        drop(guard);
        save(now).await;
    });
}
