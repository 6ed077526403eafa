//! Part III in an axum handler: a join over borrowed data keeps the handler's future
//! `Send`, as long as what it borrows is `Sync` and nothing `!Send` lives across an
//! `.await`. This example compiles.

use axum::{Router, routing::get};
use futures::future::join_all;

async fn look_up(table: &[u64], i: usize) -> u64 {
    tokio::task::yield_now().await;
    table[i]
}

// ANCHOR: main
async fn total() -> String {
    let table = vec![1, 2, 3, 4];
    // Four lookups at once, each borrowing `table`: no Arc, no spawn.
    let values = join_all((0..table.len()).map(|i| look_up(&table, i))).await;
    format!("{}\n", values.iter().sum::<u64>())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let app: Router = Router::new().route("/", get(total));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    axum::serve(listener, app).await
}
// ANCHOR_END: main
