#!/usr/bin/env python3
"""The reference web client at /play in a browser (issue 18), as people use it:

1. its modules type-check: `tsc --checkJs --strict` against the types openapi-typescript
   generates from openapi/openapi.json (the pinned tools of tests/clients);
2. two people register in two browsers and play a whole 2-player match to its end only by
   clicking (and once dragging) legal moves: one at a desktop on the server's own /play, the
   other on a phone (390×844, by taps) on a copy of the client served from another origin
   (CORS, stream tickets); a spectator without an account watches, and their page never
   shows a card of a hand (checked against the finished match's replays, every hand open);
   the totals shown are the API's, the downloaded export verifies, the talk is text, a
   rematch is offered and accepted;
3. one person plays a whole solo match against two bots with the keyboard alone;
4. the replay scrubber shows each position the API's replay gives;
5. a page follows its match across a server restart, without reloading;
6. axe-core finds no serious or critical violation on the lobby, a table, a hand's end and
   a replay; screenshots of those at both sizes are written (none blank);
7. every request any page makes is an operation of the OpenAPI description;
8. the rule book page shows the server's HTML of docs/rules.md: sections one level under the
   page's heading, every table in its own scroller, a section's link scrolls to it;
9. a player reports a line of talk, mutes and unmutes a table's talk, keeps private notes,
   follows a player from their page and finds their table in the lobby, and blocks a player
   from their page and lifts the block in the settings (docs/community.md).

    python3 tests/play/run.py target/debug/kings-corner [--screenshots DIR]

Needs Chromium (Debian's `chromium`, or CHROMIUM=/path), `npm ci` in tests/clients and in this
folder, and requirements.txt. Exits non-zero, saying why, when anything fails.
"""

import argparse
import functools
import http.server
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from PIL import Image
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CLIENT = ROOT / "src" / "web_client" / "client"
DESCRIPTION = ROOT / "openapi" / "openapi.json"
TOOLS = ROOT / "tests" / "clients" / "node_modules" / ".bin"
AXE = HERE / "node_modules" / "axe-core" / "axe.min.js"
sys.path.insert(0, str(HERE.parent / "support"))
import local_server  # noqa: E402

PASSWORD = "correct horse battery"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
WAIT = 30_000  # milliseconds: the longest any single step may take


def fail(message):
    raise SystemExit(f"FAILED: {message}")


def expect(condition, message):
    if not condition:
        fail(message)


STARTED = time.monotonic()


def step(text):
    print(f"-- {text} (at {time.monotonic() - STARTED:.0f} s)", flush=True)


# ---- 1. the type check ----------------------------------------------------------------------

def typecheck():
    generated = HERE / "generated"
    generated.mkdir(exist_ok=True)
    for command in (
        [str(TOOLS / "openapi-typescript"), str(DESCRIPTION), "-o", str(generated / "kc-openapi.d.ts")],
        [str(TOOLS / "tsc"), "-p", str(HERE / "tsconfig.json")],
        [str(TOOLS / "tsc"), "-p", str(HERE / "tsconfig.worker.json")],
    ):
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"{' '.join(command[:1])}:\n{result.stdout}{result.stderr}")
    modules = sorted(path.name for path in CLIENT.glob("*.js"))
    print(f"ok: tsc --checkJs --strict passes on {len(modules)} modules against the description's types")


# ---- the server, the API, and the pages' requests -------------------------------------------

class Server:
    """The binary on one SQLite file and one port, which a restart keeps."""

    def __init__(self, binary, database, **settings):
        self.binary, self.database, self.settings = binary, database, settings
        self.process, self.address = local_server.start(binary, database, **settings)
        self.port = int(self.address.rsplit(":", 1)[1])

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def restart(self):
        self.stop()
        self.process, _ = local_server.start(self.binary, self.database, port=self.port, **self.settings)

    def call(self, method, path, token=None, body=None):
        return local_server.call(self.address, method, path, token, body)

    def token(self, username):
        status, pair = self.call("POST", "/v1/auth/login", body={"username": username, "password": PASSWORD})
        expect(status == 200, f"login of {username} answered {status}")
        return pair["access_token"]


class Audit:
    """Every request a page makes to the API must be an operation of the description, with
    query parameters that operation takes; the client's own files are the only others."""

    def __init__(self, api_origin):
        self.api_origin = api_origin
        api = json.loads(DESCRIPTION.read_text())
        self.operations = []
        for path, item in api["paths"].items():
            pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(path)) + "$")
            for method, operation in item.items():
                names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
                self.operations.append((method.upper(), pattern, path, names))
        self.seen = {}
        self.wrong = []
        self.unauthorized = []

    def watch(self, context, client_origins):
        def check(request):
            url = urllib.parse.urlsplit(request.url)
            origin = f"{url.scheme}://{url.netloc}"
            if origin in client_origins and not url.path.startswith("/v1/"):
                if origin == self.api_origin and not url.path.startswith("/play/"):
                    self.wrong.append(f"{request.method} {request.url}: not a file of the client")
                return  # the page's own files
            if url.scheme in ("data", "blob"):
                return
            if origin != self.api_origin:
                self.wrong.append(f"{request.method} {request.url}: neither the API nor the client")
                return
            query = set(urllib.parse.parse_qs(url.query, keep_blank_values=True))
            for method, pattern, template, names in self.operations:
                if method == request.method and pattern.match(url.path):
                    if not query <= names:
                        self.wrong.append(f"{request.method} {request.url}: {template} takes no {sorted(query - names)}")
                    self.seen[(method, template)] = self.seen.get((method, template), 0) + 1
                    return
            if request.method == "OPTIONS":
                return  # a CORS preflight, which the browser makes for an operation
            self.wrong.append(f"{request.method} {request.url}: no such operation")
        context.on("request", check)

        def answered(response):
            if response.status == 401:
                self.unauthorized.append(f"{response.request.method} {response.url}")
        context.on("response", answered)

    def report(self, whole_run):
        expect(not self.wrong, "requests that are not operations of the description:\n" + "\n".join(self.wrong[:20]))
        expect(not self.unauthorized, "a page sent an expired or missing token:\n" + "\n".join(self.unauthorized[:10]))
        refreshed = self.seen.get(("POST", "/v1/auth/refresh"), 0)
        expect(refreshed > 0 or not whole_run, "no page refreshed its login, although access tokens lasted 30 s")
        total = sum(self.seen.values())
        print(f"ok: all {total} requests to the API were operations of the description "
              f"({len(self.seen)} different ones; {refreshed} refresh{'es' if refreshed != 1 else ''} of a login, "
              "each before its token expired)")


