//! Wrong: swaps the Mutex for a RefCell, but the borrow still spans the handler's
//! `.await`. `&mut report.borrow_mut().fired` keeps the `RefMut` temporary alive to the
//! end of the enclosing block (temporary lifetime extension), and the block holds the
//! `.await`. The next timer to fire while a handler runs finds the RefCell borrowed and
//! panics ("RefCell already borrowed"): the same mistake as the starter's, caught at run time
//! instead of hanging.
//! expect-fail: a_timer_that_cannot_fire_on_time_is_reported_late, every_timer_fires_even_identical_or_already_due, handlers_that_overlap_all_fire_on_time, ten_thousand_timers_fire_at_twenty_ms, timers_fire_in_deadline_order
//! replaces: fire_all

pub async fn fire_all<H: Handler>(timers: &[Timer], handler: &H) -> Report {
    let report = RefCell::new(Report::default());
    join_all(timers.iter().map(|timer| async {
        sleep_until(timer.deadline).await;
        {
            let fired = &mut report.borrow_mut().fired;
            fired.push(Fired {
                id: timer.id,
                deadline: timer.deadline,
                at: Instant::now(),
            });
            handler.on_fire(timer.id).await;
        }
    }))
    .await;
    report.into_inner()
}
