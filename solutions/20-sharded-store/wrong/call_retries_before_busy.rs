//! Wrong: a call whose owner's queue is full yields and tries again, up to three times,
//! before it gives up with `Busy` ("to smooth over a short burst"). Under load, the callers
//! of a stuck shard now spin through their retries instead of being told at once, and a
//! caller cannot tell a refused call from one that waits. The backpressure test polls each
//! call to a full queue once: it must already say `Busy(0)`.
//! expect-fail: a_full_queue_refuses_calls_at_once
//! replaces: calls

/// The value under `key`.
pub async fn get(&self, key: &str) -> Result<Option<String>, StoreError> {
    let owner = shard_for(key, self.shards());
    if owner == self.shard {
        return Ok(self.partition.borrow().get(key));
    }
    self.call(owner, |reply| Request::Get {
        key: key.to_owned(),
        reply,
    })
    .await
}

/// Stores `value` under `key`; returns the value it replaced.
pub async fn put(&self, key: &str, value: &str) -> Result<Option<String>, StoreError> {
    let owner = shard_for(key, self.shards());
    if owner == self.shard {
        return Ok(self
            .partition
            .borrow_mut()
            .put(key.to_owned(), value.to_owned()));
    }
    self.call(owner, |reply| Request::Put {
        key: key.to_owned(),
        value: value.to_owned(),
        reply,
    })
    .await
}

/// Sends a request to `owner`; on a full queue, yields and tries again, three times.
async fn call(
    &self,
    owner: usize,
    request: impl Fn(oneshot::Sender<Option<String>>) -> Request,
) -> Result<Option<String>, StoreError> {
    let mut tries = 0;
    loop {
        let (reply, answer) = oneshot::channel();
        match self.send(owner, request(reply)) {
            Ok(()) => return wait(owner, answer).await,
            Err(StoreError::Busy(_)) if tries < 3 => {
                tries += 1;
                tokio::task::yield_now().await;
            }
            Err(error) => return Err(error),
        }
    }
}