class Pages:
    """The browser: contexts that record page errors and content security policy refusals."""

    def __init__(self, playwright, audit, client_origins):
        chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        self.browser = playwright.chromium.launch(
            executable_path=chromium, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"])
        self.audit, self.client_origins = audit, client_origins
        self.problems = []

    def context(self, **options):
        context = self.browser.new_context(**options)
        self.audit.watch(context, self.client_origins)
        # Browser notifications, recorded (the page asks for them on the player's word).
        context.add_init_script("""
          window.__kcNotified = [];
          if (window.Notification) {
            const Real = window.Notification;
            window.Notification = class extends Real {
              constructor(title, options) { window.__kcNotified.push(title); super(title, options); }
            };
          }
        """)
        return context

    def page(self, context):
        page = context.new_page()
        page.set_default_timeout(WAIT)
        page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        page.on("console", lambda message: self.problems.append(f"console: {message.text}")
                if message.type == "error" and ("Content Security Policy" in message.text or "Refused to" in message.text)
                else None)
        return page

    def report(self):
        expect(not self.problems, "the pages failed:\n" + "\n".join(self.problems[:20]))


def serve_client(port):
    """A copy of the client on another origin, as a third party would host it."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=str(CLIENT))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


# ---- what a person does on a page -----------------------------------------------------------


def every_seat_takes_a_turn(server, match, tokens):
    """Each seat (tokens in seat order) takes a turn of its own through the API, ending it at
    once: a turn the server ends for a seat that could only end it does not count
    (docs/ratings.md, "Which ends are rated"), so this goes round until each seat has; a seat
    that has taken its turn plays one card or move in the next (moves first: an emptied side
    takes any card), so that a stuck seat meets a table that changed."""
    took = [False] * len(tokens)
    played_this_turn = None
    for _ in range(200):
        if all(took):
            return
        _, seen = server.call("GET", f"/v1/matches/{match}/view", tokens[0])
        expect(seen["status"] == "playing", f"the match ended while its seats took turns: {seen}")
        seat = seen["turn"]
        _, view = server.call("GET", f"/v1/matches/{match}/view", tokens[seat])
        legal = view["legal_actions"]
        of_type = lambda kind: next((a for a in legal if a["type"] == kind), None)
        action = None
        if took[seat] and played_this_turn != seat:
            played_this_turn = seat
            action = of_type("move") or of_type("play")
        if action is None:
            played_this_turn = None
            if len(legal) > 1:
                took[seat] = True
            action = of_type("end_turn") or of_type("draw") or legal[0]
        status, moved = server.call("POST", f"/v1/matches/{match}/moves", tokens[seat],
                                    {"expected_version": view["version"], "action": action})
        expect(status == 200, f"seat {seat}'s {action['type']} answered {status}: {moved}")
    fail(f"the seats of {match} took no turn of their own in 200 actions: {took}")


def wait_until(page, predicate, arg=None, timeout=WAIT):
    """Polls a function in the page until it answers true. (Playwright's `wait_for_function`
    evaluates a string inside the page, which the client's content security policy forbids;
    `evaluate` does not.)"""
    deadline = time.monotonic() + timeout / 1000
    while True:
        if page.evaluate(predicate, arg):
            return
        if time.monotonic() > deadline:
            shown = page.evaluate("() => document.querySelector('main')?.innerText.slice(0, 600)")
            fail(f"waited {timeout / 1000:.0f} s on {page.url} for {predicate}\nthe page shows:\n{shown}")
        time.sleep(0.05)


def register(page, base, username, form="register"):
    """Registers (or, with `form="login"`, logs in) on the page's own form."""
    page.goto(f"{base}#/login")
    page.fill(f"#{form}-username", username)
    page.fill(f"#{form}-password", PASSWORD)
    page.click(f"form[data-form={form}] button[type=submit]")
    page.wait_for_selector("#site-account .me", state="attached")
    # On a phone the account is folded behind the header's menu: open it to see, then fold it.
    menu = page.locator(".menu-toggle")
    folded = menu.is_visible()
    if folded:
        menu.click()
        expect(menu.get_attribute("aria-expanded") == "true", "the menu says it is open")
    page.wait_for_selector("#site-account .me")
    expect(page.inner_text("#site-account .me") == username, f"{username} is shown as logged in")
    if folded:
        menu.click()
        page.wait_for_selector("#site-account .me", state="hidden")


def table_state(page):
    return page.evaluate("""() => {
      const table = document.querySelector('.table-page');
      if (!table) return null;
      return { status: table.dataset.status, version: Number(table.dataset.version || -1),
               busy: table.dataset.busy === 'true',
               mine: !!document.querySelector('.banner.mine') && table.dataset.busy !== 'true' };
    }""")


def wait_settled(page, before):
    """After a move: until the page shows a later version (or an answer that refused it)."""
    wait_until(
        page,
        "(before) => { const t = document.querySelector('.table-page');"
        " return t && t.dataset.busy !== 'true' && (Number(t.dataset.version) > before || document.querySelector('.toast.error')); }",
        arg=before)
    error = page.query_selector(".toast.error")
    if error:
        fail(f"a move was refused: {error.inner_text()}")


def again(act, tries=5):
    """Runs an action on a locator, again if its element was drawn anew under it (the page
    redraws itself whenever the table changes; a locator finds the new element)."""
    for attempt in range(tries):
        try:
            return act()
        except PlaywrightError as error:
            if "not attached" not in str(error) or attempt == tries - 1:
                raise
            time.sleep(0.1)


def steady(page, name, last):
    """Whether it is the page's player's turn and the page has stopped drawing itself: the same
    version as at the last look (`last[name]`), so that what the test presses stays on the page."""
    state = table_state(page)
    before, last[name] = last.get(name), (state or {}).get("version")
    return bool(state and state["mine"] and before == state["version"])


def move_by_pointer(page, rng, tap=False, drag=False, chosen_then=None):
    """One legal move, chosen on the page as a person would: a playable card (or a pile that
    can move) and then a lit pile; else drawing or ending the turn. Clicks, taps, or a drag.
    Elements are found again by what they show (`data-card`, `data-pile`) at each step: the
    page draws itself anew whenever the table changes. `chosen_then` is called once the
    choice is made and its piles are lit. Whether the move was a drag."""
    state = table_state(page)
    press = (lambda locator: again(locator.tap)) if tap else (lambda locator: again(locator.click))
    cards = page.eval_on_selector_all(".hand .card-button.playable", "(items) => items.map((i) => i.dataset.card)")
    piles = page.eval_on_selector_all(".felt .pile.movable", "(items) => items.map((i) => i.dataset.pile)")
    if cards or piles:
        chosen = (page.locator(f".hand .card-button.playable[data-card='{rng.choice(cards)}']") if cards
                  else page.locator(f".felt .pile.movable[data-pile='{rng.choice(piles)}']")).first
        if drag:
            again(chosen.scroll_into_view_if_needed)
            box = again(chosen.bounding_box)
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] / 2 + 12, box["y"] + 20, steps=3)
            page.wait_for_selector(".felt .pile.target")
            height = page.viewport_size["height"]
            boxes = [page.locator(f".felt .pile[data-pile='{pile}']").bounding_box() for pile in
                     page.eval_on_selector_all(".felt .pile.target", "(items) => items.map((i) => i.dataset.pile)")]
            seen = [b for b in boxes if b["y"] >= 0 and b["y"] + b["height"] / 2 < height]
            if seen:
                target = rng.choice(seen)
                page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=8)
                page.mouse.up()
            else:
                # No pile it may go to is on the screen with the card: let go, then click one.
                page.mouse.up()
                drag = False
                targets = page.eval_on_selector_all(".felt .pile.target", "(items) => items.map((i) => i.dataset.pile)")
                press(page.locator(f".felt .pile.target[data-pile='{rng.choice(targets)}']"))
        else:
            press(chosen)
            page.wait_for_selector(".felt .pile.target")
            if chosen_then:
                chosen_then()
            targets = page.eval_on_selector_all(".felt .pile.target", "(items) => items.map((i) => i.dataset.pile)")
            press(page.locator(f".felt .pile.target[data-pile='{rng.choice(targets)}']"))
        answer = page.locator("dialog.chooser[open] [data-answer]")
        if answer.count():
            press(answer.first)
    else:
        button = page.locator("[data-action=draw], [data-action=end_turn]").first
        expect(button.count(), "a turn with nothing to do offers neither draw nor end_turn")
        press(button)
    wait_settled(page, state["version"])
    return drag


def tab_to(page, selector, limit=250):
    """Presses Tab until the focused element matches `selector`; whether it got there."""
    for _ in range(limit):
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)", selector):
            return True
        page.keyboard.press("Tab")
    return False


def actions_are_focusable(page, where):
    """Every action on the page is a button or a link: in the tab order, for the keyboard."""
    odd = page.evaluate("""() => [...document.querySelectorAll('[data-action]')]
      .filter((element) => !(element.matches('button:not([disabled]), a[href]')))
      .map((element) => element.outerHTML.slice(0, 80))""")
    expect(not odd, f"actions the keyboard cannot reach on {where}: {odd}")


def move_by_keyboard(page):
    """One legal move with the keyboard alone: Tab to a playable card (or a movable pile),
    Enter, then Enter on the pile the focus moves to; else Tab to draw or end the turn."""
    state = table_state(page)
    if page.query_selector(".hand .card-button.playable") or page.query_selector(".felt .pile.movable"):
        selector = ".hand .card-button.playable" if page.query_selector(".hand .card-button.playable") else ".felt .pile.movable"
        expect(tab_to(page, selector), f"Tab reaches {selector}")
        page.keyboard.press("Enter")
        wait_until(page, "() => document.activeElement && document.activeElement.matches('.pile.target')")
        page.keyboard.press("Enter")
        if page.query_selector("dialog.chooser[open]"):
            page.keyboard.press("Enter")  # the first answer has the focus
    else:
        selector = "[data-action=draw]" if page.query_selector("[data-action=draw]") else "[data-action=end_turn]"
        expect(tab_to(page, selector), f"Tab reaches {selector}")
        page.keyboard.press("Enter")
    wait_settled(page, state["version"])


SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def short(card):
    """A card as the page writes it in words: "7H" is "7♥" (cards.js's cardShort)."""
    return card if card == "JK" else card[:-1] + SUITS[card[-1]]


def spectator_snapshot(page):
    """The last number the spectator's page has seen, and every card code on it."""
    return page.evaluate("""() => {
      const table = document.querySelector('.table-page');
      const seqs = [...document.querySelectorAll('.log [data-seq]')].map((li) => Number(li.dataset.seq));
      const cards = new Set();
      for (const element of document.querySelectorAll('[data-card]')) cards.add(element.dataset.card);
      for (const element of document.querySelectorAll('[data-cards]')) {
        for (const card of element.dataset.cards.split(' ')) if (card) cards.add(card);
      }
      const text = document.querySelector('main').innerText;
      return { at: Math.max(Number(table?.dataset.version ?? 0), ...seqs, 0), cards: [...cards],
               ended: !!document.querySelector('.log .hand_ended'), status: table?.dataset.status, text };
    }""")


def axe(page, where):
    page.evaluate(AXE.read_text() + "\n;0")
    violations = page.evaluate("""async () => {
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')})`);
    }""")
    expect(not violations, f"axe-core on {where}:\n" + "\n".join(violations))
    print(f"ok: axe-core finds no serious or critical violation on {where}")


def screenshots(page, directory, name):
    """The page at a desktop's size and a phone's, both checked not blank and not wider than
    the screen (nothing to scroll sideways for)."""
    before = page.viewport_size
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.wait_for_timeout(150)
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        expect(wide <= size["width"], f"{name} at {size['width']} px is {wide} px wide")
        path = directory / f"{name}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
        with Image.open(path) as image:
            colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
            expect(colours is None or len(colours) > 50, f"{path.name} is blank ({len(colours or [])} colours)")
            width, height = image.size
        expect(width == size["width"] and height >= size["height"] * 0.9, f"{path.name} is {width}×{height}")
    page.set_viewport_size(before)


