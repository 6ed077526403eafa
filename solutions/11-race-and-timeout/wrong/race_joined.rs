//! Wrong: asks both replicas at once, but with `join!`, which waits for both
//! answers before it can pick one. The faster answer arrives late, and the
//! loser is never dropped: it runs to the end.
//! expect-fail: first_answer_is_the_faster_replica, first_answer_asks_both_and_drops_the_loser, first_answer_an_error_is_an_answer_too, first_answer_a_backup_error_is_an_answer_too
//! replaces: first_answer

pub async fn first_answer<S: Store>(primary: &S, backup: &S, key: &str) -> Result<String, Missing> {
    let (from_primary, from_backup) = futures::join!(primary.get(key), backup.get(key));
    from_primary.or(from_backup)
}
