//! Wrong: asks all tiers at once, "so a miss costs the slowest tier, not the sum", and
//! takes the first answer in tier order. The values are right, but the database is
//! asked even when the cache knows the key, which is what a cache is for. The contract
//! test sees the second tier start while the first is still looking.
//! expect-fail: a_borrowed_store_works_through_dyn, any_stored_value_is_an_answer, each_dyn_call_boxes_at_most_once, tiers_ask_every_tier_in_order_on_every_call, tiers_are_a_store_and_can_be_a_tier
//! replaces: tiers

use std::task::Poll;

pub struct Tiers<'a> {
    tiers: &'a [&'a dyn DynStore],
}

impl<'a> Tiers<'a> {
    pub fn new(tiers: &'a [&'a dyn DynStore]) -> Self {
        Tiers { tiers }
    }
}

impl Store for Tiers<'_> {
    async fn get(&self, key: u32) -> Option<u64> {
        let mut lookups: Vec<_> = self
            .tiers
            .iter()
            .map(|tier| (tier.get_dyn(key), None))
            .collect();
        std::future::poll_fn(|cx| {
            let mut waiting = false;
            for (lookup, answer) in lookups.iter_mut() {
                if answer.is_none() {
                    match lookup.as_mut().poll(cx) {
                        Poll::Ready(value) => *answer = Some(value),
                        Poll::Pending => waiting = true,
                    }
                }
            }
            if waiting {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
        .await;
        lookups.into_iter().find_map(|(_, answer)| answer.flatten())
    }
}