# ---- the scenarios --------------------------------------------------------------------------

def table_shown(page, shots):
    """The table mid-hand with a card chosen and its piles lit: axe-core, and its screenshots."""
    wait_until(page, "() => !document.querySelector('.toast')", timeout=8000)
    axe(page, "a table mid-hand, a card chosen")
    screenshots(page, shots, "table")


def play_to_the_end(maya, leo, rng, shots, progress, watcher=None, snapshots=None):
    """Maya (clicks, her first card by a drag) and Leo (taps) play until the match ends; the
    spectator's page is sampled after every move. `progress` records what has been seen: the
    drag, the table's screenshot with a card chosen, Leo told of his turn."""
    moves = {"maya": 0, "leo": 0}
    last = {}
    deadline = time.monotonic() + 600
    while True:
        if watcher:
            snapshot = spectator_snapshot(watcher)
            if not snapshot["ended"] and snapshot["status"] == "playing":
                snapshots.append(snapshot)
        states = {name: table_state(page) for name, page in (("maya", maya), ("leo", leo))}
        if all(state["status"] in ("finished", "aborted") for state in states.values()):
            return moves
        expect(time.monotonic() < deadline, "the match did not end within 10 minutes")
        if states["leo"]["mine"] and not progress["leo_told"] and steady(leo, "leo-told", last):
            # While Leo is to move: his page's title counts the match, and his browser told him.
            wait_until(leo, "() => /^\\(1\\) /.test(document.title)")
            wait_until(leo, "() => window.__kcNotified.includes('Your turn')")
            progress["leo_told"] = True
        if states["maya"]["mine"] and steady(maya, "maya", last):
            playable = bool(maya.query_selector(".hand .card-button.playable"))
            drag = playable and not progress["dragged"]
            show = playable and not drag and not progress["shown"]
            progress["shown"] = progress["shown"] or show
            # Leo's phone, while he waits, shows the table and his hand on one screen too.
            progress["lowest"] = max(progress.get("lowest", 0), one_screen(leo))
            dragged = move_by_pointer(maya, rng, drag=drag, chosen_then=(lambda: table_shown(maya, shots)) if show else None)
            progress["dragged"] = progress["dragged"] or dragged
            moves["maya"] += 1
        elif states["leo"]["mine"] and steady(leo, "leo", last):
            progress["lowest"] = max(progress.get("lowest", 0), one_screen(leo))
            if not progress.get("phone_screen"):
                # What Leo's phone shows, as it is: no full-page stitching.
                leo.screenshot(path=str(shots / "table-phone-screen.png"))
                progress["phone_screen"] = True
            move_by_pointer(leo, rng, tap=True)
            moves["leo"] += 1
        else:
            maya.wait_for_timeout(120)


def one_screen(page):
    """On a phone, at the top of the page, the layout, the hand and the actions all lie on the
    first screen and nothing is wider than it: how far down the lowest of them ends."""
    box = page.evaluate("""() => {
        window.scrollTo(0, 0);
        const bottom = (selector) => {
            const element = document.querySelector(selector);
            return element && element.getClientRects().length ? element.getBoundingClientRect().bottom : 0;
        };
        return { height: innerHeight, felt: bottom(".felt"), hand: bottom(".hand-area .hand"),
                 actions: bottom(".actions"), wide: document.documentElement.scrollWidth > innerWidth };
    }""")
    lowest = max(box["felt"], box["hand"], box["actions"])
    expect(box["hand"] > 0 and lowest <= box["height"] and not box["wide"],
           f"on the phone the table and the hand do not fit one screen: {box}")
    return lowest


def installable(pages, server, shots):
    """The client as an installed app on a phone: its manifest and icons, a service worker that
    takes over the page, the page opening offline and saying so, and a pushed message shown as
    a notification naming the table to open."""
    step("installable: manifest, icons, a service worker, offline, a pushed notification")
    context = pages.context(viewport=PHONE, has_touch=True, is_mobile=True, permissions=["notifications"])
    page = pages.page(context)
    here = f"{server.address}/play/"
    register(page, here, "wren")

    manifest = page.evaluate("() => fetch('manifest.webmanifest').then((answer) => answer.json())")
    expect(manifest["display"] == "standalone" and manifest["start_url"] == "./" and manifest["name"],
           f"the manifest: {manifest}")
    sizes = page.evaluate("""(icons) => Promise.all(icons.map((icon) => new Promise((done) => {
        const image = new Image();
        image.onload = () => done([icon.sizes, `${image.naturalWidth}x${image.naturalHeight}`]);
        image.onerror = () => done([icon.sizes, null]);
        image.src = icon.src;
    })))""", [icon for icon in manifest["icons"] if icon["type"] == "image/png"])
    expect(len(sizes) >= 2 and all(declared == drawn for declared, drawn in sizes)
           and {"192x192", "512x512"} <= {declared for declared, _ in sizes},
           f"the manifest's icons, declared and drawn: {sizes}")

    # The worker takes over the page it was registered from.
    state = page.evaluate("() => navigator.serviceWorker.ready.then((registration) => registration.active.state)")
    expect(state in ("activating", "activated"), f"the service worker is {state}")
    wait_until(page, "() => navigator.serviceWorker.controller !== null")

    # Offline, the page still opens, from the worker's copy, and says it will reconnect.
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("#connection:not([hidden])")
    page.wait_for_selector("header.site .brand")
    said = page.inner_text("#connection")
    expect("reconnect" in said, f"offline, the page says {said!r}")
    page.screenshot(path=str(shots / "offline-phone-screen.png"))
    expect("cannot be reached" in page.inner_text("main"), "offline, the lobby says the server cannot be reached")
    context.set_offline(False)
    page.wait_for_selector("#connection", state="hidden")
    # Back online, the page reads itself again.
    wait_until(page, "() => !document.querySelector('main').innerText.includes('cannot be reached')")
    print(f"ok: the manifest names a standalone app with icons {', '.join(size for size, _ in sizes)}; "
          f"the service worker took over the page, which opened offline saying {said!r}")

    # A pushed message (delivered as a push service would, through the DevTools protocol) is
    # shown as a notification that names the table.
    session = context.new_cdp_session(page)
    registrations = []
    session.on("ServiceWorker.workerRegistrationUpdated",
               lambda event: registrations.extend(event["registrations"]))
    session.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not any(r["scopeURL"] == here and not r["isDeleted"] for r in registrations):
        expect(time.monotonic() < deadline, f"no registration of {here}: {registrations}")
        page.wait_for_timeout(100)
    registration = next(r for r in registrations if r["scopeURL"] == here and not r["isDeleted"])
    pushed = {"title": "Your turn at maya's table", "body": "maya played 7H on N.", "url": "#/match/abc", "tag": "turn"}
    # A worker the browser is just starting again may miss a message, as a real push service's
    # can be retried: sent again (the same `tag`, so it replaces itself) until it shows.
    shown = []
    for _ in range(10):
        session.send("ServiceWorker.deliverPushMessage", {
            "origin": server.address, "registrationId": registration["registrationId"], "data": json.dumps(pushed)})
        for _ in range(20):
            shown = page.evaluate("""() => navigator.serviceWorker.ready
                .then((registration) => registration.getNotifications())
                .then((all) => all.map((n) => ({ title: n.title, body: n.body, url: n.data.url })))""")
            if shown:
                break
            page.wait_for_timeout(100)
        if shown:
            break
    expect(shown == [{"title": pushed["title"], "body": pushed["body"], "url": pushed["url"]}],
           f"the notification shown: {shown}")
    print(f"ok: a pushed message was shown as the notification {shown[0]['title']!r}, opening {shown[0]['url']}")

    # A click on it opens the table: DevTools has no way to click a notification, so the click
    # is dispatched in the worker as the browser dispatches it, with the notification shown.
    workers = [worker for worker in context.service_workers if worker.url.startswith(here)]
    expect(workers, f"the worker is reachable: {[worker.url for worker in context.service_workers]}")
    workers[0].evaluate("""async () => {
        const [notification] = await self.registration.getNotifications();
        self.dispatchEvent(new NotificationEvent("notificationclick", { notification }));
    }""")
    wait_until(page, "() => location.hash === '#/match/abc'")
    print(f"ok: a click on the notification took the open page to {page.url.split('/play/')[1]}")
    context.close()


