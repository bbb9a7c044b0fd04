// adji analysis board: draws the position as SVG, plays clicked moves through
// the server's replay (every end rule of the chosen rule set, literally), and
// shows the server's solve report for the position with progress and
// cancellation. Every request names the game and its rule set.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

const GAMES = {
  adjito: {
    half: 6, names: ['B', 'A'], rowStart: [0, 6],
    // Absolute pits left to right as the bottom player sees the board.
    top: [11, 10, 9, 8, 7, 6], bottom: [0, 1, 2, 3, 4, 5],
    pitName: (a) => (a < 6 ? `${a + 1}B` : `${a - 5}A`),
    storeLabel: 'captured',
    // A's row ends at 6A (top left); B's at 6B (bottom right).
    storeLeft: 1,
  },
  adjiboto: {
    half: 5, names: ['0', '1'], rowStart: [5, 0],
    top: [0, 1, 2, 3, 4], bottom: [9, 8, 7, 6, 5],
    pitName: (a) => `${a}`,
    storeLabel: 'boto',
    // Player 0's row ends at 9 (bottom left); player 1's at 4 (top right).
    storeLeft: 0,
  },
};

const S = {
  info: null,
  game: 'adjito',
  rules: 'default', // the rule set of the game (a name from /api/info)
  root: 'start',
  line: [],
  cursor: 0,
  pos: null, // parsed current position
  movesReport: null,
  result: null, // replay result (game over by any rule)
  report: null, // solve report of the current position
  loops: {}, // each move's loop-sensitivity (true, false or null)
  est: null, // analyse report (estimates) when the solve left bounds
  abort: null,
  engine: 'none',
  lastAction: 'new',
  seq: 0,
};

// ---- the API --------------------------------------------------------------

async function api(path, params) {
  const q = new URLSearchParams(params).toString();
  const r = await fetch(`/api/${path}?${q}`);
  const body = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(body.error || `HTTP ${r.status}`);
  return body;
}

// The game and rule set every request names.
const ruled = (params) => ({ game: S.game, rules: S.rules, ...params });

// ---- positions --------------------------------------------------------------

// Parses the canonical notation the server returns.
function parsePosition(game, text) {
  const g = GAMES[game];
  const f = text.trim().split(/\s+/);
  const [top, bottom] = f[0].split('/').map((r) => r.split(',').map(Number));
  const abs = new Array(2 * g.half).fill(0);
  top.forEach((v, i) => { abs[g.rowStart[1] + i] = v; });
  bottom.forEach((v, i) => { abs[g.rowStart[0] + i] = v; });
  const side = g.names.indexOf(f[1]);
  const [s1, s0] = f[2].split('-').map(Number);
  let opening = null;
  if (f[3] && f[3].startsWith('opening:')) {
    const rest = f[3].slice('opening:'.length);
    opening = rest ? rest.split(',').map(Number) : [];
  }
  const level = abs.reduce((a, b) => a + b, 0);
  return { text, abs, side, stores: [s0, s1], opening, level };
}

// Win, draw or loss for the mover from bounds on a value (as `solve` says it).
function wdl(pos, lower, upper) {
  const ms = pos.stores[pos.side];
  const os = pos.stores[1 - pos.side];
  const fin = (v) => Math.sign(2 * ms + pos.level + v - (2 * os + pos.level - v));
  const lo = fin(lower);
  const hi = fin(upper);
  if (lo === 1) return 'win';
  if (hi === -1) return 'loss';
  if (lo === 0 && hi === 0) return 'draw';
  if (lo === 0) return 'draw or win';
  if (hi === 0) return 'loss or draw';
  return 'unresolved';
}

const WDL_CLASS = {
  win: 'win', draw: 'draw', loss: 'loss',
  'draw or win': 'dw', 'loss or draw': 'ld', unresolved: 'open',
};

const sign = (v) => (v > 0 ? `+${v}` : v < 0 ? `−${-v}` : '0');

const signF = (v) => (Math.abs(v) < 0.05 ? '0.0' : v > 0 ? `+${v.toFixed(1)}` : `−${(-v).toFixed(1)}`);

// A proven value or bounds of a move, in a few characters.
function valueText(m) {
  if (m.exact) return sign(m.lower);
  if (m.lower > -1000 && m.upper < 1000) return `${sign(m.lower)}…${sign(m.upper)}`;
  return '?';
}

