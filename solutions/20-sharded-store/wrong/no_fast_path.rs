//! Wrong: every call goes through a queue, even when this shard owns the key. It works,
//! but a call that could be a borrow of the partition this thread already holds becomes a
//! message to itself, a wake-up and a wait for its own loop.
//! expect-fail: a_call_for_a_key_this_shard_owns_is_served_on_the_spot
//! may-also-fail: len_counts_its_own_shard_without_a_message
//! replaces: calls

/// The value under `key`.
pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
    let owner = shard_for(key, self.shards());
    let (reply, answer) = oneshot::channel();
    let key = key.to_owned();
    self.send(owner, Request::Get { key, reply })?;
    wait(owner, answer).await
}

/// Stores `value` under `key`; returns the value it replaced.
pub async fn put(&self, key: &str, value: &str) -> Result<Option<String>, StoreError> {
    let owner = shard_for(key, self.shards());
    let (key, value) = (key.to_owned(), value.to_owned());
    let (reply, answer) = oneshot::channel();
    self.send(owner, Request::Put { key, value, reply })?;
    wait(owner, answer).await
}
