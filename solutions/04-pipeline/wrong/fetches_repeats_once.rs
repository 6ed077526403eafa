//! Wrong: fetches each distinct id once and copies the item for its repeats, a cache
//! nobody asked for. The output looks right, but the source sees fewer requests than
//! ids: if it answers differently each time (a counter, a clock, a queue), repeats
//! get a stale answer.
//! expect-fail: items_come_back_in_the_order_asked
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let mut unique: Vec<u32> = Vec::new();
    for &id in ids {
        if !unique.contains(&id) {
            unique.push(id);
        }
    }
    let got: Vec<String> = stream::iter(&unique)
        .map(|&id| source.fetch(id))
        .buffered(limit)
        .collect()
        .await;
    ids.iter()
        .map(|id| got[unique.iter().position(|u| u == id).unwrap()].clone())
        .collect()
}
