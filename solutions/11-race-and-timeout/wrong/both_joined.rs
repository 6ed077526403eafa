//! Wrong: runs the two lookups concurrently with `join!` and then applies `?`.
//! The right error comes back, but only once the other lookup has finished:
//! `join!` does not know that one error makes the other answer useless.
//! expect-fail: both_stops_at_the_first_error, both_stops_at_the_first_error_of_either_lookup
//! replaces: both

pub async fn both<S: Store>(store: &S, a: &str, b: &str) -> Result<(String, String), Missing> {
    let (first, second) = futures::join!(store.get(a), store.get(b));
    Ok((first?, second?))
}
