//! Timelines: what the executor sees, recorded from a real run of the learner's code.
//!
//! A test that records starts a [`Recording`] (a guard, usually in the test file's
//! helper that runs every test's body). While it lives, lab-support's own pieces write
//! down what happens, one event at a time:
//!
//! - every poll of a recorded future ([`Traced`], [`Gate`](crate::Gate)'s future, the
//!   future a [`TestTask`](crate::TestTask) or a [`MustWake`](crate::MustWake) polls), who
//!   polled it, with which waker, and how it answered: `Pending` (having woken its waker,
//!   keeping a clone of it, or neither) or `Ready`, or a panic;
//! - every clone, wake-up and drop of the wakers lab-support makes (the counting waker,
//!   a test task's waker, the waker `MustWake` relays, and the stand-in a root [`Traced`]
//!   gives its future for an executor's waker), and on which thread;
//! - the time, when the test runs in virtual time ([`Recording::virtual_time`]).
//!
//! Recording is on only when the runner asks (`cargo labs check`, `watch` and `trace` set
//! `LABS_TRACE_DIR`); then every recorded test writes its timeline to
//! `LABS_TRACE_DIR/<test name>.timeline` when it ends, and the runner prints the end of
//! a failing test's timeline. Without `LABS_TRACE_DIR`, nothing is recorded and the
//! wakers are the plain ones, exactly as before.
//!
//! Recording allocates once, when it starts (room for the first [`HEAD`] and the last
//! [`TAIL`] events), and never while the test runs: the labs count allocations per
//! thread, and a poll that is recorded must count as many as one that is not.
//!
//! It also names known mistakes as it sees them (the runner links each to the page that
//! explains it, through labs/runner/explain.toml):
//!
//! - `lost-wake`: a future returned `Pending` having neither woken its waker nor kept a
//!   clone of it: nothing will ever poll it again;
//! - `busy-loop`: a future woke its own waker on every poll, again and again, without
//!   progress, while what it waited for was still pending;
//! - `foreign-waker`: a future was polled with a waker that is not its task's
//!   (`Waker::noop()`, or an earlier task's);
//! - `polled-after-ready`: a future was polled again after it returned `Ready`;
//! - `unwoken-poll`: an executor polled its future again though nobody had woken it.
//!
//! The file is text, one line each: `timeline 1`, `test NAME`, `outcome passed|failed`,
//! `events TOTAL`, `cut FROM TO` (events not kept), `pattern ID SEQ DETAIL`, then
//! `event SEQ AT THREAD DEPTH KIND BY FUTURE WAKER DETAIL`, fields separated by tabs
//! (`-` for none; AT is virtual milliseconds). labs/runner/src/trace.rs reads it, and so
//! does scripts/timelines.
#![allow(
    unsafe_code,
    reason = "a waker whose clone and drop are recorded needs its own RawWakerVTable"
)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

use crate::waker::CountingWaker;

/// The folder the runner asks timelines to be written to; recording is off without it.
pub const DIR_VAR: &str = "LABS_TRACE_DIR";
/// Events kept from the start of a timeline.
pub const HEAD: usize = 300;
/// Events kept from the end of a timeline (those in between are counted, not kept).
pub const TAIL: usize = 3_000;
/// Different future names, and wakers alive at once, that a timeline tells apart.
const NAMES: usize = 64;
const KNOWN: usize = 512;
/// Nested polls a thread keeps track of.
const DEPTH: usize = 32;

// ---------------------------------------------------------------------------------------
// Events

/// A future, by the name it was recorded under and its number among futures of that name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct FutureId {
    name: &'static str,
    n: u32,
}

/// Which waker: one lab-support made (and so sees), `Waker::noop()`, or another.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum WakerRef {
    /// A counting waker (`counting_waker()`), by number.
    Counting(u16),
    /// The waker of a task: a `TestTask`, a `MustWake`, or a root `Traced`'s stand-in.
    Task(u16),
    Noop,
    /// A waker lab-support did not make (an executor's, a combinator's own).
    Other,
}

