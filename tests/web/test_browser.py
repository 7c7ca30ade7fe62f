"""The page in a real browser: headless Chromium (Debian's chromium and chromium-driver) through Selenium
plays a game of each game against its zoo bot by clicking, and steps through the replay of a leaderboard
game (docs/leaderboard/octrix.games.jsonl, a game of the zoo bot, with its thinking); it saves each
game's page as a screenshot in docs/img/web_<game>.png when OCTAGAMES_SCREENSHOTS=1."""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'octagames[web]'")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra: pip install 'octagames[web]'")
webdriver = pytest.importorskip("selenium.webdriver", reason="the web extra: pip install 'octagames[web]'")
pytest.importorskip("torch", reason="the zoo bots need the train extra: pip install 'octagames[train]'")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from octagames.web.app import create_app  # noqa: E402

CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ROOT = Path(__file__).resolve().parents[2]
#: one variant of each game that a zoo model plays, and the bot's small search budget
GAMES = [("octrix", "zoo:octrix:8"), ("achten-dealer-pays", "zoo:achten-dealer-pays:8"),
         ("octiles-fixed-start", "zoo:octiles-fixed-start:8"), ("octa-nl", "zoo:octa-nl:8")]
#: clicks per game (a whole Octrix match or Octa game takes hundreds of moves): the game is played
#: by clicking up to here
CLICKS = 6
#: how long a bot's move may take: the Octa zoo bot rolls out 256 believed worlds per move, about 10 s
#: on an idle core and past a minute when the machine is loaded (the test waits; it is not a timing test)
BOT_MOVE_S = 300.0

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no Chromium: apt-get install chromium chromium-driver (Debian) runs the browser test")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = tmp_path_factory.mktemp("served")
    (root / "runs").mkdir()
    server = uvicorn.Server(uvicorn.Config(create_app(root), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/", root
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(arg)
    # the driver Debian installs: selenium-manager downloads nothing
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def wait(driver, condition, timeout: float = 60.0):
    end = time.time() + timeout
    while time.time() < end:
        value = condition(driver)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out; status: {driver.find_element(By.ID, 'status').text!r}, "
                         f"error: {driver.find_element(By.ID, 'error').text!r}")


def my_turn_or_over(driver) -> str:
    body = driver.find_element(By.TAG_NAME, "body")
    error = driver.find_element(By.ID, "error").text
    assert not error, error
    return "over" if body.get_attribute("data-over") == "1" else "mine" if body.get_attribute("data-my-turn") == "1" else ""


def test_browser_plays_each_game_against_a_zoo_bot_by_clicking_and_steps_through_a_replay(served, browser):
    url, root = served
    shots = os.environ.get("OCTAGAMES_SCREENSHOTS") == "1"
    seconds: dict[str, float] = {}
    for variant, bot in GAMES:
        browser.get(url)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#variant option[value='{variant}']"))
        assert len(browser.find_elements(By.CSS_SELECTOR, "#catalogue tbody tr")) >= 12  # every variant named
        browser.find_element(By.CSS_SELECTOR, f"#variant option[value='{variant}']").click()
        seat1 = browser.find_element(By.ID, "seat-1")
        seat1.clear()
        seat1.send_keys(bot)
        start = time.time()
        browser.find_element(By.ID, "start").click()
        clicks = 0
        # CLICKS moves, then on until the bot has moved too (an Octa turn may take more clicks than CLICKS)
        while clicks < CLICKS or not bot_moved(browser):
            assert clicks < 20 * CLICKS, "the bot has not moved"
            if wait(browser, my_turn_or_over, BOT_MOVE_S) == "over":
                break
            step = int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-step"))
            # every id once (the picture's list of moves had the page's list's id, "moves": the page hid its own
            # list on every turn after the first in Achten and Octa), and the list shown beside the picture
            assert browser.execute_script("const ids = [...document.querySelectorAll('[id]')].map((e) => e.id);"
                                          "return ids.filter((x, i) => ids.indexOf(x) !== i)") == [], variant
            assert browser.find_element(By.CSS_SELECTOR, "#legal button.move").is_displayed(), (variant, clicks)
            on_picture = browser.find_elements(By.CSS_SELECTOR, "#picture [data-action]")
            target = on_picture[0] if on_picture else browser.find_element(By.CSS_SELECTOR, "#legal button.move")
            try:
                target.click()
            except StaleElementReferenceException:  # the page redrew the table between finding and clicking
                continue
            clicks += 1
            wait(browser, lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-step")) > step)
        assert clicks > 0
        seconds[variant] = round(time.time() - start, 1)
        assert bot_moved(browser)
        assert any(line.startswith("P0") for line in texts(browser, "#history li")), "our clicks moved"
        if variant.startswith("octiles"):  # perfect information: the bot's thinking is shown at once
            wait(browser, lambda d: "simulations or worlds" in d.find_element(By.ID, "thinking").text)
            assert "%, value " in browser.find_element(By.ID, "thinking").text
        if shots:
            browser.save_screenshot(str(ROOT / "docs" / "img" / f"web_{variant.split('-')[0]}.png"))

    # a replay of a leaderboard game: the published journal the page offers, a game of the zoo bot
    journal = "docs/leaderboard/octrix.games.jsonl"
    (root / journal).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / journal, root / journal)
    index, record = zoo_game(ROOT / journal, "zoo:octrix")
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#replay-files option[value='{journal}']"))
    browser.find_element(By.ID, "replay-path").send_keys(journal)
    box = browser.find_element(By.ID, "replay-index")
    box.clear()
    box.send_keys(str(index))
    browser.find_element(By.ID, "open").click()
    wait(browser, lambda d: d.find_element(By.ID, "step-label").text.startswith("move 0 /"))
    assert browser.find_element(By.ID, "step-label").text.startswith(f"move 0 / {record['length']}")
    for _ in range(5):
        browser.find_element(By.ID, "forward").click()
    wait(browser, lambda d: d.find_element(By.ID, "step-label").text.startswith("move 5 /"))
    assert len(texts(browser, "#history li")) == 5
    browser.find_element(By.ID, "back").click()
    wait(browser, lambda d: d.find_element(By.ID, "step-label").text.startswith("move 4 /"))
    browser.find_element(By.ID, "last").click()
    wait(browser, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-over") == "1")
    assert len(texts(browser, "#history li")) == record["length"]
    # the zoo bot's thinking, as the leaderboard game kept it: its last move's shares
    last = max(int(k) for k in record["thinking"])
    wait(browser, lambda d: d.find_element(By.ID, "thinking").text.startswith(f"move {last} by P"))
    assert "%" in browser.find_element(By.ID, "thinking").text
    if shots:
        browser.save_screenshot(str(ROOT / "docs" / "img" / "web_replay.png"))
    print("seconds per game:", seconds)


def test_the_page_keeps_a_refused_move_s_reason_polls_on_after_a_failure_and_shows_a_reply_that_is_not_json(
        served, browser):
    url, _ = served
    browser.set_script_timeout(30)
    browser.get(url)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#variant option[value='achten']"))
    browser.find_element(By.CSS_SELECTOR, "#variant option[value='achten']").click()
    seat1 = browser.find_element(By.ID, "seat-1")
    seat1.clear()
    seat1.send_keys("random")
    browser.find_element(By.ID, "start").click()
    assert wait(browser, my_turn_or_over) == "mine"
    # a move the server refuses: the reason stays on the page while the table is drawn again
    browser.execute_script("play(99999)")
    wait(browser, lambda d: "is not an action of achten" in d.find_element(By.ID, "error").text)
    shown = browser.execute_async_script("const done = arguments[arguments.length - 1];"
                                         "refresh().then(() => done($('error').textContent));")
    assert "is not an action of achten" in shown
    # a poll that fails (the network is down) is tried again, later
    calls = browser.execute_async_script("""
        const done = arguments[arguments.length - 1], real = window.fetch, start = Date.now();
        let calls = 0;
        window.fetch = (...args) => { calls += 1; return calls === 1 ? Promise.reject(new TypeError("offline"))
                                                                      : real(...args); };
        refresh();
        (function check() {
          if (calls >= 2 || Date.now() - start > 10000) { window.fetch = real; done(calls); }
          else setTimeout(check, 50);
        })();""")
    assert calls >= 2, "the page stopped polling after a failed request"
    wait(browser, lambda d: "is not an action of achten" in d.find_element(By.ID, "error").text)
    # a reply that is not JSON (a proxy's page) is shown in its own words; the server's 404 is JSON
    said = browser.execute_async_script("""
        const done = arguments[arguments.length - 1], real = window.fetch;
        window.fetch = () => Promise.resolve(new Response("the proxy is down for maintenance", {status: 502}));
        api("GET", "/api/catalogue").then(() => done("no error"), (e) => done(e.message))
          .finally(() => { window.fetch = real; });""")
    assert said == "the proxy is down for maintenance"
    said = browser.execute_async_script("const done = arguments[arguments.length - 1]; api('GET', '/api/nothing')"
                                        ".then(() => done('no error'), (e) => done(e.message));")
    assert said.startswith("no such page or API route"), said
    # a move played clears the refusal
    legal = browser.execute_script("return [...document.querySelectorAll('#legal button.move')]"
                                   ".map((b) => Number(b.dataset.action))")
    browser.execute_script(f"play({legal[0]})")
    wait(browser, lambda d: not d.find_element(By.ID, "error").text)


def test_the_page_plays_every_human_seat_hiding_the_table_between_seats_that_see_different_things(served, browser):
    url, _ = served
    for variant, hidden in [("achten", True), ("octiles-fixed-start", False)]:
        browser.get(url)
        wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f"#variant option[value='{variant}']"))
        browser.find_element(By.CSS_SELECTOR, f"#variant option[value='{variant}']").click()
        seat1 = browser.find_element(By.ID, "seat-1")
        seat1.clear()
        seat1.send_keys("human")
        browser.find_element(By.ID, "start").click()
        if hidden:  # whoever pressed Start does not see the first seat's cards: the table opens covered
            wait(browser, lambda d: attr(d, "data-covered") == "1")
            assert browser.execute_script("return $('render').textContent + $('legal').textContent") == ""
            assert "pass the screen to P1" in browser.find_element(By.ID, "handover-text").text
            browser.find_element(By.ID, "handover-show").click()
        wait(browser, lambda d: attr(d, "data-my-turn") == "1")
        # the page opens on the seat to act (its moves shown): Achten's first choice is always P1's
        assert variant != "achten" or attr(browser, "data-seat") == "1"
        options = browser.execute_script("return [...$('play-seat').options].map((o) => o.textContent)")
        assert options == ["P0", "P1"] and browser.find_element(By.ID, "play-seat-box").is_displayed()
        handovers, movers = 0, set()
        for _ in range(12):
            step, seat = int(attr(browser, "data-step")), attr(browser, "data-seat")
            browser.execute_script("document.querySelector('#legal button.move').click()")
            movers.add(seat)
            state = wait(browser, lambda d: "covered" if attr(d, "data-covered") == "1" else
                         "mine" if attr(d, "data-my-turn") == "1" and int(attr(d, "data-step")) > step else
                         "over" if attr(d, "data-over") == "1" else "")
            if state == "over":
                break
            if state == "covered":  # the next seat's view waits for its player; the table shows nothing
                assert hidden and attr(browser, "data-seat") != seat
                assert not browser.find_element(By.ID, "board").is_displayed()
                assert not browser.find_element(By.ID, "move-list").is_displayed()
                assert browser.execute_script("return $('render').textContent + $('legal').textContent") == ""
                after = attr(browser, "data-seat")
                assert f"pass the screen to P{after}" in browser.find_element(By.ID, "handover-text").text
                handovers += 1
                browser.find_element(By.ID, "handover-show").click()
                wait(browser, lambda d: attr(d, "data-my-turn") == "1" and attr(d, "data-covered") != "1")
                assert attr(browser, "data-seat") == after
            assert browser.find_element(By.ID, "title").text.endswith(f"(you are P{attr(browser, 'data-seat')}; "
                                                                     "this page plays P0, P1 in turn)")
        assert movers == {"0", "1"}, movers  # both seats played from the one page
        assert (handovers > 0) is hidden
        # the seat selector turns to the other seat (not to act: its view, without moves)
        seat = attr(browser, "data-seat")
        other = "1" if seat == "0" else "0"
        browser.execute_script(f"$('play-seat').value = '{other}'; $('play-seat').onchange()")
        if hidden:
            wait(browser, lambda d: attr(d, "data-covered") == "1")
            browser.find_element(By.ID, "handover-show").click()
        wait(browser, lambda d: attr(d, "data-seat") == other and attr(d, "data-covered") != "1"
             and not d.find_elements(By.CSS_SELECTOR, "#legal button.move") and d.find_element(By.ID, "render").text)
        assert f"seat={other}" in browser.current_url


def attr(driver, name: str) -> str | None:
    """An attribute of the page's body (the page's state: data-seat, data-step, data-my-turn, ...)."""
    return driver.find_element(By.TAG_NAME, "body").get_attribute(name)


def bot_moved(driver) -> bool:
    """Whether the move list shows a move of the bot (P1), read in one script (the page redraws while the
    bot plays)."""
    return any(line.startswith("P1") for line in texts(driver, "#history li"))


def texts(driver, selector: str) -> list[str]:
    """The text of every element ``selector`` matches, read in one script (no stale elements)."""
    return driver.execute_script(f"return [...document.querySelectorAll('{selector}')].map(e => e.textContent)")


def zoo_game(path: Path, agent: str) -> tuple[int, dict]:
    """The first game of a leaderboard journal that ``agent`` played, with its thinking: its index among
    the journal's records (the page's "game #") and its record."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    kept = [row["record"] for row in rows if isinstance(row.get("record"), dict)]
    return next((i, r) for i, r in enumerate(kept) if agent in r["agents"] and r.get("thinking"))
