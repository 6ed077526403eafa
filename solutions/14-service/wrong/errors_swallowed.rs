//! Wrong: every request runs, but a failed one is quietly left out of the answer,
//! like the starter's `eprintln!` without the print. The caller never learns of it.
//! expect-fail: an_error_comes_back_to_the_caller, the_first_error_stops_everything
//! replaces: serve

pub async fn serve<C: Client>(
    ctx: &Context<C>,
    ids: &[u32],
) -> Result<Vec<Response>, ServiceError> {
    let results = futures::future::join_all(ids.iter().map(|&id| handle(ctx, id))).await;
    Ok(results.into_iter().filter_map(Result::ok).collect())
}
