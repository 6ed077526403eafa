//! Wrong: one code path for both uses. `total` takes `&dyn DynStore`, and `&cache`
//! coerces to it, so every test compiles and every sum is right. But now the generic
//! path boxes every lookup too, even for a store whose type is known, and a lookup in
//! `Tiers` is boxed twice: once for `Tiers` itself, once for the tier.
//! expect-fail: each_dyn_call_boxes_at_most_once, the_static_path_allocates_nothing
//! replaces: total

pub async fn total(store: &dyn DynStore, keys: &[u32]) -> u64 {
    let mut sum = 0;
    for &key in keys {
        sum += store.get_dyn(key).await.unwrap_or(0);
    }
    sum
}
