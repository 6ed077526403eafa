//! Wrong: the lab's traits are right, and next to them sits a public `Send` twin "for
//! callers on a work-stealing runtime": `SpawnStore` under `#[async_trait]` in its default
//! form, which writes `+ Send` on every boxed future without the word appearing, and a
//! list of `dyn SpawnStore + Sync`. Every test passes, and nothing in the crate spawns:
//! the twin puts back the bounds the lab removed. The lesson check names both lines.
//! expect-lesson: Send, Sync
//! replaces: total

pub async fn total<S: Store>(store: &S, keys: &[u32]) -> u64 {
    let mut sum = 0;
    for &key in keys {
        sum += store.get(key).await.unwrap_or(0);
    }
    sum
}

/// For callers that spawn: a twin whose boxes may cross threads.
#[async_trait::async_trait]
pub trait SpawnStore {
    async fn get_spawn(&self, key: u32) -> Option<u64>;
}

/// Spawnable tiers: the same lookups, with boxes that may cross threads.
pub struct SpawnTiers<'a> {
    tiers: &'a [&'a (dyn SpawnStore + Sync)],
}

impl<'a> SpawnTiers<'a> {
    pub fn new(tiers: &'a [&'a (dyn SpawnStore + Sync)]) -> Self {
        SpawnTiers { tiers }
    }
}

#[async_trait::async_trait]
impl SpawnStore for SpawnTiers<'_> {
    async fn get_spawn(&self, key: u32) -> Option<u64> {
        for tier in self.tiers {
            if let Some(value) = tier.get_spawn(key).await {
                return Some(value);
            }
        }
        None
    }
}