def away_from_the_table(pages, server, shots):
    """The settings of reaching a player who has left: the email form (this server sends no mail,
    and says so), the alerts form saved and read back through the API, the devices list, the
    pages a letter's links open, and the login page's "forgot your password"."""
    step("away from the table: email, alerts, devices, a letter's links, a forgotten password")
    here, context, page, token, _ = two_accounts(pages, server, "iris", "ivan")
    page.goto(f"{here}#/settings")
    page.wait_for_selector("#reach form[data-form='alerts']")
    expect("No address yet" in page.inner_text("#reach"), "no address yet")
    page.fill("#email", "iris@example.com")
    page.fill("#email-password", PASSWORD)
    page.click("form[data-form='email'] button[type='submit']")
    page.wait_for_selector("form[data-form='email'] .error:not([hidden])")
    said = page.inner_text("form[data-form='email'] .error")
    expect("sends no email" in said, f"without mail the form says so: {said!r}")
    expect(page.is_disabled("#email-your_turn"), "email alerts need a verified address")
    page.check("#push-your_turn")
    page.check("#push-invited")
    page.select_option("#digest", "hourly")
    page.check("#quiet")
    page.fill("#quiet-from", "22:30")
    page.fill("#quiet-until", "07:00")
    page.select_option("#time-zone", "Europe/Lisbon")
    page.click("form[data-form='alerts'] button[type='submit']")
    wait_until(page, "() => document.querySelector('#toasts').innerText.includes('Saved')")
    status, saved = server.call("GET", "/v1/me/alerts", token)
    expect(status == 200 and saved == {"email": [], "push": ["your_turn", "invited"], "digest": "hourly", "digest_hour": 8,
                                       "quiet_hours": {"from": "22:30", "until": "07:00"}, "time_zone": "Europe/Lisbon"},
           f"the alerts saved: {saved}")
    page.wait_for_selector("[data-part='devices'] li")
    expect("No device yet" in page.inner_text("[data-part='devices']"), "no device yet")
    screenshots(page, shots, "settings-away")
    print("ok: the settings page saves push alerts, a digest, quiet hours and a zone; without mail it says so")

    # A letter's links: the token rides in the fragment; a bad one is refused in words.
    page.goto(f"{here}#verify-email=not-a-real-token")
    page.wait_for_selector("main p.error")
    expect("unknown" in page.inner_text("main p.error"), "a bad verification link is refused")
    page.goto(f"{here}#reset-password=not-a-real-token")
    page.fill("#new-password", "a new horse battery")
    page.click("form[data-form='reset'] button[type='submit']")
    page.wait_for_selector("form[data-form='reset'] .error:not([hidden])")
    expect("unknown" in page.inner_text("form[data-form='reset'] .error"), "a bad reset link is refused")
    screenshots(page, shots, "reset-password")
    page.click("header.site button:has-text('Log out')") if page.is_visible("header.site button:has-text('Log out')") else None
    page.goto(f"{here}#/login")
    page.click("summary:has-text('Forgot your password?')")
    page.fill("#forgot-who", "iris")
    page.click("form[data-form='forgot'] button[type='submit']")
    wait_until(page, "() => document.querySelector('form[data-form=forgot] [role=status]').innerText.length > 0")
    expect("sends no email" in page.inner_text("form[data-form='forgot'] [role=status]"), "the reset form says there is no mail")
    print("ok: a letter's links open their pages and refuse a bad token; the login page offers a reset")
    context.close()


def two_people(pages, server, other_origin, shots, rng):
    step("two people, two browsers: a whole match by clicks and taps, a spectator, a rematch")
    here = f"{server.address}/play/"
    there = f"{other_origin}/?api={urllib.parse.quote(server.address)}"
    maya_context = pages.context(viewport=DESKTOP)
    leo_context = pages.context(viewport=PHONE, has_touch=True, is_mobile=True, permissions=["notifications"])
    watcher_context = pages.context(viewport=DESKTOP)
    maya, leo, watcher = pages.page(maya_context), pages.page(leo_context), pages.page(watcher_context)
    register(maya, here, "maya")
    register(leo, there, "leo")

    # `?then=` follows only this client's own pages: served from another host there is no
    # CSP of /play's to stop a `javascript:` link (issue 35, finding 7).
    for then, followed in (("javascript:alert(document.domain)", "#/"), ("https://evil.example/", "#/"),
                           ("%23%2Fmine", "#/mine")):
        leo.goto(f"{there}#/login?then={then}")
        href = leo.get_attribute("main a:text('Go on')", "href")
        expect(href == followed, f"#/login?then={then} offers to go on to {href!r}, not {followed!r}")
    print("ok: the login page's `then` follows only the client's own pages, wherever it is served from")

    # Maya creates a table from the form the catalog generates: standard, one hand.
    maya.wait_for_selector("form[data-form=create]")
    axe(maya, "the lobby")
    screenshots(maya, shots, "lobby")
    maya.fill("#create-seats", "2")
    maya.click(".rules-form details summary")
    maya.select_option("#create-game_end", label="One hand.")
    maya.fill("#create-hand_size", "10")
    expect("2 changed" in maya.inner_text(".rules-form summary"), "the form counts the house rules")
    maya.click("form[data-form=create] button[type=submit]")
    maya.wait_for_selector(".waiting")
    match = maya.evaluate("() => document.querySelector('.table-page').dataset.match")
    status, summary = server.call("GET", f"/v1/matches/{match}")
    expect(status == 200 and summary["rules"]["game_end"] == {"single_hand": True} and summary["rules"]["hand_size"] == 10,
           f"the table's rules: {summary}")

    # Leo, on the phone and the other origin, asks to be notified and joins from the lobby.
    leo.goto(f"{there}#/mine")
    leo.click("[data-action=notify]")
    leo.wait_for_selector("[data-action=notify]", state="detached")
    leo.goto(f"{there}#/")
    leo.wait_for_selector(f"[data-join='{match}']")
    leo.tap(f"[data-join='{match}']")
    for page in (maya, leo):
        page.wait_for_selector(".table-area:not([hidden])")
    watcher.goto(f"{here}#/match/{match}")
    watcher.wait_for_selector(".table-area:not([hidden])")
    expect(not watcher.query_selector(".hand-area:not([hidden]) .hand"), "a spectator has no hand")

    # Talk: text only; a bidirectional override is refused with the server's words.
    maya.fill("#talk-text", "<b>good luck</b> &amp; have fun")
    maya.click("form[data-form=talk] button[type=submit]")
    leo.wait_for_selector(".talk .talk-line")
    said = leo.inner_text(".talk .talk-line .said")
    expect(said == "<b>good luck</b> &amp; have fun", f"talk shown as text: {said!r}")
    expect(not leo.query_selector(".talk b"), "talk never becomes markup")
    maya.fill("#talk-text", "right\u202eleft")
    maya.click("form[data-form=talk] button[type=submit]")
    maya.wait_for_selector(".toast.error")
    expect("bidirectional" in maya.inner_text(".toast.error").lower(), "the refusal's detail is shown")
    maya.click(".toast.error button")
    maya.fill("#talk-text", "")

    progress = {"dragged": False, "shown": False, "leo_told": False}
    snapshots = []
    moves = play_to_the_end(maya, leo, rng, shots, progress, watcher=watcher, snapshots=snapshots)
    print(f"ok: the match ended after {moves['maya']} moves by Maya (clicks{', the first a drag' if progress['dragged'] else ''}) "
          f"and {moves['leo']} by Leo (taps, phone, another origin)")
    print(f"ok: at every position of the match the layout, Leo's hand and his actions fit his phone's one screen "
          f"(the lowest ended {progress.get('lowest', 0):.0f} px down of {PHONE['height']})")

    # The tokens live in this tab's sessionStorage only: never a cookie, never localStorage.
    for page in (maya, leo):
        kept = page.evaluate("() => ({ local: JSON.stringify(localStorage), cookies: document.cookie, "
                             "session: sessionStorage.getItem('kc.session') })")
        expect(kept["session"] and "refreshToken" in kept["session"], "the login is in sessionStorage")
        tokens = json.loads(kept["session"])
        expect(tokens["accessToken"] not in kept["local"] and tokens["refreshToken"] not in kept["local"]
               and not kept["cookies"], f"a token outside sessionStorage: {kept['local']} {kept['cookies']}")

    # The end as shown is the API's.
    maya.wait_for_selector(".match-result")
    status, summary = server.call("GET", f"/v1/matches/{match}")
    totals = summary["result"]["totals"]
    for page in (maya, leo, watcher):
        page.wait_for_selector(".final-totals [data-final-seat]")
        shown = page.eval_on_selector_all(".final-totals [data-final-seat]",
                                          "(items) => items.map((item) => Number(item.dataset.total))")
        expect(shown == totals, f"final totals shown {shown}, the API's {totals}")
    print(f"ok: every page shows the API's final totals {totals}")
    axe(maya, "a hand's end")
    screenshots(maya, shots, "hand-end")

    # The spectator never saw a card of a hand: each moment against the open replay.
    maya_token = server.token("maya")
    hands_at = {}
    for snapshot in snapshots:
        at = snapshot["at"]
        if at not in hands_at:
            status, replay = server.call("GET", f"/v1/matches/{match}/replay?at={at}", maya_token)
            expect(status == 200 and replay["all_hands"] is not None, f"the open replay at {at}")
            hands_at[at] = {card for hand in replay["all_hands"] for card in hand}
        leaked = hands_at[at] & set(snapshot["cards"])
        expect(not leaked, f"the spectator's page at {at} shows {sorted(leaked)} of a hand")
        named = [card for card in hands_at[at] if re.search(rf"(?<![0-9A-Z]){re.escape(short(card))}", snapshot["text"])]
        expect(not named, f"the spectator's page names {named} of a hand at {at}")
    print(f"ok: the spectator's page held no card of a hand in {len(snapshots)} moments ({len(hands_at)} positions)")

    # The export downloaded from the page verifies.
    with maya.expect_download() as download:
        maya.click(".match-result [data-action=export]")
    exported = Path(download.value.path())
    verified = subprocess.run([server.binary, "verify", str(exported)], capture_output=True, text=True)
    expect(verified.returncode == 0, f"kings-corner verify of the downloaded export:\n{verified.stdout}{verified.stderr}")
    print("ok: the export downloaded from the page verifies")

    # A rematch: Maya offers it; Leo is told, goes to it and takes his seat.
    maya.click("[data-action=rematch]")
    maya.wait_for_selector(".waiting")
    leo.wait_for_selector("[data-action=go-rematch]")
    leo.tap("[data-action=go-rematch]")
    leo.wait_for_selector("[data-action=join]")
    leo.tap("[data-action=join]")
    for page in (maya, leo):
        page.wait_for_selector(".table-area:not([hidden])")
    rematch = maya.evaluate("() => document.querySelector('.table-page').dataset.match")
    status, summary = server.call("GET", f"/v1/matches/{rematch}")
    expect(summary["status"] == "playing" and summary["rematch_of"] == match, f"the rematch started: {summary}")
    if not all(progress.values()) or min(moves.values()) < 2:
        # The first match was over too soon (a player went out in a turn or two): the rematch
        # is played to its end as well, for what it has not shown yet.
        more = play_to_the_end(maya, leo, rng, shots, progress)
        print(f"ok: the rematch ended too, after {more['maya']} moves by Maya and {more['leo']} by Leo")
    expect(all(progress.values()), f"seen in two matches: {progress}")
    print("ok: a rematch offered on one page was joined on the other and started")
    for context in (maya_context, leo_context, watcher_context):
        context.close()
    return match