/// Who did it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum By {
    /// The test, polling by hand or opening a gate.
    Test,
    /// A test task (`TestTask`), by number.
    Task(u16),
    /// An executor (whatever polls a `MustWake` or a root `Traced`).
    Executor,
    /// A future, during its poll.
    Future(FutureId),
    /// Another thread, by number.
    Thread(u16),
    /// A tokio runtime, outside any poll (its timers and I/O driver).
    Runtime,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum What {
    Poll,
    /// `woke`: the waker it was polled with was woken during the poll; `kept`: a clone of
    /// it is alive after the poll; `None` where lab-support cannot see that waker.
    Pending(Option<(bool, bool)>),
    Ready,
    Panicked,
    Wake,
    WakeByRef,
    Clone,
    Drop,
    /// A future dropped before it finished.
    Dropped,
    Note(&'static str),
}

#[derive(Clone, Copy, Debug)]
struct Event {
    seq: u32,
    /// Virtual milliseconds since the first event, or `u32::MAX`.
    at: u32,
    thread: u16,
    depth: u8,
    what: What,
    by: By,
    future: Option<FutureId>,
    waker: Option<WakerRef>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pattern {
    LostWake,
    BusyLoop,
    ForeignWaker,
    PolledAfterReady,
    UnwokenPoll,
}

impl Pattern {
    fn id(self) -> &'static str {
        match self {
            Pattern::LostWake => "lost-wake",
            Pattern::BusyLoop => "busy-loop",
            Pattern::ForeignWaker => "foreign-waker",
            Pattern::PolledAfterReady => "polled-after-ready",
            Pattern::UnwokenPoll => "unwoken-poll",
        }
    }
}

/// The first time a pattern was seen, and how often.
#[derive(Clone, Copy, Debug)]
struct Hit {
    pattern: Pattern,
    seq: u32,
    future: FutureId,
    waker: WakerRef,
    /// `foreign-waker`: the waker it should have been; others: unused.
    expected: Option<WakerRef>,
    /// The poll's number (`lost-wake`, `unwoken-poll`) or the polls in a row (`busy-loop`).
    count: u32,
    times: u32,
}

/// A waker lab-support made, while it is alive.
struct Known {
    addr: usize,
    label: WakerRef,
    /// `Waker` handles alive, and how many of them its owner holds.
    handles: i32,
    base: i32,
    wakes: u32,
}

struct State {
    head: Vec<Event>,
    tail: VecDeque<Event>,
    total: u32,
    names: Vec<(&'static str, u32)>,
    known: Vec<Known>,
    counting: u16,
    tasks: u16,
    threads: u16,
    /// Recorded futures whose last poll returned `Pending` without waking themselves:
    /// they wait for something else.
    waiting: u32,
    hits: Vec<Hit>,
    virtual_time: bool,
    start: Option<tokio::time::Instant>,
}

pub(crate) struct Recorder {
    state: Mutex<State>,
}

impl Recorder {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn key(&self) -> usize {
        self as *const Recorder as usize
    }
}

impl State {
    fn push(&mut self, mut event: Event, recorder: usize) {
        event.seq = self.total;
        event.thread = thread_label(self, recorder);
        event.at = self.now();
        self.total = self.total.saturating_add(1);
        if self.head.len() < HEAD {
            self.head.push(event);
            return;
        }
        if self.tail.len() == TAIL {
            self.tail.pop_front();
        }
        self.tail.push_back(event);
    }

    fn now(&mut self) -> u32 {
        if !self.virtual_time {
            return u32::MAX;
        }
        let now = tokio::time::Instant::now();
        let start = *self.start.get_or_insert(now);
        now.duration_since(start)
            .as_millis()
            .min(u32::MAX as u128 - 1) as u32
    }

    fn hit(&mut self, hit: Hit) {
        if let Some(h) = self.hits.iter_mut().find(|h| h.pattern == hit.pattern) {
            h.times += 1;
        } else if self.hits.len() < self.hits.capacity() {
            self.hits.push(hit);
        }
    }

    fn future(&mut self, name: &'static str) -> FutureId {
        if let Some((_, count)) = self.names.iter_mut().find(|(n, _)| *n == name) {
            *count += 1;
            FutureId { name, n: *count }
        } else if self.names.len() < NAMES {
            self.names.push((name, 1));
            FutureId { name, n: 1 }
        } else {
            FutureId { name, n: 0 }
        }
    }

    fn identify(&self, waker: &Waker) -> WakerRef {
        if is_noop(waker) {
            return WakerRef::Noop;
        }
        let addr = waker.data() as usize;
        self.known
            .iter()
            .rev()
            .find(|k| k.addr == addr && k.handles > 0)
            .map_or(WakerRef::Other, |k| k.label)
    }

    /// The waker lab-support made at `addr`, alive or not (a waker whose last handle is
    /// gone is forgotten only when another is made).
    fn known_at(&mut self, addr: usize) -> Option<&mut Known> {
        self.known.iter_mut().rev().find(|k| k.addr == addr)
    }

    fn register(&mut self, addr: usize, label: WakerRef, base: i32) {
        self.known.retain(|k| k.handles > 0 && k.addr != addr);
        if self.known.len() < KNOWN {
            self.known.push(Known {
                addr,
                label,
                handles: 1,
                base,
                wakes: 0,
            });
        }
    }
}

/// Whether `waker` is `Waker::noop()`, or another that can wake nobody in particular.
/// `will_wake` compares the vtable's address, and each crate may get its own copy of the
/// noop waker's vtable (and of its functions): a waker with no data (a null pointer) is
/// taken for a no-op one too, as `futures`' `noop_waker` is. An executor's or a task's
/// waker points to its task.
fn is_noop(waker: &Waker) -> bool {
    waker.will_wake(Waker::noop()) || waker.data().is_null()
}

// ---------------------------------------------------------------------------------------
// Per-thread state: which recording is current, the thread's label, the polls in progress

/// The frame of a poll in progress on this thread.
#[derive(Clone, Copy)]
struct Frame {
    recorder: usize,
    future: FutureId,
    waker: WakerRef,
    /// The waker of the task this poll is part of (the outermost poll's).
    task_waker: WakerRef,
    /// This poll itself (not a poll inside it) woke `waker`.
    woke_own: bool,
    /// A future polled inside it finished, or was polled for the first time.
    progress: bool,
}

const NO_FRAME: Frame = Frame {
    recorder: 0,
    future: FutureId { name: "", n: 0 },
    waker: WakerRef::Other,
    task_waker: WakerRef::Other,
    woke_own: false,
    progress: false,
};

struct Stack {
    frames: [Frame; DEPTH],
    len: usize,
}

thread_local! {
    // All `const` and without destructors: touching them never allocates, on any thread
    // (a thread-local with a destructor registers it on first use, which may allocate).
    static CURRENT: Cell<*const Recorder> = const { Cell::new(std::ptr::null()) };
    /// (recorder, label + 1): this thread's label in that recording; 1 is the test thread.
    static THREAD: Cell<(usize, u16)> = const { Cell::new((0, 0)) };
    static STACK: RefCell<Stack> = const {
        RefCell::new(Stack { frames: [NO_FRAME; DEPTH], len: 0 })
    };
}

fn thread_label(state: &mut State, recorder: usize) -> u16 {
    THREAD.with(|t| {
        let (of, label) = t.get();
        if of == recorder && label > 0 {
            return label - 1;
        }
        state.threads += 1;
        t.set((recorder, state.threads + 1));
        state.threads
    })
}

/// The innermost poll in progress on this thread, for `recorder`.
fn top(recorder: usize) -> Option<Frame> {
    STACK.with(|s| {
        let s = s.borrow();
        (s.len > 0 && s.frames[s.len - 1].recorder == recorder).then(|| s.frames[s.len - 1])
    })
}

fn with_top(recorder: usize, f: impl FnOnce(&mut Frame)) {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        let len = s.len;
        if len > 0 && s.frames[len - 1].recorder == recorder {
            f(&mut s.frames[len - 1]);
        }
    })
}

fn depth() -> usize {
    STACK.with(|s| s.borrow().len)
}

/// Who acts now on this thread, outside the polls of `recorder`'s futures.
/// (Whether a tokio runtime runs here is asked only of tests in virtual time: tokio's
/// thread-local may allocate on first use, and other tests count allocations.)
fn actor(recorder: usize, thread: u16, virtual_time: bool) -> By {
    if let Some(frame) = top(recorder) {
        return By::Future(frame.future);
    }
    if thread > 0 {
        By::Thread(thread)
    } else if virtual_time && tokio::runtime::Handle::try_current().is_ok() {
        By::Runtime
    } else {
        By::Test
    }
}

/// A handle on the current thread's recording.
#[derive(Clone)]
pub(crate) struct Handle(Arc<Recorder>);

/// The recording current on this thread, if any.
pub(crate) fn current() -> Option<Handle> {
    let ptr = CURRENT.with(Cell::get);
    if ptr.is_null() {
        return None;
    }
    // SAFETY: CURRENT is non-null only while an `Entered` guard on this thread holds a
    // strong reference to this recorder (it resets CURRENT before letting it go), so the
    // pointer is live, and it came from `Arc::as_ptr`.
    unsafe {
        Arc::increment_strong_count(ptr);
        Some(Handle(Arc::from_raw(ptr)))
    }
}

/// Makes a recording current on this thread until dropped (its threads are the test's).
pub(crate) struct Entered {
    recorder: Arc<Recorder>,
    previous: *const Recorder,
    previous_thread: (usize, u16),
    /// Dropped on the thread that made it: it resets that thread's state.
    _not_send: PhantomData<*const ()>,
}

