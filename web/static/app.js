// The page of `octagames serve`: a lobby, a game table and a replay viewer over the JSON API (web/app.py).
"use strict";
const $ = (id) => document.getElementById(id);
let catalogue = null;
let current = null;   // {kind: "game"|"replay", id, seat, step, length, covered}
let pollTimer = null;
let refusal = null;   // why the last move was refused: shown until a move is played
let failures = 0;     // the polls failed in a row (the next one waits longer)
let handover = null;  // {id, seat, title}: a new hot-seat game whose seats see different things opens covered

// the API's answer (JSON); a refusal or failure throws its {"error"}, or the reply's text when it is not JSON
// (a proxy's page, a server that failed), with the HTTP status as the error's `status`
async function api(method, url, body) {
  const opts = {method, headers: {"Content-Type": "application/json"}};
  if (body !== undefined) opts.body = JSON.stringify(body);
  const r = await fetch(url, opts);
  const raw = await r.text();
  let data;
  try { data = JSON.parse(raw); } catch (_) { data = undefined; }
  if (!r.ok || data === undefined) {
    const said = data && data.error ? data.error : raw.trim().slice(0, 300);
    const e = new Error(said || `${r.status} ${r.statusText}`);
    e.status = r.status;
    throw e;
  }
  return data;
}

function text(el, value) { el.textContent = value; return el; }
function make(tag, attrs = {}, content = "") {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (content) el.textContent = content;
  return el;
}
function showError(e) { text($("error"), e ? String(e.message || e) : ""); }

// ------------------------------------------------------------------ lobby
function variantOf(name) { return catalogue.variants.find((v) => v.name === name); }

function fillPlayers() {
  const v = variantOf($("variant").value);
  $("players").replaceChildren(...v.players.map((n) => make("option", {value: n}, String(n))));
  fillSeats();
}

function fillSeats() {
  const v = variantOf($("variant").value);
  const n = Number($("players").value);
  const bot = v.zoo[String(n)] ? `zoo:${v.zoo[String(n)]}` : "heuristic";  // the zoo model for this many seats
  const seats = [];
  for (let p = 0; p < n; p++) {
    const label = make("label", {}, `Seat ${p} `);
    const input = make("input", {id: `seat-${p}`, size: 18, list: "agent-specs", value: p === 0 ? "human" : bot});
    label.appendChild(input);
    seats.push(label);
  }
  $("seats").replaceChildren(...seats);
}

function parseConfig(textValue) {
  const config = {};
  for (const item of textValue.split(/[\s,]+/).filter(Boolean)) {
    const [k, v] = item.split("=");
    if (v === undefined) throw new Error(`config ${item}: write key=value`);
    config[k] = v === "true" ? true : v === "false" ? false : (isNaN(Number(v)) ? v : Number(v));
  }
  return config;
}

async function startGame(ev) {
  ev.preventDefault();
  showError(null);
  try {
    const n = Number($("players").value);
    const seats = [...Array(n).keys()].map((p) => $(`seat-${p}`).value.trim());
    const view = await api("POST", "/api/games", {variant: $("variant").value, players: n,
                                                  config: parseConfig($("config").value), seats});
    // the seats' secret tokens are told only in this answer: the tab keeps them (a reload finds them)
    sessionStorage.setItem(`tokens-${view.id}`, JSON.stringify(view.tokens || {}));
    // the answer is the view of the human seat to act (else the first human seat; none: bots only)
    const hotSeat = Object.keys(view.tokens || {}).length > 1;
    if (view.hidden && hotSeat) handover = {id: view.id, seat: view.seat, title: view.title};
    location.hash = `game=${view.id}` + (view.seat !== null ? `&seat=${view.seat}` : "");
  } catch (e) { alert(e.message); }
}

async function openReplay(body) {
  try {
    const view = await api("POST", "/api/replays", body);
    location.hash = `replay=${view.id}&step=0`;
  } catch (e) { alert(e.message); }
}

