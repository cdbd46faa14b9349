extension WebAssets {
    /// Day and night looks, a car-like bar of tabs, lists and grids of covers, the now-playing view.
    /// The settings' number fields have a width of their own: Firefox sizes a number field from its
    /// `max` (three digits), which cut the placeholder "no limit" to "no li".
    static let css = #"""
        :root { --bg: #f4f4f2; --fg: #1b1b1b; --muted: #666; --card: #fff; --accent: #0b63ce; --focus: #f0a000; }
        body.night { --bg: #0d0f12; --fg: #e8e8e8; --muted: #9aa; --card: #1b1e23; --accent: #5aa0ff; --focus: #ffb300; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.35 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
        button, select, input { font: inherit; color: inherit; background: var(--card); border: 1px solid var(--muted); border-radius: 6px; padding: 6px 10px; }
        button:disabled { opacity: .4; }
        :focus-visible, .rotary-focus { outline: 3px solid var(--focus); outline-offset: 2px; }
        .bar { display: flex; gap: 8px; align-items: center; padding: 8px; background: var(--card); border-bottom: 1px solid var(--muted); }
        .tabs { display: flex; gap: 4px; flex: 1; overflow-x: auto; }
        .tab { border: none; border-bottom: 3px solid transparent; border-radius: 0; background: none; padding: 8px 14px; white-space: nowrap; }
        .tab[aria-selected="true"] { border-bottom-color: var(--accent); font-weight: 600; }
        .search { display: flex; gap: 4px; }
        .search input { width: 12em; }
        .connection { display: flex; gap: 12px; padding: 4px 10px; font-size: 13px; color: var(--muted); }
        .connection[data-state="linked"] [data-testid="connection-state"] { color: #1a8f3a; font-weight: 600; }
        .connection[data-state="reconnecting"] [data-testid="connection-state"] { color: #c46a00; font-weight: 600; }
        main { padding: 10px 14px; }
        h1 { font-size: 20px; margin: 4px 0 10px; }
        .list { display: flex; flex-direction: column; gap: 2px; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 12px; }
        .group-heading { grid-column: 1 / -1; margin: 12px 0 4px; font-size: 14px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
        .item { display: flex; align-items: center; gap: 10px; padding: 6px; background: var(--card); border-radius: 8px; cursor: pointer; text-align: left; border: 1px solid transparent; }
        .grid .item { flex-direction: column; align-items: stretch; }
        .item .cover { width: 56px; height: 56px; object-fit: cover; border-radius: 4px; background: #8884; flex: none; }
        .grid .item .cover { width: 170px; height: 170px; align-self: center; }
        .item .text { flex: 1; min-width: 0; }
        .item .title { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .item .subtitle { color: var(--muted); font-size: 14px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .badge { display: inline-block; font-size: 11px; padding: 0 5px; border-radius: 3px; background: var(--muted); color: var(--bg); margin-left: 6px; vertical-align: middle; }
        .progress { height: 4px; background: #8884; border-radius: 2px; margin-top: 4px; }
        .progress > div { height: 100%; background: var(--accent); border-radius: 2px; }
        .load-more { margin: 12px auto; display: block; }
        .error-screen { text-align: center; padding: 40px 10px; background: var(--card); border-radius: 10px; }
        .error-screen .code { color: var(--muted); font-size: 13px; }
        .error-screen p { font-size: 18px; }
        .now-playing { display: grid; gap: 10px; max-width: 720px; margin: 0 auto; }
        .np-cover { width: 320px; height: 320px; object-fit: cover; border-radius: 10px; justify-self: center; }
        .np-title { font-size: 22px; font-weight: 700; }
        .scrubber { height: 8px; background: #8884; border-radius: 4px; overflow: hidden; }
        .scrubber .fill { height: 100%; width: 0; background: var(--accent); }
        .times { display: flex; justify-content: space-between; font-variant-numeric: tabular-nums; color: var(--muted); }
        .controls { display: flex; gap: 8px; align-items: center; justify-content: center; flex-wrap: wrap; }
        .queue { margin: 0; padding-left: 2em; }
        .queue li { padding: 3px 0; cursor: pointer; }
        .queue li[data-current="true"] { font-weight: 700; color: var(--accent); }
        .toasts { position: fixed; bottom: 14px; left: 50%; transform: translateX(-50%); display: flex; flex-direction: column; gap: 6px; z-index: 10; }
        .toast { background: #222e; color: #fff; padding: 10px 16px; border-radius: 8px; max-width: 80vw; }
        .toast[data-kind="sessionError"] { background: #8a1f11ee; }
        .settings { border: 1px solid var(--muted); border-radius: 10px; background: var(--card); color: var(--fg); }
        .settings label { display: block; margin: 8px 0; }
        .settings input[type="number"] { width: 7.5em; }
        [hidden] { display: none !important; }
        """#
}