impl Handle {
    /// Makes this recording current on this thread, which counts as the test's thread.
    pub(crate) fn enter(&self) -> Entered {
        let previous = CURRENT.with(|c| c.replace(Arc::as_ptr(&self.0)));
        let previous_thread = THREAD.with(|t| t.replace((self.0.key(), 1)));
        Entered {
            recorder: Arc::clone(&self.0),
            previous,
            previous_thread,
            _not_send: PhantomData,
        }
    }

    fn key(&self) -> usize {
        self.0.key()
    }

    /// A name for a new future.
    pub(crate) fn future(&self, name: &'static str) -> FutureId {
        self.0.lock().future(name)
    }

    /// A number for a new task.
    pub(crate) fn task(&self) -> u16 {
        let mut state = self.0.lock();
        state.tasks += 1;
        state.tasks
    }

    /// Records a note about `future`, from this thread.
    pub(crate) fn note(&self, future: Option<FutureId>, text: &'static str) {
        let key = self.key();
        let mut state = self.0.lock();
        let thread = thread_label(&mut state, key);
        let by = actor(key, thread, state.virtual_time);
        state.push(
            Event {
                seq: 0,
                at: 0,
                thread,
                depth: depth() as u8,
                what: What::Note(text),
                by,
                future,
                waker: None,
            },
            key,
        );
    }
}

impl Drop for Entered {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
        THREAD.with(|t| t.set(self.previous_thread));
        let _ = &self.recorder;
    }
}

/// The current recording, to carry to another thread: lab-support's watchdogs run a
/// test's body on a thread of its own, which is the test's thread all the same.
pub struct Carried(Option<Handle>);

/// Takes the recording current on this thread (if any) along to another.
pub fn carry() -> Carried {
    Carried(current())
}

/// While alive, the carried recording is current on this thread.
pub struct CarriedIn(#[allow(dead_code, reason = "held for its Drop")] Option<Entered>);

impl Carried {
    /// Makes the carried recording current on this thread, until the result is dropped.
    pub fn enter(&self) -> CarriedIn {
        CarriedIn(self.0.as_ref().map(Handle::enter))
    }
}

// ---------------------------------------------------------------------------------------
// The recording of a test

/// Records the current test's timeline while it lives, if the runner asks for timelines
/// (`LABS_TRACE_DIR`), and writes it when dropped: `LABS_TRACE_DIR/<test>.timeline`. The
/// test's name is its thread's (libtest names each test's thread after the test).
/// lab-support's watchdogs ([`within`](crate::within), [`paused`](crate::paused), …)
/// carry the recording to the thread they run the body on.
#[must_use = "the recording ends when this guard is dropped"]
pub struct Recording {
    active: Option<(Handle, Entered, PathBuf, String)>,
}

impl Recording {
    /// Starts recording, if `LABS_TRACE_DIR` is set and no recording is current here.
    pub fn start() -> Recording {
        match std::env::var_os(DIR_VAR) {
            Some(dir) if !dir.is_empty() => Recording::start_in(PathBuf::from(dir)),
            _ => Recording { active: None },
        }
    }

    /// Starts recording whatever the environment says, to write into `dir`, unless a
    /// recording is current here already.
    pub fn start_in(dir: impl Into<PathBuf>) -> Recording {
        let dir = dir.into();
        if current().is_some() {
            return Recording { active: None };
        }
        let name = std::thread::current().name().unwrap_or("main").to_owned();
        let handle = Handle(Arc::new(Recorder {
            state: Mutex::new(State {
                head: Vec::with_capacity(HEAD),
                tail: VecDeque::with_capacity(TAIL),
                total: 0,
                names: Vec::with_capacity(NAMES),
                known: Vec::with_capacity(KNOWN),
                counting: 0,
                tasks: 0,
                threads: 0,
                waiting: 0,
                hits: Vec::with_capacity(8),
                virtual_time: false,
                start: None,
            }),
        }));
        let entered = handle.enter();
        Recording {
            active: Some((handle, entered, dir, name)),
        }
    }

    /// Stamps every event with the virtual time since the first one (for a test that
    /// runs on a tokio runtime with paused time, where time is exact).
    pub fn virtual_time(self) -> Recording {
        if let Some((handle, ..)) = &self.active {
            handle.0.lock().virtual_time = true;
        }
        self
    }

    /// Whether events are being recorded.
    pub fn is_on(&self) -> bool {
        self.active.is_some()
    }

    /// The timeline as written so far (what the file would hold now).
    pub fn text(&self, outcome: &str) -> Option<String> {
        let (handle, _, _, name) = self.active.as_ref()?;
        Some(render(&handle.0.lock(), name, outcome))
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        let Some((handle, entered, dir, name)) = self.active.take() else {
            return;
        };
        drop(entered);
        let outcome = if std::thread::panicking() {
            "failed"
        } else {
            "passed"
        };
        let text = render(&handle.0.lock(), &name, outcome);
        let file: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{file}.timeline")), text);
    }
}

/// Records a note in the current recording ("the gate opens", "parks"), if any.
pub fn note(text: &'static str) {
    if let Some(handle) = current() {
        let future = top(handle.key()).map(|f| f.future);
        handle.note(future, text);
    }
}

// ---------------------------------------------------------------------------------------
// Wakers whose clones, wake-ups and drops are recorded

/// What a recorded waker points to: its data, and the recording it reports to.
pub(crate) trait Traceable: Send + Sync + Sized + 'static {
    fn tracer(&self) -> Option<&Tracer>;
    /// What waking it does (count, forward, …), after the wake-up is recorded.
    fn on_wake(&self);
    /// A handle was cloned; one was dropped (or consumed by `wake`).
    fn on_clone(&self) {}
    fn on_drop(&self) {}
}

/// Where a recorded waker reports, and under which name.
pub(crate) struct Tracer {
    handle: Handle,
    label: WakerRef,
}

impl Tracer {
    pub(crate) fn counting(handle: Handle) -> Tracer {
        let label = {
            let mut state = handle.0.lock();
            state.counting += 1;
            WakerRef::Counting(state.counting)
        };
        Tracer { handle, label }
    }

    pub(crate) fn task(handle: Handle, task: u16) -> Tracer {
        Tracer {
            handle,
            label: WakerRef::Task(task),
        }
    }

    fn record(&self, addr: usize, what: What) {
        let key = self.handle.key();
        let mut state = self.handle.0.lock();
        let thread = thread_label(&mut state, key);
        let by = actor(key, thread, state.virtual_time);
        if let Some(known) = state.known_at(addr) {
            match what {
                What::Clone => known.handles += 1,
                What::Drop => known.handles -= 1,
                What::Wake => {
                    known.handles -= 1;
                    known.wakes += 1;
                }
                What::WakeByRef => known.wakes += 1,
                _ => {}
            }
        }
        if matches!(what, What::Wake | What::WakeByRef) {
            // (Only lab-support's wakers are recorded: never `Waker::noop()`.)
            let label = self.label;
            with_top(key, |frame| {
                if frame.waker == label {
                    frame.woke_own = true;
                }
            });
        }
        state.push(
            Event {
                seq: 0,
                at: 0,
                thread,
                depth: depth() as u8,
                what,
                by,
                future: None,
                waker: Some(self.label),
            },
            key,
        );
    }
}