async function lobby() {
  catalogue = catalogue || await api("GET", "/api/catalogue");
  $("lobby").hidden = false; $("table").hidden = true;
  const sel = $("variant");
  if (!sel.options.length) {
    sel.replaceChildren(...catalogue.variants.map((v) => make("option", {value: v.name}, `${v.name}: ${v.title}`)));
    const rows = catalogue.variants.map((v) => {
      const tr = make("tr", {"data-variant": v.name});
      tr.append(make("td", {}, v.name), make("td", {}, v.title), make("td", {}, v.players.join("/")));
      const play = make("button", {"class": "pick"}, "choose");
      play.onclick = () => { sel.value = v.name; fillPlayers(); window.scrollTo(0, 0); };
      const td = make("td"); td.appendChild(play); tr.appendChild(td);
      return tr;
    });
    document.querySelector("#catalogue tbody").replaceChildren(...rows);
    const specs = make("datalist", {id: "agent-specs"});
    const options = ["human", "random", "heuristic", "mcts:200", ...catalogue.variants.flatMap((v) => Object.values(v.zoo).map((name) => `zoo:${name}`))];
    specs.replaceChildren(...options.map((o) => make("option", {value: o})));
    document.body.appendChild(specs);
    text($("agent-list"), catalogue.agents.map((a) => a.name).join(", "));
    text($("replay-folders"), catalogue.replay_folders.join(" or "));
    // the published leaderboard journals, offered as the replay path
    const files = make("datalist", {id: "replay-files"});
    files.replaceChildren(...catalogue.replay_files.map((f) => make("option", {value: f})));
    document.body.appendChild(files);
    sel.onchange = fillPlayers; $("players").onchange = fillSeats;
    $("new-game").onsubmit = startGame;
    $("open-replay").onsubmit = (ev) => { ev.preventDefault();
      openReplay({path: $("replay-path").value, index: Number($("replay-index").value)}); };
    $("replay-file").onchange = async () => {
      const f = $("replay-file").files[0];
      if (f) openReplay({text: await f.text(), name: f.name, index: Number($("replay-index").value)});
    };
    fillPlayers();
  }
}

// ------------------------------------------------------------------ the table
function tokenOf(seat) {
  const tokens = JSON.parse(sessionStorage.getItem(`tokens-${current.id}`) || "{}");
  return seat === null ? undefined : tokens[String(seat)];
}
function seatToken() { return tokenOf(current.seat); }

// the human seats this page plays: those whose tokens it holds (several: hot seat, one screen for all)
function heldSeats(view) {
  return [...view.seats.keys()].filter((p) => view.seats[p] === "human" && tokenOf(p) !== undefined);
}

// hot seat: when a human seat this page holds is to act, the page turns to it; true when it did. A seat
// picked by hand (the "play as" list) is kept while the same seat is to act
function follow(view) {
  const next = view.to_act;
  if (next !== current.stay) current.stay = undefined;
  if (current.kind !== "game" || view.over || view.error || next === null || next === current.seat ||
      next === current.stay || view.seats[next] !== "human" || tokenOf(next) === undefined) return false;
  switchSeat(next, view.hidden, true);
  return true;
}

// play as `seat` (`turn`: it is to act): where the seats see different things (hidden cards, simultaneous
// moves), the table is hidden until that seat's player shows it, so the screen never shows one seat's view
// to the next
function switchSeat(seat, hidden, turn) {
  clearTimeout(pollTimer);
  current.seat = seat;
  refusal = null;
  history.replaceState(null, "", `#game=${current.id}&seat=${seat}`);
  if (!hidden) { refresh(); return; }
  current.covered = true;
  $("table").classList.add("covered");
  for (const id of ["render", "picture", "legal", "history", "thinking", "status", "error"]) $(id).replaceChildren();
  text($("title"), `${current.title || ""} (over to P${seat})`);
  text($("handover-text"), (turn ? `P${seat} is to play: pass` : "Pass") + ` the screen to P${seat}. The table ` +
    `stays hidden until P${seat} shows it (the seats do not see the same cards or moves).`);
  text($("handover-show"), `I am P${seat}: show my view`);
  $("handover").hidden = false;
  document.body.setAttribute("data-seat", seat);
  document.body.setAttribute("data-covered", "1");
  document.body.setAttribute("data-my-turn", "0");
}

function uncover() {
  if (current) current.covered = false;
  $("table").classList.remove("covered");
  $("handover").hidden = true;
  document.body.setAttribute("data-covered", "0");
}

function seatName(seat) { return seat === null ? "chance" : `P${seat}`; }