function valueTitle(m) {
  if (m.exact) return `exact value ${sign(m.lower)}`;
  if (m.lower > -1000 && m.upper < 1000) return `between ${sign(m.lower)} and ${sign(m.upper)} (proven bounds)`;
  return 'unresolved';
}

// Win, draw or loss for the mover if the value were the estimate `e`.
function estimateVerdict(pos, e) {
  const d = pos.stores[pos.side] - pos.stores[1 - pos.side] + e;
  return d > 0.5 ? 'win' : d < -0.5 ? 'loss' : 'draw';
}

// How a move is shown: its proven value or bounds from the solve, and,
// where the solve left bounds, the engine's estimate (never as a value).
function moveView(name) {
  const m = reportMove(name);
  if (!m) return null;
  const v = {
    move: name, lower: m.lower, upper: m.upper, exact: m.exact,
    text: valueText(m), title: valueTitle(m), verdict: wdl(S.pos, m.lower, m.upper),
    estimate: null,
  };
  v.shade = v.verdict;
  const e = estimateMove(name);
  if (!m.exact && e) {
    v.estimate = e.estimate;
    v.title += `; the engine's estimate ${signF(e.estimate)} (depth ${S.est.depth}), not a proven value`;
    if (!['win', 'draw', 'loss'].includes(v.verdict)) v.shade = estimateVerdict(S.pos, e.estimate);
  }
  return v;
}

// ---- drawing ---------------------------------------------------------------

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

const GEOM = { x0: 140, dx: 96, yTop: 150, yBottom: 262, r: 38, storeW: 90 };

function drawBoard() {
  const svg = $('board');
  svg.replaceChildren();
  const g = GAMES[S.game];
  const pos = S.pos;
  if (!pos) return;
  const width = 2 * GEOM.x0 + (g.half - 1) * GEOM.dx;
  svg.setAttribute('viewBox', `0 0 ${width} 412`);
  el('rect', { x: 8, y: 84, width: width - 16, height: 244, rx: 40, class: 'wood' }, svg);
  const over = gameOver();
  const moverRow = pos.side === 0 ? 'bottom' : 'top';
  if (!over) {
    const y = moverRow === 'top' ? GEOM.yTop : GEOM.yBottom;
    el('rect', {
      x: GEOM.x0 - 56, y: y - 50, width: (g.half - 1) * GEOM.dx + 112, height: 100,
      rx: 48, class: 'turn',
    }, svg);
  }
  drawStores(svg, g, pos, width);
  const moves = legalMoves();
  g.top.forEach((a, i) => drawPit(svg, g, a, GEOM.x0 + i * GEOM.dx, GEOM.yTop, 'top', moves));
  g.bottom.forEach((a, i) => drawPit(svg, g, a, GEOM.x0 + i * GEOM.dx, GEOM.yBottom, 'bottom', moves));
  const mover = g.names[pos.side];
  let label = over ? 'game over' : `player ${mover} to move`;
  if (pos.opening) label += ` · opening: ${pos.opening.length} of 10 moves played`;
  else if (S.game === 'adjiboto') label += ' · main phase';
  el('text', { x: width / 2, y: 404, class: 'caption' }, svg, label);
}

function drawStores(svg, g, pos, width) {
  const h = GEOM.yBottom - GEOM.yTop + 2 * GEOM.r + 20;
  const y = GEOM.yTop - GEOM.r - 10;
  const sides = [g.storeLeft, 1 - g.storeLeft];
  sides.forEach((side, k) => {
    const x = k === 0 ? 16 : width - 16 - (GEOM.storeW - 20);
    const grp = el('g', { class: `store side${side}`, 'data-side': g.names[side] }, svg);
    el('rect', { x, y, width: GEOM.storeW - 20, height: h, rx: 30, class: 'store-bg' }, grp);
    el('text', { x: x + (GEOM.storeW - 20) / 2, y: y + h / 2 + 10, class: 'store-count' }, grp, String(pos.stores[side]));
    el('text', { x: x + (GEOM.storeW - 20) / 2, y: y + 22, class: 'store-name' }, grp, g.names[side]);
    el('text', { x: x + (GEOM.storeW - 20) / 2, y: y + h - 10, class: 'store-label' }, grp, g.storeLabel);
  });
}