struct VTable<T>(PhantomData<T>);

impl<T: Traceable> VTable<T> {
    const V: RawWakerVTable = RawWakerVTable::new(
        clone_raw::<T>,
        wake_raw::<T>,
        wake_by_ref_raw::<T>,
        drop_raw::<T>,
    );
}

/// A waker over `arc` whose clones, wake-ups and drops are recorded in the tracer's
/// timeline (`base`: how many handles its owner keeps for itself).
pub(crate) fn traced_waker<T: Traceable>(arc: Arc<T>, base: i32) -> Waker {
    if let Some(tracer) = arc.tracer() {
        let addr = Arc::as_ptr(&arc) as usize;
        tracer.handle.0.lock().register(addr, tracer.label, base);
    }
    let raw = RawWaker::new(Arc::into_raw(arc).cast(), &VTable::<T>::V);
    // SAFETY: the vtable's functions treat the data pointer as an `Arc<T>` made by
    // `Arc::into_raw`, as it is, and keep its reference count right: `clone` adds one,
    // `wake` and `drop` take one back, `wake_by_ref` leaves it.
    unsafe { Waker::from_raw(raw) }
}

unsafe fn clone_raw<T: Traceable>(data: *const ()) -> RawWaker {
    // SAFETY: `data` is a live `Arc<T>` (the waker being cloned holds it).
    let this = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<T>()) });
    let copy = Arc::clone(&this);
    this.on_clone();
    if let Some(tracer) = this.tracer() {
        tracer.record(data as usize, What::Clone);
    }
    RawWaker::new(Arc::into_raw(copy).cast(), &VTable::<T>::V)
}

unsafe fn wake_raw<T: Traceable>(data: *const ()) {
    // SAFETY: the waker is consumed: this takes back its reference.
    let this = unsafe { Arc::from_raw(data.cast::<T>()) };
    if let Some(tracer) = this.tracer() {
        tracer.record(data as usize, What::Wake);
    }
    this.on_wake();
    this.on_drop();
}

unsafe fn wake_by_ref_raw<T: Traceable>(data: *const ()) {
    // SAFETY: `data` is a live `Arc<T>`, borrowed here.
    let this = ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<T>()) });
    if let Some(tracer) = this.tracer() {
        tracer.record(data as usize, What::WakeByRef);
    }
    this.on_wake();
}

unsafe fn drop_raw<T: Traceable>(data: *const ()) {
    // SAFETY: the waker is dropped: this takes back its reference.
    let this = unsafe { Arc::from_raw(data.cast::<T>()) };
    if let Some(tracer) = this.tracer() {
        tracer.record(data as usize, What::Drop);
    }
    this.on_drop();
}

/// A counting waker whose uses are recorded. It is the waker of [`crate::counting_waker`],
/// same counter, same counts: each `Waker` handle holds a strong reference to the
/// counter, as std's `Waker::from(Arc)` does, so [`CountingWaker::clones`] still counts
/// the clones alive.
struct Counted {
    /// An `Arc<CountingWaker>` reference for each `Waker` handle alive: taken from
    /// `Arc::into_raw` for the first, added in `on_clone`, given back in `on_drop`.
    counter: *const CountingWaker,
    tracer: Tracer,
}

// SAFETY: `counter` stands for `Arc<CountingWaker>` references (and `CountingWaker` is
// `Send + Sync`, all atomics); `Tracer` is `Send + Sync`.
unsafe impl Send for Counted {}
unsafe impl Sync for Counted {}

impl Traceable for Counted {
    fn tracer(&self) -> Option<&Tracer> {
        Some(&self.tracer)
    }

    fn on_wake(&self) {
        // SAFETY: a live handle holds a reference to the counter.
        let counter = ManuallyDrop::new(unsafe { Arc::from_raw(self.counter) });
        std::task::Wake::wake_by_ref(&*counter);
    }

    fn on_clone(&self) {
        // SAFETY: as above; the new handle gets a reference of its own.
        unsafe { Arc::increment_strong_count(self.counter) };
    }

    fn on_drop(&self) {
        // SAFETY: the handle going away gives its reference back; another handle, or the
        // test's own `Arc`, may still hold the counter.
        unsafe { Arc::decrement_strong_count(self.counter) };
    }
}

/// The counter and a waker: recorded while a timeline is (labelled "waker N"), else
/// [`crate::counting_waker`]'s own.
pub fn counting_waker() -> (Arc<CountingWaker>, Waker) {
    match current() {
        Some(handle) => counted(Tracer::counting(handle)),
        None => crate::counting_waker(),
    }
}

/// A counting waker recorded under `tracer`'s label.
pub(crate) fn counted(tracer: Tracer) -> (Arc<CountingWaker>, Waker) {
    let counter = Arc::new(CountingWaker::default());
    let counted = Arc::new(Counted {
        counter: Arc::into_raw(Arc::clone(&counter)),
        tracer,
    });
    (counter, traced_waker(counted, 1))
}

/// The stand-in waker a root [`Traced`] gives its future in place of an executor's
/// waker it cannot see: it records, then wakes the executor's.
struct Proxy {
    tracer: Tracer,
    outer: Mutex<Waker>,
}

impl Traceable for Proxy {
    fn tracer(&self) -> Option<&Tracer> {
        Some(&self.tracer)
    }

    fn on_wake(&self) {
        self.outer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .wake_by_ref();
    }
}

// ---------------------------------------------------------------------------------------
// Recorded polls

/// What a recorded future remembers between its polls.
pub(crate) struct Tracked {
    handle: Handle,
    pub(crate) id: FutureId,
    polls: u32,
    finished: bool,
    waiting: bool,
    /// Polls in a row that woke their own waker without progress.
    streak: u32,
    /// The wake-ups of its stand-in waker when its last poll through it began (a root
    /// `Traced`); `None` before the first.
    wakes_before: Option<u32>,
    /// Made for one poll only (a test task's): no bookkeeping across polls.
    transient: bool,
}

/// How a poll is made.
#[derive(Clone, Copy)]
pub(crate) enum Poller {
    /// Whatever encloses it on this thread: a poll inside another's, or the test by hand.
    Nested,
    /// A test task (`TestTask`), by number: the poll is the task's.
    Task(u16),
    /// An executor, through a relay that stands for its task (`MustWake`).
    Executor,
}

/// A poll in progress: ends with [`PollGuard::end`], or records a panic if dropped.
pub(crate) struct PollGuard<'a> {
    tracked: &'a mut Tracked,
    by: By,
    waker: WakerRef,
    /// The data pointer of the waker it was polled with.
    addr: usize,
    wakes_at_start: Option<u32>,
    pushed: bool,
    done: bool,
}