def solo_by_keyboard(pages, server):
    step("one person against two bots, with the keyboard alone")
    context = pages.context(viewport=DESKTOP)
    page = pages.page(context)
    here = f"{server.address}/play/"
    register(page, here, "nina")
    page.wait_for_selector("form[data-form=create]")
    page.fill("#create-seats", "3")
    page.select_option("#create-seat-2", "basic")
    page.select_option("#create-seat-3", "expert")
    page.click(".rules-form details summary")
    page.select_option("#create-game_end", label="One hand.")
    page.click("form[data-form=create] button[type=submit]")
    page.wait_for_selector(".table-area:not([hidden])")
    match = page.evaluate("() => document.querySelector('.table-page').dataset.match")
    moves = 0
    last = {}
    deadline = time.monotonic() + 300
    while True:
        state = table_state(page)
        if state["status"] in ("finished", "aborted"):
            break
        expect(time.monotonic() < deadline, "the solo match did not end within 5 minutes")
        if state["mine"] and steady(page, "nina", last):
            actions_are_focusable(page, "the table")
            move_by_keyboard(page)
            moves += 1
        else:
            page.wait_for_timeout(120)
    page.wait_for_selector(".match-result")
    status, summary = server.call("GET", f"/v1/matches/{match}")
    shown = page.eval_on_selector_all(".final-totals [data-final-seat]", "(items) => items.map((i) => Number(i.dataset.total))")
    expect(shown == summary["result"]["totals"], f"solo totals shown {shown}, the API's {summary['result']['totals']}")
    bots = sorted(seat["bot"] for seat in summary["seats"] if seat["bot"])
    expect(bots == ["basic", "expert"], f"the bots seated: {bots}")
    # The rest of the table's actions are buttons in the tab order too.
    actions_are_focusable(page, "the match's end")
    for selector in ("[data-action=rematch]", "[data-action=export]", ".match-result a[href*='replay']"):
        expect(tab_to(page, selector), f"Tab reaches {selector}")
    print(f"ok: the solo match against basic and expert ended after {moves} keyboard moves; totals {shown}")
    context.close()


def replay_scrubber(pages, server, match, shots):
    step("the replay scrubber against the API's replay, position by position")
    context, page, here = logged_in_page(pages, server, "maya")
    page.goto(f"{here}#/replay/{match}?at=0")
    page.wait_for_selector(".replay-page[data-at='0']")
    token = server.token("maya")
    status, summary = server.call("GET", f"/v1/matches/{match}", token)
    version = summary["version"]
    scrubber = page.locator("#replay-at")
    checked = 0
    for at in range(version + 1):
        if at > 0:
            scrubber.focus()
            page.keyboard.press("ArrowRight")
        page.wait_for_selector(f".replay-page[data-at='{at}']")
        shown = page.evaluate("""() => ({
          piles: Object.fromEntries([...document.querySelectorAll('.replay-table [data-pile]')]
            .map((pile) => [pile.dataset.pile, pile.dataset.cards ? pile.dataset.cards.split(' ') : []])),
          hands: [...document.querySelectorAll('.replay-table [data-hand-seat]')]
            .map((hand) => hand.dataset.cards ? hand.dataset.cards.split(' ') : []),
          stock: Number(document.querySelector('.replay-table [data-stock]').dataset.stock),
          totals: [...document.querySelectorAll('.replay-table .seat-list [data-seat]')].map((seat) => Number(seat.dataset.total)),
        })""")
        status, replay = server.call("GET", f"/v1/matches/{match}/replay?at={at}", token)
        expect(status == 200, f"the API's replay at {at}")
        piles = dict(replay["piles"], **(replay["foundations"] or {}))
        expect(shown["piles"] == piles, f"at {at} the page shows {shown['piles']}, the API {piles}")
        expect(shown["hands"] == replay["all_hands"], f"at {at} the hands shown {shown['hands']}, the API's {replay['all_hands']}")
        expect(shown["stock"] == replay["stock_count"], f"at {at} the stock shown {shown['stock']}, the API's {replay['stock_count']}")
        expect(shown["totals"] == [seat["total"] for seat in replay["seats"]], f"at {at} the totals shown")
        checked += 1
        if at == version // 2:
            axe(page, "a replay")
            screenshots(page, shots, "replay")
    print(f"ok: the scrubber showed all {checked} positions as the API's replay gives them")
    context.close()


def across_a_restart(pages, server):
    step("a page follows its match across a server restart, without reloading")
    for name in ("omar", "pia"):
        status, _ = server.call("POST", "/v1/accounts", body={"username": name, "password": PASSWORD})
        expect(status == 201, f"register {name}")
    omar, pia = server.token("omar"), server.token("pia")
    status, created = server.call("POST", "/v1/matches", omar, {"seats": 2})
    match = created["id"]
    expect(server.call("POST", f"/v1/matches/{match}/join", pia, {})[0] == 200, "pia joins")
    context, page, here = logged_in_page(pages, server, "omar")
    page.goto(f"{here}#/match/{match}")
    page.wait_for_selector(".link-state.live")
    # Omar ends his turns (the server may end Pia's by itself) until Pia is to move after the
    # restart.
    for _ in range(20):
        status, view = server.call("GET", f"/v1/matches/{match}/view", pia)
        if view["turn"] == view["your_seat"]:
            break
        wait_until(page, "(v) => Number(document.querySelector('.table-page').dataset.version) >= v", arg=view["version"])
        wait_until(page, "() => !!document.querySelector('.banner.mine') && !!document.querySelector('[data-action=end_turn]')")
        before = table_state(page)["version"]
        page.click("[data-action=end_turn]")
        wait_settled(page, before)
    page.evaluate("() => { window.__kcSamePage = true; }")
    before = table_state(page)["version"]
    tickets = pages.audit.seen.get(("POST", "/v1/me/stream-tickets"), 0)
    server.restart()
    status, view = server.call("GET", f"/v1/matches/{match}/view", pia)
    expect(view["turn"] == view["your_seat"], "it is Pia's turn")
    action = next((a for a in view["legal_actions"] if a["type"] == "play"), view["legal_actions"][0])
    status, after = server.call("POST", f"/v1/matches/{match}/moves", pia, {"expected_version": view["version"], "action": action})
    expect(status == 200, f"Pia's move after the restart answered {status}: {after}")
    wait_until(page, "(v) => Number(document.querySelector('.table-page').dataset.version) >= v",
               arg=after["version"], timeout=60_000)
    page.wait_for_selector(".link-state.live", timeout=60_000)
    expect(page.evaluate("() => window.__kcSamePage === true"), "the page was not reloaded")
    expect(pages.audit.seen.get(("POST", "/v1/me/stream-tickets"), 0) > tickets, "the page opened its stream again with a new ticket")
    lines = page.eval_on_selector_all(".log [data-seq]", "(items) => items.map((item) => Number(item.dataset.seq))")
    expect(lines == sorted(set(lines)) and lines[-1] >= after["version"] - 1, f"the log holds every event once, in order: {lines[-5:]}")
    print(f"ok: the page went from version {before} to {after['version']} across the restart, by its stream")

    # While the match runs, a player looks back over their own turns: the replay shows their
    # own hand as it was, and no other.
    page.goto(f"{here}#/replay/{match}?at=1")
    page.wait_for_selector(".replay-page[data-at='1']")
    status, then = server.call("GET", f"/v1/matches/{match}/replay?at=1", omar)
    shown = page.get_attribute(".replay-table .all-hands .mini-hand", "data-cards")
    expect(then.get("all_hands") is None and shown == " ".join(then["hand"]),
           f"Omar's own hand at 1: shown {shown}, the API's {then['hand']}")
    expect(not page.query_selector(".replay-table [data-hand-seat]"), "no other hand in a running match's replay")
    print("ok: the replay of the running match shows Omar his own hand as it was, and no other")
    context.close()


def login(page, base, username):
    register(page, base, username, form="login")


def logged_in_page(pages, server, username):
    """A new desktop browser, logged in as `username` on the server's /play: its context, its
    page and the client's address."""
    context = pages.context(viewport=DESKTOP)
    page = pages.page(context)
    here = f"{server.address}/play/"
    login(page, here, username)
    return context, page, here


