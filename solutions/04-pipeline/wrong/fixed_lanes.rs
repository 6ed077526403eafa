//! Wrong: `limit` fixed lanes (the id at position `k` goes to lane `k % limit`), each
//! lane one request after the other, all lanes joined, the items sorted back by
//! position. Never more than `limit` in flight, the right items in the right order;
//! but a slow request holds up its own lane while the others run ahead, so requests no
//! longer start in the order asked, and a lane that is done sits idle while another
//! still has work queued.
//! expect-fail: a_sliding_window_not_batches, items_come_back_in_the_order_asked, limits_from_one_to_beyond_the_ids
//! replaces: in_order

pub async fn fetch_in_order<S: Source>(source: &S, ids: &[u32], limit: usize) -> Vec<String> {
    let lanes = (0..limit).map(|lane| async move {
        let mut out = Vec::new();
        for (i, &id) in ids.iter().enumerate().skip(lane).step_by(limit) {
            out.push((i, source.fetch(id).await));
        }
        out
    });
    let mut all: Vec<(usize, String)> = futures::future::join_all(lanes)
        .await
        .into_iter()
        .flatten()
        .collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, s)| s).collect()
}