impl Tracked {
    pub(crate) fn new(handle: Handle, name: &'static str) -> Tracked {
        let id = handle.future(name);
        Tracked {
            handle,
            id,
            polls: 0,
            finished: false,
            waiting: false,
            streak: 0,
            wakes_before: None,
            transient: false,
        }
    }

    /// For one poll of a future named by its poller (a test task's): no number.
    pub(crate) fn transient(handle: Handle, name: &'static str) -> Tracked {
        Tracked {
            handle,
            id: FutureId { name, n: 0 },
            polls: 0,
            finished: false,
            waiting: false,
            streak: 0,
            wakes_before: None,
            transient: true,
        }
    }

    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Records the start of a poll with `waker` (the waker the future itself is given).
    pub(crate) fn begin(&mut self, poller: Poller, waker: &Waker) -> PollGuard<'_> {
        let key = self.handle.key();
        let parent = top(key);
        let mut state = self.handle.0.lock();
        let waker_ref = state.identify(waker);
        let thread = thread_label(&mut state, key);
        let by = match (poller, parent) {
            (Poller::Task(n), _) => By::Task(n),
            (Poller::Executor, _) => By::Executor,
            (Poller::Nested, Some(p)) => By::Future(p.future),
            (Poller::Nested, None) if waker_ref == WakerRef::Other => By::Executor,
            (Poller::Nested, None) if thread > 0 => By::Thread(thread),
            (Poller::Nested, None) => By::Test,
        };
        self.polls += 1;
        state.push(
            Event {
                seq: 0,
                at: 0,
                thread,
                depth: depth() as u8,
                what: What::Poll,
                by,
                future: Some(self.id),
                waker: Some(waker_ref),
            },
            key,
        );
        let seq = state.total - 1;
        if self.finished {
            state.hit(Hit {
                pattern: Pattern::PolledAfterReady,
                seq,
                future: self.id,
                waker: waker_ref,
                expected: None,
                count: self.polls,
                times: 1,
            });
        }
        let task_waker = match (poller, parent) {
            (Poller::Nested, Some(p)) => p.task_waker,
            _ => waker_ref,
        };
        if let (Poller::Nested, Some(p)) = (poller, parent) {
            let foreign = match waker_ref {
                WakerRef::Noop => true,
                WakerRef::Other => false,
                known => !matches!(task_waker, WakerRef::Other) && known != task_waker,
            };
            if foreign {
                state.hit(Hit {
                    pattern: Pattern::ForeignWaker,
                    seq,
                    future: self.id,
                    waker: waker_ref,
                    expected: Some(p.task_waker),
                    count: self.polls,
                    times: 1,
                });
            }
        }
        let addr = waker.data() as usize;
        let wakes_at_start = match waker_ref {
            WakerRef::Counting(_) | WakerRef::Task(_) => state.known_at(addr).map(|k| k.wakes),
            _ => None,
        };
        drop(state);
        if self.polls == 1 {
            with_top(key, |p| p.progress = true);
        }
        let pushed = STACK.with(|s| {
            let mut s = s.borrow_mut();
            if s.len == DEPTH {
                return false;
            }
            let len = s.len;
            s.frames[len] = Frame {
                recorder: key,
                future: self.id,
                waker: waker_ref,
                task_waker,
                woke_own: false,
                progress: false,
            };
            s.len += 1;
            true
        });
        PollGuard {
            tracked: self,
            by,
            waker: waker_ref,
            addr,
            wakes_at_start,
            pushed,
            done: false,
        }
    }

    /// A root `Traced`'s check before its poll: was its stand-in woken since the last?
    fn check_woken(&mut self, proxy: &Waker) {
        let mut state = self.handle.0.lock();
        let label = state.identify(proxy);
        let wakes = state.known_at(proxy.data() as usize).map_or(0, |k| k.wakes);
        if !self.finished && self.wakes_before == Some(wakes) {
            let seq = state.total;
            state.hit(Hit {
                pattern: Pattern::UnwokenPoll,
                seq,
                future: self.id,
                waker: label,
                expected: None,
                count: self.polls + 1,
                times: 1,
            });
        }
        self.wakes_before = Some(wakes);
    }

    fn dropped(&mut self) {
        if self.polls == 0 || self.finished {
            return;
        }
        let key = self.handle.key();
        let mut state = self.handle.0.lock();
        if self.waiting {
            state.waiting -= 1;
        }
        let thread = thread_label(&mut state, key);
        let by = actor(key, thread, state.virtual_time);
        state.push(
            Event {
                seq: 0,
                at: 0,
                thread,
                depth: depth() as u8,
                what: What::Dropped,
                by,
                future: Some(self.id),
                waker: None,
            },
            key,
        );
    }
}

impl PollGuard<'_> {
    fn pop(&mut self) -> Option<Frame> {
        if !self.pushed {
            return None;
        }
        self.pushed = false;
        STACK.with(|s| {
            let mut s = s.borrow_mut();
            s.len -= 1;
            Some(s.frames[s.len])
        })
    }

    /// Records how the poll ended.
    pub(crate) fn end<T>(mut self, result: &Poll<T>) {
        self.done = true;
        let frame = self.pop();
        let tracked = &mut *self.tracked;
        let key = tracked.handle.key();
        let mut state = tracked.handle.0.lock();
        let thread = thread_label(&mut state, key);
        let was_waiting = tracked.waiting;
        let what = match result {
            Poll::Ready(_) => {
                tracked.finished = true;
                tracked.waiting = false;
                tracked.streak = 0;
                What::Ready
            }
            Poll::Pending => {
                let wakes_at_start = self.wakes_at_start;
                let seen = match self.waker {
                    WakerRef::Noop => Some((false, false)),
                    WakerRef::Counting(_) | WakerRef::Task(_) => match state.known_at(self.addr) {
                        Some(k) => Some((
                            wakes_at_start.is_some_and(|w| k.wakes > w),
                            k.handles > k.base,
                        )),
                        None => None,
                    },
                    WakerRef::Other => None,
                };
                let woke_own = frame.is_some_and(|f| f.woke_own);
                let progress = frame.is_some_and(|f| f.progress);
                // Waiting for something else: not woken during its poll (where that can
                // be seen), or at least not by itself.
                // (Polled with `Waker::noop()`, it cannot be told: not counted.)
                tracked.waiting = !tracked.transient
                    && match (self.waker, seen) {
                        (WakerRef::Noop, _) => false,
                        (_, Some((woke, _))) => !woke,
                        (_, None) => !woke_own,
                    };
                let waiting_others = state.waiting - u32::from(was_waiting);
                if !tracked.transient && woke_own && !progress && waiting_others > 0 {
                    tracked.streak += 1;
                    if tracked.streak >= 3 {
                        let seq = state.total;
                        state.hit(Hit {
                            pattern: Pattern::BusyLoop,
                            seq,
                            future: tracked.id,
                            waker: self.waker,
                            expected: None,
                            count: tracked.streak,
                            times: 1,
                        });
                    }
                } else {
                    tracked.streak = 0;
                }
                if let Some((woke, kept)) = seen
                    && !woke
                    && !kept
                    && !matches!(self.waker, WakerRef::Noop)
                {
                    let seq = state.total;
                    state.hit(Hit {
                        pattern: Pattern::LostWake,
                        seq,
                        future: tracked.id,
                        waker: self.waker,
                        expected: None,
                        count: tracked.polls,
                        times: 1,
                    });
                }
                What::Pending(seen)
            }
        };
        match (was_waiting, tracked.waiting) {
            (false, true) => state.waiting += 1,
            (true, false) => state.waiting -= 1,
            _ => {}
        }
        state.push(
            Event {
                seq: 0,
                at: 0,
                thread,
                depth: depth() as u8,
                what,
                by: self.by,
                future: Some(tracked.id),
                waker: Some(self.waker),
            },
            key,
        );
        drop(state);
        if matches!(result, Poll::Ready(_)) {
            with_top(key, |p| p.progress = true);
        }
    }
}

