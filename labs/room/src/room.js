// The room board's page: asks the server for the board again and again (a long poll: the
// server answers as soon as the board changes, or after 20 s with the same board and
// fresher times), and puts it in place. The server renders and escapes the board; this
// script only swaps it in. Served from the room's own binary, like everything the page uses.
const board = document.getElementById('board');
const live = document.getElementById('live');
let version = board.dataset.version;

function say(text, ok) {
  live.textContent = text;
  live.className = ok ? 'live' : 'lost';
}

async function follow() {
  for (;;) {
    try {
      const response = await fetch(`board?since=${encodeURIComponent(version)}`, { cache: 'no-store' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const next = await response.json();
      board.innerHTML = next.html;
      version = String(next.version);
      board.dataset.version = version;
      say('live', true);
    } catch {
      say('reconnecting…', false);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

follow();