def to_move(pages_by_seat):
    """The page whose player is to move, and the other one."""
    for _ in range(200):
        for index, page in enumerate(pages_by_seat):
            state = table_state(page)
            if state and state["mine"]:
                return page, pages_by_seat[1 - index]
        time.sleep(0.05)
    fail("nobody is to move")


def confirm(page, action, answer):
    """Clicks an action that asks first, and answers the question."""
    page.click(f"[data-action={action}]")
    page.click(f"dialog.chooser[open] [data-answer='{answer}']")


def the_rest_of_the_table(pages, server):
    step("private tables, invitations, spectator links, clocks, hints, nudges, claims, resigning, "
         "calling off, foundations, four colours, filters, player pages")
    here = f"{server.address}/play/"
    rosa_context, sam_context, anonymous_context = (pages.context(viewport=DESKTOP) for _ in range(3))
    rosa, sam, anonymous = (pages.page(context) for context in (rosa_context, sam_context, anonymous_context))
    register(rosa, here, "rosa")
    logged_in = json.loads(rosa.evaluate("() => sessionStorage.getItem('kc.session')"))
    register(sam, here, "sam")

    # A private table with a clock of Rosa's own, from the form; Sam invited by name, and
    # seated through the invite link Rosa's page shows.
    rosa.wait_for_selector("form[data-form=create]")
    rosa.fill("#create-seats", "2")
    rosa.select_option("#create-clock", "custom")
    rosa.fill("#create-turn", "3")
    rosa.select_option("#create-turn-unit", "minutes")
    rosa.fill("#create-bank", "1")
    rosa.select_option("#create-bank-unit", "minutes")
    rosa.select_option("#create-on-timeout", "claim")
    rosa.select_option("#create-visibility", "private")
    rosa.click("form[data-form=create] button[type=submit]")
    rosa.wait_for_selector("form[data-form=invite]")
    match = rosa.evaluate("() => document.querySelector('.table-page').dataset.match")
    status, summary = server.call("GET", f"/v1/matches/{match}", server.token("rosa"))
    expect(summary["visibility"] == "private" and summary["clock"]["turn_seconds"] == 180
           and summary["clock"]["bank_seconds"] == 60 and summary["clock"]["on_timeout"] == "claim",
           f"the private table's settings: {summary}")
    rosa.fill("#invite-username", "sam")
    rosa.click("form[data-form=invite] button[type=submit]")
    rosa.wait_for_selector(".toast.info")
    status, told = server.call("GET", "/v1/me/events?after=0", server.token("sam"))
    invited = [n for n in told["notifications"] if n["type"] == "invited"]
    expect(invited and invited[0]["data"]["match_id"] == match, f"Sam was told of the invitation: {told}")
    link = rosa.input_value("#share-invite-link")
    expect(f"#/match/{match}?code=" in link, f"the invite link: {link}")
    sam.goto(f"{here}#/")
    sam.fill("#join-code", link)
    sam.click("form[data-form=join-code] button[type=submit]")
    sam.click("[data-action=join]")
    for page in (rosa, sam):
        page.wait_for_selector(".table-area:not([hidden])")
    mover, other = to_move([rosa, sam])
    wait_until(mover, "() => /^\\d+:\\d\\d left$/.test(document.querySelector('.seat.to-move .clock')?.textContent ?? '')")
    print(f"ok: a private table with a 3-minute clock, an invitation by name and a seat taken with the invite link "
          f"pasted into the lobby; "
          f"the clock counts down ({mover.inner_text('.seat.to-move .clock')})")

    # Its spectator link lets a person without an account watch; without it the table is not there.
    anonymous.goto(f"{here}#/match/{match}")
    anonymous.wait_for_selector("main .error")
    watch = rosa.get_attribute(".table-links a[href*='watch=']", "href")
    anonymous.goto(f"{here}{watch}")
    anonymous.wait_for_selector(".table-area:not([hidden])")
    expect(anonymous.inner_text(".banner").startswith("Watching."), "the spectator link watches")
    expect(anonymous.query_selector(".hand-area[hidden]") is not None, "a spectator has no hand")
    print("ok: the spectator link opens the private table to a visitor without an account, without a hand")

    # A hint with its reason, taken; a nudge too early is refused in the server's words.
    mover.click("[data-action=hint]")
    mover.wait_for_selector(".hint-box .hint")
    reason = mover.inner_text(".hint-box .hint")
    expect("imagined" in reason or "hand" in reason, f"the hint gives its reason: {reason}")
    before = table_state(mover)["version"]
    mover.click("[data-action=take-hint]")
    wait_settled(mover, before)
    mover, other = to_move([rosa, sam])
    other.click("[data-action=nudge]")
    other.wait_for_selector(".toast.error")
    expect("nudge it in" in other.inner_text(".toast.error"), "the early nudge's detail is shown")
    other.click(".toast.error button")
    print(f"ok: a hint ({reason.strip()[:60]}…) was taken; an early nudge was refused with the server's detail")

    # Resigning ends a two-seat match: the other wins.
    confirm(other, "resign", "Resign")
    for page in (rosa, sam):
        page.wait_for_selector(".match-result[data-ended-by=resigned]")
    print("ok: resigning, confirmed in a dialog, ended the match for both pages")

    rosa_token, sam_token = server.token("rosa"), server.token("sam")

    def started(body):
        status, created = server.call("POST", "/v1/matches", rosa_token, body)
        expect(status == 201, f"create {body}: {status} {created}")
        expect(server.call("POST", f"/v1/matches/{created['id']}/join", sam_token, {})[0] == 200, "sam joins")
        return created["id"]

    def open_both(id):
        for page in (rosa, sam):
            page.goto(f"{here}#/match/{id}")
            page.wait_for_selector(".table-area:not([hidden])")

    # A claim: a two-second clock runs out; the other player claims the late seat.
    claimed = started({"seats": 2, "clock": {"turn_seconds": 2, "bank_seconds": 0}, "on_timeout": "claim"})
    open_both(claimed)
    mover, other = to_move([rosa, sam])
    other.wait_for_selector("[data-action=claim]", timeout=30_000)
    other.click("[data-action=claim]")
    for page in (rosa, sam):
        page.wait_for_selector(".match-result[data-ended-by=timeout]")
    print("ok: once the deadline passed, the claim button appeared and ended the match on time")

    # Calling a match off before anybody acted (the server would end a first turn that had only
    # `end_turn`, which would already rule it out: not at this table).
    called_off = started({"seats": 2, "auto_end_turn": False})
    open_both(called_off)
    confirm(rosa, "abort", "Call the match off")
    for page in (rosa, sam):
        page.wait_for_selector(".match-result[data-ended-by=aborted]")
    print("ok: calling the match off before its first action aborted it for both pages")

    # Foundations: the four suit piles are on the table; four colours on the player's word.
    founded = started({"seats": 2, "rules": {"preset": "foundations"}})
    rosa.goto(f"{here}#/settings")
    rosa.check("#four-colour")
    rosa.goto(f"{here}#/match/{founded}")
    rosa.wait_for_selector(".foundations [data-pile=FC]")
    expect(all(rosa.query_selector(f".foundations [data-pile={pile}]") for pile in ("FC", "FD", "FH", "FS")),
           "the four foundations are shown")
    fills = rosa.evaluate("""() => {
      const fill = (suit) => { const ink = document.querySelector(`.card-image.suit-${suit} .ink`);
                               return ink ? getComputedStyle(ink).fill : null; };
      return { C: fill('C'), D: fill('D'), H: fill('H'), S: fill('S') };
    }""")
    expect(fills["D"] in (None, "rgb(11, 79, 168)") and fills["C"] in (None, "rgb(28, 107, 42)")
           and any(fills.values()), f"four colours: {fills}")
    print(f"ok: a foundations table shows FC FD FH FS; the four-colour deck draws {fills}")

    # The lobby's filters and its tables being played; a player's page.
    status, waiting = server.call("POST", "/v1/matches", rosa_token, {"seats": 3})
    anonymous.goto(f"{here}#/")
    anonymous.wait_for_selector(f"[data-match='{waiting['id']}']")
    anonymous.select_option("#filter-seats", "2")
    anonymous.wait_for_selector(f"[data-match='{waiting['id']}']", state="detached")
    anonymous.select_option("#filter-seats", "3")
    anonymous.wait_for_selector(f"[data-match='{waiting['id']}']")
    anonymous.wait_for_selector(f"[data-watch='{founded}']")
    anonymous.click(f"[data-watch='{founded}'] a.button")
    anonymous.wait_for_selector(".table-area:not([hidden])")
    expect(anonymous.inner_text(".banner").startswith("Watching."), "the lobby's Watch opens the table")
    anonymous.goto(f"{here}#/players/rosa")
    anonymous.wait_for_selector("table.tally [data-preset=all]")
    counts = [int(cell) for cell in anonymous.eval_on_selector_all("table.tally [data-preset=all] td", "(cells) => cells.map((c) => c.textContent)")]
    status, record = server.call("GET", "/v1/players/rosa")
    tally = record["matches"]
    expected = [tally[key] for key in ("played", "won", "playing", "resigned", "timed_out", "aborted")]
    expect(counts == expected and tally["aborted"] == 1 and tally["playing"] >= 1, f"Rosa's page shows {counts}, the API {tally}")
    print(f"ok: the lobby's filters and Watch work for a visitor; Rosa's page shows the API's record {counts}")

    # Rosa's access token (30 s) was refreshed before it expired, and the old refresh token is
    # spent; logging out ends the new login on the server too, and leaves nothing in the tab.
    wait_until(rosa, "(first) => JSON.parse(sessionStorage.getItem('kc.session')).accessExpiresAt > first",
               arg=logged_in["accessExpiresAt"], timeout=40_000)
    refresh_token = json.loads(rosa.evaluate("() => sessionStorage.getItem('kc.session')"))["refreshToken"]
    expect(refresh_token != logged_in["refreshToken"], "the refresh token rotated")
    rosa.click("#site-account button")
    rosa.wait_for_selector("#site-account a[href='#/login']")
    expect(rosa.evaluate("() => sessionStorage.getItem('kc.session')") is None, "the tab forgets the tokens")
    status, _ = server.call("POST", "/v1/auth/refresh", body={"refresh_token": refresh_token})
    expect(status == 401, f"the logged-out refresh token answered {status}")
    print("ok: the login was refreshed before its token expired; logging out forgot the tokens and revoked the refresh token")
    for context in (rosa_context, sam_context, anonymous_context):
        context.close()