function drawPit(svg, g, a, x, y, row, moves) {
  const pos = S.pos;
  const name = g.pitName(a);
  const owner = row === 'top' ? 1 : 0;
  const legal = moves.has(name) && !gameOver();
  const played = pos.opening && pos.opening.includes(a);
  const m = moveView(name);
  const cls = ['pit', row];
  if (legal) cls.push('legal');
  if (played) cls.push('played');
  if (legal && m) cls.push(WDL_CLASS[m.shade]);
  if (legal && m && m.estimate !== null) cls.push('estimated');
  const grp = el('g', { class: cls.join(' '), 'data-pit': name, 'data-owner': g.names[owner] }, svg);
  if (legal) {
    grp.setAttribute('data-move', name);
    grp.setAttribute('tabindex', '0');
    grp.setAttribute('role', 'button');
    grp.addEventListener('click', () => humanMove(name));
    grp.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') humanMove(name); });
  }
  el('title', {}, grp, `${name}: ${pos.abs[a]} seeds${played ? ' (played in the opening)' : ''}${m ? `; ${m.title}` : ''}`);
  el('circle', { cx: x, cy: y, r: GEOM.r, class: 'cup' }, grp);
  el('text', { x, y: y + 10, class: 'count' }, grp, String(pos.abs[a]));
  const ny = row === 'top' ? y - GEOM.r - 12 : y + GEOM.r + 24;
  el('text', { x, y: ny, class: 'pit-name' }, grp, played ? `${name} ✓` : name);
  if (legal && m) drawBadge(grp, m, x, row === 'top' ? y - GEOM.r - 58 : y + GEOM.r + 38);
}

function drawBadge(grp, m, x, y) {
  const shown = m.estimate === null ? m.text : `≈${signF(m.estimate)}`;
  const text = shown + (S.loops[m.move] ? ' ∞' : '');
  const w = Math.max(44, 12 * text.length + 14);
  const kind = m.exact ? '' : m.estimate === null ? ' inexact' : ' inexact estimate';
  const b = el('g', { class: `badge${kind}`, 'data-value': m.text }, grp);
  el('rect', { x: x - w / 2, y, width: w, height: 30, rx: 15 }, b);
  el('text', { x, y: y + 21 }, b, text);
  if (S.report && S.report.best_moves.includes(m.move)) el('text', { x: x + w / 2 + 10, y: y + 21, class: 'star' }, b, '★');
}

// ---- state ------------------------------------------------------------------

function legalMoves() {
  return new Set((S.movesReport ? S.movesReport.moves : []).map((m) => m.move));
}

function estimateMove(name) {
  if (!S.est || S.est.position !== S.pos.text) return null;
  return S.est.moves.find((m) => m.move === name) || null;
}

function reportMove(name) {
  if (!S.report || S.report.position !== S.pos.text) return null;
  return S.report.moves.find((m) => m.move === name) || null;
}

function gameOver() {
  return Boolean(S.result || (S.movesReport && S.movesReport.game_over));
}

function engineToMove() {
  return S.engine !== 'none' && S.pos && String(S.pos.side) === S.engine && !gameOver();
}

function setUrl() {
  const p = new URLSearchParams({ game: S.game, rules: S.rules, position: S.root });
  if (S.cursor > 0) p.set('moves', S.line.slice(0, S.cursor).join(' '));
  history.replaceState(null, '', `?${p}`);
}

// Replays the line up to the cursor from the root, then loads the moves and
// starts the analysis of the position reached.
async function refresh() {
  const seq = ++S.seq;
  stopAnalysis();
  const played = S.line.slice(0, S.cursor);
  let rep;
  try {
    rep = await api('replay', ruled({ position: S.root, moves: played.join(' ') }));
  } catch (e) {
    showError(e.message);
    if (!S.pos) recover();
    return;
  }
  const here = rep.steps.length ? rep.steps[rep.steps.length - 1].position : rep.start;
  const mv = await api('moves', ruled({ position: here }));
  if (seq !== S.seq) return;
  S.root = rep.start;
  S.pos = parsePosition(S.game, mv.position);
  S.movesReport = mv;
  S.result = rep.result;
  S.report = null;
  setUrl();
  render();
  if (!gameOver()) analyse();
}

// A link with a bad position or move list: show the error, then the
// position without the moves, or the start.
function recover() {
  if (S.line.length) {
    S.line = [];
    S.cursor = 0;
  } else if (S.root !== 'start') {
    S.root = 'start';
  } else {
    return;
  }
  refresh();
}

