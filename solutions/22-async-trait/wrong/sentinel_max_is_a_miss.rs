//! Wrong: `Tiers` keeps what it found in a plain `u64`, with `u64::MAX` for "not found",
//! and goes on to the next tier while the number is `u64::MAX`. It is `zero_is_a_miss`
//! with another number: a tier that stores `u64::MAX` is skipped, and the tier behind it
//! answers instead. Every `u64` is a value; only `None` means "not here".
//! `any_stored_value_is_an_answer` stores `0`, then `u64::MAX`, in the first tier.
//! expect-fail: any_stored_value_is_an_answer
//! replaces: tiers

const NOT_FOUND: u64 = u64::MAX;

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
        let mut found = NOT_FOUND;
        for tier in self.tiers {
            found = tier.get_dyn(key).await.unwrap_or(NOT_FOUND);
            if found != NOT_FOUND {
                break;
            }
        }
        (found != NOT_FOUND).then_some(found)
    }
}
