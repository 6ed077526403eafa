// E0597: `async move` moves the reference in, but `ids` still belongs to `count`.
async fn count() {
    let ids = vec![1, 2, 3];
    let ids_ref = &ids;
    let task = tokio::spawn(async move { ids_ref.len() });
    println!("{}", task.await.unwrap());
}

fn main() {
    let _ = count();
}
