"""``octagames serve``: play the games against the bots and watch replays in a browser.

The web room: :mod:`octagames.web.app` (the Starlette app and its HTTP API), :mod:`octagames.web.views`
(what a seat is shown, framework-free) and ``static/`` (the page: plain HTML, JavaScript and SVG).
Only the command line (``octagames.experiments.serve``) imports it; it needs the ``web`` extra.
"""