impl Drop for PollGuard<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // The poll panicked.
        self.pop();
        let tracked = &mut *self.tracked;
        tracked.finished = true;
        let key = tracked.handle.key();
        let mut state = tracked.handle.0.lock();
        if tracked.waiting {
            tracked.waiting = false;
            state.waiting -= 1;
        }
        let thread = thread_label(&mut state, key);
        state.push(
            Event {
                seq: 0,
                at: 0,
                thread,
                depth: depth() as u8,
                what: What::Panicked,
                by: self.by,
                future: Some(tracked.id),
                waker: Some(self.waker),
            },
            key,
        );
    }
}

// ---------------------------------------------------------------------------------------
// Traced: any future, recorded

/// A future whose polls are recorded in the current test's timeline: who polled it, with
/// which waker, and how it answered. It polls `F` with the same `Context`, so it changes
/// nothing `F` does, with one exception: polled first by an executor whose waker
/// lab-support cannot see, it hands `F` a stand-in that records each clone and wake-up and
/// wakes the executor's waker (one allocation, at the first poll; `Waker::noop()` is
/// passed on as it is). Without a recording, it only polls `F`.
#[must_use = "futures do nothing unless polled"]
pub struct Traced<F> {
    inner: F,
    tracked: Option<Tracked>,
    proxy: Option<Waker>,
}

/// `future`, recorded under `name` ("request", "sleep"): futures of the same name are
/// told apart by a letter or a number ("request b").
pub fn traced<F: Future>(name: &'static str, future: F) -> Traced<F> {
    Traced {
        inner: future,
        tracked: current().map(|h| Tracked::new(h, name)),
        proxy: None,
    }
}

impl<F: Future> Traced<F> {
    /// `future`, recorded under the name of its type (`Countdown`, `Join`).
    pub fn new(future: F) -> Traced<F> {
        traced(short_name(std::any::type_name::<F>()), future)
    }
}

impl<F: Unpin> Unpin for Traced<F> {}

impl<F: Future> Future for Traced<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `inner` is pinned structurally: it is never moved out of `Traced`, not
        // even by `Drop`, which only reads the recording's state.
        let this = unsafe { self.get_unchecked_mut() };
        let inner = unsafe { Pin::new_unchecked(&mut this.inner) };
        let Some(tracked) = this.tracked.as_mut() else {
            return inner.poll(cx);
        };
        let root = top(tracked.handle.key()).is_none();
        let seen = tracked.handle.0.lock().identify(cx.waker());
        if root && seen == WakerRef::Other {
            // An executor lab-support cannot see: give the future a stand-in that can be.
            match &this.proxy {
                Some(proxy) => {
                    let data = proxy.data().cast::<Proxy>();
                    // SAFETY: `proxy` was made by `traced_waker` over an `Arc<Proxy>`.
                    let stand_in = unsafe { &*data };
                    let mut outer = stand_in.outer.lock().unwrap_or_else(|e| e.into_inner());
                    if !outer.will_wake(cx.waker()) {
                        outer.clone_from(cx.waker());
                    }
                }
                None => {
                    let task = tracked.handle.task();
                    let arc = Arc::new(Proxy {
                        tracer: Tracer::task(tracked.handle.clone(), task),
                        outer: Mutex::new(cx.waker().clone()),
                    });
                    this.proxy = Some(traced_waker(arc, 1));
                }
            }
            let proxy = this.proxy.as_ref().expect("made above");
            tracked.check_woken(proxy);
            let mut cx = Context::from_waker(proxy);
            // Only an executor polls with a waker of its own: say so, not "the test".
            let guard = tracked.begin(Poller::Executor, proxy);
            let result = inner.poll(&mut cx);
            guard.end(&result);
            return result;
        }
        let guard = tracked.begin(Poller::Nested, cx.waker());
        let result = inner.poll(cx);
        guard.end(&result);
        result
    }
}

impl<F> Drop for Traced<F> {
    fn drop(&mut self) {
        if let Some(tracked) = self.tracked.as_mut() {
            tracked.dropped();
        }
    }
}

/// The name of a type, short: `countdown::Countdown` → `Countdown`,
/// `map_join_select::Join<…>` → `Join`, an async block → `async block`.
pub(crate) fn short_name(full: &'static str) -> &'static str {
    let mut s = full;
    'strip: loop {
        for prefix in ["&mut ", "&"] {
            if let Some(rest) = s.strip_prefix(prefix) {
                s = rest;
                continue 'strip;
            }
        }
        for wrapper in [
            "core::pin::Pin<",
            "alloc::boxed::Box<",
            "lab_support::timeline::Traced<",
        ] {
            if let Some(rest) = s.strip_prefix(wrapper).and_then(|r| r.strip_suffix('>')) {
                s = rest;
                continue 'strip;
            }
        }
        break;
    }
    if let Some(rest) = s.strip_prefix("dyn ") {
        s = rest;
    }
    let path = &s[..s.find('<').unwrap_or(s.len())];
    let last = path.rsplit("::").next().unwrap_or(path);
    match last {
        "{{closure}}" => "async block",
        "" => "future",
        name => name,
    }
}

// ---------------------------------------------------------------------------------------
// Writing a timeline

