//! Part III's moro-local scope in an axum handler: the scope's future holds an `Rc`, so
//! the handler's future is not `Send`, and `#[axum::debug_handler]` says so
//! (errors/axum_scope.stderr).

async fn look_up(table: &[u64], i: usize) -> u64 {
    tokio::task::yield_now().await;
    table[i]
}

// ANCHOR: main
#[axum::debug_handler]
async fn total() -> String {
    let table = vec![1, 2, 3, 4];
    let sum = moro_local::async_scope!(|scope| {
        let jobs: Vec<_> = (0..table.len())
            .map(|i| scope.spawn(look_up(&table, i)))
            .collect();
        let mut sum = 0;
        for job in jobs {
            sum += job.await;
        }
        sum
    })
    .await;
    format!("{sum}\n")
}
// ANCHOR_END: main

fn main() {}
