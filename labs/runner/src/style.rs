//! How output looks. Colour on a terminal that shows it; plain text in pipes and CI.
//! `--plain` or `NO_COLOR` (https://no-color.org) ask for plain mode, for projectors and
//! screen readers: no colour, no line-drawing characters, no aligned columns, and every
//! finding (an error, a failing test, a breach of the lesson) on one line of its own.
//! On Windows, colour needs the console's virtual-terminal mode: the runner turns it on,
//! and prints no colour codes where that fails (an old console) unless a terminal that
//! understands them (mintty, Windows Terminal through a pipe) says so with `TERM`.

use std::io::IsTerminal;
use std::sync::OnceLock;

static PLAIN: OnceLock<bool> = OnceLock::new();
static COLOUR: OnceLock<bool> = OnceLock::new();

/// Chooses the mode once, before any output: `--plain` on the command line, or NO_COLOR
/// set to anything but the empty string, or TERM=dumb.
pub fn init(plain_flag: bool) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let _ = PLAIN.set(plain_flag || no_color || dumb);
}

/// Plain mode: one finding per line, no colour, no drawing characters.
pub fn plain() -> bool {
    *PLAIN.get_or_init(|| false)
}

fn colour() -> bool {
    *COLOUR.get_or_init(|| !plain() && std::io::stdout().is_terminal() && ansi_supported())
}

#[cfg(not(windows))]
fn ansi_supported() -> bool {
    true
}

/// Turns on the console's virtual-terminal processing, so ANSI colour codes are shown
/// as colour (Windows 10 and later); false where the console refuses.
#[cfg(windows)]
fn ansi_supported() -> bool {
    use std::os::windows::io::AsRawHandle;
    const ENABLE_VIRTUAL_TERMINAL_PROCESSING: u32 = 0x0004;
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetConsoleMode(console: *mut core::ffi::c_void, mode: *mut u32) -> i32;
        fn SetConsoleMode(console: *mut core::ffi::c_void, mode: u32) -> i32;
    }
    let handle = std::io::stdout().as_raw_handle();
    let mut mode = 0u32;
    // SAFETY: `handle` is this process's stdout handle, valid for the whole run, and
    // `mode` is a valid place for GetConsoleMode to write to.
    if unsafe { GetConsoleMode(handle, &mut mode) } == 0 {
        // Not a console (mintty and other terminals are pipes): trust TERM.
        return std::env::var_os("TERM").is_some_and(|t| t != "dumb");
    }
    mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0
        // SAFETY: as above; SetConsoleMode only reads its arguments.
        || unsafe { SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) } != 0
}

fn paint(code: &str, text: &str) -> String {
    if colour() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

pub fn green(text: &str) -> String {
    paint("32", text)
}
pub fn red(text: &str) -> String {
    paint("31", text)
}
pub fn yellow(text: &str) -> String {
    paint("33", text)
}
pub fn bold(text: &str) -> String {
    paint("1", text)
}
pub fn dim(text: &str) -> String {
    paint("2", text)
}

/// A heading: underlined with a rule, or on its own line in plain mode.
pub fn heading(text: &str) -> String {
    if plain() {
        text.to_owned()
    } else {
        format!("{}\n{}", bold(text), dim(&"─".repeat(text.chars().count())))
    }
}

/// Clears a terminal before `watch` prints a fresh result; not in a pipe, nor in plain
/// mode (a screen reader would lose what it was reading).
pub fn clear_screen() {
    if colour() {
        print!("\x1b[2J\x1b[H");
    }
}

/// The terminal's width in columns: the terminal's own answer (for stdout, else stderr),
/// else `COLUMNS`, else 80. Plain mode wraps its lines at it.
pub fn width() -> usize {
    static WIDTH: OnceLock<usize> = OnceLock::new();
    *WIDTH.get_or_init(|| {
        terminal_columns()
            .or_else(|| std::env::var("COLUMNS").ok()?.trim().parse().ok())
            .filter(|&w| w >= 20)
            .unwrap_or(80)
    })
}

/// Asks the terminal behind stdout, else stderr, how wide it is (`TIOCGWINSZ`).
#[cfg(any(
    target_os = "macos",
    all(
        any(target_os = "linux", target_os = "android"),
        any(
            target_arch = "x86",
            target_arch = "x86_64",
            target_arch = "arm",
            target_arch = "aarch64",
            target_arch = "riscv64",
            target_arch = "loongarch64",
            target_arch = "s390x"
        )
    )
))]
fn terminal_columns() -> Option<usize> {
    use core::ffi::{c_int, c_ulong};
    #[repr(C)]
    #[derive(Default)]
    struct Winsize {
        rows: u16,
        columns: u16,
        x_pixels: u16,
        y_pixels: u16,
    }
    #[cfg(target_os = "macos")]
    const TIOCGWINSZ: c_ulong = 0x4008_7468;
    #[cfg(not(target_os = "macos"))]
    const TIOCGWINSZ: c_ulong = 0x5413;
    unsafe extern "C" {
        fn ioctl(fd: c_int, request: c_ulong, ...) -> c_int;
    }
    [1, 2].into_iter().find_map(|fd| {
        let mut size = Winsize::default();
        // SAFETY: TIOCGWINSZ writes one `struct winsize` (four u16, as declared above)
        // through the pointer, which points at one; on a descriptor that is not a
        // terminal it fails and writes nothing.
        let ok = unsafe { ioctl(fd, TIOCGWINSZ, &mut size as *mut Winsize) } == 0;
        (ok && size.columns > 0).then_some(size.columns as usize)
    })
}