function render() {
  drawBoard();
  $('position').value = S.pos.text;
  const g = GAMES[S.game];
  $('status').textContent = gameOver() ? '' : `Player ${g.names[S.pos.side]} to move.`;
  renderGameOver();
  renderHistory();
  renderAnalysis();
  $('undo').disabled = S.cursor === 0;
  $('redo').disabled = S.cursor >= S.line.length;
  $('pass').hidden = !legalMoves().has('pass') || gameOver();
  $('engine-move').disabled = gameOver();
  document.body.dataset.position = S.pos.text;
  const [bottom, top] = GAMES[S.game].names;
  $('engine').options[1].textContent = `player ${top} (top)`;
  $('engine').options[2].textContent = `player ${bottom} (bottom)`;
}

function renderGameOver() {
  const box = $('game-over');
  const r = S.result;
  const end = S.movesReport && S.movesReport.game_over;
  if (!r && !end) {
    box.hidden = true;
    box.replaceChildren();
    return;
  }
  box.hidden = false;
  const names = GAMES[S.game].names;
  const score = r ? r.score : end.split;
  const why = r ? r.description : end.description;
  const s0 = score[names[0]];
  const s1 = score[names[1]];
  const winner = s0 === s1 ? 'a draw' : `player ${s0 > s1 ? names[0] : names[1]} wins`;
  box.replaceChildren();
  const h = document.createElement('strong');
  h.textContent = 'Game over: ';
  box.append(h, `${why}. Final ${names[0]}: ${s0}, ${names[1]}: ${s1}; ${winner}.`);
}

function renderHistory() {
  const ol = $('history');
  ol.replaceChildren();
  S.line.forEach((m, i) => {
    const li = document.createElement('li');
    const num = document.createElement('span');
    num.textContent = `${i + 1}.`;
    li.appendChild(num);
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = m;
    b.className = i < S.cursor ? (i === S.cursor - 1 ? 'current' : 'done') : 'future';
    b.addEventListener('click', () => { S.cursor = i + 1; S.lastAction = 'nav'; refresh(); });
    li.appendChild(b);
    ol.appendChild(li);
  });
}

function renderAnalysis() {
  const box = $('analysis');
  const tbody = $('moves').querySelector('tbody');
  tbody.replaceChildren();
  const rep = S.report && S.report.position === S.pos.text ? S.report : null;
  const summary = $('summary');
  summary.replaceChildren();
  $('pv').textContent = '';
  $('moves').hidden = gameOver();
  if (gameOver()) {
    box.dataset.state = 'over';
    summary.textContent = 'The game is over.';
    summary.className = 'summary';
    return;
  }
  const moves = S.movesReport.moves;
  for (const lm of moves) tbody.appendChild(moveRow(lm, rep));
  if (!rep) return;
  const v = rep.exact ? `value ${sign(rep.lower)}` : `value between ${sign(rep.lower)} and ${sign(rep.upper)}`;
  const loop = rep.loop_sensitive === true ? ', loop-sensitive ∞' : rep.loop_sensitive === null ? ', loop-sensitivity unresolved' : '';
  const strong = document.createElement('strong');
  strong.textContent = v;
  summary.append(strong, ` — ${rep.wdl} for the mover${loop}${rep.from_tables ? ' (from the endgame tables)' : ''}.`);
  summary.className = `summary ${WDL_CLASS[rep.wdl] || ''}`;
  if (rep.pv.length) $('pv').textContent = `Principal variation: ${rep.pv.join(' ')} (${pvEnd(rep.pv_end)})`;
  const est = S.est && S.est.position === S.pos.text ? S.est : null;
  if (est) {
    summary.append(document.createElement('br'), `Engine estimate ${signF(est.estimate)} for the mover `
      + `(depth ${est.depth}; an estimate, not a value)${est.best ? `, best by estimate ${est.best}` : ''}.`);
  }
}