def two_accounts(pages, server, browsing, other):
    """`browsing` registered on a desktop page of /play, `other` through the API: the client's
    address, the page's context and page, and both access tokens."""
    here = f"{server.address}/play/"
    status, _ = server.call("POST", "/v1/accounts", body={"username": other, "password": PASSWORD})
    expect(status == 201, f"{other}'s registration answered {status}")
    context = pages.context(viewport=DESKTOP)
    page = pages.page(context)
    register(page, here, browsing)
    return here, context, page, server.token(browsing), server.token(other)


def a_vacation(pages, server, shots):
    step("a vacation from the panel of My matches: the table shows who is away, and the way back; "
         "ratings beside the names at a rated table and on the player's page")
    here, vera_context, vera, vera_token, otto_token = two_accounts(pages, server, "vera", "otto")
    status, table = server.call("POST", "/v1/matches", otto_token, {"seats": 2, "clock": "correspondence_1d"})
    expect(status == 201, f"otto's table answered {status}")
    status, _ = server.call("POST", f"/v1/matches/{table['id']}/join", vera_token, {})
    expect(status == 200, f"vera's join answered {status}")
    _, held = server.call("GET", "/v1/me/vacation", vera_token)

    vera.goto(f"{here}#/mine")
    vera.wait_for_selector("form[data-form=vacation]")
    three_days = time.strftime("%Y-%m-%d", time.gmtime(time.time() + 3 * 86_400))
    vera.fill("#vacation-until", three_days)
    vera.click("form[data-form=vacation] button[type=submit]")
    vera.wait_for_selector("[data-away-until]")
    _, away = server.call("GET", "/v1/me/vacation", vera_token)
    vacation = away["vacation"]
    expect(vacation is not None and vacation["until"] == vera.get_attribute("[data-away-until]", "data-away-until"),
           f"the panel shows the API's vacation: {away}")
    seconds = (time.mktime(time.strptime(vacation["until"], "%Y-%m-%dT%H:%M:%SZ"))
               - time.mktime(time.strptime(vacation["from"], "%Y-%m-%dT%H:%M:%SZ")))
    expect(away["days"] == held["days"] - -(-int(seconds) // 86_400),
           f"a day spent for each day begun: {held['days']} then {away['days']} for {seconds} s")
    axe(vera, "the vacation panel")
    screenshots(vera, shots, "vacation")

    otto_context, otto, _ = logged_in_page(pages, server, "otto")
    otto.goto(f"{here}#/match/{table['id']}")
    otto.wait_for_selector("[data-away]")
    expect("on vacation until" in otto.inner_text("[data-away]"), "the table says who is away")
    wait_until(otto, "() => document.body.innerText.includes('is on vacation until')")
    print(f"ok: vera went away until {vacation['until']} from her panel ({held['days']} days, then {away['days']}); "
          "otto's table shows her away and the log says so")

    vera.click("[data-action=come-back]")
    vera.wait_for_selector("form[data-form=vacation]")
    _, back = server.call("GET", "/v1/me/vacation", vera_token)
    expect(back["vacation"] is None, f"back: {back}")
    otto.wait_for_selector("[data-away]", state="detached", timeout=WAIT)
    print(f"ok: vera came back from the panel ({back['days']} days held); otto's table no longer shows her away")

    # The seat not to move gives the other more time from the table: the deadline moves by a turn.
    _, seen = server.call("GET", f"/v1/matches/{table['id']}/view", otto_token)
    giver = vera if seen["turn"] == seen["your_seat"] else otto
    giver.goto(f"{here}#/match/{table['id']}")
    giver.click("[data-action=give-time]")
    wait_until(giver, "() => document.body.innerText.includes('more time: 1 d 0 h')")
    screenshots(giver, shots, "time-given")
    _, after = server.call("GET", f"/v1/matches/{table['id']}/view", otto_token)
    expect(after["clock"]["banks"][seen["turn"]] - seen["clock"]["banks"][seen["turn"]] == 86_400,
           f"a day more in the bank of seat {seen['turn']}: {seen['clock']} then {after['clock']}")
    print(f"ok: {'vera' if giver is vera else 'otto'} gave seat {seen['turn']} more time from the table: a day more in its bank")

    # A rated table: ratings beside the names, and on the player's page once it is rated.
    status, rated = server.call("POST", "/v1/matches", otto_token,
                                {"seats": 2, "rated": True, "clock": "correspondence_1d"})
    expect(status == 201, f"otto's rated table answered {status}")
    status, _ = server.call("POST", f"/v1/matches/{rated['id']}/join", vera_token, {})
    expect(status == 200, f"vera's join answered {status}")
    otto.goto(f"{here}#/match/{rated['id']}")
    otto.wait_for_selector(".tag.rating")
    shown = otto.eval_on_selector_all(".tag.rating", "(tags) => tags.map((tag) => tag.textContent)")
    expect(shown == ["1000?", "1000?"], f"two newcomers' provisional ratings beside their names: {shown}")
    # A rated match is rated once every seat has taken a turn of its own (docs/ratings.md).
    every_seat_takes_a_turn(server, rated["id"], [otto_token, vera_token])
    status, _ = server.call("POST", f"/v1/matches/{rated['id']}/leave", otto_token, {})
    expect(status == 204, f"otto's resignation answered {status}")
    _, page = server.call("GET", "/v1/players/vera", vera_token)
    vera.goto(f"{here}#/players/vera")
    vera.wait_for_selector("table.ratings [data-pool=standard]")
    expect(vera.get_attribute("table.ratings [data-pool=standard]", "data-rating") == str(page["ratings"][0]["rating"]),
           f"vera's page shows the API's rating {page['ratings'][0]['rating']}")
    axe(vera, "a player's page with ratings")
    print(f"ok: a rated table shows {shown} beside the names; vera's page shows her rating {page['ratings'][0]['rating']} after the win")
    for context in (vera_context, otto_context):
        context.close()


def quick_pairing(pages, server):
    step("quick pairing from the lobby: a seek withdrawn, then one seated with another player's")
    here, ned_context, ned, ned_token, ines_token = two_accounts(pages, server, "ned", "ines")

    def seek_from_the_form(preset):
        ned.goto(f"{here}#/")
        ned.wait_for_selector("form[data-form=seek]")
        ned.select_option("#seek-preset", preset)
        ned.fill("#seek-seats", "2")
        ned.click("form[data-form=seek] button[type=submit]")
        ned.wait_for_selector(".seek[data-status=open]")
        return ned.get_attribute(".seek[data-status=open]", "data-seek")

    withdrawn = seek_from_the_form("foundations")
    ned.click(f".seek[data-seek='{withdrawn}'] [data-action=withdraw]")
    ned.wait_for_selector(f".seek[data-seek='{withdrawn}']", state="detached")
    status, _ = server.call("GET", f"/v1/seeks/{withdrawn}", ned_token)
    expect(status == 404, f"the withdrawn seek answered {status}")

    waiting = seek_from_the_form("draw-first")
    status, seated = server.call("POST", "/v1/seeks", ines_token, {"preset": "draw-first", "seats": 2})
    expect(status == 201 and seated["status"] == "matched", f"ines's seek: {status} {seated}")
    # Told by match_started on the account stream, the list shows the table to go to.
    ned.wait_for_selector(f".seek[data-seek='{waiting}'][data-status=matched] a.button")
    ned.click(f".seek[data-seek='{waiting}'] a.button")
    ned.wait_for_selector(".table-area:not([hidden])")
    expect(ned.url.endswith(f"#/match/{seated['match_id']}"), f"ned is at {ned.url}")
    axe(ned, "a table reached from quick pairing")
    print(f"ok: ned withdrew a seek from the lobby (gone: 404), and his next one was seated with ines's in {seated['match_id']}")
    ned_context.close()


def the_rule_book(pages, server, shots):
    step("the rule book: the server's HTML, headings one level under the page's, a section's link "
         "scrolls to it, every table scrolls on its own on a phone")
    context = pages.context(viewport=PHONE)
    page = pages.page(context)
    page.goto(f"{server.address}/play/#/rules")
    page.wait_for_selector("article.book h3[id='7-leaving-a-game-resignation-timeouts-abort']")
    shape = page.evaluate("""() => {
      const book = document.querySelector('article.book');
      return {
        h1: book.querySelectorAll('h1').length,
        sections: [...book.querySelectorAll('h3')].map((heading) => heading.id),
        bare: [...book.querySelectorAll('table')].filter((table) => !table.parentElement.classList.contains('table-scroll')).length,
        tables: book.querySelectorAll('.table-scroll > table').length,
        unsafe: book.querySelectorAll('script, style, [style], [onclick], img').length,
      };
    }""")
    expect(shape["h1"] == 0 and "4-options" in shape["sections"] and shape["tables"] >= 3
           and shape["bare"] == 0 and shape["unsafe"] == 0, f"the book's shape: {shape}")
    page.click("article.book a[href='#/rules'] >> text=leaving a game")
    wait_until(page, """() => {
      const top = document.getElementById('7-leaving-a-game-resignation-timeouts-abort').getBoundingClientRect().top;
      return top >= 0 && top < innerHeight / 2;
    }""")
    expect(page.url.endswith("#/rules"), f"a section's link stays on the page: {page.url}")
    axe(page, "the rule book")
    screenshots(page, shots, "rule-book")
    print(f"ok: the rule book from the server's HTML: {len(shape['sections'])} sections, {shape['tables']} tables "
          "each in its own scroller; the link to §7 scrolled to it")
    context.close()


def community(pages, server, shots):
    step("blocking from a player's page and lifting it in the settings, reporting a line of talk, "
         "muting a table's talk, private notes beside the table")
    here, nell_context, nell, nell_token, rudy_token = two_accounts(pages, server, "nell", "rudy")
    status, table = server.call("POST", "/v1/matches", rudy_token, {"seats": 2})
    expect(status == 201, f"rudy's table answered {status}")
    match = table["id"]
    status, _ = server.call("POST", f"/v1/matches/{match}/join", nell_token, {})
    expect(status == 200, f"nell's join answered {status}")
    status, said = server.call("POST", f"/v1/matches/{match}/messages", rudy_token, {"text": "you play like a goat"})
    expect(status == 201, f"rudy's talk answered {status}")

    # A line of talk reported from the table: the report is nell's, about rudy's words.
    nell.goto(f"{here}#/match/{match}")
    nell.wait_for_selector(f".talk-line[data-seq='{said['seq']}'] .report-line")
    nell.click(f".talk-line[data-seq='{said['seq']}'] .report-line")
    nell.wait_for_selector("dialog.report-dialog[open]")
    nell.select_option("#report-reason", "harassment")
    nell.fill("#report-note", "Rude from the first hand.")
    axe(nell, "the report dialog")
    screenshots(nell, shots, "report-dialog")
    nell.click("dialog.report-dialog button[type=submit]")
    nell.wait_for_selector("dialog.report-dialog", state="detached")
    _, reports = server.call("GET", "/v1/me/reports", nell_token)
    made = reports["reports"]
    expect(len(made) == 1 and made[0]["about"] == "message" and made[0]["seq"] == said["seq"]
           and made[0]["username"] == "rudy" and made[0]["note"] == "Rude from the first hand.",
           f"the report names rudy's line: {made}")
    print(f"ok: nell reported rudy's line {said['seq']} from the table ({made[0]['reason']})")

    # Muted, rudy's talk leaves the page and stays away; unmuted, it is back.
    nell.wait_for_selector("#mute-talk:not([disabled])")
    nell.check("#mute-talk")
    nell.wait_for_selector(".talk-line", state="detached")
    _, mute = server.call("GET", f"/v1/matches/{match}/mute", nell_token)
    expect(mute["muted"] is True, f"the server holds the mute: {mute}")
    status, _ = server.call("POST", f"/v1/matches/{match}/messages", rudy_token, {"text": "still there?"})
    expect(status == 201, f"rudy's second line answered {status}")
    nell.reload()
    nell.wait_for_selector("#mute-talk:checked")
    expect(nell.locator(".talk-line").count() == 0, "muted talk is not on the page after a reload")
    nell.uncheck("#mute-talk")
    wait_until(nell, "() => document.querySelectorAll('.talk-line').length === 2")
    print("ok: nell muted the table's talk (gone from the page, and after a reload) and unmuted it (both lines back)")

    # Notes: kept by the server, read back after a reload, nobody else's.
    nell.click(".notes-box summary")
    nell.fill("#match-notes", "Rudy keeps his kings for the corners.")
    nell.click("form[data-form=notes] button[type=submit]")
    wait_until(nell, "() => document.querySelector('.notes-box [role=status]').textContent === 'Saved.'")
    screenshots(nell, shots, "table-notes")
    nell.reload()
    nell.wait_for_selector("#mute-talk:not([disabled])")
    nell.click(".notes-box summary")
    wait_until(nell, "() => document.querySelector('#match-notes').value.startsWith('Rudy keeps')")
    _, theirs = server.call("GET", f"/v1/matches/{match}/notes", rudy_token)
    expect(theirs["text"] == "", f"rudy does not read nell's notes: {theirs}")
    print("ok: nell's notes were kept and read back after a reload; rudy's notes of the match are empty")

    # Followed from rudy's page: his public table shows in nell's lobby.
    nell.goto(f"{here}#/players/rudy")
    nell.click(".player-controls [data-action=follow]")
    nell.wait_for_selector(".player-controls [data-action=unfollow]")
    _, follows = server.call("GET", "/v1/me/follows", nell_token)
    expect([follow["username"] for follow in follows["follows"]] == ["rudy"], f"the server holds the follow: {follows}")
    nell.goto(f"{here}#/")
    nell.wait_for_selector(f".followed a[href*='{match}']")
    screenshots(nell, shots, "lobby-followed")
    print("ok: nell followed rudy from his page; his public table shows under 'Players you follow' in her lobby")

    # Blocked from rudy's page, listed and lifted in the settings.
    nell.goto(f"{here}#/players/rudy")
    nell.click(".player-controls [data-action=block]")
    nell.wait_for_selector(".player-controls [data-action=unblock]")
    screenshots(nell, shots, "player-blocked")
    _, blocks = server.call("GET", "/v1/me/blocks", nell_token)
    expect([block["username"] for block in blocks["blocks"]] == ["rudy"], f"the server holds the block: {blocks}")
    nell.goto(f"{here}#/settings")
    nell.wait_for_selector("[data-blocked=rudy]")
    axe(nell, "the settings with a block")
    screenshots(nell, shots, "settings-blocked")
    nell.click("[data-blocked=rudy] button")
    nell.wait_for_selector("[data-blocked=rudy]", state="detached")
    _, blocks = server.call("GET", "/v1/me/blocks", nell_token)
    expect(blocks["blocks"] == [], f"lifted: {blocks}")
    print("ok: nell blocked rudy from his page, saw him in her settings' list and lifted the block there")
    nell_context.close()


def main():
    arguments = argparse.ArgumentParser()
    arguments.add_argument("binary", nargs="?", default="target/debug/kings-corner")
    arguments.add_argument("--screenshots", default=str(ROOT / "target" / "play"))
    arguments.add_argument("--seed", type=int, default=int(os.environ.get("PLAY_SEED", "18")))
    arguments.add_argument("--only", choices=["two", "solo", "restart", "rest", "install", "away", "book", "community"],
                           help="one scenario (while working on it)")
    options = arguments.parse_args()
    shots = Path(options.screenshots)
    shots.mkdir(parents=True, exist_ok=True)
    rng = random.Random(options.seed)
    started = time.monotonic()
    typecheck()
    other_port = local_server.free_port()
    other_origin = f"http://127.0.0.1:{other_port}"
    with tempfile.TemporaryDirectory() as scratch:
        # Access tokens of 30 s (the shortest the server allows): every page refreshes its
        # login several times along the way, and must go on as if nothing happened.
        server = Server(Path(options.binary).resolve(), Path(scratch) / "play.db",
                        CORS_ALLOWED_ORIGINS=other_origin, REGISTRATIONS_PER_MINUTE="1000",
                        LOGIN_ATTEMPTS_PER_MINUTE="1000", ACCESS_TOKEN_TTL_SECONDS="30")
        httpd = serve_client(other_port)
        audit = Audit(server.address)
        try:
            with sync_playwright() as playwright:
                pages = Pages(playwright, audit, {server.address, other_origin})
                only = options.only
                if only in (None, "two"):
                    match = two_people(pages, server, other_origin, shots, rng)
                    replay_scrubber(pages, server, match, shots)
                if only in (None, "solo"):
                    solo_by_keyboard(pages, server)
                if only in (None, "restart"):
                    across_a_restart(pages, server)
                if only in (None, "install"):
                    installable(pages, server, shots)
                if only in (None, "away"):
                    away_from_the_table(pages, server, shots)
                if only in (None, "book"):
                    the_rule_book(pages, server, shots)
                if only in (None, "community"):
                    community(pages, server, shots)
                if only in (None, "rest"):
                    the_rest_of_the_table(pages, server)
                    a_vacation(pages, server, shots)
                    quick_pairing(pages, server)
                pages.report()
                pages.browser.close()
            audit.report(whole_run=options.only is None)
        finally:
            httpd.shutdown()
            server.stop()
    print(f"ok: screenshots in {shots}; the browser tests took {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
