//! Wrong: the `'static` bound of the spawning version is left on the backend. The tests'
//! `Context` owns all its state, so it is `'static` and every test passes; but a backend
//! that borrows (a context built inside a request) is refused for no reason.
//! expect-lesson: 'static
//! replaces: fan_out

pub async fn fan_out<B: Backend + 'static>(
    backend: &B,
    ids: &[u32],
) -> Result<Vec<Profile>, FetchError> {
    futures::future::try_join_all(ids.iter().map(|&id| backend.fetch(id))).await
}