// One row of the moves table: the proven value (or bounds), the estimate
// where the solve left bounds, the outcome for the mover, captures, loop flag.
function moveRow(lm, rep) {
  const m = rep ? moveView(lm.move) : null;
  const tr = document.createElement('tr');
  tr.dataset.move = lm.move;
  if (m) {
    tr.className = WDL_CLASS[m.shade] + (m.estimate === null ? '' : ' estimated');
    tr.dataset.lower = m.lower;
    tr.dataset.upper = m.upper;
    tr.dataset.exact = m.exact;
    tr.dataset.loop = String(S.loops[m.move]);
    if (m.estimate !== null) tr.dataset.estimate = m.estimate;
  }
  const verdict = !m ? '' : m.estimate === null || m.verdict === m.shade ? m.verdict : `${m.verdict} (≈ ${m.shade})`;
  const cells = [
    lm.move + (rep && rep.best_moves.includes(lm.move) ? ' ★' : ''),
    m ? m.text : '…',
    m && m.estimate !== null ? `≈${signF(m.estimate)}` : '',
    verdict,
    lm.captured ? String(lm.captured) : '',
    m ? loopText(S.loops[m.move]) : '',
  ];
  for (const c of cells) {
    const td = document.createElement('td');
    td.textContent = c;
    tr.appendChild(td);
  }
  tr.children[1].title = m ? m.title : '';
  tr.addEventListener('click', () => humanMove(lm.move));
  return tr;
}

function loopText(flag) {
  if (flag === true) return '∞';
  if (flag === null) return '?';
  return '';
}

function pvEnd(e) {
  return { GameOver: 'game over', TableHit: 'endgame-table hit', Loop: 'repetition', Length: 'length cap' }[e] || 'unresolved';
}

// ---- analysis ---------------------------------------------------------------

function stopAnalysis() {
  if (S.abort) S.abort.abort();
  S.abort = null;
  $('progress-row').hidden = true;
}

// Longest estimate run after a solve that left bounds, in seconds.
const ESTIMATE_SECONDS = 5;

// Phase 1: the exact search within the chosen time. If it leaves bounds,
// phase 2: the estimate engine on the same position.
function analyse() {
  S.est = null;
  $('analyse').hidden = true;
  stream('solve', Number($('time').value), (ev) => {
    S.report = ev.report;
    S.loops = ev.loop_sensitive || {};
    render();
    if (ev.report.exact) {
      finishAnalysis('done', '');
      maybeEngine();
    } else {
      estimate();
    }
  });
}

function estimate() {
  stream('analyse', Math.min(Number($('time').value), ESTIMATE_SECONDS), (ev) => {
    S.est = ev.report;
    finishAnalysis('done', 'The time limit stopped the exact search: proven bounds are shown, '
      + 'with the engine\'s estimates (≈, dashed), which are judgements, not proven values.');
    render();
    maybeEngine();
  });
  $('analysis').dataset.state = 'estimating';
}

// Runs a job of the server as a stream, showing its progress; `onResult`
// gets the result line.
async function stream(kind, seconds, onResult) {
  stopAnalysis();
  const ctl = new AbortController();
  S.abort = ctl;
  const position = S.pos.text;
  $('analysis').dataset.state = 'running';
  $('analysis-note').textContent = '';
  $('progress-row').hidden = false;
  $('progress').value = 0;
  $('progress-text').textContent = 'starting…';
  const params = ruled({ position, time: String(seconds) });
  try {
    const r = await fetch(`/api/${kind}/stream?${new URLSearchParams(params)}`, { signal: ctl.signal });
    if (!r.ok) {
      const body = await r.json().catch(() => ({}));
      throw new Error(body.error || `HTTP ${r.status}`);
    }
    await readLines(r.body, (ev) => onEvent(kind, seconds, ev, position, onResult));
  } catch (e) {
    if (ctl.signal.aborted) return;
    finishAnalysis('error', e.message);
  }
}

async function readLines(body, each) {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const l = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (l.trim()) each(JSON.parse(l));
    }
  }
}

function onEvent(kind, seconds, ev, position, onResult) {
  if (!S.pos || S.pos.text !== position) return;
  if (ev.event === 'progress') {
    const limit = Math.min(seconds * 1000, ev.cap_ms);
    const of = `${(ev.time_ms / 1000).toFixed(1)} s of ${(limit / 1000).toFixed(0)} s`;
    $('progress').value = ev.state === 'running' ? Math.min(1, ev.time_ms / limit) : 0;
    if (ev.state === 'queued') {
      $('progress-text').textContent = ev.waiting > 0 ? `waiting for a worker (${ev.waiting} jobs waiting)` : 'starting…';
    } else {
      $('progress-text').textContent = kind === 'solve'
        ? `exact search: ${fmtNodes(ev.nodes)} nodes, ${of}` : `estimating beyond the exact search: ${of}`;
    }
  } else if (ev.event === 'result') {
    onResult(ev);
  } else if (ev.event === 'error') {
    finishAnalysis('error', ev.error);
  }
}

