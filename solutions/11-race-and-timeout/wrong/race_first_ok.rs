//! Wrong: a race in which only the primary's answer counts whatever it is; from the
//! backup, only an `Ok` is taken (`Ok(value) = …` in `select!` disables the branch on an
//! `Err`). The backup's error, though it came first, is ignored, and the call waits
//! for the primary: only one of the two error paths is handled.
//! expect-fail: first_answer_a_backup_error_is_an_answer_too
//! replaces: first_answer

pub async fn first_answer<S: Store>(primary: &S, backup: &S, key: &str) -> Result<String, Missing> {
    tokio::select! {
        answer = primary.get(key) => answer,
        Ok(value) = backup.get(key) => Ok(value),
    }
}
