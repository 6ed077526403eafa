//! Wrong: a "hedged" lookup. When a tier is still pending after three polls, `Tiers`
//! starts the next tier's lookup as well and polls both, still answering in tier order
//! (the slow tier's `Some` wins). Every answer is right; but a slow cache now sends its
//! lookups on to the database, even those it knows, which is what the cache was there
//! to prevent. The contract test's first tier is pending five times before it answers:
//! the second tier starts while it is still looking.
//! expect-fail: tiers_ask_every_tier_in_order_on_every_call
//! replaces: tiers

use std::future::poll_fn;
use std::task::Poll;

const HEDGE_AFTER: usize = 3;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers { tiers }
    }
}

type Lookup<'s> = Pin<Box<dyn Future<Output = Option<u64>> + 's>>;

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        // The next tier's lookup, if started early, and its answer once it has one.
        let mut early: Option<(Lookup<'_>, Option<Option<u64>>)> = None;
        for (at, tier) in self.tiers.iter().enumerate() {
            let answer = match early.take() {
                Some((_, Some(answer))) => answer,
                Some((lookup, None)) => lookup.await,
                None => {
                    let mut lookup = tier.get_dyn(key);
                    let mut pending = 0;
                    poll_fn(|cx| {
                        if let Poll::Ready(answer) = lookup.as_mut().poll(cx) {
                            return Poll::Ready(answer);
                        }
                        pending += 1;
                        if early.is_none()
                            && pending >= HEDGE_AFTER
                            && let Some(next) = self.tiers.get(at + 1)
                        {
                            early = Some((next.get_dyn(key), None));
                        }
                        if let Some((next, done @ None)) = early.as_mut()
                            && let Poll::Ready(answer) = next.as_mut().poll(cx)
                        {
                            *done = Some(answer);
                        }
                        Poll::Pending
                    })
                    .await
                }
            };
            if answer.is_some() {
                return answer;
            }
        }
        None
    }
}