function fmtNodes(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(0)} k`;
  return String(n);
}

function finishAnalysis(state, note) {
  S.abort = null;
  $('progress-row').hidden = true;
  $('analysis').dataset.state = state;
  $('analysis-note').textContent = note || '';
  $('analysis-note').className = state === 'error' ? 'note error' : 'note';
  $('analyse').hidden = state === 'done' && S.report && S.report.exact;
}

function cancelAnalysis() {
  if (!S.abort) return;
  stopAnalysis();
  finishAnalysis('cancelled', 'Analysis cancelled.');
}

// ---- moves ------------------------------------------------------------------

function humanMove(name) {
  if (gameOver() || engineToMove() || !legalMoves().has(name)) return;
  S.lastAction = 'play';
  play(name);
}

function play(name) {
  S.line = S.line.slice(0, S.cursor).concat([name]);
  S.cursor += 1;
  refresh();
}

// The engine's choice: a best move when the value is exact (perfect play),
// otherwise the move with the best proven lower bound (best first).
function engineChoice() {
  const rep = S.report;
  if (!rep || rep.position !== S.pos.text || !rep.moves.length) return null;
  if (rep.best_moves.length) return rep.best_moves[0];
  const est = S.est && S.est.position === S.pos.text ? S.est : null;
  return est && est.best ? est.best : rep.moves[0].move;
}

function maybeEngine() {
  if (!engineToMove() || S.lastAction === 'nav') return;
  const mv = engineChoice();
  if (!mv) return;
  const exact = S.report.exact;
  const how = exact ? ' (a best move: perfect play)' : S.est ? ' (best by estimate: not proven best)' : ' (not proven best: the search was stopped)';
  $('status').textContent = `Engine plays ${mv}${how}.`;
  setTimeout(() => { S.lastAction = 'engine'; play(mv); }, 400);
}

function engineMoveNow() {
  if (gameOver()) return;
  const mv = engineChoice();
  if (mv) { S.lastAction = 'engine'; play(mv); }
}

// ---- setup ------------------------------------------------------------------

function showError(text) {
  $('position-error').textContent = text;
}

async function setPosition() {
  showError('');
  const text = $('position').value;
  try {
    const r = await api('moves', ruled({ position: text }));
    S.root = r.position;
    S.line = [];
    S.cursor = 0;
    S.lastAction = 'new';
    refresh();
  } catch (e) {
    showError(e.message);
  }
}

async function copyPosition() {
  const text = S.pos ? S.pos.text : '';
  try {
    await navigator.clipboard.writeText(text);
    $('status').textContent = 'Position copied.';
  } catch (_) {
    const input = $('position');
    input.select();
    document.execCommand('copy');
    $('status').textContent = 'Position selected: copy it with Ctrl+C.';
  }
}

// The rule sets of `game` as /api/info lists them, its default first.
function ruleSets(game) {
  return (S.info.rule_sets && S.info.rule_sets[game]) || [{ name: 'default', default: true, differences: [] }];
}

function defaultRules(game) {
  return (ruleSets(game).find((r) => r.default) || ruleSets(game)[0]).name;
}

// Fills the rule-set selector with the rule sets of the current game and
// selects the current one.
function fillRules() {
  const sel = $('rules');
  sel.replaceChildren();
  for (const r of ruleSets(S.game)) {
    const o = document.createElement('option');
    o.value = r.name;
    o.textContent = r.default ? `${r.name} (the default reading, docs/RULES.md)` : r.name;
    o.title = r.differences.join('; ') || r.source || '';
    sel.appendChild(o);
  }
  sel.value = S.rules;
  showRules();
}

// What the chosen rule set changes, and whose tables it reads.
function showRules() {
  const r = ruleSets(S.game).find((x) => x.name === S.rules);
  if (!r) { $('rules-note').textContent = ''; return; }
  const diff = r.differences.length ? `differs from the default: ${r.differences.join('; ')}` : 'the default reading of docs/RULES.md';
  const tables = r.levels ? `endgame tables: levels 0–${r.levels - 1}${r.tables !== r.name ? ` (the ${r.tables} rule set's)` : ''}` : 'no endgame tables: positions are searched';
  const early = r.early_end === null || r.early_end === undefined ? '' : `; the game ends once a store holds more than ${r.early_end}`;
  $('rules-note').textContent = `Rules “${r.name}”: ${diff}${early}; ${tables}.`;
}

// Another rule set for the same position and moves: the moves are kept if
// they are legal under it, otherwise the board falls back to the position.
function changeRules(name) {
  S.rules = name;
  S.pos = null;
  S.lastAction = 'new';
  showError('');
  showRules();
  refresh();
}

function newGame(game) {
  if (game !== S.game) {
    S.game = game;
    S.rules = defaultRules(game);
    fillRules();
  }
  S.root = 'start';
  S.line = [];
  S.cursor = 0;
  S.lastAction = 'new';
  showError('');
  refresh();
}

function fillTimes(capMs) {
  const sel = $('time');
  const cap = capMs / 1000;
  const opts = [1, 3, 10, 30, 60, 120, 300].filter((t) => t < cap).concat([cap]);
  sel.replaceChildren();
  for (const t of opts) {
    const o = document.createElement('option');
    o.value = String(t);
    o.textContent = t === cap ? `${t} s (the cap)` : `${t} s`;
    sel.appendChild(o);
  }
  sel.value = String(opts.includes(10) ? 10 : cap);
}

function showInfo(info) {
  const t = (n) => (n ? `levels 0–${n - 1}` : 'none');
  const game = (g, label) => ruleSets(g).map((r) => `${label} ${r.name} ${t(r.levels)}`).join(', ');
  $('server-info').textContent = `Endgame tables (loop rule ${info.rule}): ${game('adjito', 'Adjito')}, `
    + `${game('adjiboto', 'Adji-Boto')}; elsewhere the exact search, up to ${info.time_cap_ms / 1000} s `
    + `per position, ${info.workers} at a time.`;
}

async function start() {
  S.info = await api('info', {});
  fillTimes(S.info.time_cap_ms);
  showInfo(S.info);
  const q = new URLSearchParams(location.search);
  S.game = GAMES[q.get('game')] ? q.get('game') : S.info.game;
  const named = ruleSets(S.game).map((r) => r.name);
  if (named.includes(q.get('rules'))) S.rules = q.get('rules');
  else if (S.game === S.info.game && named.includes(S.info.rules)) S.rules = S.info.rules;
  else S.rules = defaultRules(S.game);
  if (q.get('rules') && !named.includes(q.get('rules'))) showError(`unknown rule set '${q.get('rules')}' for ${S.game}: expected one of ${named.join(', ')}`);
  S.root = q.get('position') || 'start';
  S.line = (q.get('moves') || '').split(/\s+/).filter(Boolean);
  S.cursor = S.line.length;
  if (q.get('time')) $('time').value = q.get('time');
  $('game').value = S.game;
  fillRules();
  $('rules').addEventListener('change', (e) => changeRules(e.target.value));
  $('game').addEventListener('change', (e) => newGame(e.target.value));
  $('new-game').addEventListener('click', () => newGame(S.game));
  $('engine').addEventListener('change', (e) => { S.engine = e.target.value; S.lastAction = 'engine-on'; maybeEngine(); });
  $('undo').addEventListener('click', () => { if (S.cursor > 0) { S.cursor -= 1; S.lastAction = 'nav'; refresh(); } });
  $('redo').addEventListener('click', () => { if (S.cursor < S.line.length) { S.cursor += 1; S.lastAction = 'nav'; refresh(); } });
  $('pass').addEventListener('click', () => humanMove('pass'));
  $('engine-move').addEventListener('click', engineMoveNow);
  $('set-position').addEventListener('click', setPosition);
  $('position').addEventListener('keydown', (e) => { if (e.key === 'Enter') setPosition(); });
  $('copy-position').addEventListener('click', copyPosition);
  $('cancel').addEventListener('click', cancelAnalysis);
  $('analyse').addEventListener('click', analyse);
  $('time').addEventListener('change', () => { if (!gameOver()) analyse(); });
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT') return;
    if (e.key === 'ArrowLeft') $('undo').click();
    if (e.key === 'ArrowRight') $('redo').click();
  });
  refresh().catch((e) => showError(e.message));
}

start().catch((e) => showError(`cannot reach the server: ${e.message}`));