/// The console's visible width: its window's right edge less its left, plus one.
#[cfg(windows)]
fn terminal_columns() -> Option<usize> {
    use std::os::windows::io::AsRawHandle;
    #[repr(C)]
    #[derive(Default)]
    struct Coord {
        x: i16,
        y: i16,
    }
    #[repr(C)]
    #[derive(Default)]
    struct SmallRect {
        left: i16,
        top: i16,
        right: i16,
        bottom: i16,
    }
    #[repr(C)]
    #[derive(Default)]
    struct ScreenBufferInfo {
        size: Coord,
        cursor: Coord,
        attributes: u16,
        window: SmallRect,
        maximum_window_size: Coord,
    }
    #[link(name = "kernel32")]
    unsafe extern "system" {
        fn GetConsoleScreenBufferInfo(
            console: *mut core::ffi::c_void,
            info: *mut ScreenBufferInfo,
        ) -> i32;
    }
    let handles = [
        std::io::stdout().as_raw_handle(),
        std::io::stderr().as_raw_handle(),
    ];
    handles.into_iter().find_map(|handle| {
        let mut info = ScreenBufferInfo::default();
        // SAFETY: `handle` is this process's stdout or stderr handle, valid for the whole
        // run, and `info` is a valid place for the call to write one CONSOLE_SCREEN_BUFFER_INFO.
        let ok = unsafe { GetConsoleScreenBufferInfo(handle, &mut info) } != 0;
        let columns = i32::from(info.window.right) - i32::from(info.window.left) + 1;
        (ok && columns > 0).then_some(columns as usize)
    })
}

/// Elsewhere: no answer from the terminal (COLUMNS, else 80).
#[cfg(not(any(
    windows,
    target_os = "macos",
    all(
        any(target_os = "linux", target_os = "android"),
        any(
            target_arch = "x86",
            target_arch = "x86_64",
            target_arch = "arm",
            target_arch = "aarch64",
            target_arch = "riscv64",
            target_arch = "loongarch64",
            target_arch = "s390x"
        )
    )
)))]
fn terminal_columns() -> Option<usize> {
    None
}

/// `text`, each line longer than `width` columns broken at spaces; the lines it is broken
/// into after its first are indented two spaces more than it. A word longer than the
/// width (a path, an address) stays whole.
pub fn wrap(text: &str, width: usize) -> String {
    let lines: Vec<String> = text.split('\n').map(|l| wrap_line(l, width)).collect();
    lines.join("\n")
}

fn wrap_line(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_owned();
    }
    let indent = &line[..line.len() - line.trim_start_matches(' ').len()];
    let more = format!("{indent}  ");
    let mut out = indent.to_owned();
    let mut used = indent.len();
    for (n, word) in line[indent.len()..]
        .split(' ')
        .filter(|w| !w.is_empty())
        .enumerate()
    {
        let len = word.chars().count();
        if n > 0 && used + 1 + len > width {
            out.push('\n');
            out.push_str(&more);
            used = more.len();
        } else if n > 0 {
            out.push(' ');
            used += 1;
        }
        out.push_str(word);
        used += len;
    }
    out
}

/// Prints a line of prose: in plain mode wrapped at the terminal's width, so that nothing
/// runs off a projector's screen; as it is otherwise.
pub fn say(text: &str) {
    if plain() {
        println!("{}", wrap(text, width()));
    } else {
        println!("{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wraps_long_lines_at_spaces_and_keeps_long_words_whole() {
        let text = "test a failed at tests/x.rs:3:5: the answer is 42 and not 41";
        let wrapped = wrap(text, 24);
        assert_eq!(
            wrapped,
            "test a failed at\n  tests/x.rs:3:5: the\n  answer is 42 and not\n  41"
        );
        assert!(
            wrapped.lines().all(|l| l.chars().count() <= 24),
            "{wrapped}"
        );
        assert_eq!(wrap("short", 24), "short");
        assert_eq!(
            wrap("a https://example.com/a/very/long/address b", 10),
            "a\n  https://example.com/a/very/long/address\n  b"
        );
    }
}
