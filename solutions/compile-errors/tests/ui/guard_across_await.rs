// A std `MutexGuard` is alive across the `.await`, so the future is not `Send`.
use std::sync::{Arc, Mutex};

async fn save(_visits: u64) {}

fn main() {
    let visits = Arc::new(Mutex::new(0));
    tokio::spawn(async move {
        let mut guard = visits.lock().unwrap();
        *guard += 1;
        save(*guard).await;
    });
}
