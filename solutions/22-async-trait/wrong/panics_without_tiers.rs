//! Wrong: `Tiers` takes its first tier with `split_first().expect(..)`, "there is always
//! a cache". A `Tiers` with no tiers is a configuration like any other (no store at all),
//! and it knows no key: every lookup must answer None, not panic. `no_tiers_answer_none`
//! builds one.
//! expect-fail: no_tiers_answer_none
//! replaces: tiers

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
        let (first, rest) = self.tiers.split_first().expect("a Tiers has a first tier");
        if let Some(value) = first.get_dyn(key).await {
            return Some(value);
        }
        for tier in rest {
            if let Some(value) = tier.get_dyn(key).await {
                return Some(value);
            }
        }
        None
    }
}
