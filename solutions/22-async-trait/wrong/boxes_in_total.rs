//! Wrong: `total` stays generic, but boxes each lookup "so that every store's future has
//! one type". The type is known here: the box buys nothing and costs one allocation per
//! key, on the static path and on top of each `dyn` box.
//! expect-fail: each_dyn_call_boxes_at_most_once, the_static_path_allocates_nothing
//! replaces: total

pub async fn total<S: Store>(store: &S, keys: &[u32]) -> u64 {
    let mut sum = 0;
    for &key in keys {
        let lookup: Pin<Box<dyn Future<Output = Option<u64>> + '_>> = Box::pin(store.get(key));
        sum += lookup.await.unwrap_or(0);
    }
    sum
}
