//! Wrong: both lookups run at once and `b`'s error comes back at once, but when `a`
//! finishes first its result is only looked at after `b` is done: an early error from
//! `a` waits for `b`. Only one of the two error paths is handled.
//! expect-fail: both_stops_at_the_first_error_of_either_lookup
//! replaces: both

pub async fn both<S: Store>(store: &S, a: &str, b: &str) -> Result<(String, String), Missing> {
    let mut first = std::pin::pin!(store.get(a));
    let mut second = std::pin::pin!(store.get(b));
    tokio::select! {
        result = &mut second => {
            let b_value = result?;
            Ok((first.await?, b_value))
        }
        result = &mut first => {
            let b_value = second.await?;
            Ok((result?, b_value))
        }
    }
}