fn future_label(names: &[(&'static str, u32)], id: FutureId) -> String {
    let count = names
        .iter()
        .find(|(n, _)| *n == id.name)
        .map_or(0, |(_, c)| *c);
    if id.n == 0 || count <= 1 {
        return id.name.to_owned();
    }
    if count <= 26 {
        let letter = (b'a' + (id.n - 1) as u8) as char;
        format!("{} {letter}", id.name)
    } else {
        format!("{} {}", id.name, id.n)
    }
}

fn waker_label(state: &State, waker: WakerRef) -> String {
    match waker {
        WakerRef::Counting(n) if state.counting > 1 => format!("waker {n}"),
        WakerRef::Counting(_) => "the waker".to_owned(),
        WakerRef::Task(n) if state.tasks > 1 => format!("task {n}'s waker"),
        WakerRef::Task(_) => "the task's waker".to_owned(),
        WakerRef::Noop => "Waker::noop()".to_owned(),
        WakerRef::Other => "another waker".to_owned(),
    }
}

fn by_label(state: &State, by: By) -> String {
    match by {
        By::Test => "the test".to_owned(),
        By::Task(n) if state.tasks > 1 => format!("task {n}"),
        By::Task(_) => "the task".to_owned(),
        By::Executor => "the executor".to_owned(),
        By::Future(id) => future_label(&state.names, id),
        By::Thread(n) => format!("thread {n}"),
        By::Runtime => "the runtime".to_owned(),
    }
}

fn hit_detail(state: &State, hit: &Hit) -> String {
    let future = future_label(&state.names, hit.future);
    let waker = waker_label(state, hit.waker);
    let mut text = match hit.pattern {
        Pattern::LostWake => format!(
            "{future} returned Pending on its poll {} without waking {waker} or keeping a clone of it",
            hit.count
        ),
        Pattern::BusyLoop => format!(
            "{future} woke {waker} itself on {} polls in a row, with no progress, while what it waits for was still pending",
            hit.count
        ),
        Pattern::ForeignWaker => format!(
            "{future} was polled with {waker}, not {}",
            hit.expected
                .map_or_else(|| "its task's".to_owned(), |w| waker_label(state, w))
        ),
        Pattern::PolledAfterReady => {
            format!(
                "{future} was polled again (poll {}) after it returned Ready",
                hit.count
            )
        }
        Pattern::UnwokenPoll => format!(
            "{future} was polled again (poll {}) though nobody had woken {waker} since the poll before",
            hit.count
        ),
    };
    if hit.times > 1 {
        let _ = write!(text, " (and {} more times)", hit.times - 1);
    }
    text
}

fn render(state: &State, name: &str, outcome: &str) -> String {
    let mut out = String::new();
    let kept = state.head.len() + state.tail.len();
    let _ = writeln!(out, "timeline\t1");
    let _ = writeln!(out, "test\t{name}");
    let _ = writeln!(out, "outcome\t{outcome}");
    let _ = writeln!(out, "events\t{}", state.total);
    if (state.total as usize) > kept {
        let _ = writeln!(
            out,
            "cut\t{}\t{}",
            state.head.len(),
            state.total as usize - state.tail.len()
        );
    }
    for hit in &state.hits {
        let _ = writeln!(
            out,
            "pattern\t{}\t{}\t{}",
            hit.pattern.id(),
            hit.seq,
            hit_detail(state, hit)
        );
    }
    for e in state.head.iter().chain(state.tail.iter()) {
        let (kind, detail) = match e.what {
            What::Poll => ("poll", "-"),
            What::Pending(None) => ("pending", "-"),
            What::Pending(Some((true, true))) => ("pending", "woke,kept"),
            What::Pending(Some((true, false))) => ("pending", "woke"),
            What::Pending(Some((false, true))) => ("pending", "kept"),
            What::Pending(Some((false, false))) => ("pending", "none"),
            What::Ready => ("ready", "-"),
            What::Panicked => ("panicked", "-"),
            What::Wake => ("wake", "-"),
            What::WakeByRef => ("wake-by-ref", "-"),
            What::Clone => ("clone", "-"),
            What::Drop => ("drop", "-"),
            What::Dropped => ("dropped", "-"),
            What::Note(text) => ("note", text),
        };
        let at = if e.at == u32::MAX {
            "-".to_owned()
        } else {
            e.at.to_string()
        };
        let thread = if e.thread == 0 {
            "test thread".to_owned()
        } else {
            format!("thread {}", e.thread)
        };
        let future = e
            .future
            .map_or_else(|| "-".to_owned(), |f| future_label(&state.names, f));
        let waker = e
            .waker
            .map_or_else(|| "-".to_owned(), |w| waker_label(state, w));
        let _ = writeln!(
            out,
            "event\t{}\t{at}\t{thread}\t{}\t{kind}\t{}\t{future}\t{waker}\t{detail}",
            e.seq,
            e.depth,
            by_label(state, e.by),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Gate, MustWake, TestTask};
    use std::future::poll_fn;

    fn recording() -> Recording {
        Recording::start_in(std::env::temp_dir().join("lab-support-timeline-tests"))
    }

    fn patterns(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.strip_prefix("pattern\t"))
            .filter_map(|l| l.split('\t').next())
            .collect()
    }

    fn events(text: &str) -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix("event\t"))
            .map(|l| l.split('\t').skip(2).collect::<Vec<_>>().join(" | "))
            .collect()
    }

    /// A future that is `Pending` `n` times, waking its waker each time when `wake`.
    fn countdown(mut n: u32, wake: bool) -> impl Future<Output = ()> + Unpin {
        poll_fn(move |cx| {
            if n == 0 {
                return Poll::Ready(());
            }
            n -= 1;
            if wake {
                cx.waker().wake_by_ref();
            }
            Poll::Pending
        })
    }

    #[test]
    fn records_polls_and_wakes_of_a_counting_waker() {
        let rec = recording();
        let (counter, waker) = counting_waker();
        let mut cx = Context::from_waker(&waker);
        let mut future = traced("countdown", countdown(1, true));
        assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut future).poll(&mut cx).is_ready());
        let kept = waker.clone();
        assert_eq!(
            counter.clones(),
            1,
            "a recorded waker's clones are counted too"
        );
        drop(kept);
        assert_eq!((counter.wakes(), counter.clones()), (1, 0));
        let text = rec.text("passed").unwrap();
        assert_eq!(
            events(&text),
            [
                "test thread | 0 | poll | the test | countdown | the waker | -",
                "test thread | 1 | wake-by-ref | countdown | - | the waker | -",
                "test thread | 0 | pending | the test | countdown | the waker | woke",
                "test thread | 0 | poll | the test | countdown | the waker | -",
                "test thread | 0 | ready | the test | countdown | the waker | -",
                "test thread | 0 | clone | the test | - | the waker | -",
                "test thread | 0 | drop | the test | - | the waker | -",
            ]
        );
        assert!(patterns(&text).is_empty());
    }

    #[test]
    fn a_pending_without_a_wake_up_is_a_lost_wake() {
        let rec = recording();
        let task = TestTask::new();
        assert!(task.poll(&mut countdown(1, false)).is_pending());
        let text = rec.text("failed").unwrap();
        assert_eq!(patterns(&text), ["lost-wake"]);
        assert!(text.contains("returned Pending on its poll 1 without waking the task's waker"));

        let rec2 = Recording::start_in(std::env::temp_dir());
        assert!(!rec2.is_on(), "one recording at a time on a thread");
        drop(rec);
        let rec = recording();
        let task = TestTask::new();
        let gate = Gate::<()>::new();
        assert!(task.poll(&mut countdown(1, true)).is_pending());
        assert!(
            task.poll(&mut gate.wait()).is_pending(),
            "the gate keeps the waker"
        );
        assert!(patterns(&rec.text("passed").unwrap()).is_empty());
    }

    #[test]
    fn a_child_polled_with_a_waker_of_its_own_is_named() {
        let rec = recording();
        let task = TestTask::new();
        let gate = Gate::<u8>::new();
        let mut child = gate.wait();
        let mut deaf = poll_fn(|_| {
            let mut cx = Context::from_waker(Waker::noop());
            Pin::new(&mut child).poll(&mut cx)
        });
        assert!(task.poll(&mut deaf).is_pending());
        let text = rec.text("failed").unwrap();
        assert_eq!(patterns(&text), ["foreign-waker", "lost-wake"]);
        assert!(text.contains("gate was polled with Waker::noop(), not the task's waker"));
        assert!(events(&text)[1].contains("poll | PollFn | gate | Waker::noop()"));
    }

    #[test]
    fn a_stale_waker_is_named_too() {
        let rec = recording();
        let (first, second) = (TestTask::new(), TestTask::new());
        let gate = Gate::<u8>::new();
        let mut child = gate.wait();
        let mut keeps_first: Option<Waker> = None;
        let mut stale = poll_fn(|cx| {
            let waker = keeps_first.get_or_insert_with(|| cx.waker().clone());
            Pin::new(&mut child).poll(&mut Context::from_waker(waker))
        });
        assert!(first.poll(&mut stale).is_pending());
        assert!(second.poll(&mut stale).is_pending());
        let text = rec.text("failed").unwrap();
        // Task 2's waker is neither woken nor kept: the wake-up goes to task 1.
        assert_eq!(patterns(&text), ["foreign-waker", "lost-wake"]);
        assert!(text.contains("gate was polled with task 1's waker, not task 2's waker"));
    }

    #[test]
    fn a_future_polled_after_ready_is_named() {
        let rec = recording();
        let task = TestTask::new();
        let mut done = traced("done", poll_fn(|_| Poll::Ready(())));
        assert!(task.poll(&mut done).is_ready());
        assert!(task.poll(&mut done).is_ready());
        let text = rec.text("failed").unwrap();
        assert_eq!(patterns(&text), ["polled-after-ready"]);
    }

    #[test]
    fn a_future_that_wakes_itself_while_it_waits_is_a_busy_loop() {
        let rec = recording();
        let gate = Gate::<()>::new();
        let mut child = gate.wait();
        let spin = poll_fn(|cx| {
            let _ = Pin::new(&mut child).poll(cx);
            cx.waker().wake_by_ref();
            Poll::<()>::Pending
        });
        let mut guarded = MustWake::new(Box::pin(spin));
        let mut cx = Context::from_waker(Waker::noop());
        for _ in 0..4 {
            assert!(Pin::new(&mut guarded).poll(&mut cx).is_pending());
        }
        let text = rec.text("failed").unwrap();
        assert_eq!(patterns(&text), ["busy-loop"]);
        assert!(text.contains("PollFn woke the task's waker itself on 3 polls in a row"));

        // A future that wakes itself and waits for nothing else is no busy loop: it yields.
        drop(rec);
        let rec = recording();
        let task = TestTask::new();
        let mut yields = traced("yields", countdown(10, true));
        while task.poll(&mut yields).is_pending() {}
        assert!(patterns(&rec.text("passed").unwrap()).is_empty());
    }

    /// A waker lab-support did not make, like an executor's.
    struct Flag(std::sync::atomic::AtomicUsize);

    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    #[test]
    fn an_executor_that_polls_without_a_wake_up_is_named() {
        let rec = recording();
        let flag = Arc::new(Flag(Default::default()));
        let waker = Waker::from(Arc::clone(&flag));
        let mut cx = Context::from_waker(&waker);
        let slot = std::sync::Mutex::new(None::<Waker>);
        let mut opened = false;
        let mut future = traced(
            "the future",
            poll_fn(|cx| {
                if opened {
                    return Poll::Ready(());
                }
                opened = true;
                *slot.lock().unwrap() = Some(cx.waker().clone());
                Poll::Pending
            }),
        );
        assert!(Pin::new(&mut future).poll(&mut cx).is_pending());
        std::thread::scope(|s| {
            s.spawn(|| slot.lock().unwrap().take().unwrap().wake());
        });
        assert_eq!(
            flag.0.load(std::sync::atomic::Ordering::SeqCst),
            1,
            "woken through the stand-in"
        );
        assert!(Pin::new(&mut future).poll(&mut cx).is_ready());
        let text = rec.text("passed").unwrap();
        assert!(patterns(&text).is_empty(), "{text}");
        assert!(
            events(&text)
                .iter()
                .any(|e| e.starts_with("thread 1 | 0 | wake | thread 1 | - | the task's waker")),
            "{text}"
        );

        drop(rec);
        let rec = recording();
        let mut pending = traced("the future", std::future::pending::<()>());
        assert!(Pin::new(&mut pending).poll(&mut cx).is_pending());
        assert!(Pin::new(&mut pending).poll(&mut cx).is_pending());
        assert_eq!(
            patterns(&rec.text("failed").unwrap()),
            ["lost-wake", "unwoken-poll"]
        );
    }

    #[test]
    fn the_file_is_named_after_the_test() {
        let dir = std::env::temp_dir().join(format!("lab-support-timeline-{}", std::process::id()));
        let rec = Recording::start_in(&dir);
        let task = TestTask::new();
        assert!(task.poll(&mut countdown(0, false)).is_ready());
        drop(rec);
        let text = std::fs::read_to_string(
            dir.join("timeline__tests__the_file_is_named_after_the_test.timeline"),
        )
        .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(text.starts_with("timeline\t1\ntest\ttimeline::tests::the_file_is_named_after_the_test\noutcome\tpassed\n"));
    }

    #[test]
    fn without_a_recording_nothing_changes() {
        let task = TestTask::new();
        assert!(task.poll(&mut countdown(1, true)).is_pending());
        assert!(current().is_none());
        let mut plain = traced("x", countdown(0, false));
        assert!(plain.tracked.is_none());
        assert!(task.poll(&mut plain).is_ready());
    }

    #[test]
    fn short_names() {
        assert_eq!(short_name("countdown::Countdown"), "Countdown");
        assert_eq!(
            short_name("map_join_select::Join<lab_support::gate::Wait<'_, char>, x::Y>"),
            "Join"
        );
        assert_eq!(
            short_name(
                "core::pin::Pin<alloc::boxed::Box<local_scope::scope<'_, i32, x::{{closure}}>::{{closure}}>>"
            ),
            "scope"
        );
        assert_eq!(
            short_name("&mut block_on::tests::x::{{closure}}"),
            "async block"
        );
    }
}