function drawThinking(view) {
  const box = $("thinking");
  const entries = Object.entries(view.thinking || {}).filter(([, t]) => t);
  if (!entries.length) {
    text(box, view.thinking_now ? "the bot is thinking…" : "nothing to show yet (shown for the agents that tell it: searches, networks, CFR, rollouts; in games of hidden cards once the game is over)");
    return;
  }
  const [step, t] = entries[entries.length - 1];  // the records' thinking (docs/records.md) with names
  const who = view.history[Number(step)] ? seatName(view.history[Number(step)].seat) : "";
  const policy = t.policy || {}, values = t.values || {}, prior = t.prior || {};
  const rank = t.policy ? policy : t.values ? values : prior;  // the agent's shares, else its values
  const actions = [...new Set([...Object.keys(policy), ...Object.keys(values), ...Object.keys(prior)])]
    .sort((a, b) => (rank[b] ?? -Infinity) - (rank[a] ?? -Infinity));
  const facts = [t.visits !== undefined ? `${t.visits} simulations or worlds` : "",
    t.value !== undefined ? `its value ${t.value.toFixed(3)}` : ""].filter((x) => x);
  const head = make("div", {}, `move ${step} by ${who}` + (facts.length ? `: ${facts.join(", ")}` : ""));
  const list = actions.map((a) => {
    const row = make("div", {"class": "thinking-move"});
    const width = t.policy ? policy[a] || 0 : Math.max(0, Math.min(1, rank[a] || 0));
    const bar = make("span", {"class": "bar", style: `width:${Math.round(width * 120)}px`});
    const parts = [policy[a] !== undefined ? `${(100 * policy[a]).toFixed(1)}%` : "",
      values[a] !== undefined ? `value ${values[a].toFixed(3)}` : "",
      prior[a] !== undefined ? `prior ${prior[a].toFixed(3)}` : ""].filter((x) => x);
    row.append(bar, document.createTextNode(`${(t.names || {})[a] || `action ${a}`}: ${parts.join(", ")}`));
    return row;
  });
  box.replaceChildren(head, ...list);
}

function drawSeats(view) {
  const held = current.kind === "game" ? heldSeats(view) : [];
  const box = $("play-seat-box"), sel = $("play-seat");
  box.hidden = held.length < 2;
  if (box.hidden) return;
  if (sel.options.length !== held.length) sel.replaceChildren(...held.map((p) => make("option", {value: p}, `P${p}`)));
  sel.onchange = () => { current.stay = view.to_act; switchSeat(Number(sel.value), view.hidden, false); };
  sel.value = String(current.seat);
}

function draw(view) {
  $("lobby").hidden = true; $("table").hidden = false;
  if (current.covered) uncover();
  const held = current.kind === "game" ? heldSeats(view) : [];
  const turns = held.length > 1 ? `; this page plays ${held.map((p) => `P${p}`).join(", ")} in turn` : "";
  const you = current.kind === "game" && current.seat !== null ? ` (you are P${current.seat}${turns})` : "";
  current.title = view.title;
  text($("title"), view.title + you);
  drawSeats(view);
  showError(view.error ? {message: view.error} : refusal);
  text($("render"), view.render);
  const pic = $("picture");
  pic.innerHTML = view.picture || "";
  // the picture's ids ("moves", "seat-1", "move-12"...) are the SVG file's own: prefixed here, none is the page's
  // (the page's "moves" list was hidden on every turn after the first, its lookup finding the picture's group)
  pic.querySelectorAll("[id]").forEach((el) => { el.id = `picture-${el.id}`; });
  pic.hidden = !view.picture;
  pic.querySelectorAll("[data-action]").forEach((el) => {
    el.addEventListener("click", () => play(Number(el.getAttribute("data-action"))));
  });
  const legal = view.legal.map((m) => {
    const b = make("button", {"class": "move", id: `legal-${m.action}`, "data-action": m.action}, m.name);
    b.onclick = () => play(m.action);
    return b;
  });
  $("legal").replaceChildren(...legal);
  $("move-list").hidden = legal.length === 0;
  const hist = view.history.map((h) => {
    const li = make("li", {"class": h.seat === null ? "chance" : ""}, `${seatName(h.seat)}: ${h.name}`);
    return li;
  });
  $("history").replaceChildren(...hist);
  $("history").scrollTop = $("history").scrollHeight;
  drawThinking(view);
  let status;
  if (view.over) status = `game over: returns ${view.returns.map((r) => +r.toPrecision(3)).join(", ")}`;  // 0.00333, not 0.00
  else if (current.kind === "replay") status = `move ${view.step} of ${view.length}`;
  else if (view.legal.length) status = view.simultaneous ? "your move (simultaneous: the others do not see it until all have played)" : "your move";
  else if (view.to_act !== null) status = `${seatName(view.to_act)} (${view.seats[view.to_act]}) is ${view.thinking_now ? "thinking" : "to play"}…`;
  else status = "";
  text($("status"), status);
  $("save").hidden = !(current.kind === "game" && view.over);
  $("replay-controls").hidden = current.kind !== "replay";
  if (current.kind === "replay") {
    current.length = view.length;
    text($("step-label"), `move ${view.step} / ${view.length}`);
    const sel = $("view-seat");
    if (sel.options.length !== view.players + 1) {
      sel.replaceChildren(make("option", {value: "all"}, "all-seeing"),
        ...[...Array(view.players).keys()].map((p) => make("option", {value: p}, `seat P${p}`)));
      sel.onchange = () => { current.seat = sel.value === "all" ? null : Number(sel.value); route(true); };
    }
    sel.value = current.seat === null ? "all" : String(current.seat);
  }
  document.body.setAttribute("data-step", view.step);
  document.body.setAttribute("data-seat", current.seat === null ? "" : current.seat);
  document.body.setAttribute("data-over", view.over ? "1" : "0");
  document.body.setAttribute("data-my-turn", view.legal.length ? "1" : "0");
}

