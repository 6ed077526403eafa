//! Wrong for this lab: the report in an `UnsafeCell`, pushed to through a raw `&mut`,
//! instead of a `RefCell`. Every test passes (each push is over before the next `.await`,
//! so no two `&mut` meet here), but nothing checks it: the first edit that holds the
//! reference across an `.await`, or hands it to a handler, is undefined behaviour where
//! a `RefCell` would have panicked with "already borrowed". The cost it saves is one flag.
//! The runner's default set forbids `unsafe` in every lab that does not say why it needs it.
//! expect-lesson: unsafe
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = std::cell::UnsafeCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        // SAFETY (claimed): one thread, and the reference ends at the semicolon.
        unsafe { &mut *report.get() }.fired.push(Fired {
            id: timer.id,
            deadline: timer.deadline,
            at: Instant::now(),
        });
        handler.on_fire(timer.id).await;
    }))
    .await;
    report.into_inner()
}