async function play(action) {
  try {
    $("legal").querySelectorAll("button").forEach((b) => { b.disabled = true; });
    const step = Number(document.body.getAttribute("data-step"));  // the view the move was chosen in: sent twice, played once
    const view = await api("POST", `/api/games/${current.id}/move`, {seat: current.seat, action, token: seatToken(), step});
    refusal = null;
    if (follow(view)) return;  // another human seat of this page is to act
    draw(view);
    schedule();
  } catch (e) { refusal = e; showError(e); refresh(); }  // the table is drawn again, the reason kept
}

async function refresh() {
  const seat = current.seat === null ? "all" : current.seat;
  const asked = current;
  try {
    if (current.kind === "game") {
      const token = seatToken();
      const view = await api("GET", `/api/games/${current.id}?seat=${seat}` +
                                    (token ? `&token=${encodeURIComponent(token)}` : ""));
      // the page turned to another seat (or game) meanwhile: this seat's view is not drawn over it
      if (current !== asked || current.covered || view.seat !== current.seat) return;
      failures = 0;
      if (follow(view)) return;
      draw(view);
      if (!view.over && !view.legal.length && !view.error) schedule();
    } else {
      draw(await api("GET", `/api/replays/${current.id}?step=${current.step}&seat=${seat}`));
    }
  } catch (e) {
    showError(e);
    // a game is polled again, later after each failure in a row (the network or the server may be back),
    // unless the game is gone or not this page's (404, 403)
    if (current?.kind === "game" && e.status !== 404 && e.status !== 403) {
      failures += 1;
      schedule(Math.min(10000, 300 * 2 ** failures));
    }
  }
}

function schedule(ms = 300) { clearTimeout(pollTimer); pollTimer = setTimeout(refresh, ms); }

function stepTo(k) {
  current.step = Math.max(0, Math.min(k, current.length ?? k));
  const seat = current.seat === null ? "" : `&seat=${current.seat}`;
  history.replaceState(null, "", `#replay=${current.id}&step=${current.step}${seat}`);
  refresh();
}

async function saveRecord() {
  try {
    const r = await fetch(`/api/games/${current.id}/record`);
    const raw = await r.text();  // saved as sent: a seed past 2**53 would lose digits in a JavaScript number
    let rec;
    try { rec = JSON.parse(raw); } catch (_) { rec = undefined; }
    if (!r.ok || rec === undefined) throw new Error(rec && rec.error ? rec.error : raw.trim().slice(0, 300));
    const blob = new Blob([raw], {type: "application/json"});
    const a = make("a", {href: URL.createObjectURL(blob), download: `${rec.variant}-${current.id}.json`});
    document.body.appendChild(a); a.click(); a.remove();
  } catch (e) { showError(e); }
}

function route(keep) {
  clearTimeout(pollTimer);
  refusal = null; failures = 0;
  uncover();
  const params = new URLSearchParams(location.hash.slice(1));
  const seat = params.get("seat");
  if (params.get("game")) current = {kind: "game", id: params.get("game"), seat: seat === null ? null : Number(seat)};
  else if (params.get("replay")) {
    const step = keep && current ? current.step : Number(params.get("step") || 0);
    const s = keep && current ? current.seat : (seat === null ? null : Number(seat));
    current = {kind: "replay", id: params.get("replay"), seat: s, step, length: current?.length};
  } else { current = null; lobby(); return; }
  const cover = handover && handover.id === current.id && handover.seat === current.seat;
  if (cover) {  // the page that starts a hot-seat game does not show the first seat's view to whoever started it
    $("lobby").hidden = true; $("table").hidden = false; $("save").hidden = true;
    current.title = handover.title;
    handover = null;
    switchSeat(current.seat, true, true);
    return;
  }
  handover = null;
  refresh();
}

$("first").onclick = () => stepTo(0);
$("back").onclick = () => stepTo(current.step - 1);
$("forward").onclick = () => stepTo(current.step + 1);
$("last").onclick = () => stepTo(current.length);
$("save").onclick = saveRecord;
$("handover-show").onclick = () => { uncover(); refresh(); };
document.addEventListener("keydown", (ev) => {
  if (current?.kind !== "replay") return;
  if (ev.key === "ArrowRight") stepTo(current.step + 1);
  if (ev.key === "ArrowLeft") stepTo(current.step - 1);
});
window.addEventListener("hashchange", () => route(false));
route(false);
